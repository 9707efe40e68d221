//! The engine's error type: every failure of a run, by kind, each kind with
//! its exit code ([`crate::exit`]). Where a caller must tell cases apart,
//! the case is a type: a refusal's [`Refusal`], an abort's [`FailedCheck`];
//! the printed message is their `Display`.

use crate::exit::Exit;
use huddle_net::{NetError, PartyId};
use serde::{Serialize, Serializer};

/// Why a run failed. The kinds are distinct so that callers and tests can
/// tell a typo from a cheating peer, and the CLI exits with a code per kind
/// ([`RunError::exit`]).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad input from the user or a file: request, options, circuit, input
    /// values, dealt material. Nothing was sent, or the run stopped before
    /// anything secret was.
    #[error("{0}")]
    Input(String),
    /// A request refused for a reason a caller may act on, told by its
    /// kind ([`Refusal`]); like [`RunError::Input`], nothing was sent.
    #[error("{message}")]
    Refused {
        /// Why, as a type.
        refusal: Refusal,
        /// Why, as the user reads it.
        message: String,
    },
    /// A check of the protocol failed: a peer deviated (or a message was
    /// tampered with). Every honest party that sees it stops without output.
    #[error("abort: {check}{}", lane_text(.lane))]
    Abort {
        /// Which check failed, and what it compared.
        check: FailedCheck,
        /// The party the failed check points at, where one does.
        culprit: Option<PartyId>,
        /// In a `--split-roles` run, the lane whose check failed: the
        /// check's party numbers are then the lane's roles (`culprit` is a
        /// party).
        lane: Option<RoleLane>,
    },
    /// The network failed or a peer broke the transport's rules (names the peer).
    #[error(transparent)]
    Net(#[from] NetError),
    /// The run would exceed a resource of this machine (memory).
    #[error("{0}")]
    Resource(String),
    /// The operating system gave no randomness.
    #[error("no randomness from the operating system: {0}")]
    Entropy(String),
    /// A bug in huddle: an invariant did not hold.
    #[error("internal error (a bug in huddle): {0}")]
    Internal(String),
}

/// The kind of a [`RunError::Refused`]. As JSON (`huddle local --json` and
/// `huddle party --json` on failure, docs/cli.md): an object whose `kind`
/// is the variant's name in kebab case, with its fields beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Refusal {
    /// The party count gives no security (a corruption threshold of 0):
    /// the protocol needs at least `smallest` parties.
    NoSecurity {
        /// The smallest party count with any security.
        smallest: usize,
    },
    /// An option does not apply to the protocol, or not together with
    /// another option; `option` is its command-line name.
    Option {
        /// The option refused (`split-roles`, `corrupt`, `reveal-to`,
        /// `opt`, ...).
        option: &'static str,
    },
    /// bgw2-mal's linear preprocessing needs the trusted dealer, and none
    /// is at hand: PRSS for `parties` parties at threshold `threshold`
    /// needs more key sets than huddle allows
    /// ([`PRSS_MAX_SETS`](crate::garble::linear::PRSS_MAX_SETS)), or the
    /// dealer was chosen but gave no material. `huddle local` runs the
    /// dealer in the process; across hosts `huddle deal` writes the
    /// parties' material (`huddle party --dealt`).
    NeedsDealer {
        /// The run's party count.
        parties: usize,
        /// Its corruption threshold t.
        threshold: usize,
    },
    /// One-time material was used before: party `party`'s share of the
    /// trusted dealer's deal `deal` (a rerun would reuse every wire mask
    /// and key). As JSON, `deal` is 32 hex digits.
    Spent {
        /// The deal's random id (the same in every party's dealt file).
        #[serde(serialize_with = "hex")]
        deal: [u8; 16],
        /// The party whose share of the deal was spent.
        party: PartyId,
    },
}

/// A protocol check that failed, naming what it compared; its `Display`
/// is the abort's message (after `abort: `). The party numbers are the
/// protocol's (in a `--split-roles` lane, its roles; see
/// [`RunError::Abort`]). As JSON: an object whose `kind` is the variant's
/// name in kebab case, with its fields beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FailedCheck {
    /// Compare-view: a peer's digest of the values of `view` differs from
    /// this party's (`me`), or a value received at reveal differs from a
    /// verifier's digest of it.
    #[error("compare-view check `{view}` failed: party {peer}'s digest differs from party {me}'s")]
    CompareView {
        /// What the view compares (e.g. `input x2 from P0 (P1, P3)`).
        view: &'static str,
        /// The peer whose digest differs.
        peer: PartyId,
        /// This party.
        me: PartyId,
    },
    /// A member of `view` reports that its compare-view check failed (it
    /// saw a failure, or it lies: either ends the run).
    #[error("party {reporter} reports that compare-view check `{view}` failed")]
    ReportedFailure {
        /// The party that reported the failure.
        reporter: PartyId,
        /// The view it reports.
        view: &'static str,
    },
    /// A verdict that cannot be true: it names no check (`view` is None),
    /// or one its sender takes no part in, so could not have seen fail.
    #[error("{}", forged_text(*.reporter, *.view))]
    ForgedVerdict {
        /// The party that sent the verdict.
        reporter: PartyId,
        /// The check it names, if any.
        view: Option<&'static str>,
    },
    /// Subset keys: a party's opening of its contribution to key `key`
    /// does not match its commitment.
    #[error("check `{key}` failed: party {opener}'s opening does not match its commitment")]
    KeyOpening {
        /// The key (e.g. `K013`).
        key: &'static str,
        /// The party whose opening does not match.
        opener: PartyId,
    },
    /// Garbling: a garbled gate decrypts to neither of the evaluator's keys
    /// of its output wire.
    #[error(
        "garbled gate {gate} of instance {instance} decrypts to neither of the evaluator's keys"
    )]
    GarbledGate {
        /// The gate's index in the circuit.
        gate: usize,
        /// The instance of the batch.
        instance: usize,
    },
    /// Garbling: the key the evaluator reports for an output bit is
    /// neither of key contributor `contributor`'s labels for it.
    #[error("the evaluator's key for output bit {bit} of instance {instance} is neither of party {contributor}'s labels")]
    OutputLabel {
        /// The output bit.
        bit: usize,
        /// The instance of the batch.
        instance: usize,
        /// The contributor that checked it (this party).
        contributor: PartyId,
    },
    /// Garbling (bgw2-mal): two key contributors decode different outputs.
    #[error("key contributors {first} and {other} report different outputs")]
    OutputReports {
        /// The first contributor heard.
        first: PartyId,
        /// A contributor that disagrees with it.
        other: PartyId,
    },
    /// Garbling (bgw2-mal, PRSS): the keys this party shares with `peer`
    /// disagree (a party sent inconsistent contributions).
    #[error("PRSS setup: the keys shared with party {peer} disagree (a party sent inconsistent contributions)")]
    PrssKeys {
        /// The peer whose digest of the shared keys differs.
        peer: PartyId,
    },
    /// Garbling: an output permutation bit reconstructs to neither 0 nor 1.
    #[error("an output permutation bit reconstructs to neither 0 nor 1")]
    PermutationBit,
}

/// The lane of a `--split-roles` run an abort happened in: lane `lane`
/// plays roles P0, P1, ... as parties `parties[0]`, `parties[1]`, ...
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RoleLane {
    /// The lane's index.
    pub lane: usize,
    /// The party playing each role.
    pub parties: Vec<PartyId>,
}

/// What an abort adds about its lane, if it has one.
fn lane_text(lane: &Option<RoleLane>) -> String {
    match lane {
        None => String::new(),
        Some(RoleLane { lane, parties }) => format!(
            " (role lane {lane}: roles P0..P{} are parties {parties:?})",
            parties.len().saturating_sub(1)
        ),
    }
}

fn forged_text(reporter: PartyId, view: Option<&str>) -> String {
    match view {
        None => format!("party {reporter} sent a forged verdict: it names no check"),
        Some(view) => format!(
            "party {reporter} sent a forged verdict: it names check `{view}`, which it does not take part in"
        ),
    }
}

/// A deal id as JSON: 32 hex digits.
fn hex<S: Serializer>(id: &[u8; 16], s: S) -> Result<S::Ok, S::Error> {
    let text: String = id.iter().map(|b| format!("{b:02x}")).collect();
    s.serialize_str(&text)
}

impl RunError {
    /// A failed check that points at `culprit`.
    pub fn abort(check: FailedCheck, culprit: Option<PartyId>) -> RunError {
        RunError::Abort {
            check,
            culprit,
            lane: None,
        }
    }

    /// A refusal of kind `refusal`, saying `message`.
    pub fn refused(refusal: Refusal, message: impl Into<String>) -> RunError {
        RunError::Refused {
            refusal,
            message: message.into(),
        }
    }

    /// How the command ends ([`Exit`]: the exit-code table).
    pub fn exit(&self) -> Exit {
        match self {
            RunError::Input(_) | RunError::Refused { .. } => Exit::Input,
            RunError::Abort { .. } => Exit::Abort,
            // A peer that sends what the protocol never sends broke its rules.
            RunError::Net(
                NetError::UnexpectedLength { .. }
                | NetError::Oversized { .. }
                | NetError::Link { .. },
            ) => Exit::Abort,
            RunError::Net(NetError::Mismatch(_)) => Exit::Mismatch,
            RunError::Net(NetError::Interrupted(_)) => Exit::Interrupted,
            // A peer stopped the run (what it saw is in its own exit code).
            RunError::Net(_) => Exit::Network,
            RunError::Resource(_) => Exit::Resource,
            RunError::Entropy(_) | RunError::Internal(_) => Exit::Internal,
        }
    }

    /// The kind's name, as `--json` failures give it (docs/cli.md):
    /// `input`, `refused`, `abort`, `network`, `mismatch` (the parties
    /// disagree on the run), `interrupted`, `resource`, `entropy` or
    /// `internal`.
    pub fn kind(&self) -> &'static str {
        match self {
            RunError::Input(_) => "input",
            RunError::Refused { .. } => "refused",
            RunError::Abort { .. } => "abort",
            RunError::Net(NetError::Mismatch(_)) => "mismatch",
            RunError::Net(NetError::Interrupted(_)) => "interrupted",
            RunError::Net(_) => "network",
            RunError::Resource(_) => "resource",
            RunError::Entropy(_) => "entropy",
            RunError::Internal(_) => "internal",
        }
    }

    /// The party a failed check or the network blames, where one is.
    pub fn culprit(&self) -> Option<PartyId> {
        match self {
            RunError::Abort { culprit, .. } => *culprit,
            RunError::Net(e) => e.culprit(),
            _ => None,
        }
    }

    /// The process exit code of [`RunError::exit`].
    pub fn exit_code(&self) -> u8 {
        self.exit().code()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each check's message, as the abort prints it (the text the
    /// protocols printed before the checks were typed).
    #[test]
    fn each_failed_check_prints_what_it_compared() {
        let cases = [
            (
                FailedCheck::CompareView {
                    view: "m1 from P0 to P3, vouched for by P1",
                    peer: 1,
                    me: 3,
                },
                "compare-view check `m1 from P0 to P3, vouched for by P1` failed: party 1's digest differs from party 3's",
            ),
            (
                FailedCheck::ReportedFailure {
                    reporter: 2,
                    view: "b",
                },
                "party 2 reports that compare-view check `b` failed",
            ),
            (
                FailedCheck::ForgedVerdict {
                    reporter: 2,
                    view: None,
                },
                "party 2 sent a forged verdict: it names no check",
            ),
            (
                FailedCheck::ForgedVerdict {
                    reporter: 0,
                    view: Some("c"),
                },
                "party 0 sent a forged verdict: it names check `c`, which it does not take part in",
            ),
            (
                FailedCheck::KeyOpening {
                    key: "K013",
                    opener: 1,
                },
                "check `K013` failed: party 1's opening does not match its commitment",
            ),
            (
                FailedCheck::GarbledGate {
                    gate: 7,
                    instance: 2,
                },
                "garbled gate 7 of instance 2 decrypts to neither of the evaluator's keys",
            ),
            (
                FailedCheck::OutputLabel {
                    bit: 3,
                    instance: 0,
                    contributor: 2,
                },
                "the evaluator's key for output bit 3 of instance 0 is neither of party 2's labels",
            ),
            (
                FailedCheck::OutputReports { first: 1, other: 3 },
                "key contributors 1 and 3 report different outputs",
            ),
            (
                FailedCheck::PrssKeys { peer: 2 },
                "PRSS setup: the keys shared with party 2 disagree (a party sent inconsistent contributions)",
            ),
            (
                FailedCheck::PermutationBit,
                "an output permutation bit reconstructs to neither 0 nor 1",
            ),
        ];
        for (check, says) in cases {
            assert_eq!(check.to_string(), says);
            let e = RunError::abort(check, Some(1));
            assert_eq!(e.to_string(), format!("abort: {says}"));
            assert_eq!(
                (e.exit(), e.kind(), e.culprit()),
                (Exit::Abort, "abort", Some(1))
            );
        }
    }

    #[test]
    fn an_abort_in_a_role_lane_names_the_lane_after_the_check() {
        let e = RunError::Abort {
            check: FailedCheck::PrssKeys { peer: 0 },
            culprit: Some(2),
            lane: Some(RoleLane {
                lane: 3,
                parties: vec![2, 0, 1],
            }),
        };
        assert_eq!(
            e.to_string(),
            "abort: PRSS setup: the keys shared with party 0 disagree (a party sent \
             inconsistent contributions) (role lane 3: roles P0..P2 are parties [2, 0, 1])"
        );
    }

    /// The JSON shapes docs/cli.md documents.
    #[test]
    fn refusals_and_checks_as_json_are_a_kind_and_its_fields() {
        let mut deal = [0u8; 16];
        deal[0] = 0xab;
        deal[15] = 0x01;
        assert_eq!(
            json(&Refusal::Spent { deal, party: 2 }),
            serde_json::json!({
                "kind": "spent",
                "deal": "ab000000000000000000000000000001",
                "party": 2
            })
        );
        assert_eq!(
            json(&Refusal::NoSecurity { smallest: 4 }),
            serde_json::json!({ "kind": "no-security", "smallest": 4 })
        );
        assert_eq!(
            json(&Refusal::Option { option: "opt" }),
            serde_json::json!({ "kind": "option", "option": "opt" })
        );
        assert_eq!(
            json(&Refusal::NeedsDealer {
                parties: 31,
                threshold: 10
            }),
            serde_json::json!({ "kind": "needs-dealer", "parties": 31, "threshold": 10 })
        );
        assert_eq!(
            json(&FailedCheck::CompareView {
                view: "K013",
                peer: 1,
                me: 3
            }),
            serde_json::json!({ "kind": "compare-view", "view": "K013", "peer": 1, "me": 3 })
        );
        assert_eq!(
            json(&FailedCheck::ForgedVerdict {
                reporter: 1,
                view: None
            }),
            serde_json::json!({ "kind": "forged-verdict", "reporter": 1, "view": null })
        );
        assert_eq!(
            json(&FailedCheck::PermutationBit),
            serde_json::json!({ "kind": "permutation-bit" })
        );
    }

    /// docs/cli.md has a row for every kind of refusal and failed check.
    #[test]
    fn the_documentation_lists_every_kind() {
        let doc = include_str!("../../../docs/cli.md");
        let refusals = [
            Refusal::NoSecurity { smallest: 3 },
            Refusal::Option { option: "opt" },
            Refusal::NeedsDealer {
                parties: 31,
                threshold: 10,
            },
            Refusal::Spent {
                deal: [0; 16],
                party: 0,
            },
        ];
        let checks = [
            FailedCheck::CompareView {
                view: "v",
                peer: 0,
                me: 1,
            },
            FailedCheck::ReportedFailure {
                reporter: 0,
                view: "v",
            },
            FailedCheck::ForgedVerdict {
                reporter: 0,
                view: None,
            },
            FailedCheck::KeyOpening {
                key: "k",
                opener: 0,
            },
            FailedCheck::GarbledGate {
                gate: 0,
                instance: 0,
            },
            FailedCheck::OutputLabel {
                bit: 0,
                instance: 0,
                contributor: 1,
            },
            FailedCheck::OutputReports { first: 1, other: 2 },
            FailedCheck::PrssKeys { peer: 1 },
            FailedCheck::PermutationBit,
        ];
        let mut kinds = Vec::new();
        for r in &refusals {
            // A new kind fails to compile here: add it to the list above
            // and to docs/cli.md.
            match r {
                Refusal::NoSecurity { .. }
                | Refusal::Option { .. }
                | Refusal::NeedsDealer { .. }
                | Refusal::Spent { .. } => kinds.push(json(r)),
            }
        }
        for c in &checks {
            match c {
                FailedCheck::CompareView { .. }
                | FailedCheck::ReportedFailure { .. }
                | FailedCheck::ForgedVerdict { .. }
                | FailedCheck::KeyOpening { .. }
                | FailedCheck::GarbledGate { .. }
                | FailedCheck::OutputLabel { .. }
                | FailedCheck::OutputReports { .. }
                | FailedCheck::PrssKeys { .. }
                | FailedCheck::PermutationBit => kinds.push(json(c)),
            }
        }
        for k in kinds {
            let row = format!("| `{}` |", k["kind"].as_str().expect("a kind"));
            assert!(doc.contains(&row), "docs/cli.md has no row {row}");
        }
    }

    fn json(value: &impl Serialize) -> serde_json::Value {
        serde_json::to_value(value).expect("serializes")
    }
}
