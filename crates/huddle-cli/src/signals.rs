//! SIGINT and SIGTERM. During a run of `huddle party`, a signal stops the
//! run: it cancels the run's [`CancelToken`], which interrupts its network
//! ([`huddle_net::Interrupter`]), so every wait ends at once, the peers are sent the abort frame and stop naming this
//! party (exit code 4), and this party exits with [`Exit::Interrupted`]. Any
//! other time (reading files, connecting, a local run whose parties are all
//! in this process), the process exits at once with that code.
//!
//! Either way, output files being written are abandoned: their targets
//! stay as they were (`data::abandon_pending`).
//!
//! SIGKILL cannot be handled: the peers see the connection close without a
//! goodbye and stop with exit code 4, naming the party as disconnected.

use huddle_engine::exit::Exit;
use huddle_engine::CancelToken;
use std::sync::Mutex;
use std::time::Duration;

/// The run a signal stops, while there is one.
static RUN: Mutex<Option<CancelToken>> = Mutex::new(None);

/// How long the run gets to stop by itself (its protocol notices the
/// interrupt at its next wait) before the process ends regardless.
const GRACE: Duration = Duration::from_secs(2);

/// Starts the thread that handles SIGINT and SIGTERM. Without it (it could
/// not be set up), the signals end the process as they do by default.
pub fn install() {
    #[cfg(unix)]
    install_unix();
}

#[cfg(unix)]
fn install_unix() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("huddle-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let name = if signal == SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                };
                stop(name);
            }
        });
}

fn stop(signal: &str) {
    // Output files being written stay as they were (none half-written).
    crate::data::abandon_pending();
    let run = RUN.lock().ok().and_then(|mut r| r.take());
    if let Some(run) = run {
        run.cancel(&format!("interrupted by {signal}"));
        // The run's own error (this same code) normally ends the process
        // first, once its peers have been told.
        std::thread::sleep(GRACE);
    }
    eprintln!("error: interrupted by {signal}");
    std::process::exit(i32::from(Exit::Interrupted.code()));
}

/// While alive, a signal interrupts this run instead of ending the process
/// at once.
pub struct Interruptible(());

impl Interruptible {
    pub fn run(token: &CancelToken) -> Interruptible {
        if let Ok(mut r) = RUN.lock() {
            *r = Some(token.clone());
        }
        Interruptible(())
    }
}

impl Drop for Interruptible {
    fn drop(&mut self) {
        if let Ok(mut r) = RUN.lock() {
            *r = None;
        }
    }
}
