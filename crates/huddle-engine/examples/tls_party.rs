//! One party of a run over TLS, as a program on one host of a multi-host
//! run would be: it connects to the parties of a parties file (here all on
//! loopback, with a development CA made for the example) and runs its own
//! part. The other two parties are threads of this example, each with its
//! own connection, as they would be processes on other hosts.
//!
//! The millionaires' problem under bgw3: party 0's wealth against party
//! 1's; party 2 holds no input. Prints party 0's output and report, checked
//! against the plaintext evaluator.
//!
//! `cargo run --example tls_party -p huddle-engine`

use huddle_circuit::{gen, BitMatrix, PlainEvaluator};
use huddle_engine::OwnValue;
use huddle_engine::{Batch, PartyLinks, PartyPlan, Protocol, Run, RunReport};
use huddle_net::certs::DevPki;
use huddle_net::tls::{TlsIdentity, Trust};
use huddle_net::{NetworkConfig, PartyConfig, Transport};
use std::error::Error;
use std::net::TcpListener;

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

/// `n` ports the OS picks as free on loopback (bound at once, then released
/// for the parties to listen on).
fn free_ports(n: usize) -> Result<Vec<u16>> {
    let listeners = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()?;
    Ok(listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<std::io::Result<_>>()?)
}

/// One instance of a 32-bit value.
fn value(v: u32) -> BitMatrix {
    let mut m = BitMatrix::zeros(1, 32);
    m.row_mut(0)[0] = u64::from(v);
    m
}

/// Party `id` of `run`: connects over TLS with its credentials, runs its
/// part with the input values it owns.
fn play(
    run: Run,
    config: &NetworkConfig,
    pki: &DevPki,
    id: usize,
    inputs: &[BitMatrix],
) -> Result<RunReport> {
    let identity = TlsIdentity {
        trust: Trust::Ca(pki.ca_cert_der.clone()),
        cert_der: pki.parties[id].cert_der.clone(),
        key_der: pki.parties[id].key_der.clone(),
    };
    let links = PartyLinks::new(Transport::Tls(identity));
    let mut plan = PartyPlan::new(id, Batch::Given(1));
    for i in run.owned_by(id) {
        plan = plan.with_input(i, OwnValue::Rows(inputs[i].clone()));
    }
    let mut net = run.connect(config, &plan, &links)?;
    Ok(run.party(&mut net, plan)?)
}

fn main() -> Result<()> {
    let pki = DevPki::generate(3)?;
    let ports = free_ports(3)?;
    let config = NetworkConfig {
        session: "tls-party-example".into(),
        ca: None,
        parties: (0..3)
            .map(|id| PartyConfig {
                id,
                host: "127.0.0.1".into(),
                port: ports[id],
                cert: None,
                key: None,
            })
            .collect(),
    };
    // Is party 0 richer than party 1?
    let circuit = gen::cmp_gt(32, 2);
    let inputs = [value(1_250_000), value(980_000)];
    let run = Run::builder(Protocol::Bgw3)
        .parties(3)
        .circuit(circuit)
        .build()?;
    let report = std::thread::scope(|s| {
        let others: Vec<_> = (1..3)
            .map(|id| {
                let (run, config, pki, inputs) = (run.clone(), &config, &pki, &inputs);
                s.spawn(move || play(run, config, pki, id, inputs))
            })
            .collect();
        let mine = play(run.clone(), &config, &pki, 0, &inputs);
        for other in others {
            other.join().map_err(|_| "a party's thread panicked")??;
        }
        mine
    })?;
    let want = PlainEvaluator::new(run.circuit()).evaluate(&inputs)?;
    if report.outputs != want {
        return Err("party 0's output differs from the plaintext evaluator's".into());
    }
    let richer = report.outputs[0].get(0, 0);
    println!("party 0 is richer than party 1: {richer} (checked against the plaintext evaluator)");
    let mine: u64 = report
        .bytes
        .values()
        .flat_map(|links| links.iter())
        .filter(|(link, _)| link.starts_with("0->"))
        .map(|(_, bytes)| bytes)
        .sum();
    println!(
        "party {} of {} over TLS, protocol {}: sent {mine} bytes, {} online rounds",
        report.party.unwrap_or(0),
        report.parties,
        report.protocol,
        report.online_rounds
    );
    Ok(())
}
