//! The fixed list of `huddle bench plan`'s cases: circuits, security
//! classes, networks and batches, and how each circuit is made.

use huddle_circuit::builder::Builder;
use huddle_circuit::{Circuit, Op};
use huddle_core::RingWidth;
use huddle_engine::plan::{Guarantee, Requirements};

/// The circuits, by the name `--cases` takes.
pub const CIRCUITS: [&str; 4] = ["aes", "cmp", "mul64", "deep"];

/// The networks, by preset name.
pub const NETS: [&str; 4] = ["lan", "wan", "aws3", "hetero4"];

/// The batches.
pub const BATCHES: [usize; 3] = [1, 1000, 100_000];

/// What one circuit of the list is, for the report.
pub fn describe(name: &str) -> &'static str {
    match name {
        "aes" => "AES-128 (generated, depth-4 S-box), Boolean",
        "cmp" => "64-bit less-than (generated cmp-lt), Boolean",
        "mul64" => "one product of two 64-bit ring elements",
        "deep" => "64-bit ripple-carry adder: AND-depth 64, one AND per layer",
        _ => "",
    }
}

/// The circuit called `name` (one of [`CIRCUITS`]).
pub fn circuit(name: &str) -> Result<Circuit, String> {
    match name {
        "aes" => huddle_circuit::gen::generate("aes128", 128, 2),
        "cmp" => huddle_circuit::gen::generate("cmp-lt", 64, 2),
        "deep" => huddle_circuit::gen::generate("adder-ripple", 64, 2),
        "mul64" => {
            let mut b = Builder::arithmetic(RingWidth::W64, 2);
            let x = b.ring_input("a", 1);
            let y = b.ring_input("b", 1);
            let product = b.ring_op(Op::Mul, &[x[0], y[0]]);
            b.ring_output("c", vec![product]);
            Ok(b.finish())
        }
        other => Err(format!(
            "unknown case `{other}` (cases: {})",
            CIRCUITS.join(", ")
        )),
    }
}

/// A security class: the guarantee asked for and the parties it runs
/// with, so that each class compares the protocols of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Semi-honest, three parties: replicated, astra, trio, mfi3, bgw3.
    SemiHonest3,
    /// Malicious (selective abort), four parties: quad, quad-het,
    /// fantastic4, tetrad, bgw2-mal.
    Malicious4,
}

impl Class {
    pub const ALL: [Class; 2] = [Class::SemiHonest3, Class::Malicious4];

    /// Its `--security` spelling.
    pub fn name(self) -> &'static str {
        self.guarantee().name()
    }

    pub fn guarantee(self) -> Guarantee {
        match self {
            Class::SemiHonest3 => Guarantee::SemiHonest,
            Class::Malicious4 => Guarantee::Malicious,
        }
    }

    pub fn parties(self) -> usize {
        match self {
            Class::SemiHonest3 => 3,
            Class::Malicious4 => 4,
        }
    }

    /// What `huddle plan --security NAME --parties N` asks for, up to
    /// `threads` threads per party; no dealer trusted.
    pub fn requirements(self, threads: usize) -> Requirements {
        Requirements {
            guarantee: self.guarantee(),
            parties: Some(self.parties()),
            max_threads: threads.max(1),
            ..Requirements::default()
        }
    }

    pub fn parse(s: &str) -> Result<Class, String> {
        Class::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("unknown security class `{s}` (semi-honest, malicious)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_circuit_is_made() {
        for name in CIRCUITS {
            let c = circuit(name).expect("listed circuit");
            assert!(!c.gates().is_empty(), "{name}");
            assert!(!describe(name).is_empty(), "{name}");
        }
        assert!(circuit("nope").is_err());
    }

    #[test]
    fn classes_parse_by_their_security_name() {
        assert_eq!(Class::parse("malicious"), Ok(Class::Malicious4));
        assert_eq!(Class::parse("semi-honest"), Ok(Class::SemiHonest3));
        assert!(Class::parse("none").is_err());
    }
}
