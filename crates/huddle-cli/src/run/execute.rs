//! The steps `huddle local` and `huddle party` share once a run is
//! prepared: run it through the engine's library API with a progress bar,
//! write the output files, check the outputs, render them for the report.

use super::args::RunArgs;
use super::progress::ProgressDisplay;
use super::report::Outcome;
use crate::failure::Failure;
use huddle_circuit::{BitMatrix, Circuit, PlainEvaluator};
use huddle_engine::{LocalNet, PartyPlan, Run, RunReport};
use huddle_net::Network;
use std::path::{Path, PathBuf};

/// Who runs where, and what is checked.
pub(super) enum Parties {
    /// Every party in this process.
    All {
        /// Every input value, a row per instance.
        inputs: Vec<BitMatrix>,
        net: LocalNet,
        /// The job's output files, by party.
        output_files: Vec<(usize, PathBuf)>,
        /// Compare every party's outputs with the plaintext evaluator.
        check: bool,
    },
    /// One party over its connected network.
    One {
        net: Box<Network>,
        plan: PartyPlan,
        /// `--check`: the outputs `--expect` gives.
        expected: Option<Vec<BitMatrix>>,
    },
}

/// Runs `run` as `parties` says, then writes the outputs and checks them.
/// `quiet`: no progress bar (besides `--json`).
pub(super) fn execute(
    run: Run,
    args: &RunArgs,
    parties: Parties,
    quiet: bool,
) -> Result<Outcome, Failure> {
    // The engine may drop the gates once compiled; what follows needs only
    // the values' shapes.
    let circuit = run.circuit().interface();
    let display = ProgressDisplay::start(args.json || quiet, run.progress());
    let (report, check) = match parties {
        Parties::All {
            inputs,
            net,
            output_files,
            check,
        } => {
            let report = run.local(&inputs, &net)?;
            drop(display);
            for (p, path) in output_files {
                crate::data::write_outputs(
                    &path,
                    &circuit,
                    &report.party_outputs[p],
                    args.style(),
                )?;
            }
            (report, check.then_some(Check::Plain(&run, inputs)))
        }
        Parties::One {
            mut net,
            plan,
            expected,
        } => {
            let report = run.party(&mut net, plan)?;
            drop(display);
            (report, expected.map(Check::Expected))
        }
    };
    if let (Some(path), false) = (&args.outputs_file, report.outputs.is_empty()) {
        crate::data::write_outputs(path, &circuit, &report.outputs, args.style())?;
    }
    let checked = check.is_some();
    if let Some(check) = check {
        check.run(&circuit, &report, args)?;
    }
    Ok(Outcome {
        rendered: crate::data::Rendered::of(&circuit, &report.outputs, 0, args.style())?,
        report,
        checked,
        json: args.json,
        outputs_to_stdout: args.outputs_file.as_deref() == Some(Path::new("-")),
        auto: None,
    })
}

/// What `--check` compares the outputs with.
enum Check<'a> {
    /// The plaintext evaluator on these inputs, at every party.
    Plain(&'a Run, Vec<BitMatrix>),
    /// `--expect`'s outputs.
    Expected(Vec<BitMatrix>),
}

impl Check<'_> {
    fn run(self, circuit: &Circuit, report: &RunReport, args: &RunArgs) -> Result<(), Failure> {
        match self {
            Check::Plain(run, inputs) => {
                let want = PlainEvaluator::new(run.circuit())
                    .evaluate(&inputs)
                    .map_err(|e| Failure::internal(e.to_string()))?;
                for (p, out) in report.party_outputs.iter().enumerate() {
                    let learns = run.learns(p);
                    if (learns && out != &want) || (!learns && !out.is_empty()) {
                        return Err(Failure::check(format!(
                            "--check: party {p}'s outputs differ from the plaintext evaluator"
                        )));
                    }
                }
                Ok(())
            }
            Check::Expected(want) => Ok(crate::data::check_expected(
                circuit,
                &report.outputs,
                &want,
                args.style(),
            )?),
        }
    }
}
