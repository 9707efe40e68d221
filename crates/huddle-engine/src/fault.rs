//! Fault injection: one party deviates from a malicious protocol on purpose,
//! for tests and demonstrations (`huddle local --corrupt P --fault KIND
//! [--fault-at MESSAGE]`). The deviation is applied where that party's
//! messages leave it (the engine's `Channel`), so the protocol code is
//! the honest code: whatever the honest parties' checks catch, they catch in
//! the protocol as it runs for real.
//!
//! Every message a malicious protocol sends carries a type ([`MessageType`],
//! listed per protocol with the parties that send it); a fault hits the
//! messages of one type, or of every type.
//!
//! Public with the `fault-injection` feature only ([`MessageType`], which a
//! protocol's [`Descriptor`](crate::protocol::Descriptor) lists, is public
//! always); without it a run never deviates.
// Without the feature the module is private, its `pub` items are the
// engine's own, and no fault is ever made.
#![cfg_attr(not(feature = "fault-injection"), allow(unreachable_pub, dead_code))]

use crate::error::RunError;
use huddle_core::Prg;
use huddle_net::PartyId;

/// How the corrupted party deviates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// Adds a random non-zero error to one random element of each message.
    AddError,
    /// Adds the error only to the messages for one of the receivers of a
    /// type (its first), so that receivers see different values.
    Inconsistent,
    /// Does not send the messages.
    Drop,
    /// Sends every message twice.
    Duplicate,
    /// Lies in its compare-view digests (an error in digest messages only).
    BadHash,
}

impl FaultKind {
    /// Every kind, in the order `--fault` lists them.
    pub const ALL: [FaultKind; 5] = [
        FaultKind::AddError,
        FaultKind::Inconsistent,
        FaultKind::Drop,
        FaultKind::Duplicate,
        FaultKind::BadHash,
    ];

    /// The `--fault` spelling.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::AddError => "add-error",
            FaultKind::Inconsistent => "inconsistent",
            FaultKind::Drop => "drop",
            FaultKind::Duplicate => "duplicate",
            FaultKind::BadHash => "bad-hash",
        }
    }

    /// The kind its `--fault` spelling names ([`RunError::Input`] lists
    /// the spellings otherwise).
    pub fn parse(s: &str) -> Result<FaultKind, RunError> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
                RunError::Input(format!(
                    "unknown fault `{s}` (use one of: {})",
                    names.join(", ")
                ))
            })
    }
}

/// A type of message of a malicious protocol.
#[derive(Debug)]
pub struct MessageType {
    /// Its name (what `--fault-at` takes).
    pub name: &'static str,
    /// The parties that send messages of this type.
    pub senders: &'static [PartyId],
    /// Whether it carries compare-view digests (what `bad-hash` hits).
    pub digest: bool,
}

/// A row of a protocol's message-type list ([`crate::sharing::messages`]).
pub(crate) const fn message(
    name: &'static str,
    senders: &'static [PartyId],
    digest: bool,
) -> MessageType {
    MessageType {
        name,
        senders,
        digest,
    }
}

/// One party's deviation in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The corrupted party.
    pub party: PartyId,
    /// How it deviates.
    pub kind: FaultKind,
    /// Index into the protocol's message types; None: every type.
    pub message: Option<usize>,
    /// Where the errors and positions come from (replays exactly).
    pub seed: u64,
}

impl Fault {
    /// Checks the fault against the protocol's message types and parties.
    pub(crate) fn check(
        &self,
        protocol: &str,
        types: &[MessageType],
        parties: usize,
    ) -> Result<(), RunError> {
        let err = |m: String| Err(RunError::Input(m));
        if types.is_empty() {
            return err(format!(
                "{protocol} has no checks to test: --corrupt applies to the malicious secret-sharing protocols"
            ));
        }
        if self.party >= parties {
            return err(format!(
                "--corrupt {}: the run has parties 0..{}",
                self.party,
                parties - 1
            ));
        }
        let sends = |t: &MessageType| t.senders.contains(&self.party);
        match self.message {
            Some(i) => {
                let Some(t) = types.get(i) else {
                    return err(format!("{protocol} has no message type number {i}"));
                };
                if !sends(t) {
                    return err(format!(
                        "party {} never sends `{}` in {protocol}",
                        self.party, t.name
                    ));
                }
                if self.kind == FaultKind::BadHash && !t.digest {
                    return err(format!(
                        "`{}` carries no digest; bad-hash lies in digests",
                        t.name
                    ));
                }
            }
            None => {
                if !types.iter().any(sends) {
                    return err(format!("party {} sends nothing in {protocol}", self.party));
                }
            }
        }
        Ok(())
    }

    /// The message type named `name` in `types`.
    pub fn message_index(
        protocol: &str,
        types: &[MessageType],
        name: &str,
    ) -> Result<usize, RunError> {
        types.iter().position(|t| t.name == name).ok_or_else(|| {
            let names: Vec<&str> = types.iter().map(|t| t.name).collect();
            RunError::Input(format!(
                "{protocol} has no message `{name}` (its messages: {})",
                names.join(", ")
            ))
        })
    }
}

/// A fault as the corrupted party's channel applies it.
pub(crate) struct ActiveFault {
    fault: Fault,
    digest_types: Vec<bool>,
    prg: Prg,
    /// Per message type: the receiver `Inconsistent` singles out.
    first_receiver: Vec<Option<PartyId>>,
}

/// What to do with one outgoing message.
pub(crate) enum Action {
    Send,
    Drop,
    Twice,
}

impl ActiveFault {
    pub(crate) fn new(fault: Fault, types: &[MessageType], lane: usize) -> ActiveFault {
        let mut seed = [0u8; 16];
        seed[..8].copy_from_slice(&fault.seed.to_le_bytes());
        seed[8..].copy_from_slice(&(lane as u64).to_le_bytes());
        ActiveFault {
            fault,
            digest_types: types.iter().map(|t| t.digest).collect(),
            prg: Prg::from_seed(seed),
            first_receiver: vec![None; types.len()],
        }
    }

    /// Applies the fault to a message of type `tag` for `to` whose words
    /// travel as `encoding` says.
    pub(crate) fn apply(
        &mut self,
        tag: usize,
        to: PartyId,
        words: &mut [u64],
        encoding: crate::sharing::wire::Encoding,
    ) -> Action {
        if self.fault.message.is_some_and(|m| m != tag) || words.is_empty() {
            return Action::Send;
        }
        let error = match self.fault.kind {
            FaultKind::Drop => return Action::Drop,
            FaultKind::Duplicate => return Action::Twice,
            FaultKind::AddError => true,
            FaultKind::BadHash => self.digest_types.get(tag).copied().unwrap_or(false),
            FaultKind::Inconsistent => *self.first_receiver[tag].get_or_insert(to) == to,
        };
        if error {
            // An element that travels (not a packed word's padding lane).
            let elements = encoding.elements(words.len()) as u64;
            let (at, mask) = encoding.element((self.prg.next_u64() % elements) as usize);
            let e = loop {
                let e = self.prg.next_u64() & mask;
                if e != 0 {
                    break e;
                }
            };
            words[at] ^= e;
        }
        Action::Send
    }
}
