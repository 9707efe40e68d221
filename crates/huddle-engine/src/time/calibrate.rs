//! Measuring a host's [`Rates`] ([`Rates::calibrate`]): the transports by
//! streams between two endpoints, the kinds of local work by small runs
//! of every protocol in this process, each rate fitted so the time model
//! predicts what the run measured.

use super::rates::{Rates, TransportRates};
use crate::cost::Work;
use crate::descriptor::Family;
use crate::error::RunError;
use crate::{Links, LocalNet, Protocol, Run};
use huddle_circuit::builder::Builder;
use huddle_circuit::random::random_inputs;
use huddle_circuit::{Circuit, Op};
use huddle_core::{Prg, RingWidth};
use std::time::Instant;

/// How much a calibration measures.
#[derive(Clone, Copy, Debug)]
struct Size {
    /// Words per probe run (instances are 64 times as many for Boolean ones).
    words: usize,
    /// Gates per layer and layers of the probe circuits.
    width: u32,
    layers: usize,
    /// Small messages per stream, the bytes of a large one, and the bytes
    /// of a stream of large ones.
    messages: usize,
    large: usize,
    volume: usize,
    /// Runs per measurement (their median counts).
    repeats: usize,
    /// Layers of the deep and narrow probe of the wake-ups.
    deep: usize,
}

impl Rates {
    /// Measures this host's rates: per-message and per-byte costs of every
    /// transport (a stream between two endpoints), its wake-up (fitted to
    /// runs of a deep and narrow circuit over it), and for every protocol
    /// its gate rates, fitted so the time model predicts the online (for
    /// garbling also the offline) seconds small runs of every party in this
    /// process measure (a few seconds in all). Time it in an optimized
    /// build only: a debug build's rates describe the debug build.
    pub fn calibrate() -> Result<Rates, RunError> {
        calibrate(Size {
            words: 1024,
            width: 1024,
            layers: 8,
            messages: 20000,
            large: 1 << 20,
            volume: 1 << 26,
            repeats: 5,
            deep: 256,
        })
    }

    /// [`calibrate`](Self::calibrate) on the smallest sizes: the same steps
    /// in a fraction of a second, the rates too noisy to plan with (for
    /// tests of the procedure).
    pub fn calibrate_quick() -> Result<Rates, RunError> {
        calibrate(Size {
            words: 1,
            width: 16,
            layers: 2,
            messages: 8,
            large: 256,
            volume: 1024,
            repeats: 1,
            deep: 4,
        })
    }
}

fn calibrate(size: Size) -> Result<Rates, RunError> {
    let mut rates = Rates {
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        ..Rates::default()
    };
    for links in [Links::Memory, Links::Tcp, Links::Tls] {
        let t = transport(links, size)?;
        match links {
            Links::Memory => rates.transport.memory = t,
            Links::Tcp => rates.transport.tcp = t,
            Links::Tls => rates.transport.tls = t,
        }
    }
    // The wake-ups before the gate rates, which the wider probes would
    // otherwise charge with them.
    let deep = layers(None, 1, size.deep);
    for links in [Links::Memory, Links::Tcp, Links::Tls] {
        let w = wake(&rates, links, &deep, size)?;
        match links {
            Links::Memory => rates.transport.memory.wake = w,
            Links::Tcp => rates.transport.tcp.wake = w,
            Links::Tls => rates.transport.tls.wake = w,
        }
    }
    let boolean = layers(None, size.width, size.layers);
    let ring = layers(Some(RingWidth::W64), size.width / 4, size.layers);
    let linear = xors(size.width, size.layers * 8);
    let tiny = xors(1, 1);
    let bits = 64 * size.words;
    // The general rates first (the reference protocols'), then each
    // protocol's own.
    let ttp = Protocol::Ttp;
    let clear = fit(
        &rates,
        ttp,
        &boolean,
        bits,
        Work::ClearGateWord,
        online,
        size,
    )?;
    rates.work.clear_gate_word = clear;
    let reference = Protocol::Replicated;
    // Inputs and outputs before the gates, which the gate probes' inputs
    // and outputs would otherwise charge: one XOR per output, and ring
    // inputs that are the outputs.
    rates.work.bit_io_word = fit(
        &rates,
        reference,
        &xors(size.width, 1),
        bits,
        Work::BitIoWord,
        online,
        size,
    )?;
    rates.work.ring_io_word = fit(
        &rates,
        reference,
        &layers(Some(RingWidth::W64), size.width, 0),
        size.words,
        Work::RingIoWord,
        online,
        size,
    )?;
    rates.work.linear_word = fit(
        &rates,
        reference,
        &linear,
        bits,
        Work::LinearWord,
        online,
        size,
    )?;
    rates.work.bit_gate_word = fit(
        &rates,
        reference,
        &boolean,
        bits,
        Work::BitGateWord,
        online,
        size,
    )?;
    rates.work.ring_gate_word = fit(
        &rates,
        reference,
        &ring,
        size.words,
        Work::RingGateWord,
        online,
        size,
    )?;
    rates.protocol.clear();
    for protocol in Protocol::ALL {
        match protocol.descriptor().family {
            Family::Clear => {}
            Family::Sharing => {
                let r = fit(
                    &rates,
                    protocol,
                    &boolean,
                    bits,
                    Work::BitGateWord,
                    online,
                    size,
                )?;
                rates.set_seconds_of(protocol, Work::BitGateWord, r);
                if protocol.descriptor().rings {
                    let r = fit(
                        &rates,
                        protocol,
                        &ring,
                        size.words,
                        Work::RingGateWord,
                        online,
                        size,
                    )?;
                    rates.set_seconds_of(protocol, Work::RingGateWord, r);
                }
            }
            Family::Garbling(variant) => {
                // Per instance first (a probe of one XOR), then per wire
                // and walk step (free gates only), then per garbled gate;
                // each probe one chunk, so its phases follow each other as
                // the model's script does.
                // Each at most a few milliseconds of instances.
                let units = [
                    (
                        &tiny,
                        size.words,
                        Work::GarbleInstance,
                        Work::EvaluateInstance,
                    ),
                    (
                        &linear,
                        size.words / 8,
                        Work::GarbleWire,
                        Work::EvaluateStep,
                    ),
                    (
                        &boolean,
                        size.words / 8,
                        Work::GarbleGate,
                        Work::EvaluateGate,
                    ),
                ];
                for (circuit, most, offline_work, online_work) in units {
                    let run = Run::builder(protocol).circuit(circuit.clone()).build()?;
                    let request = run.request();
                    let chunk = crate::garble::chunk_of(
                        variant,
                        request.parties(),
                        circuit,
                        &request.options(),
                    )?;
                    let batch = chunk.min(most).max(1);
                    let r = fit(
                        &rates,
                        protocol,
                        circuit,
                        batch,
                        offline_work,
                        offline,
                        size,
                    )?;
                    rates.set_seconds_of(protocol, offline_work, r);
                    let r = fit(&rates, protocol, circuit, batch, online_work, online, size)?;
                    rates.set_seconds_of(protocol, online_work, r);
                }
            }
        }
    }
    Ok(rates)
}

/// What a fit compares: a report's or a prediction's seconds.
type Measure = fn(&crate::PerPhase<f64>) -> f64;

fn online(s: &crate::PerPhase<f64>) -> f64 {
    s.get("online").copied().unwrap_or(0.0) + s.get("verify").copied().unwrap_or(0.0)
}

fn offline(s: &crate::PerPhase<f64>) -> f64 {
    ["setup", "offline", "dependent"]
        .iter()
        .map(|p| s.get(p).copied().unwrap_or(0.0))
        .sum()
}

/// `protocol`'s rate of `work`, fitted so the model predicts what runs of
/// `batch` instances of `circuit` in memory measure (see [`fit_rate`]).
#[allow(clippy::too_many_arguments)]
fn fit(
    rates: &Rates,
    protocol: Protocol,
    circuit: &Circuit,
    batch: usize,
    work: Work,
    measure: Measure,
    size: Size,
) -> Result<f64, RunError> {
    let probe = Probe {
        protocol,
        circuit,
        batch,
        net: LocalNet::memory(),
        measure,
    };
    fit_rate(rates, &probe, size, |r, x| {
        r.set_seconds_of(protocol, work, x)
    })
}

/// Runs whose time a rate is fitted to.
struct Probe<'a> {
    protocol: Protocol,
    circuit: &'a Circuit,
    batch: usize,
    net: LocalNet,
    measure: Measure,
}

/// The rate `set` sets, fitted so the model predicts what `probe`'s runs
/// measure (their median): the model is linear in one rate while the
/// others stay, so two predictions and the measurement give it (clamped
/// at zero where the rest already explains the run).
fn fit_rate(
    rates: &Rates,
    probe: &Probe,
    size: Size,
    set: impl Fn(&mut Rates, f64),
) -> Result<f64, RunError> {
    let run = Run::builder(probe.protocol)
        .circuit(probe.circuit.clone())
        .build()?;
    let mut prg = Prg::from_seed([7; 16]);
    let inputs = random_inputs(run.circuit(), &mut prg, probe.batch);
    let mut measured = Vec::with_capacity(size.repeats);
    // One untimed run first: the first run of a process pays for what
    // later ones find ready (threads, allocations).
    run.local(&inputs, &probe.net).map_err(|e| e.error)?;
    for _ in 0..size.repeats {
        let report = run.local(&inputs, &probe.net).map_err(|e| e.error)?;
        measured.push((probe.measure)(&report.seconds));
    }
    measured.sort_by(f64::total_cmp);
    let measured = measured[measured.len() / 2];
    let mut trial = rates.clone();
    let mut at = |r: f64| -> Result<f64, RunError> {
        set(&mut trial, r);
        Ok((probe.measure)(
            &run.predict_local(probe.batch, &probe.net, &trial)?.seconds,
        ))
    };
    const PROBE: f64 = 1e-6;
    let (t0, t1) = (at(0.0)?, at(PROBE)?);
    let rate = if t1 > t0 {
        (PROBE * (measured - t0) / (t1 - t0)).max(0.0)
    } else {
        0.0
    };
    Ok(rate)
}

/// The wake-up of `links` ([`TransportRates::wake`]), fitted to runs of
/// the reference protocol on a deep and narrow circuit (one product per
/// layer) at one instance: rounds and little else, so what the messages'
/// handling does not explain is the time from one round to the next.
fn wake(rates: &Rates, links: Links, deep: &Circuit, size: Size) -> Result<f64, RunError> {
    let probe = Probe {
        protocol: Protocol::Replicated,
        circuit: deep,
        batch: 1,
        net: local_net(links),
        measure: online,
    };
    fit_rate(rates, &probe, size, |r, x| match links {
        Links::Memory => r.transport.memory.wake = x,
        Links::Tcp => r.transport.tcp.wake = x,
        Links::Tls => r.transport.tls.wake = x,
    })
}

fn local_net(links: Links) -> LocalNet {
    match links {
        Links::Memory => LocalNet::memory(),
        Links::Tcp => LocalNet::tcp(),
        Links::Tls => LocalNet::tls(),
    }
}

/// Per-message and per-byte costs of `links`: one endpoint streams
/// messages to another, which answers once it has them all. The receiver
/// is never left waiting, so no wake-up is in the time, and sender and
/// receiver run at once: the time per message is one side's handling.
/// (The wake-up is fitted later, to runs that wait each round.)
fn transport(links: Links, size: Size) -> Result<TransportRates, RunError> {
    let run = Run::builder(Protocol::Ttp)
        .parties(2)
        .circuit(xors(1, 1))
        .build()?;
    let net = local_net(links);
    let stream = |bytes: usize, messages: usize| -> Result<f64, RunError> {
        let mut nets = run.local_networks(&net)?;
        let mut sink = nets
            .pop()
            .ok_or_else(|| RunError::Internal("no endpoint".into()))?;
        let mut me = nets
            .pop()
            .ok_or_else(|| RunError::Internal("no endpoint".into()))?;
        let peer = std::thread::spawn(move || -> Result<(), RunError> {
            for _ in 0..messages {
                sink.recv(0, bytes)?;
            }
            sink.send(0, vec![0; 8])?;
            Ok(sink.finish()?)
        });
        let start = Instant::now();
        for _ in 0..messages {
            // Written, as a protocol writes what it sends: zeroed pages
            // would be mapped and never touched.
            me.send(1, vec![1; bytes])?;
        }
        me.recv(1, 8)?;
        let seconds = start.elapsed().as_secs_f64();
        me.finish()?;
        peer.join()
            .map_err(|_| RunError::Internal("the sink thread panicked".into()))??;
        Ok(seconds / messages as f64)
    };
    let small = stream(8, size.messages)?;
    // As many large messages as make the same volume as a few hundred
    // small runs' worth, at least a few.
    let large = stream(size.large, (size.volume / size.large).max(4))?;
    let message = small.max(0.0);
    let byte = ((large - small) / (size.large - 8) as f64).max(0.0);
    Ok(TransportRates {
        message,
        byte,
        wake: 0.0,
    })
}

/// `layers` layers of `width` multiplications each (ANDs, or products of
/// ring elements): a[i] = a[i] * b[i + layer], parties 0 and 1 owning a and b.
fn layers(ring: Option<RingWidth>, width: u32, layers: usize) -> Circuit {
    let mut b = match ring {
        Some(r) => Builder::arithmetic(r, 2),
        None => Builder::boolean(2),
    };
    let (mut x, y) = match ring {
        Some(_) => (b.ring_input("a", width), b.ring_input("b", width)),
        None => (b.input("a", width), b.input("b", width)),
    };
    let w = width as usize;
    for l in 0..layers {
        x = (0..w)
            .map(|i| {
                let other = y[(i + l) % w];
                match ring {
                    Some(_) => b.ring_op(Op::Mul, &[x[i], other]),
                    None => b.and(x[i], other),
                }
            })
            .collect();
    }
    match ring {
        Some(_) => b.ring_output("c", x),
        None => b.output("c", x),
    }
    b.finish()
}

/// `depth` layers of `width` XORs: a Boolean circuit of linear gates only.
fn xors(width: u32, depth: usize) -> Circuit {
    let mut b = Builder::boolean(2);
    let mut x = b.input("a", width);
    let y = b.input("b", width);
    let w = width as usize;
    for l in 0..depth {
        x = (0..w).map(|i| b.xor(x[i], y[(i + l) % w])).collect();
    }
    b.output("c", x);
    b.finish()
}
