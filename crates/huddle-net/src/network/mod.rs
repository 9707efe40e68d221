//! A party's endpoint: one link per peer, each with its own sender and
//! receiver (threads for socket transports), exact-size receives with a
//! timeout, accounting and link emulation.
//!
//! One file per part, each depending only on the ones before it:
//! - `error.rs`: [`NetError`], what went wrong, naming the peer;
//! - `alarm.rs`: a party's alarm (the first failure on any link) and the
//!   other reasons a wait ends (silence, a cycle of waits);
//! - `link.rs`: one link's parts (its outbound side, inbox, threads, inbox
//!   budget) and their limits ([`LinkLimits`]);
//! - `stamp.rs`: the trailer every message carries (phase, round stamp,
//!   lane), and message buffers with room for it;
//! - `seats.rs`: who plays which of the protocol's roles;
//! - `books.rs`: what an endpoint counts (phase clock, depths, traffic);
//! - `record.rs`: what an endpoint shows observers (transcript, traffic
//!   log, phase log);
//! - `endpoint.rs`: [`Network`] and its sends and receives;
//! - `departure.rs`: how an endpoint leaves (goodbye or abort, on drop) or
//!   is interrupted from another thread ([`Interrupter`]);
//! - `stream.rs`: a socket link's reader and writer threads;
//! - `memory.rs`: endpoints joined in memory.
//!
//! This file only declares and re-exports, so no part names its parent.

mod alarm;
mod books;
mod departure;
mod endpoint;
mod error;
mod link;
mod memory;
mod record;
mod seats;
mod spin;
mod stamp;
mod stream;

pub(crate) use alarm::{deadlock, given_up, Alarm, ALARM_GRACE, ALARM_POLL};
pub(crate) use books::Books;
pub use departure::Interrupter;
pub use endpoint::Network;
pub use error::NetError;
pub use link::LinkLimits;
pub(crate) use link::{
    deliver, shape, Delivery, Inbound, InboxBudget, LinkParts, Outbound, Shared, Shutdown,
};
pub use memory::memory_networks;
pub(crate) use record::{announce, log_traffic};
pub use record::{Received, Traffic, TrafficLog, Transcript, FINISHED, PHASE_LOG};
pub(crate) use seats::{host, role, Seats};
pub(crate) use stamp::{lane_of, split_stamp};
pub use stamp::{message_buffer, scratch_message, STAMP_BYTES};
pub(crate) use stream::stream_link;
