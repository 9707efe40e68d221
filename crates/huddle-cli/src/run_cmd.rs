//! `huddle local` (every party on this machine) and `huddle party` (one party
//! of a multi-host run): evaluate a circuit under a protocol.

use clap::{Args, ValueEnum};
use huddle_circuit::{hex, BitMatrix, Circuit, PlainEvaluator};
use huddle_core::Prg;
use huddle_engine::{circuit_hash, Preprocess, RunOptions};
use huddle_net::{
    connect, local_networks, memory_networks, Accounting, ConnectOptions, Handshake, NetProfile,
    Network, NetworkConfig, Phase,
};
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum TransportArg {
    /// Parties as threads joined in memory.
    Memory,
    /// Loopback TCP, no TLS.
    Tcp,
    /// Loopback TLS 1.3 with throwaway certificates made for this run.
    Tls,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PreprocessArg {
    Separate,
    Interleaved,
}

fn options(
    threads: usize,
    preprocess: PreprocessArg,
    share_mib: usize,
    reveal_to: Option<usize>,
    opt: &str,
    linear: &str,
) -> Result<RunOptions, String> {
    Ok(RunOptions {
        linear: huddle_engine::garble::linear::LinearChoice::parse(linear)
            .map_err(|e| format!("--linear: {e}"))?,
        garble: huddle_engine::garble::Optimizations::parse(opt)
            .map_err(|e| format!("--opt: {e}"))?,
        reveal_to,
        threads,
        preprocess: match preprocess {
            PreprocessArg::Separate => Preprocess::Separate,
            PreprocessArg::Interleaved => Preprocess::Interleaved,
        },
        share_memory: share_mib.max(1) << 20,
    })
}

/// Run every party of a computation on this machine.
#[derive(Args)]
pub struct LocalArgs {
    /// The protocol: ttp, replicated, astra, trio, mfi3 (3 parties), or the
    /// garbling protocols bgw3, bgw2 and bgw2-mal (any --parties from 3).
    #[arg(long, default_value = "ttp")]
    protocol: String,
    /// ASTRA and Trio: run all preprocessing before the inputs (separate) or with each layer (interleaved).
    #[arg(long, value_enum, default_value_t = PreprocessArg::Interleaved)]
    preprocess: PreprocessArg,
    /// The circuit file.
    #[arg(long)]
    circuit: PathBuf,
    /// One hex value per input value of the circuit, in order.
    #[arg(long = "input", value_name = "HEX")]
    inputs: Vec<String>,
    /// Number of parties; input value i belongs to party i mod N.
    #[arg(long, default_value_t = 3)]
    parties: usize,
    /// Instances evaluated at once: instance 0 takes --input, the others random inputs.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Worker threads per party (secret-sharing protocols: lanes of the batch).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// MiB of shares a party holds at once; larger batches run in slices.
    #[arg(long, default_value_t = 512, value_name = "MIB")]
    share_memory: usize,
    /// Garbling (bgw3, bgw2, bgw2-mal): optimizations on, as a comma list of reduced
    /// (PRF values never Shamir-shared), short (t + 1 key contributors),
    /// prgzero (PRG zero sharing), hypercube (log n last round), or all /
    /// none. Every party must use the same list.
    #[arg(long, default_value = "reduced,short,prgzero", value_name = "LIST")]
    opt: String,
    /// bgw2-mal: linear preprocessing by prss (pseudo-random secret sharing
    /// from a one-time key setup, small n), dealer (a trusted dealer inside
    /// this process: `huddle local` only), or auto (prss while C(n, t) <= 1024).
    #[arg(long, default_value = "auto", value_name = "SOURCE")]
    linear: String,
    /// Only this party learns the outputs (default: every party).
    #[arg(long, value_name = "PARTY")]
    reveal_to: Option<usize>,
    #[arg(long, value_enum, default_value_t = TransportArg::Memory)]
    transport: TransportArg,
    /// Emulated network: lan, wan, aws3, hetero4 or a profile .toml.
    #[arg(long, default_value = "lan")]
    net: String,
    /// Compare every instance with the plaintext evaluator; exit non-zero on any difference.
    #[arg(long)]
    check: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Run one party of a computation across machines (TLS unless --insecure).
#[derive(Args)]
pub struct PartyArgs {
    /// The parties file (see `huddle certs`).
    #[arg(long)]
    config: PathBuf,
    /// This party's id.
    #[arg(long)]
    id: usize,
    #[arg(long, default_value = "ttp")]
    protocol: String,
    #[arg(long, value_enum, default_value_t = PreprocessArg::Interleaved)]
    preprocess: PreprocessArg,
    #[arg(long)]
    circuit: PathBuf,
    /// Hex values of the input values this party owns, in order.
    #[arg(long = "input", value_name = "HEX")]
    inputs: Vec<String>,
    /// Plain TCP without TLS: no authentication, no encryption.
    #[arg(long)]
    insecure: bool,
    /// Seconds to wait for peers and for any message.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    #[arg(long, default_value = "lan")]
    net: String,
    /// Worker threads (every party of the run must use the same number).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// MiB of shares held at once (every party must use the same value).
    #[arg(long, default_value_t = 512, value_name = "MIB")]
    share_memory: usize,
    /// Garbling (bgw3, bgw2, bgw2-mal): optimizations on, as a comma list of reduced
    /// (PRF values never Shamir-shared), short (t + 1 key contributors),
    /// prgzero (PRG zero sharing), hypercube (log n last round), or all /
    /// none. Every party must use the same list.
    #[arg(long, default_value = "reduced,short,prgzero", value_name = "LIST")]
    opt: String,
    /// bgw2-mal: linear preprocessing by prss (pseudo-random secret sharing
    /// from a one-time key setup, small n), dealer (a trusted dealer inside
    /// this process: `huddle local` only), or auto (prss while C(n, t) <= 1024).
    #[arg(long, default_value = "auto", value_name = "SOURCE")]
    linear: String,
    /// Only this party learns the outputs (every party must name the same one).
    #[arg(long, value_name = "PARTY")]
    reveal_to: Option<usize>,
    /// bgw2-mal with the trusted dealer: this party's material, written by
    /// `huddle deal` (implies --linear dealer).
    #[arg(long, value_name = "FILE")]
    dealt: Option<PathBuf>,
    #[arg(long)]
    json: bool,
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
    #[arg(long, default_value = "reduced,short,prgzero", value_name = "LIST")]
    opt: String,
    /// Directory for party-<i>.dealt, one file per party.
    #[arg(long)]
    out: PathBuf,
}

/// `huddle deal`: the trusted dealer for bgw2-mal across hosts.
pub fn deal(args: DealArgs) -> Result<(), String> {
    let circuit = crate::circuit_cmd::load(&args.circuit, crate::circuit_cmd::FormatArg::Auto)?;
    let run_options = options(
        1,
        PreprocessArg::Interleaved,
        512,
        None,
        &args.opt,
        "dealer",
    )?;
    huddle_engine::check_request("bgw2-mal", args.parties, &circuit, run_options)
        .map_err(|e| e.to_string())?;
    let files = huddle_engine::garble::deal(&circuit, args.parties, 1, run_options)
        .map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    for (p, bytes) in files.iter().enumerate() {
        let path = args.out.join(format!("party-{p}.dealt"));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    eprintln!(
        "trusted dealer: wrote party-0.dealt .. party-{}.dealt in {} for bgw2-mal on {} with {} parties; \
         hand each file to its party only (over a private channel) and delete the directory",
        args.parties - 1,
        args.out.display(),
        args.circuit.display(),
        args.parties
    );
    Ok(())
}

/// Input value `index` for `instances` instances: instance 0 from `hex_value`, the rest random.
fn input_matrix(
    circuit: &Circuit,
    index: usize,
    hex_value: &str,
    instances: usize,
    prg: &mut Prg,
) -> Result<BitMatrix, String> {
    let bits = circuit.input_bits(index);
    let words = hex::decode(hex_value, bits).map_err(|e| format!("input value {index}: {e}"))?;
    let mut m = BitMatrix::zeros(instances, bits);
    m.row_mut(0).copy_from_slice(&words);
    for r in 1..instances {
        let row = m.row_mut(r);
        prg.fill_u64(row);
        if bits % 64 != 0 {
            let last = row.len() - 1;
            row[last] &= (1u64 << (bits % 64)) - 1;
        }
    }
    Ok(m)
}

/// Online rounds: the longest chain of dependent messages (see `huddle_net::Accounting::rounds`).
fn online_rounds(acc: &Accounting) -> u32 {
    acc.rounds(Phase::Online)
}

fn seconds_json(acc: &Accounting) -> Value {
    Value::Object(
        Phase::ALL
            .iter()
            .map(|p| (p.name().to_string(), json!(acc.seconds(*p))))
            .collect(),
    )
}

fn links_json(acc: &Accounting) -> Value {
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

pub fn local(args: LocalArgs) -> Result<(), String> {
    let circuit = crate::circuit_cmd::load(&args.circuit, crate::circuit_cmd::FormatArg::Auto)?;
    if args.parties < 2 || args.parties > 64 {
        return Err(format!("--parties must be 2 to 64, not {}", args.parties));
    }
    let run_options = options(
        args.threads,
        args.preprocess,
        args.share_memory,
        args.reveal_to,
        &args.opt,
        &args.linear,
    )?;
    huddle_engine::check_request(&args.protocol, args.parties, &circuit, run_options)
        .map_err(|e| e.to_string())?;
    if args.inputs.len() != circuit.inputs().len() {
        return Err(format!(
            "{} takes {} input values, but {} --input given",
            args.circuit.display(),
            circuit.inputs().len(),
            args.inputs.len()
        ));
    }
    if args.batch == 0 || args.batch > 1 << 26 {
        return Err(format!(
            "--batch must be 1 to {}, not {}",
            1 << 26,
            args.batch
        ));
    }
    let profile = NetProfile::named(&args.net).map_err(|e| e.to_string())?;
    // The inputs are held once here and once more by their owners.
    let input_bytes: u128 = (0..circuit.inputs().len())
        .map(|i| circuit.input_bits(i).div_ceil(64) as u128 * 8)
        .sum::<u128>()
        * args.batch as u128;
    huddle_engine::check_memory(
        &format!("{} instances of the inputs", args.batch),
        2 * input_bytes,
    )
    .map_err(|e| e.to_string())?;
    let mut prg = Prg::from_entropy().map_err(|e| format!("no entropy: {e}"))?;
    let all: Vec<BitMatrix> = (0..circuit.inputs().len())
        .map(|i| input_matrix(&circuit, i, &args.inputs[i], args.batch, &mut prg))
        .collect::<Result<_, _>>()?;
    let n = args.parties;
    let timeout = Duration::from_secs(120);
    let handshake = Handshake {
        session: "local".into(),
        protocol: huddle_engine::session_protocol(&args.protocol, run_options),
        circuit: circuit_hash(&circuit),
    };
    let nets: Vec<Network> = match args.transport {
        TransportArg::Memory => memory_networks(n, &profile, timeout),
        TransportArg::Tcp => {
            local_networks(n, false, handshake, profile, timeout).map_err(|e| e.to_string())?
        }
        TransportArg::Tls => {
            local_networks(n, true, handshake, profile, timeout).map_err(|e| e.to_string())?
        }
    };
    let start = Instant::now();
    let results = huddle_engine::run_local(&args.protocol, nets, &circuit, &all, run_options)?;
    let seconds = start.elapsed().as_secs_f64();
    let mut accounting = Accounting::default();
    for r in &results {
        accounting.merge(&r.accounting);
    }
    let outputs: Vec<Vec<BitMatrix>> = results.into_iter().map(|r| r.outputs).collect();
    if args.check {
        let want = PlainEvaluator::new(&circuit)
            .evaluate(&all)
            .map_err(|e| e.to_string())?;
        for (p, out) in outputs.iter().enumerate() {
            let learns = args.reveal_to.is_none_or(|t| t == p);
            if (learns && out != &want) || (!learns && !out.is_empty()) {
                return Err(format!(
                    "--check: party {p}'s outputs differ from the plaintext evaluator"
                ));
            }
        }
    }
    let hex_out: Vec<String> = outputs[args.reveal_to.unwrap_or(0).min(n - 1)]
        .iter()
        .enumerate()
        .map(|(o, m)| hex::encode(m.row(0), circuit.output_bits(o)))
        .collect();
    // bgw2-mal: say where the linear preprocessing came from.
    let linear =
        huddle_engine::linear_preprocessing(&args.protocol, n, run_options).map(|c| match c {
            huddle_engine::garble::linear::LinearChoice::TrustedDealer => {
                "trusted dealer (in this process, not one of the parties)"
            }
            _ => "prss (pseudo-random secret sharing from a one-time key setup)",
        });
    if args.json {
        let report = json!({
            "outputs": hex_out, "protocol": args.protocol, "parties": n, "batch": args.batch,
            "linear_preprocessing": linear,
            "online_rounds": online_rounds(&accounting),
            "bytes": links_json(&accounting), "seconds": seconds_json(&accounting),
            "wall_seconds": seconds,
            "gates_per_second": (circuit.gates().len() * args.batch) as f64 / seconds,
            "checked": args.check,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        for h in &hex_out {
            println!("{h}");
        }
        eprintln!(
            "{} parties, protocol {}, {} instance(s), {:.3} ms, {} online rounds{}",
            n,
            args.protocol,
            args.batch,
            seconds * 1e3,
            online_rounds(&accounting),
            if args.check {
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

pub fn party(args: PartyArgs) -> Result<(), String> {
    let config = NetworkConfig::from_file(&args.config).map_err(|e| e.to_string())?;
    let run_options = options(
        args.threads,
        args.preprocess,
        args.share_memory,
        args.reveal_to,
        &args.opt,
        if args.dealt.is_some() {
            "dealer"
        } else {
            &args.linear
        },
    )?;
    let circuit = crate::circuit_cmd::load(&args.circuit, crate::circuit_cmd::FormatArg::Auto)?;
    huddle_engine::check_request(&args.protocol, config.parties(), &circuit, run_options)
        .map_err(|e| e.to_string())?;
    let dealt = match &args.dealt {
        Some(path) => {
            Some(std::fs::read(path).map_err(|e| format!("--dealt {}: {e}", path.display()))?)
        }
        None => None,
    };
    let n = config.parties();
    // Across hosts the dealer's material comes from `huddle deal`; without
    // it, only PRSS.
    let dealer = Some(huddle_engine::garble::linear::LinearChoice::TrustedDealer);
    if args.dealt.is_none()
        && huddle_engine::linear_preprocessing(&args.protocol, n, run_options) == dealer
    {
        let t = huddle_engine::garble::Variant::Bgw2Mal.threshold(n);
        return Err(format!(
            "bgw2-mal across hosts takes its preprocessing from PRSS, which {n} parties (C({n}, {t}) = {} key sets) exceed: run `huddle deal` as the trusted dealer and give each party its file with --dealt",
            huddle_engine::garble::linear::binomial(n, t)
        ));
    }
    if args.id >= n {
        return Err(format!(
            "--id {} is not a party of {} (ids 0..{})",
            args.id,
            args.config.display(),
            n - 1
        ));
    }
    let owned: Vec<usize> = (0..circuit.inputs().len())
        .filter(|&i| circuit.owner(i, n) == args.id)
        .collect();
    if args.inputs.len() != owned.len() {
        return Err(format!(
            "party {} owns input values {:?} of {}, so it takes {} --input, not {}",
            args.id,
            owned,
            args.circuit.display(),
            owned.len(),
            args.inputs.len()
        ));
    }
    let mut prg = Prg::from_seed([0; 16]);
    let own: Vec<(usize, BitMatrix)> = owned
        .iter()
        .zip(&args.inputs)
        .map(|(&i, h)| input_matrix(&circuit, i, h, 1, &mut prg).map(|m| (i, m)))
        .collect::<Result<_, _>>()?;
    let transport = crate::net_cmd::transport_for(&config, &args.config, args.id, args.insecure)?;
    let options = ConnectOptions {
        setup_timeout: Duration::from_secs(args.timeout),
        io_timeout: Duration::from_secs(args.timeout),
        profile: NetProfile::named(&args.net).map_err(|e| e.to_string())?,
        ..ConnectOptions::new(
            transport,
            Handshake {
                session: config.session.clone(),
                protocol: huddle_engine::session_protocol(&args.protocol, run_options),
                circuit: circuit_hash(&circuit),
            },
        )
    };
    let mut net = connect(&config, args.id, &options).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let supply = dealt.map(huddle_engine::garble::LinearSupply::Dealt);
    let out = huddle_engine::run_party(
        &args.protocol,
        &mut net,
        &circuit,
        1,
        &own,
        run_options,
        supply,
    )
    .map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let hex_out: Vec<String> = out
        .iter()
        .enumerate()
        .map(|(o, m)| hex::encode(m.row(0), circuit.output_bits(o)))
        .collect();
    if args.json {
        let report = json!({"outputs": hex_out, "protocol": args.protocol, "party": args.id, "parties": n,
            "online_rounds": online_rounds(net.accounting()),
            "bytes": links_json(net.accounting()), "seconds": seconds_json(net.accounting()),
            "wall_seconds": seconds});
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        for h in &hex_out {
            println!("{h}");
        }
    }
    Ok(())
}
