//! What a run's hello says about it: every option of a [`RunRequest`] that
//! changes what goes over the wire or what is computed, as typed settings
//! with stable wire names (the command-line option's name, chosen here once,
//! whatever the Rust names), so that parties given different options stop at
//! connect naming the option, instead of desynchronizing.
//!
//! | wire name      | value                                  | protocols      |
//! |----------------|----------------------------------------|----------------|
//! | `protocol`     | its name                               | all            |
//! | `reveal-to`    | the party, or absent (everyone)        | all            |
//! | `threads`      | a count, or `auto`'s offer (least)     | sharing, garbling |
//! | `share-memory` | MiB (bytes as text if not whole MiB)   | sharing, garbling |
//! | `preprocess`   | `separate` / `interleaved`             | sharing        |
//! | `split-roles`  | on or off                              | sharing        |
//! | `truncation`   | `exact` / `probabilistic`              | sharing        |
//! | `max-fan-in`   | a count, or absent                     | sharing        |
//! | `verify-every` | layers, or absent                      | sharing        |
//! | `corrupt`, `fault`, `fault-at`, `fault-seed` | the injected fault, or absent | sharing |
//! | `opt`          | the optimizations' list                | garbling       |
//! | `linear`       | `auto` / `prss` / `dealer`             | garbling       |

use crate::error::RunError;
use crate::protocol::{Family, RunRequest};
use crate::RunOptions;
use huddle_net::{Network, Settings, Value};

/// The wire name of `--threads`, which `auto` offers as a most.
const THREADS: &str = "threads";

impl RunRequest {
    /// The settings every party of this run must agree on, for the hello.
    pub fn settings(&self) -> Settings {
        let (d, o) = (self.protocol().descriptor(), self.options());
        let mut s = Settings::new();
        s.option("protocol", text(d.name));
        s.option("reveal-to", number(o.reveal_to));
        if d.family == Family::Clear {
            return s;
        }
        s.option(
            THREADS,
            match o.threads_auto {
                true => Value::Least(o.threads as u64),
                false => Value::Number(o.threads as u64),
            },
        );
        s.option(
            "share-memory",
            match o.share_memory % (1 << 20) {
                0 => Value::Number((o.share_memory >> 20) as u64),
                _ => Value::Text(format!("{} bytes", o.share_memory)),
            },
        );
        if let Family::Garbling(_) = d.family {
            s.option("opt", Value::Text(o.garble.list()));
            s.option("linear", text(o.linear.name()));
            return s;
        }
        s.option("preprocess", text(o.preprocess.name()));
        s.option("split-roles", Value::Bool(o.split_roles));
        s.option("truncation", text(o.truncation.name()));
        s.option("max-fan-in", number(o.max_fan_in));
        s.option("verify-every", number(o.verify_every));
        let fault = o.fault;
        s.option("corrupt", number(fault.map(|f| f.party)));
        s.option(
            "fault",
            fault.map_or(Value::Absent, |f| text(f.kind.name())),
        );
        let at = fault
            .and_then(|f| f.message)
            .and_then(|m| d.messages.get(m));
        s.option("fault-at", at.map_or(Value::Absent, |t| text(t.name)));
        s.option(
            "fault-seed",
            fault.map_or(Value::Absent, |f| Value::Number(f.seed)),
        );
        s
    }

    /// This request with what connect settled: under `--threads auto`,
    /// the least count any party offered.
    pub fn settled(self, net: &Network) -> Result<RunRequest, RunError> {
        let options = self.options();
        match net.settled(THREADS) {
            Some(&Value::Number(t)) if options.threads_auto => {
                let threads = usize::try_from(t).map_err(|_| {
                    RunError::Internal(format!("the settled thread count {t} does not fit"))
                })?;
                RunRequest::new(
                    self.protocol(),
                    self.parties(),
                    RunOptions { threads, ..options },
                )
            }
            _ => Ok(self),
        }
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn number(n: Option<usize>) -> Value {
    n.map_or(Value::Absent, |n| Value::Number(n as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, FaultKind};
    use crate::Protocol;

    fn names(s: &Settings) -> Vec<&str> {
        s.iter().map(|s| s.name.as_str()).collect()
    }

    /// The names are the wire format: a rename here is an incompatible
    /// change of the hello (bump its version).
    #[test]
    fn every_family_has_its_settings_under_stable_names() {
        let r =
            |p: Protocol, n| RunRequest::new(p, n, RunOptions::for_protocol(p)).expect("request");
        assert_eq!(
            names(&r(Protocol::Ttp, 3).settings()),
            ["protocol", "reveal-to"]
        );
        assert_eq!(
            names(&r(Protocol::Bgw3, 3).settings()),
            [
                "protocol",
                "reveal-to",
                "threads",
                "share-memory",
                "opt",
                "linear"
            ]
        );
        assert_eq!(
            names(&r(Protocol::Quad, 4).settings()),
            [
                "protocol",
                "reveal-to",
                "threads",
                "share-memory",
                "preprocess",
                "split-roles",
                "truncation",
                "max-fan-in",
                "verify-every",
                "corrupt",
                "fault",
                "fault-at",
                "fault-seed"
            ]
        );
        let s = r(Protocol::Bgw3, 3).settings();
        assert_eq!(
            s.get("opt").map(|s| &s.value),
            Some(&Value::Text("reduced,short,prgzero,subfield".into()))
        );
        assert_eq!(
            s.get("share-memory").map(|s| &s.value),
            Some(&Value::Number(32))
        );
    }

    #[test]
    fn the_fault_and_verify_every_are_in_the_settings() {
        let d = Protocol::Quad.descriptor();
        let options = RunOptions {
            verify_every: Some(3),
            fault: Some(Fault {
                party: 1,
                kind: FaultKind::Drop,
                message: Some(0),
                seed: 7,
            }),
            threads: 2,
            threads_auto: true,
            ..RunOptions::for_protocol(Protocol::Quad)
        };
        let s = RunRequest::new(Protocol::Quad, 4, options)
            .expect("request")
            .settings();
        let value = |n: &str| s.get(n).map(|s| s.value.clone());
        assert_eq!(value("verify-every"), Some(Value::Number(3)));
        assert_eq!(value("corrupt"), Some(Value::Number(1)));
        assert_eq!(value("fault"), Some(Value::Text("drop".into())));
        assert_eq!(
            value("fault-at"),
            Some(Value::Text(d.messages[0].name.into()))
        );
        assert_eq!(value("fault-seed"), Some(Value::Number(7)));
        assert_eq!(value("threads"), Some(Value::Least(2)));
    }
}
