//! Stopping a run from outside: a [`CancelToken`] the caller keeps (and
//! may hand to any thread, a signal handler's included) and gives to the
//! run ([`RunBuilder::cancel`](crate::RunBuilder::cancel)). Cancelling
//! interrupts every network the run uses ([`huddle_net::Interrupter`]):
//! each party's next wait ends with [`NetError::Interrupted`], and over
//! sockets each peer is sent the abort frame naming the party with the
//! cause, so peers in other processes stop too and say why.
//!
//! [`NetError::Interrupted`]: huddle_net::NetError::Interrupted

use huddle_net::{Interrupter, Network};
use std::sync::{Arc, Mutex, PoisonError};

/// Stops the runs it was given to: cloning gives another handle to the
/// same token. Cancelling is for good: a run started with a cancelled
/// token stops at its first wait.
#[derive(Clone, Default)]
pub struct CancelToken(Arc<Mutex<State>>);

#[derive(Default)]
struct State {
    /// Why the token was cancelled, once it is.
    cause: Option<String>,
    /// The networks of the runs going on with this token, by watch id.
    watched: Vec<(u64, Interrupter)>,
    next_id: u64,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cause", &self.cause())
            .finish_non_exhaustive()
    }
}

impl CancelToken {
    /// A token not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Stops every run going on with this token, and every later one,
    /// for `cause`: what the run's error says, and what its peers are told
    /// (it goes over the wire: nothing secret). A second cancel keeps the
    /// first cause.
    pub fn cancel(&self, cause: &str) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if state.cause.is_some() {
            return;
        }
        state.cause = Some(cause.to_string());
        for (_, interrupter) in &state.watched {
            interrupter.interrupt(cause);
        }
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cause().is_some()
    }

    /// The cause given to [`CancelToken::cancel`], once it was called.
    pub fn cause(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .cause
            .clone()
    }

    /// Interrupts `net` when the token is cancelled (at once if it already
    /// is), for as long as the returned guard lives.
    pub(crate) fn watch(&self, net: &Network) -> Watch {
        let interrupter = net.interrupter();
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cause) = &state.cause {
            interrupter.interrupt(cause);
        }
        let id = state.next_id;
        state.next_id += 1;
        state.watched.push((id, interrupter));
        Watch {
            token: self.clone(),
            id,
        }
    }
}

/// While alive, cancelling its token interrupts the watched network.
pub(crate) struct Watch {
    token: CancelToken,
    id: u64,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut state = self.token.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.watched.retain(|(id, _)| *id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use huddle_net::{memory_networks, NetError, NetProfile};
    use std::time::Duration;

    #[test]
    fn a_cancel_ends_the_watched_waits_and_later_watches_at_once() {
        let token = CancelToken::new();
        let mut nets = memory_networks(2, &NetProfile::lan(), Duration::from_secs(60));
        let watch = token.watch(&nets[0]);
        assert!(!token.is_cancelled());
        token.cancel("stop here");
        token.cancel("a second cause is not kept");
        assert_eq!(token.cause().as_deref(), Some("stop here"));
        assert_eq!(
            nets[0].recv(1, 1),
            Err(NetError::Interrupted("stop here".into()))
        );
        drop(watch);
        assert!(token.0.lock().expect("lock").watched.is_empty());
        // Watched after the cancel: interrupted at once.
        let _late = token.watch(&nets[1]);
        assert_eq!(
            nets[1].recv(0, 1),
            Err(NetError::Interrupted("stop here".into()))
        );
    }
}
