//! A host's compute rates ([`Rates`]): seconds per unit of local work and
//! per message and byte of each transport, measured by
//! [`Rates::calibrate`](crate::Rates::calibrate) and kept in a small TOML
//! file.

use crate::cost::Work;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How fast a host computes, as the time model prices a run's scripts:
/// seconds per unit of local [`Work`], per message and per payload byte of
/// each transport, and the cores its threads share.
///
/// A protocol's own local work differs (a malicious protocol hashes its
/// views, a multi-fan-in one expands products), so a protocol's gate rates
/// may differ from the general ones: `protocol.NAME` tables, each giving
/// some units of [`Work`] (calibration measures every protocol's).
///
/// [`Rates::default`] holds the figures measured on huddle's reference
/// host (see its comment); [`Rates::calibrate`](crate::Rates::calibrate)
/// measures this host's; [`Rates::from_toml`] and [`Rates::to_toml`] keep
/// them in a file:
///
/// ```toml
/// cores = 2
/// [work]                 # seconds per unit (see huddle_engine::Work)
/// bit_gate_word = 1.2e-8
/// ring_gate_word = 9e-9
/// linear_word = 1.6e-9
/// bit_io_word = 1.4e-8   # an input or output wire's word, shared or opened
/// ring_io_word = 1.5e-8
/// garble_instance = 2e-5 # garbling's units are per instance
/// garble_gate = 1e-7
/// garble_wire = 1e-8
/// evaluate_instance = 5e-6
/// evaluate_gate = 3.3e-7
/// evaluate_step = 1e-8
/// clear_gate_word = 0.0
/// [protocol.mfi3]        # a protocol's own, where it differs
/// bit_gate_word = 2e-8
/// [transport.memory]     # seconds per message and per payload byte,
/// message = 3e-6         # each side (sender and receiver) pays them;
/// byte = 3e-10           # a receiver that waited for its message
/// wake = 1e-5            # goes on `wake` after it arrives
/// [transport.tcp]
/// message = 1.5e-5
/// byte = 1e-9
/// wake = 2e-5
/// [transport.tls]
/// message = 2e-5
/// byte = 2e-9
/// wake = 2e-5
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rates {
    /// Cores the host's threads share: more busy threads than cores each
    /// run proportionally slower.
    pub cores: usize,
    /// Seconds per unit of local work.
    pub work: WorkRates,
    /// Seconds per message and byte of each transport.
    pub transport: TransportsRates,
    /// Per protocol (by name), seconds per unit of the kinds of work in
    /// which it differs from `work` (by [`Work::name`]).
    #[serde(default)]
    pub protocol: BTreeMap<String, BTreeMap<String, f64>>,
}

/// Seconds per unit of each kind of [`Work`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkRates {
    /// [`Work::BitGateWord`].
    pub bit_gate_word: f64,
    /// [`Work::RingGateWord`].
    pub ring_gate_word: f64,
    /// [`Work::LinearWord`].
    pub linear_word: f64,
    /// [`Work::BitIoWord`] (0 where a file omits it).
    #[serde(default)]
    pub bit_io_word: f64,
    /// [`Work::RingIoWord`] (0 where a file omits it).
    #[serde(default)]
    pub ring_io_word: f64,
    /// [`Work::GarbleGate`].
    pub garble_gate: f64,
    /// [`Work::GarbleInstance`] (0 where a file omits it).
    #[serde(default)]
    pub garble_instance: f64,
    /// [`Work::GarbleWire`] (0 where a file omits it).
    #[serde(default)]
    pub garble_wire: f64,
    /// [`Work::EvaluateGate`].
    pub evaluate_gate: f64,
    /// [`Work::EvaluateInstance`] (0 where a file omits it).
    #[serde(default)]
    pub evaluate_instance: f64,
    /// [`Work::EvaluateStep`] (0 where a file omits it).
    #[serde(default)]
    pub evaluate_step: f64,
    /// [`Work::ClearGateWord`].
    pub clear_gate_word: f64,
}

/// Per-message and per-byte seconds of every transport.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportsRates {
    /// Threads joined in memory.
    pub memory: TransportRates,
    /// Loopback or real TCP.
    pub tcp: TransportRates,
    /// TLS 1.3 over TCP.
    pub tls: TransportRates,
}

/// What one message costs each side (sender and receiver) of a transport:
/// a fixed part and a part per payload byte (encoding, copying, framing,
/// the protocol's hashing of what it sends and receives); and what a party
/// that had to wait for a message takes to go on once it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportRates {
    /// Seconds per message.
    pub message: f64,
    /// Seconds per payload byte.
    pub byte: f64,
    /// Seconds from a message's arrival until the receiver that was
    /// waiting for it goes on: the blocked thread woken and scheduled (on
    /// a virtual machine, an idle virtual core woken by its hypervisor).
    /// Latency, not work: it holds no core (0 where a file omits it).
    #[serde(default)]
    pub wake: f64,
}

/// Why a rates file cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {cause}")]
pub struct RatesError {
    /// The file (or the name the text was given).
    pub path: String,
    /// What is wrong, naming the field.
    pub cause: String,
}

impl Default for Rates {
    /// Measured with [`Rates::calibrate`](crate::Rates::calibrate) on
    /// huddle's reference host: an AMD EPYC (Zen 4) VM with 2 vCPUs and
    /// AVX-512, release build, nothing else running; each rate the median
    /// of three calibrations (2026-11-29), as the virtual machine's
    /// neighbours move single ones by up to 2.5x. A typical 2-core host;
    /// calibrate for others. The TTP's clear gates measured as nothing
    /// beyond their messages' handling. Every garbling protocol has its
    /// own rates, so the general garbling ones are never used.
    fn default() -> Rates {
        let own: &[(&str, Work, f64)] = &[
            ("astra", Work::BitGateWord, 5.25e-9),
            ("astra", Work::RingGateWord, 4.78e-9),
            ("bgw2", Work::EvaluateInstance, 5.39e-7),
            ("bgw2", Work::EvaluateGate, 6.11e-8),
            ("bgw2", Work::EvaluateStep, 6.92e-9),
            ("bgw2", Work::GarbleInstance, 2.86e-6),
            ("bgw2", Work::GarbleGate, 1.4e-7),
            ("bgw2", Work::GarbleWire, 4.55e-9),
            ("bgw2-mal", Work::EvaluateInstance, 2.5e-7),
            ("bgw2-mal", Work::EvaluateGate, 6.15e-8),
            ("bgw2-mal", Work::EvaluateStep, 2.78e-9),
            ("bgw2-mal", Work::GarbleInstance, 6.29e-6),
            ("bgw2-mal", Work::GarbleGate, 1.4e-7),
            ("bgw2-mal", Work::GarbleWire, 7.15e-9),
            ("bgw3", Work::EvaluateInstance, 4.43e-7),
            ("bgw3", Work::EvaluateGate, 5.09e-8),
            ("bgw3", Work::EvaluateStep, 6.92e-9),
            ("bgw3", Work::GarbleInstance, 2.87e-6),
            ("bgw3", Work::GarbleGate, 2.09e-7),
            ("bgw3", Work::GarbleWire, 5.42e-9),
            ("ca2pc", Work::BitGateWord, 1.23e-8),
            ("ca2pc", Work::RingGateWord, 1.08e-8),
            ("fantastic4", Work::BitGateWord, 3.11e-8),
            ("fantastic4", Work::RingGateWord, 2.82e-8),
            ("mfi3", Work::BitGateWord, 8.28e-9),
            ("mfi3", Work::RingGateWord, 5.97e-9),
            ("quad", Work::BitGateWord, 1.49e-8),
            ("quad", Work::RingGateWord, 1.2e-8),
            ("quad-het", Work::BitGateWord, 1.75e-8),
            ("quad-het", Work::RingGateWord, 1.52e-8),
            ("replicated", Work::BitGateWord, 9.46e-9),
            ("replicated", Work::RingGateWord, 6.41e-9),
            ("tetrad", Work::BitGateWord, 2.3e-8),
            ("tetrad", Work::RingGateWord, 1.91e-8),
            ("trio", Work::BitGateWord, 3.75e-9),
            ("trio", Work::RingGateWord, 2.32e-9),
        ];
        let mut protocol: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
        for &(name, work, seconds) in own {
            protocol
                .entry(name.to_string())
                .or_default()
                .insert(work.name().to_string(), seconds);
        }
        Rates {
            cores: 2,
            work: WorkRates {
                bit_gate_word: 8.59e-9,
                ring_gate_word: 4.25e-9,
                linear_word: 9.42e-10,
                bit_io_word: 1.36e-8,
                ring_io_word: 1.45e-8,
                garble_instance: 0.0,
                garble_gate: 9.86e-8,
                garble_wire: 0.0,
                evaluate_instance: 0.0,
                evaluate_gate: 3.34e-7,
                evaluate_step: 0.0,
                clear_gate_word: 0.0,
            },
            transport: TransportsRates {
                memory: TransportRates {
                    message: 2.24e-7,
                    byte: 9.21e-11,
                    wake: 2.4e-5,
                },
                tcp: TransportRates {
                    message: 4.68e-7,
                    byte: 5.8e-10,
                    wake: 1.23e-4,
                },
                tls: TransportRates {
                    message: 4.23e-7,
                    byte: 1.3e-9,
                    wake: 1.01e-4,
                },
            },
            protocol,
        }
    }
}

impl WorkRates {
    /// The rate of `work`: the one place a unit meets its field.
    pub fn of_mut(&mut self, work: Work) -> &mut f64 {
        match work {
            Work::BitGateWord => &mut self.bit_gate_word,
            Work::RingGateWord => &mut self.ring_gate_word,
            Work::LinearWord => &mut self.linear_word,
            Work::BitIoWord => &mut self.bit_io_word,
            Work::RingIoWord => &mut self.ring_io_word,
            Work::GarbleGate => &mut self.garble_gate,
            Work::GarbleInstance => &mut self.garble_instance,
            Work::GarbleWire => &mut self.garble_wire,
            Work::EvaluateGate => &mut self.evaluate_gate,
            Work::EvaluateInstance => &mut self.evaluate_instance,
            Work::EvaluateStep => &mut self.evaluate_step,
            Work::ClearGateWord => &mut self.clear_gate_word,
        }
    }

    /// Seconds of one unit of `work`.
    pub fn of(&self, work: Work) -> f64 {
        let mut copy = *self;
        *copy.of_mut(work)
    }
}

impl Rates {
    /// Seconds of one unit of `work`.
    pub fn seconds(&self, work: Work) -> f64 {
        self.work.of(work)
    }

    /// Seconds of one unit of `work` done by `protocol`: its own rate where
    /// it has one, else the general one.
    pub fn seconds_of(&self, protocol: crate::Protocol, work: Work) -> f64 {
        self.protocol
            .get(protocol.descriptor().name)
            .and_then(|own| own.get(work.name()))
            .copied()
            .unwrap_or_else(|| self.seconds(work))
    }

    /// Sets `protocol`'s own rate of `work`.
    pub fn set_seconds_of(&mut self, protocol: crate::Protocol, work: Work, seconds: f64) {
        self.protocol
            .entry(protocol.descriptor().name.to_string())
            .or_default()
            .insert(work.name().to_string(), seconds);
    }

    /// The rates of the transport `links`.
    pub fn transport(&self, links: crate::Links) -> TransportRates {
        match links {
            crate::Links::Memory => self.transport.memory,
            crate::Links::Tcp => self.transport.tcp,
            crate::Links::Tls => self.transport.tls,
        }
    }

    /// Parses a rates file's text (see [`Rates`]); `path` names it in
    /// errors. Every field is required; every rate must be finite and not
    /// negative, and `cores` at least 1.
    pub fn from_toml(path: &str, text: &str) -> Result<Rates, RatesError> {
        let error = |cause: String| RatesError {
            path: path.into(),
            cause,
        };
        let rates: Rates =
            toml::from_str(text).map_err(|e| error(e.to_string().trim_end().to_string()))?;
        rates.check().map_err(error)?;
        Ok(rates)
    }

    /// Reads a rates file (see [`Rates::from_toml`]).
    pub fn from_file(path: &std::path::Path) -> Result<Rates, RatesError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| RatesError {
            path: name.clone(),
            cause: e.to_string(),
        })?;
        Rates::from_toml(&name, &text)
    }

    /// The rates as a TOML file's text ([`Rates::from_toml`] reads it back).
    pub fn to_toml(&self) -> String {
        // Plain numbers and tables: serializing cannot fail.
        toml::to_string(self).unwrap_or_default()
    }

    /// Every rate finite and not negative, at least one core; the error
    /// names the field.
    fn check(&self) -> Result<(), String> {
        if self.cores == 0 {
            return Err("cores must be at least 1".into());
        }
        for work in Work::ALL {
            check_rate(&format!("work.{}", work.name()), self.work.of(work))?;
        }
        let t = &self.transport;
        let fields = [
            ("transport.memory.message", t.memory.message),
            ("transport.memory.byte", t.memory.byte),
            ("transport.memory.wake", t.memory.wake),
            ("transport.tcp.message", t.tcp.message),
            ("transport.tcp.byte", t.tcp.byte),
            ("transport.tcp.wake", t.tcp.wake),
            ("transport.tls.message", t.tls.message),
            ("transport.tls.byte", t.tls.byte),
            ("transport.tls.wake", t.tls.wake),
        ];
        for (name, value) in fields {
            check_rate(name, value)?;
        }
        let own = self.protocol.iter().flat_map(|(p, units)| {
            units
                .iter()
                .map(move |(unit, &value)| (format!("protocol.{p}.{unit}"), p, unit, value))
        });
        for (name, p, unit, value) in own {
            if !crate::Protocol::ALL
                .iter()
                .any(|q| q.descriptor().name == p)
            {
                return Err(format!("{name}: no protocol is called `{p}`"));
            }
            if !Work::ALL.iter().any(|w| w.name() == unit) {
                return Err(format!("{name}: `{unit}` is no kind of work"));
            }
            check_rate(&name, value)?;
        }
        Ok(())
    }
}

/// A rate is seconds: finite and not negative.
fn check_rate(name: &str, value: f64) -> Result<(), String> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{name} = {value} is not a rate (seconds: finite, not negative)"
        ))
    }
}
