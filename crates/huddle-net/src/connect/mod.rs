//! Establishing the links of a run: every pair of parties is joined by one
//! connection; the party with the lower id listens and the higher one dials,
//! retrying with back-off until the setup deadline. The first frames are
//! hellos (`crate::hello`); a run starts only if party ids, party count,
//! session, settings and circuit agree, and (with TLS) each certificate names
//! its party.
//!
//! A party that gives up at connect because it cannot run (its TLS set-up,
//! a peer that does not accept its certificate) or because another party
//! cannot (a refusal, an abort on a link already made) tells the parties it
//! has not met yet in a refusal round (see [`crate::refusal`]), and the
//! ones it has met through their link, so nobody waits out its deadline.
//!
//! One file per step, each depending only on the ones before it:
//! - `options.rs`: what a caller chooses (transport, handshake, timeouts);
//! - `socket.rs`: deadlines on set-up I/O, and the link a socket becomes
//!   once its handshake is done;
//! - `greeting.rs`: sending and reading the hello frames on a connection
//!   (the hello itself, its encoding and checks, is `crate::hello`);
//! - `dial.rs`: reaching a lower party and the dialer's handshake;
//! - `listen.rs`: accepting the higher parties, one handshake thread each;
//! - `party.rs`: one party's connect, dialing then listening, and what it
//!   does when a peer differs or a party cannot run;
//! - `local.rs`: all parties of one process over loopback.
//!
//! This file only declares and re-exports, so no step names its parent.

mod dial;
mod greeting;
mod listen;
mod local;
mod options;
mod party;
mod socket;
#[cfg(test)]
mod testing;

#[cfg(test)]
pub(crate) use local::loopback_parties;
pub use local::{local_networks, local_networks_each};
pub use options::{ConnectOptions, Handshake, Transport};
pub use party::connect;
pub(crate) use socket::stream_parts;
