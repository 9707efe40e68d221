//! `huddle`: secure multiparty computation from one command line.

use clap::{Parser, Subcommand};
use failure::Failure;
use std::process::ExitCode;

mod app_cmd;
mod bench;
mod bench_compare;
mod bench_fixed;
mod bench_garble;
mod bench_library;
mod bench_net;
mod bench_plan;
mod bench_protocols;
mod bench_soak;
#[cfg(target_os = "linux")]
mod chaos;
mod circuit_cmd;
#[cfg(target_os = "linux")]
mod cluster;
mod data;
mod demo;
mod failure;
mod hello;
mod job;
mod net_cmd;
mod plan_cmd;
mod plot;
mod protocols_cmd;
mod requirements;
mod run;
mod signals;
mod spent_deals;
mod stdout;

/// Unit tests count each thread's heap (to pin down what a reader holds).
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

#[cfg(test)]
mod counting_alloc {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    /// The system allocator, counting the live and peak bytes of the
    /// allocating thread (tests run on threads of their own).
    pub struct Counting;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    fn add(bytes: isize) {
        // `try_with`: nothing to count while a thread is torn down.
        let _ = LIVE.try_with(|live| {
            let now = live.get() + bytes;
            live.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    }

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            add(layout.size() as isize);
            // SAFETY: the caller's layout, passed on unchanged.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            add(-(layout.size() as isize));
            // SAFETY: `ptr` came from `alloc` with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // Old and new blocks may both be live while the bytes move.
            add(new_size as isize);
            // SAFETY: as for `alloc` and `dealloc`.
            let out = unsafe { System.realloc(ptr, layout, new_size) };
            add(-(layout.size() as isize));
            out
        }
    }

    /// The current thread's live heap bytes.
    pub fn live() -> isize {
        LIVE.with(Cell::get)
    }

    /// The current thread's most live heap bytes since [`reset_peak`].
    pub fn peak() -> isize {
        PEAK.with(Cell::get)
    }

    pub fn reset_peak() {
        PEAK.with(|p| p.set(live()));
    }
}

/// Turns transparent huge pages off for this process. With them, every
/// first touch of a large region zeroes 2 MiB and freed memory given back to
/// the system is zeroed again when reused: a large run spent more time in
/// the kernel clearing pages than computing, and its time varied from run to
/// run. With 4 KiB pages it is steady and faster at the median
/// (docs/perf/2026-11-25-figures-from-doc-comments.md).
fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integer arguments and touches
    // no memory of ours; a failure (an old kernel) only leaves THP as it was.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// huddle runs secure multiparty computation: parties that do not trust each
/// other compute a function (a circuit) of their private inputs and learn
/// only the output.
#[derive(Parser)]
#[command(name = "huddle", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Log to stderr what the parties do (-v: connections and handshakes
    /// per link; -vv: also every retry). RUST_LOG, if set, overrides it
    /// (e.g. RUST_LOG=huddle_net=debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

/// Structured logs on stderr: warnings by default, more with -v / -vv,
/// or exactly what RUST_LOG asks for.
fn init_logging(verbose: u8) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let level = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|spec| EnvFilter::try_new(spec).ok())
        .unwrap_or_else(|| {
            EnvFilter::new(format!(
                "warn,huddle_net={level},huddle_engine={level},huddle={level}"
            ))
        });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

#[derive(Subcommand)]
enum Command {
    /// Inspect, evaluate and convert circuit files (Bristol Fashion and friends).
    #[command(subcommand)]
    Circuit(circuit_cmd::CircuitCommand),
    /// Measure throughput (release builds only give meaningful numbers).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Run the built-in example end to end and check its result.
    Demo,
    /// List the protocols this build runs: parties, security, rings.
    Protocols(protocols_cmd::ProtocolsArgs),
    /// Which protocol, fan-in, roles, preprocessing and threads to run a
    /// circuit with on a network: every choice ranked by predicted time or bytes.
    Plan(plan_cmd::PlanArgs),
    /// Run every party of a computation on this machine.
    Local(run::LocalArgs),
    /// Applications with their own inputs (every party on this machine).
    #[command(subcommand)]
    App(app_cmd::AppCommand),
    /// Run one party of a computation across machines (TLS by default).
    Party(run::PartyArgs),
    /// Be the trusted dealer of a bgw2-mal run across hosts (one file per party).
    Deal(run::DealArgs),
    /// Generate a development CA and per-party certificates.
    Certs(net_cmd::CertsArgs),
    /// Test the network between the parties of a configuration.
    #[command(subcommand)]
    Net(NetCommand),
}

#[derive(Subcommand)]
enum NetCommand {
    Check(net_cmd::CheckArgs),
}

fn main() -> ExitCode {
    huddle_engine::keep_freed_memory();
    no_transparent_huge_pages();
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    init_logging(cli.verbose);
    signals::install();
    // `--job` takes settings the command line did not give: it needs to
    // know which those are.
    let sub = |name: &str| {
        matches
            .subcommand_matches(name)
            .cloned()
            .unwrap_or_default()
    };
    let result = match huddle_core::simd::kernels_cap() {
        // A misspelt build would otherwise time or test another one.
        Err(cause) => Err(Failure::input(cause)),
        Ok(_) => dispatch(cli.command, sub),
    };
    let code = match result {
        Ok(()) => 0,
        // A listing whose reader went away: nothing to say.
        Err(failure) if failure.exit == huddle_engine::exit::Exit::Success => 0,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            failure.exit.code()
        }
    };
    exit_now(code)
}

/// Runs the command.
fn dispatch(command: Command, sub: impl Fn(&str) -> clap::ArgMatches) -> Result<(), Failure> {
    match command {
        Command::Circuit(cmd) => circuit_cmd::run(cmd),
        Command::Bench(cmd) => bench::run(cmd),
        Command::Demo => demo::run().map_err(Failure::other),
        Command::Protocols(args) => protocols_cmd::run(args),
        Command::Plan(args) => plan_cmd::run(args),
        Command::Local(args) => run::local(args, &sub("local")),
        Command::App(cmd) => app_cmd::run(cmd),
        Command::Party(args) => run::party(args, &sub("party")),
        Command::Deal(args) => run::deal(args),
        Command::Certs(args) => net_cmd::certs(args),
        Command::Net(NetCommand::Check(args)) => net_cmd::check(args),
    }
}

/// Ends the process once everything it wrote is out: the allocator's exit
/// handler would first give every page of its arenas back to the kernel
/// one range at a time (a twentieth of a short run's time), which the
/// kernel does at once anyway when the process ends.
fn exit_now(code: u8) -> ExitCode {
    #[cfg(target_os = "linux")]
    {
        use std::io::Write;
        if std::io::stdout().flush().is_ok() && std::io::stderr().flush().is_ok() {
            // SAFETY: _exit ends the process without running exit handlers;
            // every file this process wrote was closed (dropped) and stdout
            // and stderr are flushed, so nothing written is lost.
            unsafe { libc::_exit(i32::from(code)) }
        }
    }
    ExitCode::from(code)
}
