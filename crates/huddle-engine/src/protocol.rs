//! The protocol table: every protocol this build runs, listed once, in the
//! one `protocols!` invocation below. A line names the protocol's
//! variant, its row (the [`Descriptor`] its own module states: name, party
//! count rule, native fan-in, preprocessing, security model, the circuits it
//! takes), how its party starts and its cost function (what every party
//! sends, [`RunRequest::cost`]); the macro generates [`Protocol`],
//! [`Protocol::ALL`] in the table's order, [`Protocol::descriptor`], the
//! name lookup ([`Protocol::parse`]) and the dispatches that start a party
//! and predict a run's cost.
//! A run is requested as a [`RunRequest`], validated once (protocol,
//! parties, options, circuit) against the row and then used by `huddle
//! local`, `huddle party`, the connection hello and the engine alike.
//!
//! Adding a protocol is its module, with its `DESCRIPTOR` beside its
//! implementation, and one line here, appended (so that `ALL`'s order and
//! every name stay).
//!
//! Why this shape. A macro, because the enum, `ALL`, the row lookup and the
//! dispatch must list the same protocols in the same order: written out,
//! each restates the list, and only the `match`es are checked by the
//! compiler. The rows in the protocols' modules, because a protocol's code
//! reads its own capabilities (MFI-3PC's fan-in sizes its arrays, client-
//! aided 2PC's dealer), and a row kept apart from the code drifts from it.
//! The start and the cost function in the table line, not in the row,
//! because a row must sit below the protocols and both sit above the
//! engines they call.
//!
//! The layering, so that no two modules import each other: the row's types
//! (`descriptor.rs`) live below everything and name no protocol; each
//! protocol's module states its row with them and reads back what it needs
//! from its own constant, never from this module; the ways a party starts
//! (`start.rs`) and a cost is predicted (`predict.rs`) sit above the
//! engines, the cost's types (`cost/`) below the protocols; this module,
//! which names every protocol's module, sits above them all, and only the
//! run's front (`run.rs`, the builder, the report, the hello's settings)
//! uses it.

use crate::cost::{Cost, Plays};
use crate::error::{Refusal, RunError};
use crate::garble::linear::LinearChoice;
use crate::garble::{self, Variant};
use crate::options::{Preprocess, RunOptions, DEFAULT_GARBLE_MEMORY_MIB, DEFAULT_SHARE_MEMORY_MIB};
use crate::predict::Query;
use crate::sharing::{
    self, astra::Astra, client_aided::ClientAided, fantastic4::FantasticFour, mfi3::Mfi3,
    quad::Quad, replicated::Replicated, tetrad::Tetrad, trio::Trio,
};
use crate::start::{Outputs, Start};
use crate::ttp;
use huddle_circuit::{Circuit, InputOwners};

pub use crate::descriptor::{Descriptor, Family, PartyRule, Security};

/// The most parties a run may have: far beyond what the protocols are used
/// with, small enough that every per-party table stays small.
pub const MAX_PARTIES: usize = 256;
/// `--split-roles` runs n! lanes: up to 24.
pub const MAX_SPLIT_PARTIES: usize = 4;

/// Generates the protocol table from one line per protocol: `Variant =>
/// row, start;`, where `row` is the path of the protocol's [`Descriptor`]
/// and `start` a function of a [`Start`] that runs its party.
macro_rules! protocols {
    ($($(#[doc = $doc:literal])* $variant:ident => $row:path, $start:expr, $cost:expr;)+) => {
        /// A protocol this build runs (see [`Protocol::descriptor`] for
        /// what each can do).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Protocol {
            $($(#[doc = $doc])* $variant,)+
        }

        impl Protocol {
            /// Every protocol, in the table's order (that of `huddle
            /// protocols` and of the variants).
            pub const ALL: [Protocol; [$(Protocol::$variant),+].len()] =
                [$(Protocol::$variant),+];

            /// The protocol's row: what it is and what it can do.
            pub const fn descriptor(self) -> &'static Descriptor {
                match self {
                    $(Protocol::$variant => &$row,)+
                }
            }

            /// Runs this party of the protocol.
            pub(crate) fn start(self, party: Start<'_>) -> Outputs {
                match self {
                    $(Protocol::$variant => start_with(party, $start),)+
                }
            }

            /// The run's scripts (its cost function).
            fn predict(self, query: Query<'_>) -> Result<Plays, RunError> {
                match self {
                    $(Protocol::$variant => predict_with(query, $cost),)+
                }
            }
        }
    };
}

/// Calls a line's start (a function given where a closure's argument type
/// must be known).
fn start_with<'a>(party: Start<'a>, start: fn(Start<'a>) -> Outputs) -> Outputs {
    start(party)
}

/// Calls a line's cost function (as [`start_with`]).
fn predict_with<'a>(
    query: Query<'a>,
    cost: fn(Query<'a>) -> Result<Plays, RunError>,
) -> Result<Plays, RunError> {
    cost(query)
}

protocols! {
    /// The trusted third party: a baseline, not secure.
    Ttp => ttp::DESCRIPTOR, Start::clear, Query::clear;
    /// Replicated 3PC (Araki et al.).
    Replicated => sharing::replicated::DESCRIPTOR,
        |s| s.sharing(|me, _| Replicated::new(me)), |q| q.sharing(|me, _| Replicated::new(me));
    /// ASTRA 3PC.
    Astra => sharing::astra::DESCRIPTOR, |s| s.sharing(Astra::new), |q| q.sharing(Astra::new);
    /// Trio 3PC (Harth-Kitzerow–Carle).
    Trio => sharing::trio::DESCRIPTOR, |s| s.sharing(Trio::new), |q| q.sharing(Trio::new);
    /// MFI-3PC (Faraji–Kerschbaum).
    Mfi3 => sharing::mfi3::DESCRIPTOR, |s| s.sharing(Mfi3::new), |q| q.sharing(Mfi3::new);
    /// Quad 4PC (Harth-Kitzerow–Carle).
    Quad => sharing::quad::QUAD,
        |s| s.sharing(|me, _| Quad::new(me, false)), |q| q.sharing(|me, _| Quad::new(me, false));
    /// Quad-Het 4PC (Harth-Kitzerow–Carle).
    QuadHet => sharing::quad::QUAD_HET,
        |s| s.sharing(|me, _| Quad::new(me, true)), |q| q.sharing(|me, _| Quad::new(me, true));
    /// Fantastic Four 4PC (Dalskov–Escudero–Keller).
    FantasticFour => sharing::fantastic4::DESCRIPTOR,
        |s| s.sharing(|me, _| FantasticFour::new(me)), |q| q.sharing(|me, _| FantasticFour::new(me));
    /// Tetrad 4PC (Koti–Patra–Rachuri–Suresh).
    Tetrad => sharing::tetrad::DESCRIPTOR,
        |s| s.sharing(|me, _| Tetrad::new(me)), |q| q.sharing(|me, _| Tetrad::new(me));
    /// Client-aided 2PC (Ohata–Nuida).
    Ca2pc => sharing::client_aided::DESCRIPTOR,
        |s| s.sharing(ClientAided::new), |q| q.sharing(ClientAided::new);
    /// Multiparty garbling BGW3_opt (Ben-Efraim–Omri).
    Bgw3 => garble::BGW3, Start::garbling, Query::garbling;
    /// Multiparty garbling BGW2_opt (Ben-Efraim–Omri).
    Bgw2 => garble::BGW2, Start::garbling, Query::garbling;
    /// Multiparty garbling BGW2_opt^mal (Ben-Efraim–Omri).
    Bgw2Mal => garble::BGW2_MAL, Start::garbling, Query::garbling;
}

impl Protocol {
    /// Its name (the command line's, the hello's).
    pub fn name(self) -> &'static str {
        self.descriptor().name
    }

    /// The garbling variant, for the garbling protocols.
    pub fn garbling(self) -> Option<Variant> {
        match self.descriptor().family {
            Family::Garbling(v) => Some(v),
            _ => None,
        }
    }

    /// The protocol named `name`, or an input error listing the names.
    pub fn parse(name: &str) -> Result<Protocol, RunError> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                RunError::Input(format!(
                    "unknown protocol `{name}` (this build runs: {})",
                    names(|_| true).join(", ")
                ))
            })
    }
}

/// The names of the protocols whose row satisfies `claims`, in the table's
/// order.
fn names(claims: impl Fn(&Descriptor) -> bool) -> Vec<&'static str> {
    Protocol::ALL
        .iter()
        .map(|p| p.descriptor())
        .filter(|d| claims(d))
        .map(|d| d.name)
        .collect()
}

/// Whether a protocol compares views (`--verify-every` applies): the
/// malicious secret-sharing protocols, whose messages carry types.
fn compares_views(d: &Descriptor) -> bool {
    d.family == Family::Sharing && !d.messages.is_empty()
}

/// `a, b and c`.
fn listed(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Protocol {
    type Err = RunError;
    fn from_str(s: &str) -> Result<Protocol, RunError> {
        Protocol::parse(s)
    }
}

/// A run that has been checked: the protocol exists for this many parties,
/// and every option means something for it and is within range. Built once
/// and used by `local`, `party`, the hello (`RunRequest::settings`) and the
/// engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunRequest {
    protocol: Protocol,
    parties: usize,
    options: RunOptions,
}

impl RunRequest {
    /// Checks `options` for `protocol` with `parties` parties: refused
    /// (naming the cause) where the protocol cannot run with that many,
    /// gives no security, or where an option means nothing for it or is
    /// out of range.
    pub fn new(
        protocol: Protocol,
        parties: usize,
        options: RunOptions,
    ) -> Result<RunRequest, RunError> {
        let d = protocol.descriptor();
        let name = d.name;
        let err = |m: String| Err(RunError::Input(m));
        if parties > MAX_PARTIES {
            return err(format!(
                "{parties} parties: huddle runs at most {MAX_PARTIES}"
            ));
        }
        if let Some(variant) = protocol.garbling() {
            // Names the smallest secure count, so before the generic rule.
            let smallest = variant.smallest_secure_parties();
            if let (true, Err(e)) = (parties < smallest, variant.check_parties(parties)) {
                return Err(RunError::refused(
                    Refusal::NoSecurity { smallest },
                    e.to_string(),
                ));
            }
            variant.check_run(parties, &options)?;
        }
        match d.parties {
            PartyRule::Exactly(k) if parties != k => {
                return err(format!(
                    "{name} is a {k}-party protocol, but the run has {parties} parties"
                ))
            }
            PartyRule::AtLeast(k) if parties < k => {
                return err(format!("{name} needs at least {k} parties, not {parties}"))
            }
            _ => {}
        }
        if options.preprocess == Preprocess::Separate && !d.separate_preprocessing {
            return err(format!(
                "{name} has no separate preprocessing phase; --preprocess separate applies to {}",
                names(|d| d.separate_preprocessing).join(", ")
            ));
        }
        if options.truncation == crate::Truncation::Probabilistic
            && !d.fused_truncation
            && d.family != Family::Clear
        {
            return err(format!(
                "{name} has no fused probabilistic truncation (it truncates DOTTR exactly \
                 through A2B and B2A); --truncation probabilistic applies to {}",
                names(|d| d.fused_truncation).join(", ")
            ));
        }
        crate::inputs::check_reveal_to(options.reveal_to, parties)?;
        if let (Some(to), Some(dealer)) = (options.reveal_to, d.dealer) {
            if to == dealer {
                return err(format!(
                    "outputs cannot go to party {dealer}: it is {name}'s dealer, which never \
                     receives anything after setup (give --reveal-to one of the computing parties)"
                ));
            }
        }
        if let Some(fault) = options.fault {
            fault.check(name, d.messages, parties)?;
        }
        match options.verify_every {
            Some(0) => return err("--verify-every must be at least 1 (layers)".into()),
            Some(_) if !compares_views(d) => {
                return err(format!(
                    "{name} has no compare-view checks; --verify-every applies to {}",
                    listed(&names(compares_views))
                ))
            }
            _ => {}
        }
        if options.threads == 0 {
            return err("--threads must be at least 1".into());
        }
        if options.split_roles {
            if d.family != Family::Sharing || d.dealer.is_some() {
                return Err(RunError::refused(
                    Refusal::Option {
                        option: "split-roles",
                    },
                    format!(
                        "{name} has no roles to split; --split-roles applies to the \
                         secret-sharing protocols without a dealer"
                    ),
                ));
            }
            if parties > MAX_SPLIT_PARTIES {
                return err(format!(
                    "--split-roles runs one lane per assignment of roles, {parties}! of them \
                     for {parties} parties; at most {MAX_SPLIT_PARTIES} parties"
                ));
            }
            if options.fault.is_some() {
                return Err(RunError::refused(
                    Refusal::Option { option: "corrupt" },
                    "--corrupt names a party's role; it cannot be combined with --split-roles, \
                     where every party plays every role",
                ));
            }
        }
        match (options.max_fan_in, d.max_fan_in) {
            (Some(cap), _) if cap < 2 => {
                return err(format!(
                    "--max-fan-in must be at least 2 (operands of a product), not {cap}"
                ))
            }
            (Some(_), None) => {
                return err(format!(
                    "{name} takes gates of any fan-in; --max-fan-in applies to the \
                     secret-sharing protocols"
                ))
            }
            _ => {}
        }
        Ok(RunRequest {
            protocol,
            parties,
            options,
        })
    }

    /// The protocol.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The parties of the run.
    pub fn parties(&self) -> usize {
        self.parties
    }

    /// The options, as checked.
    pub fn options(&self) -> RunOptions {
        self.options
    }

    /// Whether this protocol can run `circuit` with these parties: inputs
    /// owned by parties of the run, Boolean circuits for garbling, and for
    /// the secret-sharing engine share conversions where the circuit needs
    /// them (the one refusal of [`sharing::program::Program::compile`]; the
    /// run compiles once, as compiling here too cost a sixth of a party's
    /// start on a 65,536-gate circuit).
    pub(crate) fn check_circuit(&self, circuit: &Circuit) -> Result<(), RunError> {
        self.check_owners_and_domain(circuit)
    }

    /// The exact traffic of this run on `batch` instances of `circuit`:
    /// bytes, messages and rounds per directed link and phase, and rounds
    /// per phase, as the run's accounting will count them ([`Cost`]).
    /// Refused as the run would be (a circuit the protocol cannot run, a
    /// batch out of range), and for a run with a party that deviates on
    /// purpose (fault injection), whose traffic is not the protocol's.
    pub fn cost(&self, circuit: &Circuit, batch: usize) -> Result<Cost, RunError> {
        self.plays(circuit, batch)?.cost()
    }

    /// The run's scripts, lane by lane, refused as [`cost`](Self::cost) is.
    pub(crate) fn plays(&self, circuit: &Circuit, batch: usize) -> Result<Plays, RunError> {
        crate::inputs::check_batch(batch)?;
        self.check_circuit(circuit)?;
        if self.options.fault.is_some() {
            return Err(RunError::Input(
                "the cost model predicts runs in which every party follows the protocol; \
                 a corrupted party (--corrupt) deviates from it on purpose"
                    .into(),
            ));
        }
        self.protocol.predict(Query {
            descriptor: self.protocol.descriptor(),
            parties: self.parties,
            circuit,
            instances: batch,
            options: self.options,
        })
    }

    /// The parties that hold data: all but a dealer (the last party), so
    /// round-robin input owners skip it.
    pub(crate) fn input_parties(&self) -> usize {
        self.parties - usize::from(self.protocol.descriptor().dealer.is_some())
    }

    /// The party that owns input value `i` of `circuit` in this run.
    pub fn owner(&self, circuit: &Circuit, i: usize) -> usize {
        circuit.owner(i, self.input_parties())
    }

    pub(crate) fn check_owners_and_domain(&self, circuit: &Circuit) -> Result<(), RunError> {
        let d = self.protocol.descriptor();
        if let (InputOwners::Explicit(owners), Some(dealer)) = (circuit.owners(), d.dealer) {
            if let Some(value) = owners.iter().position(|&o| o == dealer) {
                return Err(RunError::Input(format!(
                    "input value {value} belongs to party {dealer}, {}'s dealer, which never \
                     sees data: give inputs to parties 0..{}",
                    d.name,
                    self.input_parties() - 1
                )));
            }
        }
        if let InputOwners::Explicit(owners) = circuit.owners() {
            if let Some((value, &owner)) =
                owners.iter().enumerate().find(|(_, &o)| o >= self.parties)
            {
                return Err(RunError::Input(format!(
                    "input value {value} belongs to party {owner}, but the run has parties 0..{}",
                    self.parties - 1
                )));
            }
        }
        if d.family == Family::Sharing {
            let fused =
                d.fused_truncation && self.options.truncation == crate::Truncation::Probabilistic;
            sharing::program::Program::check_conversions(circuit, d.name, d.conversions, fused)?;
        }
        if !d.rings && !circuit.is_boolean() {
            return Err(RunError::Input(format!(
                "{} garbles Boolean circuits only; this circuit has ring wires",
                d.name
            )));
        }
        Ok(())
    }

    /// Where bgw2-mal's linear preprocessing comes from, `Auto` resolved
    /// (None for the other protocols).
    pub fn linear_preprocessing(&self) -> Option<LinearChoice> {
        self.protocol
            .garbling()
            .filter(|v| v.is_malicious())
            .map(|v| {
                self.options
                    .linear
                    .resolve(self.parties, v.threshold(self.parties))
            })
    }
}

/// The default of `--share-memory` for `protocol`, in MiB.
pub fn default_share_memory_mib(protocol: Protocol) -> usize {
    if protocol.garbling().is_some() {
        DEFAULT_GARBLE_MEMORY_MIB
    } else {
        DEFAULT_SHARE_MEMORY_MIB
    }
}

impl RunOptions {
    /// The defaults for a run of `protocol`: [`RunOptions::default`] with
    /// its family's share memory ([`default_share_memory_mib`]).
    pub fn for_protocol(protocol: Protocol) -> RunOptions {
        RunOptions {
            share_memory: default_share_memory_mib(protocol) << 20,
            ..RunOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_enum_order_and_names_parse_back() {
        for (i, p) in Protocol::ALL.into_iter().enumerate() {
            assert_eq!(p as usize, i, "{p:?}: ALL is in the variants' order");
            assert_eq!(Protocol::parse(p.name()).expect("parses"), p);
            assert_eq!(p.to_string().parse::<Protocol>().expect("parses"), p);
        }
        assert!(Protocol::parse("quad4").is_err());
    }

    /// The order `huddle protocols` lists and the names runs and hellos
    /// use: the rows' order and names as they were when the table was
    /// stated in one place (a new protocol is appended).
    #[test]
    fn the_table_lists_the_protocols_by_name_in_a_fixed_order() {
        let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(
            names,
            [
                "ttp",
                "replicated",
                "astra",
                "trio",
                "mfi3",
                "quad",
                "quad-het",
                "fantastic4",
                "tetrad",
                "ca2pc",
                "bgw3",
                "bgw2",
                "bgw2-mal"
            ]
        );
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "every name once");
    }

    /// A garbling row's variant runs under the row's name and party rule.
    #[test]
    fn garbling_rows_agree_with_their_variants() {
        for p in Protocol::ALL {
            if let Some(v) = p.garbling() {
                assert_eq!(v.name(), p.name());
                let smallest = v.smallest_secure_parties();
                assert_eq!(p.descriptor().parties, PartyRule::AtLeast(smallest));
            }
        }
    }

    #[test]
    fn refusals_list_the_protocols_whose_rows_claim_the_option() {
        let o = RunOptions::default();
        let refused =
            |p: Protocol, o: RunOptions| RunRequest::new(p, 3, o).expect_err("refused").to_string();
        let verify = RunOptions {
            verify_every: Some(1),
            ..o
        };
        assert!(refused(Protocol::Trio, verify)
            .ends_with("--verify-every applies to quad, quad-het, fantastic4 and tetrad"));
        let separate = RunOptions {
            preprocess: Preprocess::Separate,
            ..o
        };
        assert!(refused(Protocol::Replicated, separate)
            .ends_with("--preprocess separate applies to astra, trio, ca2pc"));
        assert_eq!(listed(&["a"]), "a");
        assert_eq!(listed(&["a", "b"]), "a and b");
    }

    #[test]
    fn requests_without_security_or_out_of_range_are_refused() {
        let o = RunOptions::default();
        assert!(RunRequest::new(Protocol::Bgw2, 3, o).is_err());
        assert!(RunRequest::new(Protocol::Bgw2, 4, o).is_ok());
        assert!(RunRequest::new(Protocol::Bgw3, 2, o).is_err());
        assert!(RunRequest::new(Protocol::Trio, 4, o).is_err());
        assert!(RunRequest::new(Protocol::Ttp, MAX_PARTIES + 1, o).is_err());
        assert!(RunRequest::new(Protocol::Ttp, 0, o).is_err());
        let zero_threads = RunOptions { threads: 0, ..o };
        assert!(RunRequest::new(Protocol::Trio, 3, zero_threads).is_err());
    }

    /// Garbling's instances are large and its memory is held against the
    /// peer's: it keeps the smaller default; every other protocol the larger.
    #[test]
    fn share_memory_defaults_by_family() {
        for p in Protocol::ALL {
            let want = match p {
                Protocol::Bgw3 | Protocol::Bgw2 | Protocol::Bgw2Mal => DEFAULT_GARBLE_MEMORY_MIB,
                _ => DEFAULT_SHARE_MEMORY_MIB,
            };
            assert_eq!(default_share_memory_mib(p), want, "{}", p.name());
            assert_eq!(RunOptions::for_protocol(p).share_memory, want << 20);
        }
    }
}
