//! The hello: the first frame on every connection. It names the sender's
//! party id, the party count, the session, the circuit's hash and the run's
//! settings as typed entries, so that parties that would not compute the same
//! thing refuse to start, and say why in the user's terms.
//!
//! - `settings.rs`: the typed settings ([`Settings`], [`Value`], [`Form`]);
//! - `wire.rs`: the hello and its binary encoding (pinned byte for byte);
//! - `check.rs`: comparing a peer's hello with ours, and settling the
//!   settings left open or offered as a most;
//! - `wording.rs`: a difference put in the user's terms, in one line.
//!
//! This file only declares and re-exports, so no part names its parent.

mod check;
mod settings;
#[cfg(test)]
mod testing;
mod wire;
mod wording;

pub(crate) use check::{check_hello, settle};
pub use settings::{Form, Setting, Settings, Value};
pub(crate) use wire::Hello;
pub use wire::VERSION;
