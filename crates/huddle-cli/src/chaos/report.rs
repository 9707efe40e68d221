//! What `huddle bench chaos` counts, per stage of the run the signal hit
//! and per signal, and how it is shown.

use super::aim::{Signal, Stage};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// The tallies of one stage × signal.
#[derive(Default, Clone)]
pub struct Cell {
    /// Chaos runs whose signal hit this stage.
    pub runs: usize,
    /// Other parties that stopped, each naming the signalled party.
    pub stopped_named: usize,
    /// Other parties that finished with the right outputs (the signalled
    /// party had sent all they needed).
    pub completed: usize,
    /// From the signal until the last other party had stopped.
    pub stop_times: Vec<Duration>,
}

impl Cell {
    fn worst(&self) -> Option<Duration> {
        self.stop_times.iter().max().copied()
    }

    fn median(&self) -> Option<Duration> {
        let mut t = self.stop_times.clone();
        t.sort();
        t.get(t.len() / 2).copied()
    }
}

/// Everything a chaos bench counted.
#[derive(Default)]
pub struct Tally {
    pub cells: BTreeMap<(Stage, Signal), Cell>,
    /// Signals that hit no stage: before the first (connecting) or after
    /// the protocol (writing outputs).
    pub outside: BTreeMap<(&'static str, Signal), usize>,
    /// Runs in which the chosen moment never came (the party had finished).
    pub missed: usize,
    /// Runs repeated because a port was taken by another program.
    pub port_retries: usize,
    /// Clean runs of every configuration before the chaos (all must pass).
    pub probes: usize,
    pub hangs: usize,
    pub wrong_outputs: usize,
    pub partial_files: usize,
    /// Parties that stopped without naming the signalled party, or with an
    /// exit code the documentation does not list, or that panicked.
    pub unnamed: usize,
    pub reruns_ok: usize,
    pub reruns_failed: usize,
    /// Dealt jobs whose rerun every party refused as spent.
    pub spent_refused: usize,
    /// Temporaries a SIGKILL left under hidden names.
    pub leftovers: usize,
    /// Every problem, one line each (configuration, seed, what).
    pub problems: Vec<String>,
    /// How often each cause was named by a stopped party (party numbers
    /// replaced by `P`).
    pub causes: BTreeMap<String, usize>,
    pub seconds: f64,
}

impl Tally {
    /// Whether nothing went wrong and every cell reached `quota`.
    pub fn passed(&self, quota: usize) -> bool {
        self.problems.is_empty() && self.short_cells(quota).is_empty()
    }

    /// The cells below `quota` runs.
    pub fn short_cells(&self, quota: usize) -> Vec<String> {
        let mut short = Vec::new();
        for stage in Stage::ALL {
            for signal in Signal::ALL {
                let runs = self.cells.get(&(stage, signal)).map_or(0, |c| c.runs);
                if runs < quota {
                    short.push(format!("{} × {}: {runs}", stage.name(), signal.name()));
                }
            }
        }
        short
    }

    /// Chaos runs counted in a cell.
    pub fn counted(&self) -> usize {
        self.cells.values().map(|c| c.runs).sum()
    }

    pub fn json(&self, seed: u64, quota: usize) -> Value {
        let ms = |d: Option<Duration>| d.map(|d| (d.as_secs_f64() * 1e3).round());
        let cells: Vec<Value> = Stage::ALL
            .iter()
            .flat_map(|&stage| Signal::ALL.iter().map(move |&signal| (stage, signal)))
            .map(|(stage, signal)| {
                let c = self
                    .cells
                    .get(&(stage, signal))
                    .cloned()
                    .unwrap_or_default();
                json!({"stage": stage.name(), "signal": signal.name(), "runs": c.runs,
                    "others_stopped_naming_it": c.stopped_named, "others_completed": c.completed,
                    "worst_stop_ms": ms(c.worst()), "median_stop_ms": ms(c.median())})
            })
            .collect();
        let outside: Vec<Value> = self
            .outside
            .iter()
            .map(|((when, signal), n)| json!({"when": when, "signal": signal.name(), "runs": n}))
            .collect();
        json!({
            "seed": seed, "quota_per_cell": quota, "passed": self.passed(quota),
            "chaos_runs": self.counted(), "cells": cells, "outside_stages": outside,
            "missed": self.missed, "port_retries": self.port_retries, "clean_probes": self.probes,
            "hangs": self.hangs, "wrong_outputs": self.wrong_outputs,
            "partial_files": self.partial_files, "unnamed_or_undocumented": self.unnamed,
            "reruns_ok": self.reruns_ok, "reruns_failed": self.reruns_failed,
            "dealt_reruns_refused_as_spent": self.spent_refused,
            "sigkill_leftover_temporaries": self.leftovers,
            "causes": self.causes, "problems": self.problems, "seconds": self.seconds,
        })
    }

    pub fn text(&self, seed: u64, quota: usize) -> String {
        let ms = |d: Option<Duration>| {
            d.map_or("-".to_string(), |d| format!("{:.0}", d.as_secs_f64() * 1e3))
        };
        let mut out = format!(
            "chaos: seed {seed}, {} runs counted in {:.0} s ({} clean probes first)\n\n\
             {:<13} {:<8} {:>5} {:>14} {:>10} {:>12} {:>12}\n",
            self.counted(),
            self.seconds,
            self.probes,
            "stage",
            "signal",
            "runs",
            "others named",
            "completed",
            "median stop",
            "worst stop"
        );
        for stage in Stage::ALL {
            for signal in Signal::ALL {
                let c = self
                    .cells
                    .get(&(stage, signal))
                    .cloned()
                    .unwrap_or_default();
                out += &format!(
                    "{:<13} {:<8} {:>5} {:>14} {:>10} {:>9} ms {:>9} ms\n",
                    stage.name(),
                    signal.name(),
                    c.runs,
                    c.stopped_named,
                    c.completed,
                    ms(c.median()),
                    ms(c.worst())
                );
            }
        }
        for ((when, signal), n) in &self.outside {
            out += &format!(
                "{when:<13} {:<8} {n:>5} (not counted in a stage)\n",
                signal.name()
            );
        }
        out += &format!(
            "\nhangs {}, wrong outputs {}, partial files {}, unnamed or undocumented stops {}\n\
             reruns: {} succeeded, {} failed; dealt jobs refused as spent on rerun: {}\n\
             missed moments {}, port retries {}, SIGKILL leftover temporaries {} (hidden names, removed)\n",
            self.hangs,
            self.wrong_outputs,
            self.partial_files,
            self.unnamed,
            self.reruns_ok,
            self.reruns_failed,
            self.spent_refused,
            self.missed,
            self.port_retries,
            self.leftovers,
        );
        out += "\ncauses named by the parties that stopped:\n";
        let mut causes: Vec<(&String, &usize)> = self.causes.iter().collect();
        causes.sort_by(|a, b| b.1.cmp(a.1));
        for (cause, n) in causes.iter().take(12) {
            out += &format!("  {n:>6}  {cause}\n");
        }
        for p in self.problems.iter().take(20) {
            out += &format!("PROBLEM: {p}\n");
        }
        let short = self.short_cells(quota);
        if !short.is_empty() {
            out += &format!("below the quota of {quota}: {}\n", short.join(", "));
        }
        out += if self.passed(quota) {
            "passed\n"
        } else {
            "FAILED\n"
        };
        out
    }
}
