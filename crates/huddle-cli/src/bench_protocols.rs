//! `huddle bench protocols`: every protocol on the same circuits and batch,
//! next to the trusted third party measured in the same run.

use huddle_circuit::random::random_inputs;
use huddle_circuit::{BitMatrix, Circuit, CircuitAssembler, Format, Op, ValueSpec};
use huddle_core::Prg;
use huddle_net::{local_networks, memory_networks, Handshake, NetProfile, Network};
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

/// `g` independent 2-input ANDs.
fn independent_ands(g: u32) -> Circuit {
    let mut asm = CircuitAssembler::new(
        u64::from(3 * g),
        None,
        vec![ValueSpec::bits("a", g), ValueSpec::bits("b", g)],
    )
    .expect("valid");
    for j in 0..g {
        asm.push(Op::And, &[j, g + j], &[2 * g + j]).expect("and");
    }
    asm.finish(vec![(ValueSpec::bits("c", g), (2 * g..3 * g).collect())])
        .expect("valid")
}

/// Wall time of one run of `protocol` with all parties on this machine.
fn time_run(
    protocol: &str,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    tcp: bool,
) -> Result<Duration, String> {
    let parties = huddle_engine::protocol(protocol)
        .and_then(|p| p.parties)
        .unwrap_or(3);
    let timeout = Duration::from_secs(300);
    let nets: Vec<Network> = if tcp {
        let hs = Handshake {
            session: "bench".into(),
            protocol: protocol.into(),
            circuit: huddle_engine::circuit_hash(circuit),
        };
        local_networks(parties, false, hs, NetProfile::lan(), timeout).map_err(|e| e.to_string())?
    } else {
        memory_networks(parties, &NetProfile::lan(), timeout)
    };
    let start = Instant::now();
    huddle_engine::run_local(protocol, nets, circuit, inputs, Default::default())?;
    let elapsed = start.elapsed();
    Ok(elapsed)
}

pub fn run(
    as_json: bool,
    batch: usize,
    tcp: bool,
    circuits: Option<std::path::PathBuf>,
) -> Result<(), String> {
    let mut prg = Prg::from_seed([21; 16]);
    let mut report = Map::new();
    let mut lines = Vec::new();
    let ands = independent_ands(1024);
    let and_inputs = random_inputs(&ands, &mut prg, batch);
    let dir = circuits.or_else(|| {
        std::env::current_dir()
            .ok()
            .and_then(|d| huddle_circuit::corpus::locate(&d))
    });
    let aes = dir
        .map(|d| d.join("aes_128.txt"))
        .filter(|p| p.is_file())
        .map(|p| huddle_circuit::read_circuit_file(&p, Format::Auto))
        .transpose()
        .map_err(|e| e.to_string())?;
    let aes_batch = (batch / 16).max(64);
    let aes_inputs = aes.as_ref().map(|c| random_inputs(c, &mut prg, aes_batch));
    for info in huddle_engine::PROTOCOLS {
        let mut entry = Map::new();
        let t = time_run(info.name, &ands, &and_inputs, tcp)?;
        let rate = (1024 * batch) as f64 / t.as_secs_f64();
        entry.insert("and_gates_per_second".into(), json!(rate));
        let mut line = format!(
            "{:<11} {:.3e} AND/s (1024 x {batch} independent ANDs)",
            info.name, rate
        );
        if let (Some(c), Some(inputs)) = (&aes, &aes_inputs) {
            let t = time_run(info.name, c, inputs, tcp)?;
            let blocks = aes_batch as f64 / t.as_secs_f64();
            entry.insert("aes128_blocks_per_second".into(), json!(blocks));
            line.push_str(&format!(
                ", {blocks:.3e} AES-128 blocks/s ({aes_batch} blocks)"
            ));
        }
        report.insert(info.name.into(), Value::Object(entry));
        lines.push(line);
    }
    let header = format!(
        "huddle bench protocols ({}, all parties on this machine, 1 thread each)",
        if tcp { "loopback TCP" } else { "in memory" }
    );
    crate::bench::print_report(as_json, &header, report, &lines)
}
