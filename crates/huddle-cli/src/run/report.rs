//! What `huddle local` and `huddle party` print when a run ends: the
//! outputs' lines (instance 0) on stdout, or with `--json` one report, the
//! engine's [`RunReport`] with the outputs rendered as the data flags say
//! and whether they were checked. A run of every party also summarizes its
//! traffic on stderr.

use crate::failure::Failure;
use huddle_engine::RunReport;
use serde::Serialize;

/// A finished run as the command shows it.
pub struct Outcome {
    pub(super) report: RunReport,
    /// Instance 0 of the outputs, rendered.
    pub(super) rendered: crate::data::Rendered,
    pub(super) checked: bool,
    pub(super) json: bool,
    /// `--outputs -` already wrote every instance to stdout.
    pub(super) outputs_to_stdout: bool,
    /// `--protocol auto`'s choice (`--json`'s `auto`).
    pub(super) auto: Option<serde_json::Value>,
}

/// `--json`: the run's report with the rendered outputs and the check.
#[derive(Serialize)]
struct Json<'a> {
    outputs: serde_json::Value,
    checked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    auto: Option<&'a serde_json::Value>,
    #[serde(flatten)]
    report: &'a RunReport,
}

impl Outcome {
    /// The engine's report of the run.
    pub fn report(&self) -> &RunReport {
        &self.report
    }

    /// The report on stdout (JSON or the outputs' lines) and stderr.
    pub fn print(&self) -> Result<(), Failure> {
        if self.json {
            let json = Json {
                outputs: self.rendered.json(),
                checked: self.checked,
                auto: self.auto.as_ref(),
                report: &self.report,
            };
            // Through a JSON value: its keys print in order.
            let value = serde_json::to_value(json).map_err(|e| Failure::internal(e.to_string()))?;
            let text = serde_json::to_string_pretty(&value)
                .map_err(|e| Failure::internal(e.to_string()))?;
            return crate::stdout::output(text);
        }
        if !self.outputs_to_stdout {
            for line in self.rendered.lines() {
                crate::stdout::output(line)?;
            }
        }
        if self.report.party.is_none() {
            self.summarize();
        }
        Ok(())
    }

    /// A run of every party: its size, time, rounds and every link's
    /// traffic on stderr.
    fn summarize(&self) {
        let r = &self.report;
        eprintln!(
            "{} parties, protocol {}, {} instance(s), {:.3} ms, {} online rounds{}",
            r.parties,
            r.protocol,
            r.batch,
            r.wall_seconds * 1e3,
            r.online_rounds,
            if self.checked {
                ", checked against the plaintext evaluator"
            } else {
                ""
            }
        );
        if let Some(linear) = r.linear_preprocessing {
            eprintln!("  linear preprocessing: {}", linear_prose(linear));
        }
        for (phase, from, to, s) in r.accounting.iter() {
            eprintln!(
                "  {phase} {from}->{to}: {} bytes, {} messages, {} rounds",
                s.bytes, s.messages, s.rounds
            );
        }
    }
}

/// bgw2-mal's linear preprocessing (the report's `--linear` name) as a
/// local run's summary says it.
fn linear_prose(name: &str) -> &'static str {
    match name {
        "dealer" => "trusted dealer (in this process, not one of the parties)",
        _ => "prss (pseudo-random secret sharing from a one-time key setup)",
    }
}
