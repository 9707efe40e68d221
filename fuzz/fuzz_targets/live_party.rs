//! A live party fed random frames after a valid hello: party 0 of a
//! two-party TTP run, whose peer's socket carries the fuzzer's bytes. The
//! party ends with an output or an error, never a panic or a hang, and
//! never holds more than its limits.
#![no_main]

use huddle_circuit::{gen, BitMatrix};
use huddle_engine::protocol::Protocol;
use huddle_engine::RunOptions;
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
    let request =
        huddle_engine::check_request(Protocol::Ttp, 2, &circuit, RunOptions::default()).expect("request");
    let mut net = huddle_net::fuzzing::party_zero_over(ours, Duration::from_secs(5)).expect("link");
    let own = vec![(0, BitMatrix::zeros(1, circuit.input_bits(0)))];
    let result = huddle_engine::run(&request, &mut net, &circuit, 1, &own);
    drop(net);
    if let Ok(out) = result {
        assert_eq!(out.len(), circuit.outputs().len());
    }
    feeder.join().expect("feeder");
});
