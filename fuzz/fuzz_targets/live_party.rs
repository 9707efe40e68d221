//! A live party fed random frames after a valid hello: party 0 of a
//! two-party TTP run, whose peer's socket carries the fuzzer's bytes. The
//! party ends with an output or an error, never a panic or a hang, and
//! never holds more than its limits.
#![no_main]

use huddle_circuit::{gen, BitMatrix};
use huddle_engine::{Batch, OwnValue, PartyPlan, Protocol, Run};
use libfuzzer_sys::fuzz_target;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    // Loopback set-up failing (ports exhausted by the fuzzer's pace) is
    // the harness's problem, not a finding: skip the input.
    let Ok(listener) = TcpListener::bind("127.0.0.1:0") else { return };
    let Ok(peer) = listener.local_addr().and_then(TcpStream::connect) else { return };
    let Ok((ours, _)) = listener.accept() else { return };
    let feeder = {
        let data = data.to_vec();
        std::thread::spawn(move || {
            let mut peer = peer;
            let _ = peer.write_all(&data);
            // Closing ends the run: the party must not wait out a timeout.
            let _ = peer.shutdown(std::net::Shutdown::Write);
            let mut sink = Vec::new();
            let _ = std::io::Read::read_to_end(&mut peer, &mut sink);
        })
    };
    let circuit = gen::cmp_gt(8, 2);
    let outputs = circuit.outputs().len();
    let plan = PartyPlan::new(0, Batch::Given(1))
        .with_input(0, OwnValue::Rows(BitMatrix::zeros(1, circuit.input_bits(0))));
    let run = Run::builder(Protocol::Ttp)
        .parties(2)
        .circuit(circuit)
        .build()
        .expect("request");
    let mut net = huddle_net::fuzzing::party_zero_over(ours, Duration::from_secs(5)).expect("link");
    let result = run.party(&mut net, plan);
    drop(net);
    if let Ok(report) = result {
        assert_eq!(report.outputs.len(), outputs);
    }
    feeder.join().expect("feeder");
});
