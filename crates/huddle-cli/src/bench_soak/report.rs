//! What a soak found: per configuration its runs, failures and memory
//! after each run, the verdict, and the report as text or JSON.

use super::memory::Memory;
use super::series::Series;
use serde_json::{json, Value};

/// Configurations measured fewer times are reported, not judged: a tenth
/// of fewer runs is not one run.
pub const MIN_JUDGED_RUNS: usize = 10;

/// The most the last tenth's mean resident set may exceed the first's.
pub const MAX_GROWTH_PERCENT: f64 = 5.0;

/// A memory series' first and last tenth (at least one value each).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Growth {
    pub first: f64,
    pub last: f64,
}

impl Growth {
    /// `None` for an empty series.
    pub fn of(series: &Series) -> Option<Growth> {
        let tenth = (series.len() / 10).max(1);
        (!series.is_empty()).then(|| Growth {
            first: series.mean(tenth, false),
            last: series.mean(tenth, true),
        })
    }

    pub fn percent(&self) -> f64 {
        if self.first > 0.0 {
            (self.last / self.first - 1.0) * 100.0
        } else if self.last > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    }
}

/// How a configuration's resident memory is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Judgement {
    /// At most [`MAX_GROWTH_PERCENT`] growth over enough runs.
    Flat(Growth),
    Grew(Growth),
    /// Fewer than [`MIN_JUDGED_RUNS`] runs measured.
    TooFewRuns,
    /// The system does not tell the resident set.
    Unknown,
}

impl Judgement {
    pub fn of(series: &Series, known: bool) -> Judgement {
        match (known, Growth::of(series)) {
            (false, _) => Judgement::Unknown,
            (true, Some(g)) if series.len() >= MIN_JUDGED_RUNS => {
                // In products: 5 % of 100 is exactly 105, not 105.00000000000001.
                if g.last * 100.0 <= g.first * (100.0 + MAX_GROWTH_PERCENT) {
                    Judgement::Flat(g)
                } else {
                    Judgement::Grew(g)
                }
            }
            (true, _) => Judgement::TooFewRuns,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Judgement::Flat(_) => "flat",
            Judgement::Grew(_) => "grew",
            Judgement::TooFewRuns => "too few runs",
            Judgement::Unknown => "unknown",
        }
    }
}

/// One configuration's runs.
#[derive(Clone, Debug, Default)]
pub struct ConfigStats {
    pub runs: usize,
    pub failures: usize,
    /// After each measured run (every successful one but the warm-up).
    pub resident: Series,
    pub heap: Series,
    /// Whether the system told the memory (else the series stay empty).
    pub memory_unknown: bool,
    /// The online rounds of its last successful run (several slices of
    /// a batch repeat the rounds).
    pub online_rounds: Option<u32>,
    pub seconds: f64,
}

impl ConfigStats {
    pub fn measured(&mut self, m: Memory) {
        match (m.resident, m.heap) {
            (Some(r), heap) => {
                self.resident.push(r);
                if let Some(h) = heap {
                    self.heap.push(h);
                }
            }
            (None, _) => self.memory_unknown = true,
        }
    }

    pub fn judgement(&self) -> Judgement {
        Judgement::of(&self.resident, !self.memory_unknown)
    }

    /// No failure, and memory flat where judged.
    pub fn passed(&self) -> bool {
        self.failures == 0 && !matches!(self.judgement(), Judgement::Grew(_))
    }
}

/// A run that failed: enough to replay it.
#[derive(Clone, Debug)]
pub struct FailedRun {
    pub run: usize,
    pub label: String,
    /// `huddle local ...` as the run was given.
    pub command: String,
    pub exit: huddle_engine::exit::Exit,
    pub error: String,
}

/// A configuration's line of the report.
#[derive(Clone, Debug)]
pub struct Row {
    /// A short name, e.g. `trio aes128 x64 1MiB tls t2`.
    pub label: String,
    /// Its settings, for the JSON report.
    pub settings: Value,
    pub stats: ConfigStats,
}

impl Row {
    pub fn new(label: String, settings: Value) -> Row {
        Row {
            label,
            settings,
            stats: ConfigStats::default(),
        }
    }
}

/// A whole soak.
pub struct Summary {
    pub seed: u64,
    pub configs: Vec<Row>,
    pub failed: Vec<FailedRun>,
    pub seconds: f64,
}

impl Summary {
    pub fn runs(&self) -> usize {
        self.configs.iter().map(|r| r.stats.runs).sum()
    }

    pub fn judged(&self) -> usize {
        let judged =
            |s: &ConfigStats| matches!(s.judgement(), Judgement::Flat(_) | Judgement::Grew(_));
        self.configs.iter().filter(|r| judged(&r.stats)).count()
    }

    /// The configurations that failed the verdict.
    pub fn failing(&self) -> Vec<&str> {
        self.configs
            .iter()
            .filter(|r| !r.stats.passed())
            .map(|r| r.label.as_str())
            .collect()
    }

    /// The command that repeats run `run` alone (same configuration,
    /// same inputs).
    pub fn replay(&self, run: usize) -> String {
        format!(
            "huddle bench soak --seed {} --configs {} --replay {run}",
            self.seed,
            self.configs.len()
        )
    }

    pub fn json(&self) -> Value {
        let growth = Growth::of;
        let rows: Vec<Value> = self
            .configs
            .iter()
            .map(|row| {
                let s = &row.stats;
                let (r, h) = (growth(&s.resident), growth(&s.heap));
                json!({
                    "config": row.label, "settings": row.settings,
                    "runs": s.runs, "failures": s.failures,
                    "measured_runs": s.resident.len(),
                    "online_rounds": s.online_rounds, "seconds": s.seconds,
                    "resident_first_bytes": r.map(|g| g.first),
                    "resident_last_bytes": r.map(|g| g.last),
                    "resident_growth_percent": r.map(|g| g.percent()),
                    "heap_first_bytes": h.map(|g| g.first),
                    "heap_last_bytes": h.map(|g| g.last),
                    "heap_growth_percent": h.map(|g| g.percent()),
                    "memory": s.judgement().name(),
                    "passed": s.passed(),
                })
            })
            .collect();
        let failed: Vec<Value> = self
            .failed
            .iter()
            .map(|f| {
                json!({"run": f.run, "config": f.label, "command": f.command,
                    "exit": f.exit.code(), "error": f.error,
                    "replay": self.replay(f.run)})
            })
            .collect();
        json!({
            "seed": self.seed, "runs": self.runs(), "failures": self.failed.len(),
            "seconds": self.seconds, "configs": self.configs.len(),
            "configs_judged": self.judged(),
            "min_judged_runs": MIN_JUDGED_RUNS, "max_growth_percent": MAX_GROWTH_PERCENT,
            "passed": self.failing().is_empty(),
            "rows": rows, "failed_runs": failed,
        })
    }

    pub fn text(&self) -> Vec<String> {
        let mib = |b: f64| format!("{:.1}", b / f64::from(1 << 20));
        let width = self
            .configs
            .iter()
            .map(|r| r.label.len())
            .max()
            .unwrap_or(0);
        let mut out = vec![format!(
            "{:width$}  {:>5} {:>4} {:>6}  {:>8} {:>8} {:>7}  {:>8} {:>8} {:>7}  memory",
            "configuration",
            "runs",
            "fail",
            "rounds",
            "RSS MiB",
            "last",
            "growth",
            "heap MiB",
            "last",
            "growth"
        )];
        for Row {
            label, stats: s, ..
        } in &self.configs
        {
            let cells = |series: &Series| match Growth::of(series) {
                Some(g) => (mib(g.first), mib(g.last), format!("{:+.1}%", g.percent())),
                None => ("-".into(), "-".into(), "-".into()),
            };
            let (r0, r1, rg) = cells(&s.resident);
            let (h0, h1, hg) = cells(&s.heap);
            let rounds = s.online_rounds.map_or("-".into(), |r| r.to_string());
            out.push(format!(
                "{label:width$}  {:>5} {:>4} {rounds:>6}  {r0:>8} {r1:>8} {rg:>7}  {h0:>8} {h1:>8} {hg:>7}  {}",
                s.runs,
                s.failures,
                s.judgement().name()
            ));
        }
        out.push(format!(
            "{} runs, {} failures, {:.1} s; {} of {} configurations judged (memory after at \
             least {MIN_JUDGED_RUNS} runs besides the first, the last tenth's mean resident set \
             at most {MAX_GROWTH_PERCENT}% above the first tenth's; fewer runs: reported, not judged)",
            self.runs(),
            self.failed.len(),
            self.seconds,
            self.judged(),
            self.configs.len()
        ));
        for f in &self.failed {
            out.push(format!(
                "run {} failed ({}), exit {}: {}\n  huddle {}\n  replay: {}",
                f.run,
                f.label,
                f.exit.code(),
                f.error,
                f.command,
                self.replay(f.run)
            ));
        }
        let failing = self.failing();
        out.push(if failing.is_empty() {
            "verdict: passed".into()
        } else {
            format!("verdict: FAILED: {}", failing.join("; "))
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(values: &[u64]) -> ConfigStats {
        let mut stats = ConfigStats {
            runs: values.len() + 1,
            ..ConfigStats::default()
        };
        for &v in values {
            stats.measured(Memory {
                resident: Some(v),
                heap: Some(v),
            });
        }
        stats
    }

    #[test]
    fn a_growing_series_fails_and_a_flat_one_passes() {
        let growing: Vec<u64> = (0..40).map(|i| 100 + i * 2).collect();
        let g = Growth::of(&stats(&growing).resident).expect("values");
        assert_eq!((g.first, g.last), (103.0, 175.0));
        assert!(matches!(stats(&growing).judgement(), Judgement::Grew(_)));
        assert!(!stats(&growing).passed());
        // Noise within 5 % of the first tenth, and a drop, pass.
        let flat: Vec<u64> = (0..40).map(|i| 1000 + (i * 7) % 50).collect();
        assert!(matches!(stats(&flat).judgement(), Judgement::Flat(_)));
        assert!(stats(&flat).passed());
        let falling: Vec<u64> = (0..20).rev().map(|i| 100 + i).collect();
        assert!(stats(&falling).passed());
        // Just over the bound fails, at it passes.
        let mut edge = vec![100; 10];
        edge[9] = 105;
        assert!(matches!(stats(&edge).judgement(), Judgement::Flat(_)));
        edge[9] = 106;
        assert!(matches!(stats(&edge).judgement(), Judgement::Grew(_)));
    }

    #[test]
    fn fewer_than_ten_runs_or_unknown_memory_are_not_judged() {
        let short = stats(&[100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600]);
        assert_eq!(short.judgement(), Judgement::TooFewRuns);
        assert!(short.passed());
        let unknown = ConfigStats {
            memory_unknown: true,
            ..stats(&[])
        };
        assert_eq!(unknown.judgement(), Judgement::Unknown);
        assert!(unknown.passed());
    }

    #[test]
    fn a_failure_fails_the_verdict_and_names_the_replay() {
        let summary = Summary {
            seed: 5,
            configs: vec![
                Row {
                    stats: stats(&[100; 12]),
                    ..Row::new("trio adder32 x1 memory t1".into(), json!({}))
                },
                Row {
                    stats: ConfigStats {
                        failures: 1,
                        ..stats(&[100; 3])
                    },
                    ..Row::new("bgw3 aes128 x64 tls t2".into(), json!({}))
                },
            ],
            failed: vec![FailedRun {
                run: 17,
                label: "bgw3 aes128 x64 tls t2".into(),
                command: "local --protocol bgw3".into(),
                exit: huddle_engine::exit::Exit::Check,
                error: "--check: party 0's outputs differ".into(),
            }],
            seconds: 1.5,
        };
        assert_eq!(summary.failing(), ["bgw3 aes128 x64 tls t2"]);
        assert_eq!(summary.judged(), 1);
        let v = summary.json();
        assert_eq!(v["passed"], false);
        assert_eq!(v["runs"], 13 + 4);
        assert_eq!(
            v["failed_runs"][0]["replay"],
            "huddle bench soak --seed 5 --configs 2 --replay 17"
        );
        assert_eq!(v["failed_runs"][0]["exit"], 9);
        assert_eq!(v["rows"][0]["memory"], "flat");
        assert_eq!(v["rows"][1]["memory"], "too few runs");
        let text = summary.text().join("\n");
        assert!(
            text.contains("verdict: FAILED: bgw3 aes128 x64 tls t2"),
            "{text}"
        );
        assert!(text.contains("--replay 17"), "{text}");
    }
}
