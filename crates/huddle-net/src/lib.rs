//! huddle's transport layer: the channels between parties, and nothing
//! that knows about protocols. It knows bytes, peers and phases: what a
//! protocol sends and receives is an opaque payload of an expected length,
//! counted per directed link and [`Phase`].
//!
//! It holds:
//! - [`Network`], a party's endpoint: it queues outbound messages per peer
//!   during a round ([`Network::send`]) and receives messages of the exact
//!   sizes it expects ([`Network::recv`]); each link sends and receives on
//!   its own threads, so two parties can send each other large buffers at
//!   once. [`LaneNet`] splits one endpoint into lanes for as many threads.
//! - Three transports behind it: in memory ([`memory_networks`], parties as
//!   threads), TCP and TLS 1.3 with mutual certificate authentication
//!   ([`connect`], configured by [`NetworkConfig`] and [`ConnectOptions`]).
//! - The hello every connect begins with: the [`Settings`] the parties must
//!   agree on before the first protocol message.
//! - [`Accounting`] of every payload byte, message and round; link
//!   emulation of latency and bandwidth ([`NetProfile`]); failures that
//!   name the peer ([`NetError`]), with liveness frames that tell a stalled
//!   peer from a busy one ([`liveness`]).
//! - Development certificates ([`certs`]) and TLS credentials ([`tls`]).

#![warn(missing_docs, unreachable_pub)]

mod accounting;
pub mod certs;
mod config;
mod connect;
mod frame;
mod halt;
mod hello;
pub mod liveness;
mod network;
mod pool;
mod profile;
mod refusal;
mod sightings;
mod split;
pub mod tls;
mod waits;

#[doc(hidden)]
pub mod fuzzing;

pub use accounting::{Accounting, LinkStats, Phase};
pub use config::{ConfigError, NetworkConfig, PartyConfig};
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
pub use profile::{LinkShape, NetProfile, ProfileError};
pub use refusal::refuse;
pub use split::LaneNet;

/// Index of a party, 0-based.
pub type PartyId = usize;
