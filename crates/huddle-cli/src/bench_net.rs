//! `huddle bench net`: what the transport costs on loopback, next to a raw
//! socket doing the same work in the same run, and what it costs a
//! round-bound run (one AES block under Trio) against its bound.

use huddle_net::{local_networks, memory_networks, Handshake, NetError, NetProfile, Network};
use serde_json::json;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

const MESSAGE: usize = 8 << 20;

/// Runs `f` for each party on its own thread; the first error wins.
fn on_threads(
    nets: Vec<Network>,
    f: impl Fn(&mut Network) -> Result<(), NetError> + Sync,
) -> Result<(), String> {
    let results: Vec<Result<(), String>> = std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = nets
            .into_iter()
            .map(|mut net| s.spawn(move || f(&mut net).map_err(|e| e.to_string())))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("party thread panicked".into()))
            })
            .collect()
    });
    results.into_iter().collect()
}

/// Both parties send `total` bytes to each other at once, in rounds of one
/// 8 MiB message each way; returns bytes per second per direction.
fn duplex(nets: Vec<Network>, total: usize) -> Result<f64, String> {
    let rounds = total.div_ceil(MESSAGE);
    let start = Instant::now();
    on_threads(nets, |net| {
        let peer = 1 - net.party();
        for _ in 0..rounds {
            net.exchange(vec![(peer, vec![7u8; MESSAGE])], &[(peer, MESSAGE)])?;
        }
        Ok(())
    })?;
    Ok((rounds * MESSAGE) as f64 / start.elapsed().as_secs_f64())
}

/// `n` ping-pongs of 8 bytes; returns the mean round trip.
fn ping_pong(nets: Vec<Network>, n: usize) -> Result<Duration, String> {
    let start = Instant::now();
    on_threads(nets, |net| {
        let other = 1 - net.party();
        for _ in 0..n {
            if net.party() == 0 {
                net.send(other, vec![1; 8])?;
                net.recv(other, 8)?;
            } else {
                net.recv(other, 8)?;
                net.send(other, vec![1; 8])?;
            }
        }
        Ok(())
    })?;
    Ok(start.elapsed() / n as u32)
}

fn socket_pair() -> Result<(TcpStream, TcpStream), String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let a = TcpStream::connect(l.local_addr().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let (b, _) = l.accept().map_err(|e| e.to_string())?;
    for s in [&a, &b] {
        s.set_nodelay(true).map_err(|e| e.to_string())?;
    }
    Ok((a, b))
}

/// Raw sockets, no framing, no threads beyond one writer per side: the ceiling.
fn raw_duplex(total: usize) -> Result<f64, String> {
    let (a, b) = socket_pair()?;
    let rounds = total.div_ceil(MESSAGE);
    let start = Instant::now();
    std::thread::scope(|s| {
        for mut sock in [a, b] {
            let mut writer = sock.try_clone().expect("clone socket");
            s.spawn(move || {
                let buf = vec![7u8; MESSAGE];
                for _ in 0..rounds {
                    let _ = writer.write_all(&buf);
                }
            });
            s.spawn(move || {
                let mut buf = vec![0u8; MESSAGE];
                for _ in 0..rounds {
                    let _ = sock.read_exact(&mut buf);
                }
            });
        }
    });
    Ok((rounds * MESSAGE) as f64 / start.elapsed().as_secs_f64())
}

fn raw_ping_pong(n: usize) -> Result<Duration, String> {
    let (mut a, mut b) = socket_pair()?;
    let start = Instant::now();
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut buf = [0u8; 8];
            for _ in 0..n {
                if b.read_exact(&mut buf).is_err() || b.write_all(&buf).is_err() {
                    break;
                }
            }
        });
        let mut buf = [1u8; 8];
        for _ in 0..n {
            if a.write_all(&buf).is_err() || a.read_exact(&mut buf).is_err() {
                break;
            }
        }
    });
    Ok(start.elapsed() / n as u32)
}

/// Runs of the AES row per transport (the median is reported).
const AES_RUNS: usize = 11;

/// One AES-128 block under Trio, every party in this process: the median
/// online seconds and the online rounds over `transport` (memory, tcp, tls).
fn aes_block(transport: &str) -> Result<(f64, u32), String> {
    let circuit = huddle_circuit::gen::generate("aes128", 128, 2)?;
    let mut prg = huddle_core::Prg::from_seed([52; 16]);
    let inputs = huddle_circuit::random::random_inputs(&circuit, &mut prg, 1);
    let protocol = huddle_engine::Protocol::Trio;
    let parties = protocol.descriptor().parties.default_count();
    let hash = huddle_engine::circuit_hash(&circuit);
    let run = huddle_engine::Run::builder(protocol)
        .parties(parties)
        .circuit(circuit)
        .build()
        .map_err(|e| e.to_string())?;
    let timeout = Duration::from_secs(120);
    let mut online = Vec::with_capacity(AES_RUNS);
    let mut rounds = 0;
    for _ in 0..AES_RUNS {
        let hs = Handshake {
            session: "bench-aes".into(),
            settings: huddle_net::Settings::new(),
            circuit: hash,
        };
        let nets = match transport {
            "memory" => memory_networks(parties, &NetProfile::lan(), timeout),
            t => local_networks(parties, t == "tls", hs, NetProfile::lan(), timeout)
                .map_err(|e| e.to_string())?,
        };
        let report = run.local_over(nets, &inputs).map_err(|e| e.to_string())?;
        online.push(report.seconds.get("online").copied().unwrap_or(0.0));
        rounds = report.online_rounds;
    }
    online.sort_by(f64::total_cmp);
    Ok((online[AES_RUNS / 2], rounds))
}

pub fn run(as_json: bool, mib: usize, round_trips: usize) -> Result<(), String> {
    let total = mib << 20;
    let hs = || Handshake {
        session: "bench".into(),
        settings: huddle_net::Settings::new(),
        circuit: [0; 32],
    };
    let timeout = Duration::from_secs(120);
    let local = |tls: bool| {
        local_networks(2, tls, hs(), NetProfile::lan(), timeout).map_err(|e| e.to_string())
    };
    let raw_gbps = raw_duplex(total)? / 1e9;
    let tcp_gbps = duplex(local(false)?, total)? / 1e9;
    let tls_gbps = duplex(local(true)?, total)? / 1e9;
    let raw_rtt = raw_ping_pong(round_trips)?;
    let tcp_rtt = ping_pong(local(false)?, round_trips)?;
    let tls_rtt = ping_pong(local(true)?, round_trips)?;
    let mem_rtt = ping_pong(memory_networks(2, &NetProfile::lan(), timeout), round_trips)?;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let (aes_mem, rounds) = aes_block("memory")?;
    let (aes_tcp, _) = aes_block("tcp")?;
    let (aes_tls, _) = aes_block("tls")?;
    // What a round-bound run may take over sockets: its work (the run in
    // memory) plus two raw round trips per round.
    let aes_bound = aes_mem + f64::from(rounds) * 2.0 * raw_rtt.as_secs_f64();
    let ms = |s: f64| s * 1e3;
    let report = json!({
        "throughput_gb_per_s_per_direction": {"raw_socket": raw_gbps, "tcp": tcp_gbps, "tls": tls_gbps,
            "tcp_vs_raw": tcp_gbps / raw_gbps, "tls_vs_raw": tls_gbps / raw_gbps},
        "round_trip_us": {"raw_socket": us(raw_rtt), "tcp": us(tcp_rtt), "tls": us(tls_rtt), "memory": us(mem_rtt)},
        "mib_per_direction": mib, "round_trips": round_trips,
        "aes_block_trio_online_ms": {"memory": ms(aes_mem), "tcp": ms(aes_tcp), "tls": ms(aes_tls),
            "online_rounds": rounds, "bound": ms(aes_bound), "runs": AES_RUNS},
    });
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!(
        "huddle bench net (loopback, two parties, {mib} MiB each way at once in 8 MiB rounds)"
    );
    println!("  throughput per direction: raw socket {raw_gbps:.2} GB/s, huddle TCP {tcp_gbps:.2} GB/s ({:.0} %), huddle TLS {tls_gbps:.2} GB/s ({:.0} %)", 100.0 * tcp_gbps / raw_gbps, 100.0 * tls_gbps / raw_gbps);
    println!(
        "  round trip of 8 bytes: raw socket {:.1} us, huddle TCP {:.1} us, huddle TLS {:.1} us, in memory {:.1} us",
        us(raw_rtt),
        us(tcp_rtt),
        us(tls_rtt),
        us(mem_rtt)
    );
    println!(
        "  one AES-128 block under Trio, online (median of {AES_RUNS}): in memory {:.2} ms, TCP {:.2} ms, TLS {:.2} ms; {rounds} rounds, bound in memory + rounds x 2 x raw round trip = {:.2} ms",
        ms(aes_mem),
        ms(aes_tcp),
        ms(aes_tls),
        ms(aes_bound)
    );
    Ok(())
}
