//! The trusted dealer's material for a party on another host: a
//! [`Recorder`] records a source's answers ([`Recording`]); `huddle deal`
//! writes each party's recording to a file (the format is here, with its
//! [`DealtHeader`] and [`deal_id`]), and the party replays it as [`Dealt`],
//! checking every call against the one its run makes.

use super::LinearSource;
use crate::error::RunError;
use huddle_core::Gf128;
use huddle_net::PartyId;

/// What one party's functionality calls returned, in order: the trusted
/// dealer's material for a party on another host (`huddle deal` writes it,
/// `huddle party --dealt` replays it through [`Dealt`]).
#[derive(Default)]
pub(crate) struct Recording {
    calls: Vec<Recorded>,
}

enum Recorded {
    Bits(Vec<Gf128>),
    OwnedBits(PartyId, Vec<Gf128>, Vec<bool>),
    OwnedElement(PartyId, Gf128, Option<Gf128>),
    Zeros(Vec<Gf128>),
}

/// A source that records what another one returns.
pub(crate) struct Recorder<'a> {
    pub inner: &'a mut dyn LinearSource,
    pub recording: &'a mut Recording,
}

impl LinearSource for Recorder<'_> {
    fn bits(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let start = shares.len();
        self.inner.bits(count, shares)?;
        self.recording
            .calls
            .push(Recorded::Bits(shares[start..].to_vec()));
        Ok(())
    }

    fn owned_bits(
        &mut self,
        owner: PartyId,
        count: usize,
        shares: &mut Vec<Gf128>,
        secrets: &mut Vec<bool>,
    ) -> Result<(), RunError> {
        let (start, first) = (shares.len(), secrets.len());
        self.inner.owned_bits(owner, count, shares, secrets)?;
        self.recording.calls.push(Recorded::OwnedBits(
            owner,
            shares[start..].to_vec(),
            secrets[first..].to_vec(),
        ));
        Ok(())
    }

    fn owned_element(&mut self, owner: PartyId) -> Result<(Gf128, Option<Gf128>), RunError> {
        let (share, secret) = self.inner.owned_element(owner)?;
        self.recording
            .calls
            .push(Recorded::OwnedElement(owner, share, secret));
        Ok((share, secret))
    }

    fn zeros(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let start = shares.len();
        self.inner.zeros(count, shares)?;
        self.recording
            .calls
            .push(Recorded::Zeros(shares[start..].to_vec()));
        Ok(())
    }
}

const DEALT_MAGIC: &[u8; 16] = b"huddle dealt v2\n";

/// Where the deal id sits in a dealt file: after the magic, four counts and
/// the circuit hash.
const DEAL_ID_AT: usize = 16 + 32 + 32;

/// The random id of one `huddle deal` (the same in every party's file):
/// parties compare it in their hello, so all of them replay the same deal,
/// and a party refuses an id it has used before (dealt material is one-time:
/// a rerun would reuse every wire mask).
pub fn deal_id(bytes: &[u8]) -> Result<[u8; 16], RunError> {
    if bytes.len() < DEAL_ID_AT + 16 || &bytes[..16] != DEALT_MAGIC {
        return Err(RunError::Input(
            "dealt material: not a file written by `huddle deal` (of this version)".into(),
        ));
    }
    let mut id = [0u8; 16];
    id.copy_from_slice(&bytes[DEAL_ID_AT..DEAL_ID_AT + 16]);
    Ok(id)
}

/// Whom and what a recording was dealt for; a party checks it before use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DealtHeader {
    pub party: PartyId,
    pub parties: usize,
    pub instances: usize,
    /// Key contributors (with or without short superseeds).
    pub contributors: usize,
    pub circuit: [u8; 32],
    /// The deal's random id (see [`deal_id`]); not compared by
    /// [`Dealt::open`]: the parties' hello does that.
    pub deal: [u8; 16],
}

impl Recording {
    /// The file a party receives: header, then every call.
    pub(crate) fn encode(&self, header: &DealtHeader) -> Vec<u8> {
        let mut out = DEALT_MAGIC.to_vec();
        for v in [
            header.party,
            header.parties,
            header.instances,
            header.contributors,
        ] {
            out.extend_from_slice(&(v as u64).to_le_bytes());
        }
        out.extend_from_slice(&header.circuit);
        out.extend_from_slice(&header.deal);
        let put_shares = |out: &mut Vec<u8>, v: &[Gf128]| {
            out.extend_from_slice(&(v.len() as u64).to_le_bytes());
            for s in v {
                out.extend_from_slice(&s.to_bytes());
            }
        };
        for call in &self.calls {
            match call {
                Recorded::Bits(v) => {
                    out.push(0);
                    put_shares(&mut out, v);
                }
                Recorded::OwnedBits(owner, v, bits) => {
                    out.push(1);
                    out.extend_from_slice(&(*owner as u64).to_le_bytes());
                    put_shares(&mut out, v);
                    out.extend_from_slice(&(bits.len() as u64).to_le_bytes());
                    out.extend(bits.iter().map(|&b| u8::from(b)));
                }
                Recorded::OwnedElement(owner, share, secret) => {
                    out.push(2);
                    out.extend_from_slice(&(*owner as u64).to_le_bytes());
                    out.extend_from_slice(&share.to_bytes());
                    out.push(u8::from(secret.is_some()));
                    out.extend_from_slice(&secret.unwrap_or_default().to_bytes());
                }
                Recorded::Zeros(v) => {
                    out.push(3);
                    put_shares(&mut out, v);
                }
            }
        }
        out
    }
}

/// A recording being replayed, checked call by call against what the run
/// asks for.
pub(crate) struct Dealt {
    bytes: Vec<u8>,
    at: usize,
    call: usize,
}

impl Dealt {
    /// Checks the header against the run (`want`) and returns the replayer.
    pub(crate) fn open(bytes: Vec<u8>, want: &DealtHeader) -> Result<Dealt, RunError> {
        let bad = |m: String| RunError::Input(format!("dealt material: {m}"));
        deal_id(&bytes)?;
        let mut d = Dealt {
            bytes,
            at: 16,
            call: 0,
        };
        let (party, parties, instances, contributors) = (d.u64()?, d.u64()?, d.u64()?, d.u64()?);
        let mut circuit = [0u8; 32];
        circuit.copy_from_slice(d.take(32)?);
        d.take(16)?; // the deal id
        let checks = [
            ("party", party, want.party),
            ("parties", parties, want.parties),
            ("instances", instances, want.instances),
            ("key contributors", contributors, want.contributors),
        ];
        for (what, file, run) in checks {
            if file != run as u64 {
                return Err(bad(format!(
                    "dealt for {what} {file}, but this run has {what} {run}"
                )));
            }
        }
        if circuit != want.circuit {
            return Err(bad("dealt for a different circuit".into()));
        }
        Ok(d)
    }

    fn take(&mut self, n: usize) -> Result<&[u8], RunError> {
        let call = self.call;
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| RunError::Input(format!("dealt material ends early (call {call})")))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u64(&mut self) -> Result<u64, RunError> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }

    fn element(&mut self) -> Result<Gf128, RunError> {
        let mut b = [0u8; 16];
        b.copy_from_slice(self.take(16)?);
        Ok(Gf128::from_bytes(b))
    }

    /// The next call's kind, checked against the one the run makes.
    fn expect(&mut self, kind: u8, name: &str) -> Result<(), RunError> {
        self.call += 1;
        let got = self.take(1)?[0];
        if got != kind {
            return Err(RunError::Input(format!(
                "dealt material does not match this run: call {} is {name}, the file has kind {got}",
                self.call
            )));
        }
        Ok(())
    }

    fn shares(&mut self, count: usize, out: &mut Vec<Gf128>) -> Result<(), RunError> {
        let n = self.u64()?;
        if n != count as u64 {
            return Err(RunError::Input(format!(
                "dealt material does not match this run: call {} wants {count} values, the file has {n}",
                self.call
            )));
        }
        for _ in 0..count {
            out.push(self.element()?);
        }
        Ok(())
    }

    fn owner(&mut self, owner: PartyId) -> Result<(), RunError> {
        let got = self.u64()?;
        if got != owner as u64 {
            return Err(RunError::Input(format!(
                "dealt material does not match this run: call {} is owned by party {owner}, the file says {got}",
                self.call
            )));
        }
        Ok(())
    }
}

impl LinearSource for Dealt {
    fn bits(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        self.expect(0, "random bits")?;
        self.shares(count, shares)
    }

    fn owned_bits(
        &mut self,
        owner: PartyId,
        count: usize,
        shares: &mut Vec<Gf128>,
        secrets: &mut Vec<bool>,
    ) -> Result<(), RunError> {
        self.expect(1, "owned bits")?;
        self.owner(owner)?;
        self.shares(count, shares)?;
        let n = self.u64()?;
        let n =
            usize::try_from(n).map_err(|_| RunError::Input("dealt material: bad length".into()))?;
        let bits = self.take(n)?;
        secrets.extend(bits.iter().map(|&b| b == 1));
        Ok(())
    }

    fn owned_element(&mut self, owner: PartyId) -> Result<(Gf128, Option<Gf128>), RunError> {
        self.expect(2, "an owned element")?;
        self.owner(owner)?;
        let share = self.element()?;
        let known = self.take(1)?[0] == 1;
        let secret = self.element()?;
        Ok((share, known.then_some(secret)))
    }

    fn zeros(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        self.expect(3, "zeros")?;
        self.shares(count, shares)
    }
}
