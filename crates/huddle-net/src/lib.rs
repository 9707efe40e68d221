//! huddle's transport layer: party-to-party channels that carry protocol
//! messages, and nothing that knows about protocols.
//!
//! A party talks to its peers through a [`Network`]: it queues outbound
//! messages per peer during a round (`send`) and receives messages of the
//! exact sizes it expects (`recv`). Sending and receiving run on their own
//! threads per link, so two parties can send each other large buffers at
//! once; messages that arrive early wait in a queue. Three transports sit
//! behind the same `Network`: in-memory (parties as threads), TCP and
//! TLS 1.3 with mutual certificate authentication. Every byte of protocol
//! payload is counted per directed link and phase, and links can emulate
//! latency and bandwidth (WAN and heterogeneous settings) on one machine.

pub mod accounting;
pub mod certs;
pub mod config;
mod connect;
mod frame;
mod halt;
mod hello;
pub mod liveness;
pub mod network;
mod pool;
pub mod profile;
pub mod refusal;
mod sightings;
pub mod split;
pub mod tls;
mod waits;

#[doc(hidden)]
pub mod fuzzing;

pub use accounting::{Accounting, LinkStats, Phase};
pub use config::{NetworkConfig, PartyConfig};
pub use connect::{
    connect, local_networks, local_networks_each, ConnectOptions, Handshake, Transport,
};
pub use hello::{Form, Setting, Settings, Value, VERSION as HELLO_VERSION};
pub use network::{
    memory_networks, message_buffer, scratch_message, Interrupter, LinkLimits, NetError, Network,
    Received, Traffic, TrafficLog, Transcript, FINISHED, PHASE_LOG, STAMP_BYTES,
};
pub use pool::recycle as recycle_buffer;
pub use pool::release_kept as release_kept_buffers;
pub use profile::{LinkShape, NetProfile};
pub use refusal::refuse;
pub use split::LaneNet;

/// Index of a party, 0-based.
pub type PartyId = usize;
