use super::memory::Memory;
use super::plan::{self, Config, Draw, SMALL_SHARE_MEMORY_MIB};
use super::runner::Ran;
use super::*;
use crate::run::TransportArg;
use huddle_engine::exit::Exit;
use huddle_engine::Protocol;

/// Fails every run of one configuration; its memory grows by a tenth per
/// run of another, and stays put for the rest.
struct Scripted {
    failing: usize,
    growing: usize,
    last: usize,
    grown: u64,
}

impl Runner for Scripted {
    fn run(&mut self, _: &Config, draw: &Draw) -> Result<Ran, Failure> {
        self.last = draw.config;
        if draw.config == self.failing {
            return Err(Failure::check("outputs differ"));
        }
        Ok(Ran {
            online_rounds: Some(3),
        })
    }
    fn memory(&mut self) -> Memory {
        if self.last == self.growing {
            self.grown += self.grown / 10;
        }
        let resident = if self.last == self.growing {
            self.grown
        } else {
            1000
        };
        Memory {
            resident: Some(resident),
            heap: Some(10),
        }
    }
    fn command(&self, _: &Config, draw: &Draw) -> String {
        format!("local config {}", draw.config)
    }
}

fn config(protocol: Protocol) -> Config {
    Config {
        protocol,
        circuit: 0,
        batch: 1,
        share_memory_mib: None,
        transport: TransportArg::Memory,
        threads: 1,
    }
}

#[test]
fn failed_runs_are_recorded_the_soak_goes_on_and_growth_fails_the_verdict() {
    let pool = [Protocol::Trio, Protocol::Quad, Protocol::Bgw3].map(config);
    let labels = ["a", "b", "c"]
        .map(|l| Row::new(l.into(), serde_json::json!({})))
        .to_vec();
    let mut runner = Scripted {
        failing: 1,
        growing: 2,
        last: 0,
        grown: 1000,
    };
    let summary = soak(&mut runner, &pool, labels, 11, 0..150, None);
    assert_eq!(summary.runs(), 150);
    let (a, b, c) = (
        &summary.configs[0].stats,
        &summary.configs[1].stats,
        &summary.configs[2].stats,
    );
    assert_eq!(summary.failed.len(), b.runs);
    assert_eq!(b.failures, b.runs);
    assert!(b.runs > 1, "the soak went on after the first failure");
    let first = &summary.failed[0];
    assert_eq!((first.run, first.exit), (1, Exit::Check));
    assert_eq!(first.command, "local config 1");
    // The warm-up run of each is not measured; failed runs are not either.
    assert_eq!(a.resident.len(), a.runs - 1);
    assert!(b.resident.is_empty());
    assert!(a.passed() && !b.passed() && !c.passed());
    assert_eq!(summary.failing(), ["b", "c"]);
}

#[test]
fn a_replay_runs_one_run_of_the_sequence() {
    let pool = [Protocol::Trio, Protocol::Quad, Protocol::Bgw3].map(config);
    let mut runner = Scripted {
        failing: 9,
        growing: 9,
        last: 0,
        grown: 1,
    };
    let labels = ["a", "b", "c"]
        .map(|l| Row::new(l.into(), serde_json::json!({})))
        .to_vec();
    let summary = soak(&mut runner, &pool, labels, 11, 40..41, None);
    assert_eq!(summary.runs(), 1);
    assert_eq!(
        summary.configs[plan::draw(11, 40, 3).config].stats.runs,
        1,
        "run 40's configuration"
    );
}

/// Each circuit's sliced batch spans several slices under secret sharing
/// (one thread, the fewest slices), and garbling chunks a batch of 1000
/// at the small share memory: more online rounds than one instance takes.
#[test]
fn small_share_memory_splits_the_sliced_batches() {
    let circuits = plan::circuits().expect("generated");
    let mut runner = in_process::InProcess::new(&circuits)
        .map_err(|f| f.message)
        .expect("scratch folder");
    let garbled = circuits
        .iter()
        .position(|c| c.name == "adder32")
        .expect("listed");
    let cases = (0..circuits.len())
        .map(|c| (Protocol::Replicated, c, circuits[c].sliced_batch))
        .chain([(Protocol::Bgw3, garbled, 1000)]);
    let draw = plan::draw(1, 0, 1);
    for (protocol, circuit, batch) in cases {
        let name = circuits[circuit].name;
        assert!(
            plan::affordable(protocol, &circuits[circuit], batch),
            "{name}"
        );
        let one = Config {
            circuit,
            ..config(protocol)
        };
        let sliced = Config {
            batch,
            share_memory_mib: Some(SMALL_SHARE_MEMORY_MIB),
            ..one
        };
        let mut rounds = |c: &Config| {
            runner
                .run(c, &draw)
                .map_err(|f| f.message)
                .expect("runs")
                .online_rounds
                .expect("the in-process runner counts rounds")
        };
        let (one_rounds, sliced_rounds) = (rounds(&one), rounds(&sliced));
        assert!(
            sliced_rounds >= 2 * one_rounds,
            "{protocol} {name}: {one_rounds} -> {sliced_rounds}"
        );
    }
}

#[test]
fn outputs_written_by_a_run_are_whole() {
    let circuits = plan::circuits().expect("generated");
    let mut runner = in_process::InProcess::new(&circuits)
        .map_err(|f| f.message)
        .expect("scratch folder");
    let draw = Draw {
        write_outputs: true,
        ..plan::draw(2, 0, 1)
    };
    let c = Config {
        batch: 64,
        transport: TransportArg::Tls,
        threads: 2,
        ..config(Protocol::Mfi3)
    };
    runner.run(&c, &draw).map_err(|f| f.message).expect("runs");
    // Again over the file the first run left.
    runner.run(&c, &draw).map_err(|f| f.message).expect("runs");
    assert!(runner.command(&c, &draw).contains("--outputs"));
}
