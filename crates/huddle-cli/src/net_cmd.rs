//! `huddle certs` and `huddle net check`: setting up and testing the links
//! between real machines before running a computation over them.

use crate::failure::Failure;
use clap::Args;
use huddle_net::certs::DevPki;
use huddle_net::{
    connect, ConnectOptions, Handshake, LinkLimits, NetProfile, NetworkConfig, Phase, Transport,
};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Generate a development CA and one certificate per party, plus a parties.toml for localhost.
// The doc comments of clap's arguments are --help text, printed as
// written (`party<I>.pem`), not rustdoc.
#[allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]
#[derive(Args)]
pub struct CertsArgs {
    /// Number of parties.
    #[arg(long, required_unless_present = "own", default_value_t = 0)]
    parties: usize,
    /// Only this party's own key and self-signed certificate (no CA): each
    /// organisation runs this for its id, keeps party<I>.key, and hands
    /// party<I>.pem to the others, whose parties.toml (without [tls] ca)
    /// pins it. No one then holds a key that could sign for another party.
    #[arg(long, value_name = "I", conflicts_with_all = ["parties", "hosts", "base_port", "session"])]
    own: Option<usize>,
    /// Output folder (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// The port in the generated parties.toml: every party listens on
    /// PORT, except that parties sharing a host take PORT, PORT + 1, ... in
    /// id order (all of them without --hosts, a run on this machine).
    #[arg(long, default_value_t = 7000)]
    base_port: u16,
    /// Each party's host name or address, in party order, comma separated
    /// (default: 127.0.0.1 for all, a run on this machine).
    #[arg(long, value_delimiter = ',', value_name = "HOST,HOST,..")]
    hosts: Vec<String>,
    /// The session name in parties.toml: parties of different sessions
    /// refuse each other at connect.
    #[arg(long, default_value = "dev-session")]
    session: String,
    /// Write over keys, certificates and parties.toml that exist already
    /// (without it they are never written over: the other parties hold the
    /// old certificates, so a new key fails every handshake).
    #[arg(long)]
    force: bool,
}

fn existing(force: bool) -> huddle_net::certs::Existing {
    if force {
        huddle_net::certs::Existing::Replace
    } else {
        huddle_net::certs::Existing::Refuse
    }
}

/// A failed write of credentials into `out`: a refusal to write over a file
/// is bad input (it names the files itself); any other, a failed output.
fn written_error(out: &std::path::Path, e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        Failure::input(e.to_string())
    } else {
        Failure::output(format!("{}: {e}", out.display()))
    }
}

pub fn certs(args: CertsArgs) -> Result<(), Failure> {
    if let Some(id) = args.own {
        if id >= 1000 {
            return Err(Failure::input(format!(
                "--own {id}: party ids go up to 999"
            )));
        }
        let own = huddle_net::certs::self_signed(id)
            .map_err(|e| Failure::internal(format!("generating a certificate: {e}")))?;
        huddle_net::certs::write_own(&args.out, id, &own, existing(args.force))
            .map_err(|e| written_error(&args.out, e))?;
        crate::stdout::listing(format!(
            "wrote party{id}.pem (hand it to every other party) and party{id}.key (keep it on this machine only) to {}",
            args.out.display()
        ))?;
        return Ok(());
    }
    if !(2..=1000).contains(&args.parties) {
        return Err(Failure::input(format!(
            "--parties must be 2 to 1000, not {}",
            args.parties
        )));
    }
    if !args.hosts.is_empty() && args.hosts.len() != args.parties {
        return Err(Failure::input(format!(
            "--hosts names {} hosts for {} parties (one per party, in order)",
            args.hosts.len(),
            args.parties
        )));
    }
    let plain = |t: &str| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._:".contains(c))
    };
    if let Some(bad) = args.hosts.iter().find(|h| !plain(h)) {
        return Err(Failure::input(format!(
            "--hosts: `{bad}` is not a host name or address (letters, digits, - . _ :)"
        )));
    }
    if !plain(&args.session) || args.session.len() > 200 {
        return Err(Failure::input(format!(
            "--session: `{}` must be 1 to 200 letters, digits, - . _ :",
            args.session
        )));
    }
    if usize::from(args.base_port) + args.parties > 65536 || args.base_port == 0 {
        return Err(Failure::input(format!(
            "--base-port {}: ports {}..{} do not all exist",
            args.base_port,
            args.base_port,
            usize::from(args.base_port) + args.parties - 1
        )));
    }
    let pki = DevPki::generate(args.parties)
        .map_err(|e| Failure::internal(format!("generating certificates: {e}")))?;
    pki.write_for(
        &args.out,
        args.base_port,
        &args.hosts,
        &args.session,
        existing(args.force),
    )
    .map_err(|e| written_error(&args.out, e))?;
    crate::stdout::listing(format!(
        "wrote a CA, {} party certificates and parties.toml to {}",
        args.parties,
        args.out.display()
    ))?;
    crate::stdout::listing(
        "copy ca.pem, parties.toml and party<i>.pem/.key to party i's machine; keep ca.key offline",
    )?;
    Ok(())
}

/// Connect to every other party of a configuration and measure each link.
///
/// Run it on every machine (each with its own --id); it exchanges test
/// messages with every peer, checks their contents, and prints round-trip
/// time and throughput per peer.
#[derive(Args)]
pub struct CheckArgs {
    /// The parties file (see `huddle certs`).
    #[arg(long)]
    config: PathBuf,
    /// This machine's party id.
    #[arg(long)]
    id: usize,
    /// Use plain TCP without TLS (no authentication, no encryption).
    #[arg(long)]
    insecure: bool,
    /// Round trips to time.
    #[arg(long, default_value_t = 20)]
    rounds: usize,
    /// Bytes sent to every peer in the throughput round.
    #[arg(long, default_value_t = 16 << 20)]
    bytes: usize,
    /// Emulated network: lan, wan, aws3, hetero4 or a profile .toml.
    #[arg(long, default_value = "lan")]
    net: String,
    /// Seconds to wait for every peer to connect (afterwards a peer is
    /// given up once it has sent nothing at all for 10 s).
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Socket buffer per link and direction, in KiB.
    #[arg(long, default_value_t = 1024)]
    buffer_kib: usize,
}

pub fn check(args: CheckArgs) -> Result<(), Failure> {
    let config =
        NetworkConfig::from_file(&args.config).map_err(|e| Failure::input(e.to_string()))?;
    let n = config.parties();
    config.parties.get(args.id).ok_or_else(|| {
        Failure::input(format!(
            "--id {} is not a party of {} (ids 0..{})",
            args.id,
            args.config.display(),
            n - 1
        ))
    })?;
    let transport =
        transport_for(&config, &args.config, args.id, args.insecure).map_err(Failure::input)?;
    let profile = NetProfile::named(&args.net).map_err(|e| Failure::input(e.to_string()))?;
    let mut settings = huddle_net::Settings::new();
    settings.option("protocol", huddle_net::Value::Text("net-check".into()));
    let handshake = Handshake {
        session: config.session.clone(),
        settings,
        circuit: [0; 32],
    };
    let options = ConnectOptions {
        setup_timeout: Duration::from_secs(args.timeout),
        profile,
        limits: LinkLimits {
            buffer_bytes: args.buffer_kib.clamp(4, 1 << 20) << 10,
            ..LinkLimits::default()
        },
        ..ConnectOptions::new(transport, handshake)
    };
    let start = Instant::now();
    let mut net = connect(&config, args.id, &options)?;
    crate::stdout::listing(format!(
        "party {}: connected to {} peers in {:.1} ms ({})",
        args.id,
        n - 1,
        start.elapsed().as_secs_f64() * 1e3,
        if args.insecure {
            "TCP, insecure"
        } else {
            "TLS 1.3"
        }
    ))?;
    net.set_phase(Phase::Online);
    let me = args.id;
    let peers: Vec<usize> = (0..n).filter(|&p| p != me).collect();
    // Pairwise ping-pong, lower id pings: gives each link its own RTT.
    for &p in &peers {
        let t = Instant::now();
        for r in 0..args.rounds {
            let probe = vec![r as u8; 8];
            if me < p {
                net.send(p, probe.clone())?;
                check_content(net.recv(p, 8)?, &probe, p)?;
            } else {
                check_content(net.recv(p, 8)?, &probe, p)?;
                net.send(p, probe)?;
            }
        }
        if me < p {
            crate::stdout::listing(format!(
                "  link {me}<->{p}: round trip {:.3} ms",
                t.elapsed().as_secs_f64() * 1e3 / args.rounds.max(1) as f64
            ))?;
        }
    }
    // Everyone sends to everyone at once.
    let pattern = |from: usize, to: usize| -> Vec<u8> {
        (0..args.bytes)
            .map(|i| (i as u8) ^ (from as u8 * 16 + to as u8))
            .collect()
    };
    let t = Instant::now();
    let out = peers.iter().map(|&p| (p, pattern(me, p))).collect();
    let expect: Vec<(usize, usize)> = peers.iter().map(|&p| (p, args.bytes)).collect();
    let got = net.exchange(out, &expect)?;
    let secs = t.elapsed().as_secs_f64();
    for (&p, data) in peers.iter().zip(got) {
        check_content(data, &pattern(p, me), p)?;
    }
    crate::stdout::listing(format!(
        "  all-to-all {:.1} MB per link: {:.3} s, {:.1} MB/s received per link",
        args.bytes as f64 / 1e6,
        secs,
        args.bytes as f64 / secs / 1e6
    ))?;
    // A final round so nobody closes while a peer still reads.
    let done = peers.iter().map(|&p| (p, vec![1])).collect();
    net.exchange(done, &peers.iter().map(|&p| (p, 1)).collect::<Vec<_>>())?;
    for (phase, from, to, s) in net.accounting().iter() {
        crate::stdout::listing(format!(
            "  sent {from}->{to} ({phase}): {} bytes in {} messages over {} rounds",
            s.bytes, s.messages, s.rounds
        ))?;
    }
    crate::stdout::listing(format!("party {me}: all links OK"))?;
    Ok(())
}

fn check_content(got: Vec<u8>, want: &[u8], peer: usize) -> Result<(), Failure> {
    if got == want {
        Ok(())
    } else {
        Err(Failure::network(format!(
            "party {peer} sent corrupted test data"
        )))
    }
}

/// A party's key file is missing: say so, and where the folder holds other
/// parties' keys (`party<j>.key`), that this host has no key for party
/// `id` (a wrong `--id` is the usual cause).
fn missing_key(key: &std::path::Path, id: usize) -> String {
    let mut msg = format!("{}: no such file", key.display());
    let dir = key.parent().filter(|d| !d.as_os_str().is_empty());
    let others: Vec<usize> = std::fs::read_dir(dir.unwrap_or(std::path::Path::new(".")))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_prefix("party")?
                .strip_suffix(".key")?
                .parse()
                .ok()
        })
        .filter(|&j| j != id)
        .collect();
    match others.as_slice() {
        [] => {}
        [j] => msg.push_str(&format!(
            ": this host has no key for party {id}, only party {j}'s (is --id {j} meant?)"
        )),
        js => msg.push_str(&format!(
            ": this host has no key for party {id}, only for parties {js:?} (is --id one of them?)"
        )),
    }
    msg
}

/// The transport a configuration asks for: TLS with the CA or with every
/// party's certificate pinned, or plain TCP when `insecure`.
pub fn transport_for(
    config: &NetworkConfig,
    path: &std::path::Path,
    id: usize,
    insecure: bool,
) -> Result<Transport, String> {
    if insecure {
        return Ok(Transport::Tcp);
    }
    let own = config.parties.get(id).ok_or_else(|| {
        format!(
            "--id {id} is not a party of {} (ids 0..{})",
            path.display(),
            config.parties() - 1
        )
    })?;
    // A missing key file is named with the ids this host has keys for.
    if let (Some(_), Some(key)) = (&own.cert, own.key.as_ref().filter(|k| !k.exists())) {
        return Err(missing_key(key, id));
    }
    let name = path.display().to_string();
    huddle_engine::PartyLinks::tls_from_config(config, &name, id)
        .map(|links| links.transport)
        .map_err(|e| e.to_string())
}
