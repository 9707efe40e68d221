//! The protocols this build runs, described once: name, party count rule,
//! native fan-in, preprocessing, security model and what circuits they take.
//! A run is requested as a [`RunRequest`], validated once (protocol, parties,
//! options, circuit) and then used by `huddle local`, `huddle party`, the
//! connection hello and the engine alike. Adding a protocol adds one
//! variant and one row here, and its own module.

use crate::error::{Refusal, RunError};
use crate::garble::linear::LinearChoice;
use crate::garble::Variant;
use crate::options::{Preprocess, RunOptions, DEFAULT_GARBLE_MEMORY_MIB, DEFAULT_SHARE_MEMORY_MIB};
use crate::sharing;
use huddle_circuit::{Circuit, InputOwners};

/// The most parties a run may have: far beyond what the protocols are used
/// with, small enough that every per-party table stays small.
pub const MAX_PARTIES: usize = 256;
/// `--split-roles` runs n! lanes: up to 24.
pub const MAX_SPLIT_PARTIES: usize = 4;

/// A protocol huddle runs; its row of the table ([`Protocol::descriptor`])
/// says what it can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Protocol {
    /// `ttp`: party 0 evaluates in the clear (baseline, not secure).
    Ttp,
    /// `replicated`: replicated 3PC (Araki et al.).
    Replicated,
    /// `astra`: ASTRA 3PC.
    Astra,
    /// `trio`: Trio 3PC (Harth-Kitzerow–Carle).
    Trio,
    /// `mfi3`: MFI-3PC (Faraji–Kerschbaum).
    Mfi3,
    /// `quad`: Quad 4PC (Harth-Kitzerow–Carle), malicious.
    Quad,
    /// `quad-het`: Quad's heterogeneous variant, malicious.
    QuadHet,
    /// `fantastic4`: Fantastic Four 4PC (Dalskov–Escudero–Keller), malicious.
    FantasticFour,
    /// `tetrad`: Tetrad 4PC (Koti–Patra–Rachuri–Suresh), malicious.
    Tetrad,
    /// `ca2pc`: client-aided 2PC (Ohata–Nuida) with a dealer.
    Ca2pc,
    /// `bgw3`: multiparty garbling BGW3_opt (Ben-Efraim–Omri).
    Bgw3,
    /// `bgw2`: multiparty garbling BGW2_opt (Ben-Efraim–Omri).
    Bgw2,
    /// `bgw2-mal`: multiparty garbling BGW2_opt^mal, malicious.
    Bgw2Mal,
}

/// How many parties a protocol runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartyRule {
    /// Exactly this many.
    Exactly(usize),
    /// At least this many (the corruption threshold is 0 below it).
    AtLeast(usize),
}

impl PartyRule {
    /// The parties of a run that names none: the protocol's own count, else
    /// 3 (or the least it takes).
    pub fn default_count(self) -> usize {
        match self {
            PartyRule::Exactly(n) => n,
            PartyRule::AtLeast(n) => n.max(3),
        }
    }
}

/// What a protocol promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Security {
    /// The trusted third party: a baseline that sees every input.
    None,
    /// Private against corrupted parties that follow the protocol.
    SemiHonest,
    /// Malicious parties are caught; an honest party outputs the right
    /// value or aborts, but some honest parties may output while others
    /// abort (point-to-point delivery, no broadcast).
    MaliciousSelectiveAbort,
}

impl Security {
    /// What every party of a run under this model is told before it starts,
    /// where the model gives no security at all (one line, for stderr and
    /// the JSON report).
    pub fn warning(self) -> Option<&'static str> {
        match self {
            Security::None => Some(
                "ttp is not secure: party 0 sees every party's inputs in the clear \
                 (a baseline for measurements; name a secure protocol for real data)",
            ),
            Security::SemiHonest | Security::MaliciousSelectiveAbort => None,
        }
    }

    /// Its name in `huddle protocols`' table.
    pub fn label(self) -> &'static str {
        match self {
            Security::None => "none (baseline)",
            Security::SemiHonest => "semi-honest",
            Security::MaliciousSelectiveAbort => "malicious, selective abort",
        }
    }
}

/// Which engine runs a protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Party 0 evaluates in the clear.
    Clear,
    /// The secret-sharing engine (`sharing/`).
    Sharing,
    /// Multiparty garbling (`garble/`).
    Garbling(Variant),
}

/// Everything the rest of huddle needs to know about a protocol.
#[derive(Debug)]
pub struct Descriptor {
    /// The protocol this row describes.
    pub protocol: Protocol,
    /// Its name (`--protocol`).
    pub name: &'static str,
    /// One line: what it is and what it costs.
    pub summary: &'static str,
    /// How many parties it runs with.
    pub parties: PartyRule,
    /// Widest multiplication done in one round (wider gates become trees);
    /// None where the protocol takes any fan-in (TTP, garbling).
    pub max_fan_in: Option<usize>,
    /// Whether it has input-independent preprocessing that `--preprocess
    /// separate` can run before the inputs.
    pub separate_preprocessing: bool,
    /// Whether it has preprocessing at all (phases `offline`/`dependent`).
    pub preprocessing: bool,
    /// What it promises.
    pub security: Security,
    /// Whether it runs circuits over Z_2^k (else Boolean circuits only).
    pub rings: bool,
    /// Whether it runs mixed Boolean/arithmetic circuits (share
    /// conversions; the plaintext evaluator trivially does).
    pub conversions: bool,
    /// Whether its multiplication can truncate fixed-point products
    /// probabilistically (`DOTTR` with `Truncation::Probabilistic`): no
    /// adder, at most the few extra messages and rounds its module states.
    pub fused_truncation: bool,
    /// Which engine runs it.
    pub family: Family,
    /// The message types fault injection can target (malicious
    /// secret-sharing protocols; empty elsewhere).
    pub messages: &'static [crate::fault::MessageType],
    /// A party that only deals correlated randomness: it owns no input
    /// (round robin deals input values to the others), learns no output
    /// and receives nothing after setup.
    pub dealer: Option<usize>,
}

const DESCRIPTORS: [Descriptor; 13] = [
    Descriptor {
        protocol: Protocol::Ttp,
        name: "ttp",
        summary: "trusted third party: party 0 evaluates in the clear (baseline, not secure)",
        parties: PartyRule::AtLeast(1),
        max_fan_in: None,
        separate_preprocessing: false,
        preprocessing: false,
        security: Security::None,
        rings: true,
        conversions: true,
        fused_truncation: false,
        family: Family::Clear,
        messages: &[],
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Replicated,
        name: "replicated",
        summary: "Replicated 3PC (Araki et al.), 1 element per party per multiplication",
        parties: PartyRule::Exactly(3),
        max_fan_in: Some(2),
        separate_preprocessing: false,
        preprocessing: false,
        security: Security::SemiHonest,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &[],
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Astra,
        name: "astra",
        summary: "ASTRA 3PC, 1 element offline and 2 online per multiplication",
        parties: PartyRule::Exactly(3),
        max_fan_in: Some(2),
        separate_preprocessing: true,
        preprocessing: true,
        security: Security::SemiHonest,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &[],
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Trio,
        name: "trio",
        summary: "Trio 3PC (Harth-Kitzerow-Carle), 1 offline (P0->P2) and 2 online",
        parties: PartyRule::Exactly(3),
        max_fan_in: Some(2),
        separate_preprocessing: true,
        preprocessing: true,
        security: Security::SemiHonest,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &[],
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Mfi3,
        name: "mfi3",
        summary: "MFI-3PC (Faraji-Kerschbaum), one-round multiplications of up to 8 inputs",
        parties: PartyRule::Exactly(3),
        // The paper's bound.
        max_fan_in: Some(8),
        separate_preprocessing: false,
        preprocessing: false,
        security: Security::SemiHonest,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &[],
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Quad,
        name: "quad",
        summary: "Quad 4PC (Harth-Kitzerow-Carle), one malicious party, 2 offline + 3 online elements, compare-view checks",
        parties: PartyRule::Exactly(4),
        max_fan_in: Some(2),
        separate_preprocessing: false,
        preprocessing: true,
        security: Security::MaliciousSelectiveAbort,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &sharing::messages::quad::QUAD,
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::QuadHet,
        name: "quad-het",
        summary: "Quad-Het 4PC (Harth-Kitzerow-Carle), P3 silent while multiplying, online traffic on P1-P2 and P2->P0 only",
        parties: PartyRule::Exactly(4),
        max_fan_in: Some(2),
        separate_preprocessing: false,
        preprocessing: true,
        security: Security::MaliciousSelectiveAbort,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &sharing::messages::quad::HET,
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::FantasticFour,
        name: "fantastic4",
        summary: "Fantastic Four 4PC (Dalskov-Escudero-Keller), one malicious party, 6 online elements, no preprocessing",
        parties: PartyRule::Exactly(4),
        max_fan_in: Some(2),
        separate_preprocessing: false,
        preprocessing: false,
        security: Security::MaliciousSelectiveAbort,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &sharing::messages::fantastic4::ALL,
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Tetrad,
        name: "tetrad",
        summary: "Tetrad 4PC (Koti-Patra-Rachuri-Suresh), one malicious party, P3 helper, 2 offline + 3 online elements",
        parties: PartyRule::Exactly(4),
        max_fan_in: Some(2),
        separate_preprocessing: false,
        preprocessing: true,
        security: Security::MaliciousSelectiveAbort,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &sharing::messages::tetrad::ALL,
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Ca2pc,
        name: "ca2pc",
        summary: "client-aided 2PC (Ohata-Nuida): parties 0 and 1 compute, party 2 deals extended Beaver triples; one-round multiplications of up to 9 inputs",
        parties: PartyRule::Exactly(3),
        // The paper's bound (2^9 − 10 = 502 dealt elements per gate and word).
        max_fan_in: Some(9),
        separate_preprocessing: true,
        preprocessing: true,
        security: Security::SemiHonest,
        rings: true,
        conversions: true,
        fused_truncation: true,
        family: Family::Sharing,
        messages: &[],
        dealer: Some(2),
    },
    Descriptor {
        protocol: Protocol::Bgw3,
        name: "bgw3",
        summary: "multiparty garbling BGW3_opt (Ben-Efraim-Omri), t < n/2, 3 offline + 3 online rounds",
        parties: PartyRule::AtLeast(3),
        max_fan_in: None,
        separate_preprocessing: false,
        preprocessing: true,
        security: Security::SemiHonest,
        rings: false,
        conversions: false,
        fused_truncation: false,
        family: Family::Garbling(Variant::Bgw3),
        messages: &[],
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Bgw2,
        name: "bgw2",
        summary: "multiparty garbling BGW2_opt (Ben-Efraim-Omri), t < n/3, 2 offline + 3 online rounds",
        parties: PartyRule::AtLeast(4),
        max_fan_in: None,
        separate_preprocessing: false,
        preprocessing: true,
        security: Security::SemiHonest,
        rings: false,
        conversions: false,
        fused_truncation: false,
        family: Family::Garbling(Variant::Bgw2),
        messages: &[],
        dealer: None,
    },
    Descriptor {
        protocol: Protocol::Bgw2Mal,
        name: "bgw2-mal",
        summary: "multiparty garbling BGW2_opt^mal (Ben-Efraim-Omri), t < n/3, linear preprocessing (PRSS or trusted dealer), 1 offline + 4 online rounds",
        parties: PartyRule::AtLeast(4),
        max_fan_in: None,
        separate_preprocessing: false,
        preprocessing: true,
        security: Security::MaliciousSelectiveAbort,
        rings: false,
        conversions: false,
        fused_truncation: false,
        family: Family::Garbling(Variant::Bgw2Mal),
        messages: &[],
        dealer: None,
    },
];

impl Protocol {
    /// Every protocol, in the table's order.
    pub const ALL: [Protocol; 13] = [
        Protocol::Ttp,
        Protocol::Replicated,
        Protocol::Astra,
        Protocol::Trio,
        Protocol::Mfi3,
        Protocol::Quad,
        Protocol::QuadHet,
        Protocol::FantasticFour,
        Protocol::Tetrad,
        Protocol::Ca2pc,
        Protocol::Bgw3,
        Protocol::Bgw2,
        Protocol::Bgw2Mal,
    ];

    /// Its row of the protocol table.
    pub const fn descriptor(self) -> &'static Descriptor {
        // The table lists the protocols in `ALL` order (tested).
        &DESCRIPTORS[self as usize]
    }

    /// The widest product the protocol multiplies in one round, for the
    /// protocols that state one: a constant, so that a protocol's module
    /// can size arrays by its row of the table.
    pub(crate) const fn stated_fan_in(self) -> usize {
        match self.descriptor().max_fan_in {
            Some(f) => f,
            None => panic!("the protocol takes any fan-in"),
        }
    }

    /// Its name (`--protocol`).
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

    /// The protocol named `name` ([`RunError::Input`] lists the names
    /// otherwise).
    pub fn parse(name: &str) -> Result<Protocol, RunError> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
                RunError::Input(format!(
                    "unknown protocol `{name}` (this build runs: {})",
                    names.join(", ")
                ))
            })
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
    /// Checks `protocol` for `parties` parties with `options` (not the
    /// circuit: a program builds a [`Run`](crate::Run), which checks both).
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
            let with: Vec<&str> = DESCRIPTORS
                .iter()
                .filter(|d| d.separate_preprocessing)
                .map(|d| d.name)
                .collect();
            return err(format!(
                "{name} has no separate preprocessing phase; --preprocess separate applies to {}",
                with.join(", ")
            ));
        }
        if options.truncation == crate::Truncation::Probabilistic
            && !d.fused_truncation
            && d.family != Family::Clear
        {
            let with: Vec<&str> = DESCRIPTORS
                .iter()
                .filter(|d| d.fused_truncation)
                .map(|d| d.name)
                .collect();
            return err(format!(
                "{name} has no fused probabilistic truncation (it truncates DOTTR exactly \
                 through A2B and B2A); --truncation probabilistic applies to {}",
                with.join(", ")
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
            Some(_) if d.messages.is_empty() || d.family != Family::Sharing => {
                return err(format!(
                    "{name} has no compare-view checks; --verify-every applies to quad, quad-het, fantastic4 and tetrad"
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

    /// The number of parties.
    pub fn parties(&self) -> usize {
        self.parties
    }

    /// The options.
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
        for p in Protocol::ALL {
            assert_eq!(p.descriptor().protocol, p);
            assert_eq!(Protocol::parse(p.name()).expect("parses"), p);
        }
        assert!(Protocol::parse("quad4").is_err());
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
