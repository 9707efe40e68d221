//! `huddle local` (every party on this machine) and `huddle party` (one party
//! of a multi-host run): evaluate a circuit under a protocol.

use crate::failure::Failure;
use crate::hello::BATCH;
use clap::{Args, ValueEnum};
use huddle_circuit::{hex, BitMatrix, Circuit, PlainEvaluator};
use huddle_core::Prg;
use huddle_engine::error::RunError;
use huddle_engine::exit::Exit;
use huddle_engine::inputs::{OwnValue, RandomRows};
use huddle_engine::{circuit_hash, Preprocess, Protocol, RunOptions, RunRequest};
use huddle_net::{
    connect, local_networks, memory_networks, Accounting, ConnectOptions, Form, Handshake,
    NetProfile, Network, NetworkConfig, Phase,
};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum TransportArg {
    /// Parties as threads joined in memory.
    Memory,
    /// Loopback TCP, no TLS.
    Tcp,
    /// Loopback TLS 1.3 with throwaway certificates made for this run.
    Tls,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum TruncationArg {
    Exact,
    Probabilistic,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PreprocessArg {
    Separate,
    Interleaved,
}

/// The run options `huddle local` and `huddle party` share.
#[derive(Args)]
pub struct RunArgs {
    /// The protocol (required, here or in the job file; there is no
    /// default: ttp, which shows party 0 every input, runs only when
    /// named). `huddle protocols` lists them with their party counts.
    #[arg(long, value_parser = protocol_parser())]
    protocol: Option<Protocol>,
    /// The circuit file.
    #[arg(long, required_unless_present = "job")]
    circuit: Option<PathBuf>,
    /// A job file every party is given: the circuit (a file or a
    /// generator), protocol, options, input owners, who learns the outputs
    /// and each party's data files (docs/deploy.md). Its settings may not be
    /// repeated on the command line; parties given different jobs stop at
    /// connect, naming the difference.
    #[arg(long, value_name = "FILE")]
    job: Option<PathBuf>,
    /// The job read from --job.
    #[arg(skip)]
    loaded: Option<crate::job::LoadedJob>,
    /// Hex values of the input values (`local`: every value of the circuit,
    /// in order; `party`: the values this party owns).
    #[arg(long = "input", value_name = "HEX")]
    inputs: Vec<String>,
    /// Input values from a file, one instance per line (`-`: stdin):
    /// `local` every input value, `party` the values it owns; a Boolean
    /// value is one field, a ring value one field per element, separated
    /// by commas or spaces. The batch is the number of lines.
    #[arg(long = "inputs", value_name = "FILE", conflicts_with = "inputs")]
    inputs_file: Option<PathBuf>,
    /// Every instance's outputs to a file (`-`: stdout), one line each, in
    /// the fields and --format of --inputs.
    #[arg(long = "outputs", value_name = "FILE")]
    outputs_file: Option<PathBuf>,
    #[command(flatten)]
    data: crate::data::DataArgs,
    /// ASTRA and Trio: run all preprocessing before the inputs (separate) or with each layer (interleaved).
    #[arg(long, value_enum, default_value_t = PreprocessArg::Interleaved)]
    preprocess: PreprocessArg,
    /// Fixed-point products (DOTTR): exact (A2B, shift, B2A; the plaintext
    /// result) or probabilistic (secret-sharing protocols: fused into the
    /// multiplication, no adder, the result or one more, wrong only with
    /// probability at most about |product| / 2^k).
    #[arg(long, value_enum, default_value_t = TruncationArg::Exact)]
    truncation: TruncationArg,
    /// Worker threads per party (secret-sharing protocols: lanes, each an
    /// independent run on its share of the batch), or auto: this host's
    /// cores over the parties it runs, the least any party offers (every
    /// party of a run must use one count); where that is one core or less,
    /// two lanes for a batch of at least 8 slices (`--share-memory`), else one.
    #[arg(long, default_value = "auto", value_name = "N|auto")]
    threads: crate::job::Threads,
    /// Secret-sharing protocols: run every assignment of the protocol's
    /// roles to the parties at once (n! lanes, one thread each), each on
    /// its share of the batch, so every party and every link carries the
    /// same load (Harth-Kitzerow–Carle Section V-E); replaces --threads.
    #[arg(long)]
    split_roles: bool,
    /// MiB of shares (garbling: garbled rows and keys) a party holds at
    /// once; larger batches run in slices, each repeating the rounds.
    /// Default: 64 for secret sharing, 32 for garbling.
    #[arg(long, value_name = "MIB")]
    share_memory: Option<usize>,
    /// Garbling (bgw3, bgw2, bgw2-mal): optimizations on, as a comma list of reduced
    /// (PRF values never Shamir-shared), short (t + 1 key contributors),
    /// prgzero (PRG zero sharing), hypercube (log n last round), subfield
    /// (permutation bits shared over GF(2^16), 2-byte shares), or all / none.
    /// Every party must use the same list.
    #[arg(long, default_value = huddle_engine::garble::Optimizations::DEFAULT_LIST, value_name = "LIST")]
    opt: String,
    /// bgw2-mal: linear preprocessing by prss (pseudo-random secret sharing
    /// from a one-time key setup, small n), dealer (a trusted dealer: inside
    /// `huddle local`'s process, or `huddle deal`'s files), or auto (prss
    /// while C(n, t) <= 1024).
    #[arg(long, default_value = "auto", value_name = "SOURCE")]
    linear: String,
    /// Only this party learns the outputs (default: every party).
    #[arg(long, value_name = "PARTY")]
    reveal_to: Option<usize>,
    /// Emulated network: lan, wan, aws3, hetero4 or a profile .toml.
    #[arg(long, default_value = "lan")]
    net: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Fault injection (quad, quad-het, fantastic4, tetrad): this party deviates on purpose, to
    /// show that the honest parties' checks catch it.
    #[arg(long, value_name = "PARTY", requires = "fault")]
    corrupt: Option<usize>,
    /// How the corrupted party deviates: add-error, inconsistent, drop,
    /// duplicate or bad-hash.
    #[arg(long, value_name = "KIND", requires = "corrupt")]
    fault: Option<String>,
    /// Only messages of this type (`huddle protocols --json` lists them per
    /// protocol); default: every message the party sends.
    #[arg(long, value_name = "MESSAGE", requires = "corrupt")]
    fault_at: Option<String>,
    /// Seed of the injected errors' positions and values.
    #[arg(long, default_value_t = 0, value_name = "N")]
    fault_seed: u64,
    /// Malicious protocols (quad, quad-het, fantastic4, tetrad): also compare
    /// views after every N multiplication layers, so that a deviation stops
    /// the run early (costs two rounds per check); default: once, before any
    /// output.
    #[arg(long, value_name = "N")]
    verify_every: Option<usize>,
    /// Secret-sharing protocols: at most N operands per product in one
    /// round (within the protocol's limit, `huddle protocols`), and the
    /// fan-in share conversions use where it saves rounds (default: the
    /// protocol's choice, e.g. 4 for mfi3, whose wide ANDs cost much).
    /// Fewer rounds cost more bytes; 2 gives the classic two-input
    /// constructions (the baselines of Ohata–Nuida's Table 2).
    #[arg(long, value_name = "N")]
    max_fan_in: Option<usize>,
}

fn parse_protocol(name: &str) -> Result<Protocol, String> {
    Protocol::parse(name).map_err(|e| e.to_string())
}

/// `--protocol`'s values: every protocol of the table, each with its
/// summary and security (so the help lists exactly what this build runs).
fn protocol_parser() -> impl clap::builder::TypedValueParser<Value = Protocol> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = Protocol::ALL.map(|p| {
        let d = p.descriptor();
        PossibleValue::new(d.name).help(format!("{} [{}]", d.summary, d.security.label()))
    });
    PossibleValuesParser::new(values).try_map(|name| parse_protocol(&name))
}

/// What the command line gave, for taking a job's settings.
struct Given<'a> {
    m: &'a clap::ArgMatches,
    job: &'a Path,
}

impl Given<'_> {
    fn flag(id: &str) -> String {
        format!("--{}", id.replace('_', "-"))
    }

    /// Refuses a setting the job has if the command line gave it too.
    fn refuse(&self, id: &str, flag: &str) -> Result<(), String> {
        if self.m.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
            return Err(format!(
                "{flag} is given on the command line and by --job {}: give it in one place",
                self.job.display()
            ));
        }
        Ok(())
    }

    /// The job's value into `slot`, if it has one.
    fn take<T>(&self, value: Option<T>, slot: &mut T, id: &str) -> Result<(), String> {
        if let Some(v) = value {
            self.refuse(id, &Self::flag(id))?;
            *slot = v;
        }
        Ok(())
    }

    /// A setting of the job that names one of a flag's choices.
    fn choice<T: ValueEnum>(&self, value: &Option<String>, id: &str) -> Result<Option<T>, String> {
        value
            .as_deref()
            .map(|v| T::from_str(v, true).map_err(|e| self.error(id, &e)))
            .transpose()
    }

    fn error(&self, key: &str, cause: &str) -> String {
        format!("--job {}: {key}: {cause}", self.job.display())
    }
}

impl RunArgs {
    /// The protocol named by --protocol or the job file. There is no
    /// default: the only protocol that would need no choice is the trusted
    /// third party, which shows party 0 every input, and that must never
    /// run because a flag was forgotten.
    fn protocol(&self) -> Result<Protocol, String> {
        self.protocol.ok_or_else(|| {
            let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
            format!(
                "no protocol: give --protocol (or `protocol` in the job file), one of {} \
                 (`huddle protocols` describes them; ttp is an insecure baseline that runs only when named)",
                names.join(", ")
            )
        })
    }

    /// How --inputs and --outputs fields read and write.
    fn style(&self) -> crate::data::Style {
        self.data.style()
    }

    /// How party `p`'s input file in the job reads: its `as` and
    /// `delimiter`, else the command line's.
    fn input_style(&self, p: usize) -> crate::data::Style {
        match &self.loaded {
            Some(job) => job.input_style(p, self.style()),
            None => self.style(),
        }
    }

    /// The circuit, as errors name it.
    fn circuit_name(&self) -> String {
        match (&self.circuit, &self.loaded) {
            (Some(path), _) => path.display().to_string(),
            (None, Some(job)) => format!("the circuit of {}", job.path.display()),
            (None, None) => "the circuit".into(),
        }
    }

    /// The job's data files for `parties` parties: party id -> file, for
    /// [inputs] (`outputs` false) or [outputs]; ids beyond the run refused.
    fn job_files(&self, outputs: bool, parties: usize) -> Result<Vec<(usize, PathBuf)>, String> {
        let Some(job) = &self.loaded else {
            return Ok(Vec::new());
        };
        let files = job.files(outputs);
        if let Some((p, _)) = files.iter().find(|(p, _)| *p >= parties) {
            return Err(format!(
                "--job {}: [{}] names party {p}, but the run has parties 0..{}",
                job.path.display(),
                if outputs { "outputs" } else { "inputs" },
                parties - 1
            ));
        }
        Ok(files)
    }

    /// Reads --job and takes its settings, refusing any also given on the
    /// command line (`m`: this command's matches).
    fn apply_job(&mut self, m: &clap::ArgMatches) -> Result<(), String> {
        let Some(path) = &self.job else {
            return Ok(());
        };
        let job = crate::job::LoadedJob::read(path)?;
        let j = job.job.clone();
        let given = Given { m, job: &job.path };
        if j.circuit.is_some() || j.generate.is_some() {
            given.refuse("circuit", "--circuit")?;
        }
        if let Some(name) = &j.protocol {
            given.refuse("protocol", "--protocol")?;
            self.protocol = Some(parse_protocol(name).map_err(|e| given.error("protocol", &e))?);
        }
        given.take(j.threads, &mut self.threads, "threads")?;
        given.take(j.split_roles, &mut self.split_roles, "split_roles")?;
        given.take(
            j.share_memory.map(Some),
            &mut self.share_memory,
            "share_memory",
        )?;
        given.take(j.opt, &mut self.opt, "opt")?;
        given.take(j.linear, &mut self.linear, "linear")?;
        given.take(j.net, &mut self.net, "net")?;
        given.take(j.signed, &mut self.data.signed, "signed")?;
        given.take(j.header, &mut self.data.header, "header")?;
        given.take(j.max_fan_in.map(Some), &mut self.max_fan_in, "max_fan_in")?;
        given.take(
            j.verify_every.map(Some),
            &mut self.verify_every,
            "verify_every",
        )?;
        given.take(j.frac.map(Some), &mut self.data.frac, "frac")?;
        let reveal = j.reveal_to.map(|r| match r {
            crate::job::RevealTo::Party(p) => Some(p),
            crate::job::RevealTo::Everyone(_) => None,
        });
        given.take(reveal, &mut self.reveal_to, "reveal_to")?;
        given.take(
            given.choice(&j.preprocess, "preprocess")?,
            &mut self.preprocess,
            "preprocess",
        )?;
        given.take(
            given.choice(&j.truncation, "truncation")?,
            &mut self.truncation,
            "truncation",
        )?;
        given.take(
            given.choice(&j.format, "format")?,
            &mut self.data.format,
            "format",
        )?;
        self.loaded = Some(job);
        Ok(())
    }

    /// The options as the engine takes them; `linear` overrides `--linear`.
    fn options(&self, linear: Option<&str>) -> Result<RunOptions, String> {
        let protocol = self.protocol()?;
        Ok(RunOptions {
            linear: huddle_engine::garble::linear::LinearChoice::parse(
                linear.unwrap_or(&self.linear),
            )
            .map_err(|e| format!("--linear: {e}"))?,
            garble: huddle_engine::garble::Optimizations::parse(&self.opt)
                .map_err(|e| format!("--opt: {e}"))?,
            reveal_to: self.reveal_to,
            threads: 1,
            threads_auto: false,
            split_roles: self.split_roles,
            preprocess: match self.preprocess {
                PreprocessArg::Separate => Preprocess::Separate,
                PreprocessArg::Interleaved => Preprocess::Interleaved,
            },
            share_memory: self
                .share_memory
                .unwrap_or_else(|| huddle_engine::default_share_memory_mib(protocol))
                .clamp(1, 1 << 30)
                << 20,
            // Real runs always draw from the OS.
            randomness: huddle_engine::Randomness::Os,
            fault: self.fault()?,
            verify_every: self.verify_every,
            truncation: match self.truncation {
                TruncationArg::Exact => huddle_engine::Truncation::Exact,
                TruncationArg::Probabilistic => huddle_engine::Truncation::Probabilistic,
            },
            max_fan_in: self.max_fan_in,
        })
    }

    /// The deviation `--corrupt`/`--fault`/`--fault-at` ask for.
    fn fault(&self) -> Result<Option<huddle_engine::fault::Fault>, String> {
        use huddle_engine::fault::{Fault, FaultKind};
        let (Some(party), Some(kind)) = (self.corrupt, &self.fault) else {
            return Ok(None);
        };
        let d = self.protocol()?.descriptor();
        let message = match &self.fault_at {
            Some(name) => {
                Some(Fault::message_index(d.name, d.messages, name).map_err(|e| e.to_string())?)
            }
            None => None,
        };
        Ok(Some(Fault {
            party,
            kind: FaultKind::parse(kind).map_err(|e| e.to_string())?,
            message,
            seed: self.fault_seed,
        }))
    }

    /// The validated request for `parties` parties, `parties_here` of them
    /// on this host (for `--threads auto`), with the circuit.
    fn request(
        &self,
        parties: usize,
        parties_here: usize,
        linear: Option<&str>,
    ) -> Result<(RunRequest, Circuit), String> {
        let mut options = self.options(linear)?;
        (options.threads, options.threads_auto) = self.threads.resolve(parties_here);
        let mut circuit = match (&self.circuit, &self.loaded) {
            (Some(path), _) => crate::circuit_cmd::load(path, crate::circuit_cmd::FormatArg::Auto)?,
            (None, Some(job)) => match job.circuit()? {
                crate::job::CircuitSource::File(path) => {
                    crate::circuit_cmd::load(&path, crate::circuit_cmd::FormatArg::Auto)?
                }
                crate::job::CircuitSource::Generated(c) => *c,
            },
            (None, None) => return Err("give --circuit or --job".into()),
        };
        if let Some(job) = &self.loaded {
            if let Some(owners) = &job.job.owners {
                if owners.len() != circuit.inputs().len() {
                    return Err(format!(
                        "--job {}: `owners` lists {} parties, but the circuit has {} input values",
                        job.path.display(),
                        owners.len(),
                        circuit.inputs().len()
                    ));
                }
                circuit
                    .set_owners(huddle_circuit::InputOwners::Explicit(owners.clone()))
                    .map_err(|e| format!("--job {}: owners: {e}", job.path.display()))?;
            }
        }
        crate::data::check_style(&circuit, self.style())?;
        let request = huddle_engine::check_request(self.protocol()?, parties, &circuit, options)
            .map_err(|e| e.to_string())?;
        Ok((request, circuit))
    }
}

/// Run every party of a computation on this machine.
#[derive(Args)]
pub struct LocalArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Number of parties; input value i belongs to party i mod N. Default:
    /// the protocol's own count (4 for quad, quad-het, fantastic4, tetrad),
    /// else 3 (or the least it takes).
    #[arg(long)]
    parties: Option<usize>,
    /// Instances evaluated at once: instance 0 takes --input (random without
    /// any --input), the others random inputs.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    #[arg(long, value_enum, default_value_t = TransportArg::Memory)]
    transport: TransportArg,
    /// Compare every instance with the plaintext evaluator; exit non-zero on any difference.
    #[arg(long)]
    check: bool,
    /// --transport memory: seconds a party waits for any one message before
    /// it gives up (parties are threads of this process, so no peer can
    /// stall alone: this bounds a bug; a party with nothing to do while the
    /// others compute waits that long).
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    timeout: u64,
    /// --transport tcp or tls: seconds a party waits on a peer that sends
    /// nothing at all (every link carries liveness frames, so a peer that
    /// computes for long is never silent; only a stalled one is).
    #[arg(long, default_value_t = 10, value_name = "SECONDS", value_parser = parse_idle_timeout)]
    idle_timeout: u64,
}

impl LocalArgs {
    /// How long a wait goes without a sign of the peer: a message in
    /// memory, any byte over sockets.
    fn timeout(&self) -> Duration {
        match self.transport {
            TransportArg::Memory => Duration::from_secs(self.timeout.max(1)),
            TransportArg::Tcp | TransportArg::Tls => Duration::from_secs(self.idle_timeout),
        }
    }
}

/// `--idle-timeout`: whole seconds, at least [`huddle_net::liveness::MIN_IDLE_TIMEOUT`].
fn parse_idle_timeout(text: &str) -> Result<u64, String> {
    let least = huddle_net::liveness::MIN_IDLE_TIMEOUT.as_secs();
    match text.parse::<u64>() {
        Ok(s) if s >= least => Ok(s),
        _ => Err(format!("give whole seconds, at least {least}")),
    }
}

/// Run one party of a computation across machines (TLS unless --insecure).
#[derive(Args)]
pub struct PartyArgs {
    #[command(flatten)]
    run: RunArgs,
    /// The parties file (see `huddle certs`).
    #[arg(long)]
    config: PathBuf,
    /// This party's id.
    #[arg(long)]
    id: usize,
    /// Plain TCP without TLS: no authentication, no encryption.
    #[arg(long)]
    insecure: bool,
    /// Seconds to wait for every peer to connect (the connect deadline; a
    /// party started late, or slow to read its files, needs it). It bounds
    /// nothing after the connect: see --idle-timeout.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    timeout: u64,
    /// Seconds this party waits on a peer that sends nothing at all before
    /// naming it (stalled, its host frozen or cut off) and stopping the
    /// run. Every link carries liveness frames, so a peer that computes for
    /// long is never silent.
    #[arg(long, default_value_t = 10, value_name = "SECONDS", value_parser = parse_idle_timeout)]
    idle_timeout: u64,
    /// bgw2-mal with the trusted dealer: this party's material, written by
    /// `huddle deal` (implies --linear dealer). One-time: its use is recorded
    /// in $XDG_STATE_HOME/huddle/spent-deals (default
    /// ~/.local/state/huddle/spent-deals), and a second use of the deal,
    /// from any copy of the file, is refused.
    #[arg(long, value_name = "FILE")]
    dealt: Option<PathBuf>,
    /// Instances evaluated at once: instance 0 takes --input, the others
    /// random values of this party's; every party must give the same N
    /// (the hello compares it). Default: the lines of --inputs; a party
    /// that owns no input value takes the other parties' batch.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Compare this party's outputs with --expect; exit non-zero on any
    /// difference.
    #[arg(long, requires = "expect")]
    check: bool,
    /// Random values for every instance of the inputs this party owns (no
    /// --input needed): for benchmarks and trials.
    #[arg(long, conflicts_with_all = ["inputs", "inputs_file"])]
    random: bool,
    /// The expected outputs in the form --outputs writes them (same
    /// --format, --header): one line per instance, or one line for
    /// instance 0 (e.g. when the others are random).
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
}

/// Act as the trusted dealer of a bgw2-mal run across hosts: write each
/// party's linear-preprocessing material to its own file.
#[derive(Args)]
pub struct DealArgs {
    /// Number of parties.
    #[arg(long)]
    parties: usize,
    /// The circuit the parties will run (the material fits only it).
    #[arg(long)]
    circuit: PathBuf,
    /// The parties' --opt list (it sets the number of key contributors).
    #[arg(long, default_value = huddle_engine::garble::Optimizations::DEFAULT_LIST, value_name = "LIST")]
    opt: String,
    /// Directory for party-<i>.dealt, one file per party.
    #[arg(long)]
    out: PathBuf,
    /// Instances the parties will evaluate at once (their --batch, or the
    /// lines of their --inputs): the material fits only that many.
    #[arg(long, default_value_t = 1)]
    batch: usize,
}

/// Writes a file only its owner can read (dealt material is a secret).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create(true).truncate(true);
    #[cfg(unix)]
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    #[cfg(unix)]
    open.mode(0o600);
    let mut f = open.open(path)?;
    // An existing file keeps its mode on open: tighten it too.
    #[cfg(unix)]
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    f.write_all(bytes)
}

/// `huddle deal`: the trusted dealer for bgw2-mal across hosts.
pub fn deal(args: DealArgs) -> Result<(), Failure> {
    let circuit = crate::circuit_cmd::load(&args.circuit, crate::circuit_cmd::FormatArg::Auto)
        .map_err(Failure::input)?;
    let run_options = RunOptions {
        garble: huddle_engine::garble::Optimizations::parse(&args.opt)
            .map_err(|e| Failure::input(format!("--opt: {e}")))?,
        linear: huddle_engine::garble::linear::LinearChoice::TrustedDealer,
        ..RunOptions::for_protocol(Protocol::Bgw2Mal)
    };
    huddle_engine::check_request(Protocol::Bgw2Mal, args.parties, &circuit, run_options)?;
    check_batch(args.batch).map_err(Failure::input)?;
    let files = huddle_engine::garble::deal(&circuit, args.parties, args.batch, run_options)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Failure::output(format!("{}: {e}", args.out.display())))?;
    for (p, bytes) in files.iter().enumerate() {
        let path = args.out.join(format!("party-{p}.dealt"));
        write_private(&path, bytes)
            .map_err(|e| Failure::output(format!("{}: {e}", path.display())))?;
    }
    eprintln!(
        "trusted dealer: wrote party-0.dealt .. party-{}.dealt in {} for bgw2-mal on {} with {} parties \
         and {} instance(s); hand each file to its party only (over a private channel) and delete the directory",
        args.parties - 1,
        args.out.display(),
        args.circuit.display(),
        args.parties,
        args.batch
    );
    Ok(())
}

/// Prints the protocol's warning (a protocol without security: the TTP) on
/// stderr, one line, before anything runs, and returns it for the JSON report.
fn warn_if_insecure(request: &RunRequest) -> Option<&'static str> {
    let warning = request.protocol().descriptor().security.warning();
    if let Some(w) = warning {
        eprintln!("warning: {w}");
    }
    warning
}

/// Input value `index` for `instances` instances: instance 0 from `hex_value`, the rest random.
fn input_matrix(
    circuit: &Circuit,
    index: usize,
    hex_value: Option<&str>,
    instances: usize,
    prg: &mut Prg,
) -> Result<BitMatrix, String> {
    Ok(random_value(circuit, index, hex_value, prg)?.rows(0..instances))
}

/// Input value `index` drawn where it is needed (slice by slice when the
/// batch is larger than `--share-memory`): instance 0 from `hex_value`, the
/// rest random.
fn random_value(
    circuit: &Circuit,
    index: usize,
    hex_value: Option<&str>,
    prg: &mut Prg,
) -> Result<RandomRows, String> {
    let bits = circuit.input_bits(index);
    let first = match hex_value {
        Some(h) => Some(hex::decode(h, bits).map_err(|e| format!("input value {index}: {e}"))?),
        None => None,
    };
    Ok(RandomRows::new(bits, prg.next_seed(), first))
}

/// Refuses a batch of no instances or too many.
fn check_batch(batch: usize) -> Result<(), String> {
    if batch == 0 || batch > 1 << 26 {
        return Err(format!("--batch must be 1 to {}, not {batch}", 1 << 26));
    }
    Ok(())
}

/// Runs every party of `request` on this machine over `transport`: each
/// party's outputs, the merged accounting and the wall seconds.
pub fn run_all(
    request: &RunRequest,
    circuit: &Circuit,
    inputs: &[BitMatrix],
    transport: TransportArg,
    profile: NetProfile,
    timeout: Duration,
) -> Result<(Vec<Vec<BitMatrix>>, Accounting, f64), Failure> {
    let n = request.parties();
    let handshake = Handshake {
        session: "local".into(),
        settings: request.settings(),
        circuit: circuit_hash(circuit),
    };
    let nets: Vec<Network> = match transport {
        TransportArg::Memory => memory_networks(n, &profile, timeout),
        TransportArg::Tcp => local_networks(n, false, handshake, profile, timeout)?,
        TransportArg::Tls => local_networks(n, true, handshake, profile, timeout)?,
    };
    let start = Instant::now();
    let results = huddle_engine::run_local(request, nets, circuit, inputs)?;
    let seconds = start.elapsed().as_secs_f64();
    let mut accounting = Accounting::default();
    for r in &results {
        accounting.merge(&r.accounting);
    }
    let outputs = results.into_iter().map(|r| r.outputs).collect();
    Ok((outputs, accounting, seconds))
}

/// A progress bar on stderr while a run lasts longer than a second: steps
/// evaluated of all, instances per second, time left. Only on a terminal
/// and without --json; dropped (and cleared) when the run ends.
pub struct ProgressDisplay {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    drawer: Option<std::thread::JoinHandle<()>>,
}

impl ProgressDisplay {
    pub fn start(json: bool) -> ProgressDisplay {
        use std::io::IsTerminal;
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        huddle_engine::progress::progress().reset();
        if json || !std::io::stderr().is_terminal() {
            return ProgressDisplay { stop, drawer: None };
        }
        let flag = stop.clone();
        let drawer = std::thread::spawn(move || {
            let begun = Instant::now();
            let mut bar: Option<indicatif::ProgressBar> = None;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let s = huddle_engine::progress::progress().snapshot();
                if begun.elapsed() < Duration::from_secs(1) || s.steps_total == 0 {
                    continue;
                }
                let bar = bar.get_or_insert_with(|| {
                    let b = indicatif::ProgressBar::new(s.steps_total);
                    if let Ok(style) = indicatif::ProgressStyle::with_template(
                        "{spinner} {prefix} [{bar:30}] {percent}% of {len} steps, {msg}, ETA {eta}",
                    ) {
                        b.set_style(style.progress_chars("=> "));
                    }
                    b
                });
                // The phase as the steps show it: none yet (key setup,
                // input sharing, a separate preprocessing), some, or all
                // (the checks and the outputs).
                bar.set_prefix(match s.steps_done {
                    0 => "setting up",
                    d if d < s.steps_total => "evaluating",
                    _ => "opening outputs",
                });
                let share = s.steps_done as f64 / s.steps_total as f64;
                let rate = s.instances as f64 * share / begun.elapsed().as_secs_f64();
                bar.set_message(format!("{rate:.3e} instances/s"));
                bar.set_position(s.steps_done);
            }
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
        });
        ProgressDisplay {
            stop,
            drawer: Some(drawer),
        }
    }
}

impl Drop for ProgressDisplay {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(d) = self.drawer.take() {
            let _ = d.join();
        }
    }
}

/// Online rounds: the longest chain of dependent messages (see `huddle_net::Accounting::rounds`).
pub fn online_rounds(acc: &Accounting) -> u32 {
    acc.rounds(Phase::Online)
}

pub fn seconds_json(acc: &Accounting) -> Value {
    Value::Object(
        Phase::ALL
            .iter()
            .map(|p| (p.name().to_string(), json!(acc.seconds(*p))))
            .collect(),
    )
}

pub fn links_json(acc: &Accounting) -> Value {
    let mut phases = Map::new();
    for phase in Phase::ALL {
        let mut links = Map::new();
        for (p, from, to, s) in acc.iter() {
            if p == phase {
                links.insert(format!("{from}->{to}"), json!(s.bytes));
            }
        }
        phases.insert(phase.name().into(), Value::Object(links));
    }
    Value::Object(phases)
}

/// `huddle local`: prepares the run, runs it, prints its report.
pub fn local(args: LocalArgs, m: &clap::ArgMatches) -> Result<(), Failure> {
    let run = prepare_local(args, m, Caller::Command)?;
    print_local(&execute_local(run)?)
}

/// Who runs a `huddle local` run, which decides how it talks and where
/// its random inputs come from.
#[derive(Clone, Copy)]
pub enum Caller {
    /// The command: a warning for an insecure protocol and a progress bar
    /// on the terminal, inputs drawn from the operating system.
    Command,
    /// A harness running many (`huddle bench soak`): nothing on the
    /// terminal, inputs from this seed so that a run can be replayed (the
    /// protocols' own randomness still comes from the operating system).
    Harness { inputs: huddle_core::prg::Seed },
}

/// A `huddle local` run checked, its inputs read or drawn: ready to run.
pub struct LocalRun {
    args: LocalArgs,
    caller: Caller,
    request: RunRequest,
    circuit: Circuit,
    inputs: Vec<BitMatrix>,
    batch: usize,
    profile: NetProfile,
    output_files: Vec<(usize, PathBuf)>,
    warning: Option<&'static str>,
}

/// What a finished `huddle local` run shows: its outputs (instance 0),
/// the traffic, the time.
pub struct LocalReport {
    json: bool,
    check: bool,
    outputs_to_stdout: bool,
    protocol: Protocol,
    parties: usize,
    batch: usize,
    gates: usize,
    rendered: crate::data::Rendered,
    linear: Option<&'static str>,
    accounting: Accounting,
    seconds: f64,
    warning: Option<&'static str>,
}

/// Reads and checks everything a run needs (`m`: the command's matches,
/// for telling given settings from defaults) and draws its inputs.
pub fn prepare_local(
    mut args: LocalArgs,
    m: &clap::ArgMatches,
    caller: Caller,
) -> Result<LocalRun, Failure> {
    args.run.apply_job(m).map_err(Failure::input)?;
    let mut batch_given = m.value_source("batch") == Some(clap::parser::ValueSource::CommandLine);
    if let Some(job) = &args.run.loaded {
        let given = Given { m, job: &job.path };
        given
            .take(job.job.parties.map(Some), &mut args.parties, "parties")
            .map_err(Failure::input)?;
        given
            .take(job.job.batch, &mut args.batch, "batch")
            .map_err(Failure::input)?;
        batch_given |= job.job.batch.is_some();
    }
    let most = huddle_engine::protocol::MAX_PARTIES;
    let parties = args.parties.unwrap_or(
        args.run
            .protocol()
            .map_err(Failure::input)?
            .descriptor()
            .parties
            .default_count(),
    );
    if !(2..=most).contains(&parties) {
        return Err(Failure::input(format!(
            "--parties must be 2 to {most}, not {parties}"
        )));
    }
    // Every party runs in this process.
    let (request, circuit) = args
        .run
        .request(parties, parties, None)
        .map_err(Failure::input)?;
    let warning = match caller {
        Caller::Command => warn_if_insecure(&request),
        Caller::Harness { .. } => request.protocol().descriptor().security.warning(),
    };
    let run = &args.run;
    // Read (and refused, line and column named) before anything else.
    let from_file = match &run.inputs_file {
        Some(path) => {
            let values: Vec<usize> = (0..circuit.inputs().len()).collect();
            Some(
                crate::data::read_inputs(path, &circuit, &values, run.style())
                    .map_err(Failure::input)?,
            )
        }
        None => None,
    };
    // The job's input files: each party's file holds the values it owns.
    let mut from_job: Vec<Option<BitMatrix>> = vec![None; circuit.inputs().len()];
    let mut job_batch: Option<(usize, PathBuf)> = None;
    for (p, path) in run.job_files(false, parties).map_err(Failure::input)? {
        if from_file.is_some() || !run.inputs.is_empty() {
            return Err(Failure::input(
                "the job's [inputs] and --inputs or --input both give the inputs: give one",
            ));
        }
        let owned: Vec<usize> = (0..circuit.inputs().len())
            .filter(|&i| request.owner(&circuit, i) == p)
            .collect();
        if owned.is_empty() {
            return Err(Failure::input(format!(
                "the job gives party {p} an input file, but it owns no input value"
            )));
        }
        let matrices = crate::data::read_inputs(&path, &circuit, &owned, run.input_style(p))?;
        let rows = matrices.first().map_or(0, BitMatrix::rows);
        if let Some((before, first)) = &job_batch {
            if *before != rows {
                return Err(Failure::input(format!(
                    "{} has {before} instances, {} has {rows}: every input file needs one line per instance",
                    first.display(),
                    path.display()
                )));
            }
        }
        job_batch = Some((rows, path));
        for (i, m) in owned.into_iter().zip(matrices) {
            from_job[i] = Some(m);
        }
    }
    let batch = match (&from_file, &job_batch) {
        (Some(m), _) => m.first().map_or(1, |m| m.rows()),
        (None, Some((rows, _))) => *rows,
        (None, None) => args.batch,
    };
    if batch_given && batch != args.batch {
        return Err(Failure::input(format!(
            "the batch is {}, but the input files have {batch} instances (one per line)",
            args.batch
        )));
    }
    if !run.inputs.is_empty() && run.inputs.len() != circuit.inputs().len() {
        return Err(Failure::input(format!(
            "{} takes {} input values, but {} --input given (give every one, or none for random inputs)",
            run.circuit_name(),
            circuit.inputs().len(),
            run.inputs.len()
        )));
    }
    check_batch(batch).map_err(Failure::input)?;
    if args.check
        && run.truncation == TruncationArg::Probabilistic
        && circuit
            .gates()
            .iter()
            .any(|g| matches!(g.op, huddle_circuit::Op::DotTrunc(_)))
    {
        return Err(Failure::input(
            "--check compares with the plaintext evaluator's exact truncation, and with \
             --truncation probabilistic a DOTTR may be one unit more (rarely far off): check \
             with --truncation exact",
        ));
    }
    let profile = NetProfile::named(&run.net).map_err(|e| Failure::input(e.to_string()))?;
    let output_files = run.job_files(true, parties).map_err(Failure::input)?;
    for (p, _) in &output_files {
        let dealer = request.protocol().descriptor().dealer == Some(*p);
        if dealer || run.reveal_to.is_some_and(|t| t != *p) {
            return Err(Failure::input(format!(
                "the job gives party {p} an output file, but it learns no outputs"
            )));
        }
    }
    // The inputs are held once here and once more by their owners.
    let input_bytes: u128 = (0..circuit.inputs().len())
        .map(|i| circuit.input_bits(i).div_ceil(64) as u128 * 8)
        .sum::<u128>()
        * batch as u128;
    huddle_engine::check_memory(&format!("{batch} instances of the inputs"), 2 * input_bytes)?;
    let mut prg = match caller {
        Caller::Command => Prg::from_entropy().map_err(|e| RunError::Entropy(e.to_string()))?,
        Caller::Harness { inputs } => Prg::from_seed(inputs),
    };
    let all: Vec<BitMatrix> = match from_file {
        Some(all) => all,
        None => from_job
            .into_iter()
            .enumerate()
            .map(|(i, read)| match read {
                Some(m) => Ok(m),
                None => {
                    let given = run.inputs.get(i).map(String::as_str);
                    input_matrix(&circuit, i, given, batch, &mut prg)
                }
            })
            .collect::<Result<_, _>>()
            .map_err(Failure::input)?,
    };
    Ok(LocalRun {
        args,
        caller,
        request,
        circuit,
        inputs: all,
        batch,
        profile,
        output_files,
        warning,
    })
}

/// Runs every party, checks the outputs if asked and writes the output
/// files; prints nothing.
pub fn execute_local(run: LocalRun) -> Result<LocalReport, Failure> {
    let LocalRun {
        args,
        caller,
        request,
        circuit,
        inputs: all,
        batch,
        profile,
        output_files,
        warning,
    } = run;
    let run = &args.run;
    let n = request.parties();
    let display = ProgressDisplay::start(run.json || matches!(caller, Caller::Harness { .. }));
    let (outputs, accounting, seconds) = run_all(
        &request,
        &circuit,
        &all,
        args.transport,
        profile,
        args.timeout(),
    )?;
    drop(display);
    if args.check {
        let want = PlainEvaluator::new(&circuit)
            .evaluate(&all)
            .map_err(|e| Failure::internal(e.to_string()))?;
        for (p, out) in outputs.iter().enumerate() {
            let dealer = request.protocol().descriptor().dealer == Some(p);
            let learns = run.reveal_to.is_none_or(|t| t == p) && !dealer;
            if (learns && out != &want) || (!learns && !out.is_empty()) {
                return Err(Failure::check(format!(
                    "--check: party {p}'s outputs differ from the plaintext evaluator"
                )));
            }
        }
    }
    for (p, path) in output_files {
        crate::data::write_outputs(&path, &circuit, &outputs[p], run.style())?;
    }
    let shown = &outputs[run.reveal_to.unwrap_or(0).min(n - 1)];
    if let Some(path) = &run.outputs_file {
        crate::data::write_outputs(path, &circuit, shown, run.style())?;
    }
    let rendered = crate::data::Rendered::of(&circuit, shown, 0, run.style())?;
    // bgw2-mal: say where the linear preprocessing came from.
    let linear = request.linear_preprocessing().map(|c| match c {
        huddle_engine::garble::linear::LinearChoice::TrustedDealer => {
            "trusted dealer (in this process, not one of the parties)"
        }
        _ => "prss (pseudo-random secret sharing from a one-time key setup)",
    });
    Ok(LocalReport {
        json: run.json,
        check: args.check,
        // `--outputs -` already wrote every instance to stdout.
        outputs_to_stdout: run.outputs_file.as_deref() == Some(Path::new("-")),
        protocol: request.protocol(),
        parties: n,
        batch,
        gates: circuit.gates().len(),
        rendered,
        linear,
        accounting,
        seconds,
        warning,
    })
}

/// The run's report on stdout (JSON or the outputs' lines) and stderr.
pub fn print_local(report: &LocalReport) -> Result<(), Failure> {
    let LocalReport {
        json,
        check,
        outputs_to_stdout,
        protocol,
        parties: n,
        batch,
        gates,
        rendered,
        linear,
        accounting,
        seconds,
        warning,
    } = report;
    let (n, batch, seconds) = (*n, *batch, *seconds);
    if *json {
        let report = json!({
            "outputs": rendered.json(), "protocol": protocol.name(), "parties": n, "batch": batch,
            "linear_preprocessing": linear,
            "online_rounds": online_rounds(accounting),
            "bytes": links_json(accounting), "seconds": seconds_json(accounting),
            "wall_seconds": seconds,
            "gates_per_second": (gates * batch) as f64 / seconds,
            "vector_kernels": huddle_core::simd::kernels(),
            "checked": check,
            "warning": warning,
        });
        crate::stdout::output(
            serde_json::to_string_pretty(&report).map_err(|e| Failure::internal(e.to_string()))?,
        )?;
    } else {
        if !outputs_to_stdout {
            for line in rendered.lines() {
                crate::stdout::output(line)?;
            }
        }
        eprintln!(
            "{} parties, protocol {}, {} instance(s), {:.3} ms, {} online rounds{}",
            n,
            protocol,
            batch,
            seconds * 1e3,
            online_rounds(accounting),
            if *check {
                ", checked against the plaintext evaluator"
            } else {
                ""
            }
        );
        if let Some(linear) = linear {
            eprintln!("  linear preprocessing: {linear}");
        }
        for (phase, from, to, s) in accounting.iter() {
            eprintln!(
                "  {phase} {from}->{to}: {} bytes, {} messages, {} rounds",
                s.bytes, s.messages, s.rounds
            );
        }
    }
    Ok(())
}

impl LocalReport {
    /// The transport's traffic of the run.
    pub fn accounting(&self) -> &Accounting {
        &self.accounting
    }
}

/// How far `huddle party` got: what its peers are told if it fails there.
#[derive(Clone, Copy)]
enum Stage {
    Job,
    Inputs,
    Expected,
    Credentials,
    Deal,
    /// Connecting tells the peers itself; after it, the run does.
    Connected,
}

impl Stage {
    /// What the peers are told when this party cannot run: in the clear,
    /// before any handshake, so nothing of its inputs (the details stay in
    /// its own error).
    fn refusal(self) -> Option<&'static str> {
        Some(match self {
            Stage::Job => "its job, options or circuit are not usable; its own error says why",
            Stage::Inputs => "its input data is invalid; its own error says where",
            Stage::Expected => "its --expect file is invalid; its own error says where",
            Stage::Credentials => {
                "its TLS key or certificate cannot be loaded: a missing or unreadable file, or a wrong --id"
            }
            Stage::Deal => "its dealt material is unusable or already spent",
            Stage::Connected => return None,
        })
    }
}

pub fn party(args: PartyArgs, m: &clap::ArgMatches) -> Result<(), Failure> {
    let config =
        NetworkConfig::from_file(&args.config).map_err(|e| Failure::input(e.to_string()))?;
    let id = args.id;
    let mut stage = Stage::Job;
    let result = run_one_party(args, m, &config, &mut stage);
    // A party that cannot run tells its peers, so they need not wait for it.
    if let (Err(_), Some(reason)) = (&result, stage.refusal()) {
        huddle_net::refuse(&config, id, reason);
    }
    result
}

/// What a failure after connecting tells the peers (in an authenticated
/// abort): its kind, never its text, which may name input values.
fn told_peers(exit: Exit) -> &'static str {
    match exit {
        Exit::Input => "bad input or settings of its own; its own error says why",
        Exit::Abort => "a check of the protocol failed",
        Exit::Resource => "a resource of its host ran out (memory)",
        Exit::Internal => "an internal error (a bug in huddle)",
        Exit::Mismatch => "the parties disagree on the run",
        Exit::Interrupted => "it was interrupted",
        _ => "an error of its own",
    }
}

/// A failure of this party after connecting: its peers learn why it stops.
fn stopping(net: &mut Network) -> impl FnOnce(Failure) -> Failure + '_ {
    |f| {
        net.stop(told_peers(f.exit));
        f
    }
}

fn run_one_party(
    mut args: PartyArgs,
    m: &clap::ArgMatches,
    config: &NetworkConfig,
    stage: &mut Stage,
) -> Result<(), Failure> {
    args.run.apply_job(m).map_err(Failure::input)?;
    let n = config.parties();
    let mut batch_given = m.value_source("batch") == Some(clap::parser::ValueSource::CommandLine);
    if let Some(job) = &args.run.loaded {
        let given = Given { m, job: &job.path };
        given
            .take(job.job.batch, &mut args.batch, "batch")
            .map_err(Failure::input)?;
        batch_given |= job.job.batch.is_some();
        if let Some(want) = job.job.parties.filter(|&k| k != n) {
            return Err(Failure::input(format!(
                "--job {} is for {want} parties, but {} has {n}",
                job.path.display(),
                args.config.display()
            )));
        }
        let (inputs, outputs) = (
            args.run.job_files(false, n).map_err(Failure::input)?,
            args.run.job_files(true, n).map_err(Failure::input)?,
        );
        let mine = |files: Vec<(usize, PathBuf)>| {
            files.into_iter().find(|(p, _)| *p == args.id).map(|f| f.1)
        };
        given
            .take(
                mine(inputs).map(Some),
                &mut args.run.inputs_file,
                "inputs_file",
            )
            .map_err(Failure::input)?;
        let (shape, delimiter) = job.input_options(args.id);
        if let Some(shape) = shape {
            given.refuse("shape", "--as").map_err(Failure::input)?;
            args.run.data.shape = shape;
        }
        given
            .take(
                delimiter.map(Some),
                &mut args.run.data.delimiter,
                "delimiter",
            )
            .map_err(Failure::input)?;
        given
            .take(
                mine(outputs).map(Some),
                &mut args.run.outputs_file,
                "outputs_file",
            )
            .map_err(Failure::input)?;
    }
    let run = &args.run;
    let linear = args.dealt.as_ref().map(|_| "dealer");
    // --threads auto shares this host's cores among the parties it runs.
    let parties_here = config.parties_sharing_host(args.id);
    let (request, circuit) = run
        .request(n, parties_here, linear)
        .map_err(Failure::input)?;
    let warning = warn_if_insecure(&request);
    // Across hosts the dealer's material comes from `huddle deal`; without
    // it, only PRSS.
    let dealer = Some(huddle_engine::garble::linear::LinearChoice::TrustedDealer);
    if args.dealt.is_none() && request.linear_preprocessing() == dealer {
        let t = huddle_engine::garble::Variant::Bgw2Mal.threshold(n);
        return Err(Failure::input(format!(
            "bgw2-mal across hosts takes its preprocessing from PRSS, which {n} parties (C({n}, {t}) = {} key sets) exceed: run `huddle deal` as the trusted dealer and give each party its file with --dealt",
            huddle_engine::garble::linear::binomial(n, t)
        )));
    }
    if args.id >= n {
        return Err(Failure::input(format!(
            "--id {} is not a party of {} (ids 0..{})",
            args.id,
            args.config.display(),
            n - 1
        )));
    }
    let owned: Vec<usize> = (0..circuit.inputs().len())
        .filter(|&i| request.owner(&circuit, i) == args.id)
        .collect();
    let dealer = request.protocol().descriptor().dealer == Some(args.id);
    let learns_nothing = dealer || run.reveal_to.is_some_and(|t| t != args.id);
    if args.check && learns_nothing {
        return Err(Failure::input(format!(
            "--check: party {} learns no outputs in this run (--reveal-to, or a dealer)",
            args.id
        )));
    }
    if run.outputs_file.is_some() && learns_nothing {
        return Err(Failure::input(format!(
            "party {} learns no outputs in this run (--reveal-to, or a dealer), so it has none to write to --outputs",
            args.id
        )));
    }
    // Options checked; what follows reads this party's data.
    *stage = Stage::Inputs;
    if run.inputs_file.is_none() && !args.random && run.inputs.len() != owned.len() {
        return Err(Failure::input(format!(
            "party {} owns input values {:?} of {}, so it takes {} --input, not {}",
            args.id,
            owned,
            run.circuit_name(),
            owned.len(),
            run.inputs.len()
        )));
    }
    // A job's [inputs] file is set without clap seeing it: refuse a second source here.
    if let (Some(path), true) = (&run.inputs_file, !run.inputs.is_empty() || args.random) {
        return Err(Failure::input(format!(
            "{} gives this party's inputs, so --input and --random do not apply",
            path.display()
        )));
    }
    let from_file = match &run.inputs_file {
        Some(path) => Some(
            crate::data::read_inputs(path, &circuit, &owned, run.style())
                .map_err(Failure::input)?,
        ),
        None => None,
    };
    let batch = match &from_file {
        Some(m) => {
            let rows = m.first().map_or(args.batch, |m| m.rows());
            if batch_given && rows != args.batch {
                return Err(Failure::input(format!(
                    "the batch is {}, but --inputs has {rows} instances (one per line)",
                    args.batch
                )));
            }
            rows
        }
        None => args.batch,
    };
    check_batch(batch).map_err(Failure::input)?;
    // Whether the batch is the input file's line count (the hello says so).
    let counted = from_file.is_some();
    // A party with no inputs, told no batch, takes the others' (the hello
    // leaves it open).
    let batch_open = from_file.is_none() && owned.is_empty() && !batch_given;
    // Read before connecting: a missing or malformed file costs no traffic.
    *stage = Stage::Expected;
    let expected = match &args.expect {
        Some(path) => {
            Some(crate::data::read_expected(path, &circuit, run.style()).map_err(Failure::input)?)
        }
        None => None,
    };
    *stage = Stage::Inputs;
    let mut prg = Prg::from_entropy().map_err(|e| RunError::Entropy(e.to_string()))?;
    let own_inputs: Vec<(usize, OwnValue)> = match from_file {
        Some(matrices) => owned
            .iter()
            .copied()
            .zip(matrices.into_iter().map(OwnValue::Rows))
            .collect(),
        None => owned
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let given = run.inputs.get(k).map(String::as_str);
                random_value(&circuit, i, given, &mut prg).map(|r| (i, OwnValue::Random(r)))
            })
            .collect::<Result<_, _>>()
            .map_err(Failure::input)?,
    };
    *stage = Stage::Credentials;
    let transport = crate::net_cmd::transport_for(config, &args.config, args.id, args.insecure)
        .map_err(Failure::input)?;
    *stage = Stage::Job;
    let profile = NetProfile::named(&run.net).map_err(|e| Failure::input(e.to_string()))?;
    *stage = Stage::Deal;
    let dealt = match &args.dealt {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|e| Failure::input(format!("--dealt {}: {e}", path.display())))?,
        ),
        None => None,
    };
    // Spent only once everything else is checked (a typo must not burn it),
    // and before connecting (a refused deal costs no traffic).
    let deal = match (&args.dealt, &dealt) {
        (Some(path), Some(bytes)) => {
            Some(crate::spent_deals::spend(path, bytes, args.id).map_err(Failure::input)?)
        }
        _ => None,
    };
    // The batch as this party has it: open, counted in its input file, or given.
    let batch_value = match (counted, batch_open) {
        (_, true) => (Form::Option, huddle_net::Value::Open),
        (true, false) => (Form::Lines, huddle_net::Value::Number(batch as u64)),
        (false, false) => (Form::Option, huddle_net::Value::Number(batch as u64)),
    };
    let handshake = Handshake {
        session: config.session.clone(),
        settings: crate::hello::settings(
            &request,
            run.loaded.as_ref(),
            batch_value,
            deal.as_deref(),
        ),
        circuit: circuit_hash(&circuit),
    };
    let options = ConnectOptions {
        setup_timeout: Duration::from_secs(args.timeout),
        idle_timeout: Duration::from_secs(args.idle_timeout),
        profile,
        ..ConnectOptions::new(transport, handshake)
    };
    *stage = Stage::Connected;
    let mut net = connect(config, args.id, &options)?;
    tracing::info!(party = args.id, "connected to every party; the run starts");
    // Signals now stop the run and tell the peers.
    let _interruptible = crate::signals::Interruptible::run(&net);
    let batch = match net.settled(BATCH) {
        Some(&huddle_net::Value::Number(b)) => {
            let b = usize::try_from(b).unwrap_or(usize::MAX);
            check_batch(b)
                .map_err(|e| Failure::new(Exit::Mismatch, e))
                .map_err(stopping(&mut net))?;
            b
        }
        Some(other) => {
            return Err(Failure::new(
                Exit::Mismatch,
                format!("the other parties' batch {other} is not a number"),
            ))
        }
        None => batch,
    };
    // --threads auto: the least count any party offered.
    let request = request
        .settled(&net)
        .map_err(|e| stopping(&mut net)(e.into()))?;
    let own = own_inputs;
    let start = Instant::now();
    let supply = dealt.map(huddle_engine::garble::LinearSupply::Dealt);
    let display = ProgressDisplay::start(run.json);
    // The engine may drop the gates once compiled; what follows needs only
    // the values' shapes.
    let (gates, interface) = (circuit.gates().len(), circuit.interface());
    let out = huddle_engine::run_party(
        &request,
        &mut net,
        std::borrow::Cow::Owned(circuit),
        batch,
        own,
        supply,
    )
    .map_err(|e| stopping(&mut net)(e.into()))?;
    // The phase log's last step: the protocol is over (`bench chaos` tells
    // a party stopped after its run from one stopped in the reveal).
    net.announce(huddle_net::FINISHED);
    let circuit = interface;
    drop(display);
    let seconds = start.elapsed().as_secs_f64();
    let rendered = crate::data::Rendered::of(&circuit, &out, 0, run.style())?;
    if let (Some(path), false) = (&run.outputs_file, out.is_empty()) {
        crate::data::write_outputs(path, &circuit, &out, run.style())?;
    }
    if let (true, Some(want)) = (args.check, &expected) {
        crate::data::check_expected(&circuit, &out, want, run.style())?;
    }
    if run.json {
        let linear = request.linear_preprocessing().map(|c| format!("{c:?}"));
        let report = json!({"outputs": rendered.json(), "protocol": request.protocol().name(), "party": args.id, "parties": n,
            "batch": batch, "linear_preprocessing": linear,
            "online_rounds": online_rounds(net.accounting()),
            "bytes": links_json(net.accounting()), "seconds": seconds_json(net.accounting()),
            "wall_seconds": seconds,
            "gates_per_second": (gates * batch) as f64 / seconds,
            "peak_memory_bytes": peak_memory_bytes(),
            // The lanes the engine ran (auto may add one), else the threads.
            "threads": huddle_engine::progress::progress()
                .lanes()
                .unwrap_or(request.options().worker_threads()),
            "split_roles": request.options().split_roles,
            "vector_kernels": huddle_core::simd::kernels(),
            "checked": args.check,
            "warning": warning});
        crate::stdout::output(
            serde_json::to_string_pretty(&report).map_err(|e| Failure::internal(e.to_string()))?,
        )?;
    } else if run.outputs_file.as_deref() != Some(Path::new("-")) {
        for line in rendered.lines() {
            crate::stdout::output(line)?;
        }
    }
    Ok(())
}

/// This process's peak resident memory so far (`getrusage`; `None` where
/// the system does not tell).
fn peak_memory_bytes() -> Option<u64> {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid for writes for the duration of the call.
    let got = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    // ru_maxrss is in KiB on Linux.
    (got == 0 && usage.ru_maxrss > 0).then(|| usage.ru_maxrss as u64 * 1024)
}
