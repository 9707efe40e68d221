//! `huddle local` (every party on this machine), `huddle party` (one party
//! of a multi-host run) and `huddle deal` (bgw2-mal's trusted dealer across
//! hosts). `local` and `party` read their options and data ([`args`]),
//! build the engine's [`huddle_engine::Run`], and share one path from there
//! ([`execute`]: run, write the outputs, check them) to one report
//! ([`report`]).

mod args;
mod auto;
mod deal;
mod execute;
mod local;
mod party;
mod progress;
mod report;

pub(crate) use args::check_batch;
pub use deal::{deal, DealArgs};
pub use local::{execute_local, local, prepare_local, run_all, Caller, LocalArgs, TransportArg};
pub use party::{party, PartyArgs};
