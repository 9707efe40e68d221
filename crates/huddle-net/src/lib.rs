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

/// What a peer's bytes go through before any protocol sees them, for the
/// fuzz targets (`fuzz/`); not an API.
#[doc(hidden)]
pub mod fuzzing {
    /// Reads frames from `bytes` until the first error, as a link's reader
    /// does; on each message, the hello decoder and the stamp check.
    /// Returns how many frames were read.
    pub fn peer_stream(bytes: &[u8], max_message: usize) -> usize {
        let mut r = bytes;
        let mut frames = 0;
        while let Ok(mut data) = crate::frame::read_frame(&mut r, max_message) {
            assert!(
                data.len() <= max_message,
                "a frame above the limit was accepted"
            );
            if let Ok(h) = crate::hello::Hello::decode(&data) {
                assert_eq!(crate::hello::Hello::decode(&h.encode()), Ok(h));
            }
            if let Ok(s) = crate::network::split_stamp(&mut data) {
                assert!(s.stamp <= 1 << 31);
            }
            frames += 1;
        }
        frames
    }

    /// Party 0 of a two-party run whose link to party 1 is `stream`, as
    /// after a successful handshake: a live party whose peer's bytes are
    /// whatever the fuzzer writes to the other end.
    pub fn party_zero_over(
        stream: std::net::TcpStream,
        timeout: std::time::Duration,
    ) -> std::io::Result<crate::Network> {
        let alarm = std::sync::Arc::new(crate::network::Alarm::default());
        let board = crate::waits::Board::new(0, 2);
        let link = crate::connect::stream_parts(
            1,
            2,
            stream,
            crate::LinkLimits::default(),
            (alarm.clone(), board.clone()),
        )?;
        Ok(crate::Network::from_links(
            0,
            vec![None, Some(link)],
            &crate::NetProfile::lan(),
            timeout,
            (alarm, Some(board)),
        ))
    }
}

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
