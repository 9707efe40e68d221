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
pub mod network;
pub mod profile;
pub mod tls;

pub use accounting::{Accounting, LinkStats, Phase};
pub use config::{NetworkConfig, PartyConfig};
pub use connect::{connect, local_networks, ConnectOptions, Handshake, Transport};
pub use network::{memory_networks, message_buffer, LinkLimits, NetError, Network, STAMP_BYTES};
pub use profile::{LinkShape, NetProfile};

/// Index of a party, 0-based.
pub type PartyId = usize;
