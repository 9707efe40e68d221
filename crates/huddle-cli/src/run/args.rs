//! The options `huddle local` and `huddle party` share ([`RunArgs`]): the
//! protocol, the circuit (a file or a job's), the engine's options, the
//! data files; a job file's settings taken in; and from them the checked
//! [`Run`] of the engine's library API.

use crate::failure::Failure;
use clap::{Args, ValueEnum};
use huddle_circuit::{hex, BitMatrix, Circuit};
use huddle_core::Prg;
use huddle_engine::RandomRows;
use huddle_engine::{Preprocess, Protocol, Run, RunOptions};
use std::path::{Path, PathBuf};

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
    /// named). `huddle protocols` lists them with their party counts;
    /// auto runs the winner of `huddle plan` under --security,
    /// --corruptions, --allow-dealer and --objective.
    #[arg(long, value_parser = protocol_parser())]
    pub(super) protocol: Option<ProtocolArg>,
    #[command(flatten)]
    pub(super) wants: crate::requirements::RequirementArgs,
    /// --protocol auto: this host's compute rates, as `huddle plan
    /// --calibrate` writes them (default: huddle's reference host). Across
    /// hosts every party plans with the slowest of each party's rates.
    #[arg(long, value_name = "FILE")]
    pub(super) rates: Option<PathBuf>,
    /// Who plays which of the protocol's roles: role r by the list's r-th party
    /// (e.g. 1,0,2: party 1 is P0). Default: party r plays role r, or
    /// under --protocol auto the planner's choice for the links. Every
    /// party must give the same (the hello compares it).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub(super) roles: Option<Vec<usize>>,
    /// The circuit file.
    #[arg(long, required_unless_present = "job")]
    pub(super) circuit: Option<PathBuf>,
    /// A job file every party is given: the circuit (a file or a
    /// generator), protocol, options, input owners, who learns the outputs
    /// and each party's data files (docs/deploy.md). Its settings may not be
    /// repeated on the command line; parties given different jobs stop at
    /// connect, naming the difference.
    #[arg(long, value_name = "FILE")]
    pub(super) job: Option<PathBuf>,
    /// The job read from --job.
    #[arg(skip)]
    pub(super) loaded: Option<crate::job::LoadedJob>,
    /// Hex values of the input values (`local`: every value of the circuit,
    /// in order; `party`: the values this party owns).
    #[arg(long = "input", value_name = "HEX")]
    pub(super) inputs: Vec<String>,
    /// Input values from a file, one instance per line (`-`: stdin):
    /// `local` every input value, `party` the values it owns; a Boolean
    /// value is one field, a ring value one field per element, separated
    /// by commas or spaces. The batch is the number of lines.
    #[arg(long = "inputs", value_name = "FILE", conflicts_with = "inputs")]
    pub(super) inputs_file: Option<PathBuf>,
    /// Every instance's outputs to a file (`-`: stdout), one line each, in
    /// the fields and --format of --inputs.
    #[arg(long = "outputs", value_name = "FILE")]
    pub(super) outputs_file: Option<PathBuf>,
    #[command(flatten)]
    pub(super) data: crate::data::DataArgs,
    /// ASTRA and Trio: run all preprocessing before the inputs (separate) or with each layer (interleaved).
    #[arg(long, value_enum, default_value_t = PreprocessArg::Interleaved)]
    pub(super) preprocess: PreprocessArg,
    /// Fixed-point products (DOTTR): exact (A2B, shift, B2A; the plaintext
    /// result) or probabilistic (secret-sharing protocols: fused into the
    /// multiplication, no adder, the result or one more, wrong only with
    /// probability at most about |product| / 2^k).
    #[arg(long, value_enum, default_value_t = TruncationArg::Exact)]
    pub(super) truncation: TruncationArg,
    /// Worker threads per party (secret-sharing protocols: lanes, each an
    /// independent run on its share of the batch), or auto: this host's
    /// cores over the parties it runs, the least any party offers (every
    /// party of a run must use one count); where that is one core or less,
    /// two lanes for a batch of at least 8 slices (`--share-memory`), else one.
    #[arg(long, default_value = "auto", value_name = "N|auto")]
    pub(super) threads: crate::job::Threads,
    /// Secret-sharing protocols: run every assignment of the protocol's
    /// roles to the parties at once (n! lanes, one thread each), each on
    /// its share of the batch, so every party and every link carries the
    /// same load (Harth-Kitzerow–Carle Section V-E); replaces --threads.
    #[arg(long)]
    pub(super) split_roles: bool,
    /// MiB of shares (garbling: garbled rows and keys) a party holds at
    /// once; larger batches run in slices, each repeating the rounds.
    /// Default: 64 for secret sharing, 32 for garbling.
    #[arg(long, value_name = "MIB")]
    pub(super) share_memory: Option<usize>,
    /// Garbling (bgw3, bgw2, bgw2-mal): optimizations on, as a comma list of reduced
    /// (PRF values never Shamir-shared), short (t + 1 key contributors),
    /// prgzero (PRG zero sharing), hypercube (log n last round), subfield
    /// (permutation bits shared over GF(2^16), 2-byte shares), or all / none.
    /// Every party must use the same list.
    #[arg(long, default_value = huddle_engine::garble::Optimizations::DEFAULT_LIST, value_name = "LIST")]
    pub(super) opt: String,
    /// bgw2-mal: linear preprocessing by prss (pseudo-random secret sharing
    /// from a one-time key setup, small n), dealer (a trusted dealer: inside
    /// `huddle local`'s process, or `huddle deal`'s files), or auto (prss
    /// while C(n, t) <= 1024).
    #[arg(long, default_value = "auto", value_name = "SOURCE")]
    pub(super) linear: String,
    /// Only this party learns the outputs (default: every party).
    #[arg(long, value_name = "PARTY")]
    pub(super) reveal_to: Option<usize>,
    /// Emulated network: lan, wan, aws3, hetero4 or a profile .toml.
    #[arg(long, default_value = "lan")]
    pub(super) net: String,
    /// Print JSON.
    #[arg(long)]
    pub(super) json: bool,
    /// Fault injection (quad, quad-het, fantastic4, tetrad): this party deviates on purpose, to
    /// show that the honest parties' checks catch it.
    #[arg(long, value_name = "PARTY", requires = "fault")]
    pub(super) corrupt: Option<usize>,
    /// How the corrupted party deviates: add-error, inconsistent, drop,
    /// duplicate or bad-hash.
    #[arg(long, value_name = "KIND", requires = "corrupt")]
    pub(super) fault: Option<String>,
    /// Only messages of this type (`huddle protocols --json` lists them per
    /// protocol); default: every message the party sends.
    #[arg(long, value_name = "MESSAGE", requires = "corrupt")]
    pub(super) fault_at: Option<String>,
    /// Seed of the injected errors' positions and values.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(super) fault_seed: u64,
    /// Malicious protocols (quad, quad-het, fantastic4, tetrad): also compare
    /// views after every N multiplication layers, so that a deviation stops
    /// the run early (costs two rounds per check); default: once, before any
    /// output.
    #[arg(long, value_name = "N")]
    pub(super) verify_every: Option<usize>,
    /// Secret-sharing protocols: at most N operands per product in one
    /// round (within the protocol's limit, `huddle protocols`), and the
    /// fan-in share conversions use where it saves rounds (default: the
    /// protocol's choice, e.g. 4 for mfi3, whose wide ANDs cost much).
    /// Fewer rounds cost more bytes; 2 gives the classic two-input
    /// constructions (the baselines of Ohata–Nuida's Table 2).
    #[arg(long, value_name = "N")]
    pub(super) max_fan_in: Option<usize>,
}

/// `--protocol`: a protocol of the table, or auto (the plan's winner).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProtocolArg {
    Named(Protocol),
    Auto,
}

/// `--protocol auto`'s spelling.
pub(super) const AUTO: &str = "auto";

pub(super) fn parse_protocol(name: &str) -> Result<ProtocolArg, String> {
    if name == AUTO {
        return Ok(ProtocolArg::Auto);
    }
    Protocol::parse(name)
        .map(ProtocolArg::Named)
        .map_err(|e| format!("{e} (or auto)"))
}

/// `--protocol`'s values: every protocol of the table, each with its
/// summary and security (so the help lists exactly what this build runs).
fn protocol_parser() -> impl clap::builder::TypedValueParser<Value = ProtocolArg> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let mut values: Vec<PossibleValue> = Protocol::ALL
        .iter()
        .map(|p| {
            let d = p.descriptor();
            PossibleValue::new(d.name).help(format!("{} [{}]", d.summary, d.security.label()))
        })
        .collect();
    values
        .push(PossibleValue::new(AUTO).help(
            "the plan's winner under --security, --corruptions, --allow-dealer, --objective",
        ));
    PossibleValuesParser::new(values).try_map(|name| parse_protocol(&name))
}

/// What the command line gave, for taking a job's settings.
pub(super) struct Given<'a> {
    pub(super) m: &'a clap::ArgMatches,
    pub(super) job: &'a Path,
}

impl Given<'_> {
    fn flag(id: &str) -> String {
        format!("--{}", id.replace('_', "-"))
    }

    /// Refuses a setting the job has if the command line gave it too.
    pub(super) fn refuse(&self, id: &str, flag: &str) -> Result<(), String> {
        if self.m.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
            return Err(format!(
                "{flag} is given on the command line and by --job {}: give it in one place",
                self.job.display()
            ));
        }
        Ok(())
    }

    /// The job's value into `slot`, if it has one.
    pub(super) fn take<T>(&self, value: Option<T>, slot: &mut T, id: &str) -> Result<(), String> {
        if let Some(v) = value {
            self.refuse(id, &Self::flag(id))?;
            *slot = v;
        }
        Ok(())
    }

    /// A setting of the job that names one of a flag's choices.
    pub(super) fn choice<T: ValueEnum>(
        &self,
        value: &Option<String>,
        id: &str,
    ) -> Result<Option<T>, String> {
        value
            .as_deref()
            .map(|v| T::from_str(v, true).map_err(|e| self.error(id, &e)))
            .transpose()
    }

    pub(super) fn error(&self, key: &str, cause: &str) -> String {
        format!("--job {}: {key}: {cause}", self.job.display())
    }
}

impl RunArgs {
    /// The protocol named by --protocol or the job file. There is no
    /// default: the only protocol that would need no choice is the trusted
    /// third party, which shows party 0 every input, and that must never
    /// run because a flag was forgotten.
    pub(super) fn protocol(&self) -> Result<Protocol, String> {
        match self.protocol {
            Some(ProtocolArg::Named(p)) => Ok(p),
            // Auto is resolved into a protocol before any run is built.
            Some(ProtocolArg::Auto) => Err(
                "--protocol auto: no protocol chosen yet (a bug: the choice comes first)".into(),
            ),
            None => {
                let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
                Err(format!(
                    "no protocol: give --protocol (or `protocol` in the job file), one of {} or \
                     auto (`huddle protocols` describes them; ttp is an insecure baseline that \
                     runs only when named)",
                    names.join(", ")
                ))
            }
        }
    }

    /// How --inputs and --outputs fields read and write.
    pub(super) fn style(&self) -> crate::data::Style {
        self.data.style()
    }

    /// How party `p`'s input file in the job reads: its `as` and
    /// `delimiter`, else the command line's.
    pub(super) fn input_style(&self, p: usize) -> crate::data::Style {
        match &self.loaded {
            Some(job) => job.input_style(p, self.style()),
            None => self.style(),
        }
    }

    /// The circuit, as errors name it.
    pub(super) fn circuit_name(&self) -> String {
        match (&self.circuit, &self.loaded) {
            (Some(path), _) => path.display().to_string(),
            (None, Some(job)) => format!("the circuit of {}", job.path.display()),
            (None, None) => "the circuit".into(),
        }
    }

    /// The job's data files for `parties` parties: party id -> file, for
    /// `[inputs]` (`outputs` false) or `[outputs]`; ids beyond the run refused.
    pub(super) fn job_files(
        &self,
        outputs: bool,
        parties: usize,
    ) -> Result<Vec<(usize, PathBuf)>, String> {
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
    pub(super) fn apply_job(&mut self, m: &clap::ArgMatches) -> Result<(), String> {
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
        given.take(
            given.choice(&j.security, "security")?,
            &mut self.wants.security,
            "security",
        )?;
        given.take(
            given.choice(&j.objective, "objective")?,
            &mut self.wants.objective,
            "objective",
        )?;
        given.take(j.corruptions, &mut self.wants.corruptions, "corruptions")?;
        given.take(j.allow_dealer, &mut self.wants.allow_dealer, "allow_dealer")?;
        given.take(j.roles.map(Some), &mut self.roles, "roles")?;
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
    pub(super) fn options(&self, linear: Option<&str>) -> Result<RunOptions, String> {
        let protocol = self.protocol()?;
        let linear =
            huddle_engine::garble::linear::LinearChoice::parse(linear.unwrap_or(&self.linear))
                .map_err(|e| format!("--linear: {e}"))?;
        let garble = huddle_engine::garble::Optimizations::parse(&self.opt)
            .map_err(|e| format!("--opt: {e}"))?;
        let share_memory = self
            .share_memory
            .unwrap_or_else(|| huddle_engine::default_share_memory_mib(protocol))
            .clamp(1, 1 << 30)
            << 20;
        // Real runs always draw from the OS (the default randomness).
        Ok(RunOptions::default()
            .with_linear(linear)
            .with_garble(garble)
            .with_reveal_to(self.reveal_to)
            .with_split_roles(self.split_roles)
            .with_preprocess(match self.preprocess {
                PreprocessArg::Separate => Preprocess::Separate,
                PreprocessArg::Interleaved => Preprocess::Interleaved,
            })
            .with_share_memory(share_memory)
            .with_fault(self.fault()?)
            .with_verify_every(self.verify_every)
            .with_truncation(match self.truncation {
                TruncationArg::Exact => huddle_engine::Truncation::Exact,
                TruncationArg::Probabilistic => huddle_engine::Truncation::Probabilistic,
            })
            .with_max_fan_in(self.max_fan_in))
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

    /// The checked run for `parties` parties, `parties_here` of them on
    /// this host (for `--threads auto`), with the circuit. The engine's
    /// refusals keep their type (for `--json`).
    pub(super) fn build(
        &self,
        parties: usize,
        parties_here: usize,
        linear: Option<&str>,
    ) -> Result<Run, Failure> {
        let (protocol, options, circuit) =
            self.parts(parties_here, linear).map_err(Failure::input)?;
        Ok(Run::builder(protocol)
            .parties(parties)
            .options(options)
            .circuit(circuit)
            .build()?)
    }

    /// What [`RunArgs::build`] gives the engine: the protocol, the options
    /// and the circuit.
    fn parts(
        &self,
        parties_here: usize,
        linear: Option<&str>,
    ) -> Result<(Protocol, RunOptions, Circuit), String> {
        let (threads, auto) = self.threads.resolve(parties_here);
        let options = self
            .options(linear)?
            .with_threads(threads)
            .with_threads_auto(auto);
        let circuit = self.load_circuit()?;
        Ok((self.protocol()?, options, circuit))
    }

    /// The circuit of --circuit or the job, with the job's input owners,
    /// checked against the data flags.
    pub(super) fn load_circuit(&self) -> Result<Circuit, String> {
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
        Ok(circuit)
    }
}

/// `--idle-timeout`: whole seconds, at least [`huddle_net::liveness::MIN_IDLE_TIMEOUT`].
pub(super) fn parse_idle_timeout(text: &str) -> Result<u64, String> {
    let least = huddle_net::liveness::MIN_IDLE_TIMEOUT.as_secs();
    match text.parse::<u64>() {
        Ok(s) if s >= least => Ok(s),
        _ => Err(format!("give whole seconds, at least {least}")),
    }
}

/// Prints the protocol's warning (a protocol without security: the TTP) on
/// stderr, one line, before anything runs (the report carries it too).
pub(super) fn warn_if_insecure(run: &Run) {
    if let Some(w) = run.request().protocol().descriptor().security.warning() {
        eprintln!("warning: {w}");
    }
}

/// Input value `index` for `instances` instances: instance 0 from `hex_value`, the rest random.
pub(super) fn input_matrix(
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
pub(super) fn random_value(
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
pub(crate) fn check_batch(batch: usize) -> Result<(), String> {
    use huddle_engine::MAX_BATCH;
    if batch == 0 || batch > MAX_BATCH {
        return Err(format!("--batch must be 1 to {MAX_BATCH}, not {batch}"));
    }
    Ok(())
}
