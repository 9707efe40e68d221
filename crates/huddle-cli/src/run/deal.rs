//! `huddle deal`: the trusted dealer of a bgw2-mal run across hosts, which
//! writes each party's linear-preprocessing material to its own file.

use super::args::check_batch;
use crate::failure::Failure;
use clap::Args;
use huddle_engine::{Protocol, RunOptions};
use std::path::{Path, PathBuf};

/// Act as the trusted dealer of a bgw2-mal run across hosts: write each
/// party's linear-preprocessing material to its own file.
// The doc comments of clap's arguments are --help text, printed as
// written (`party<I>.pem`), not rustdoc.
#[allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]
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
    let garble = huddle_engine::garble::Optimizations::parse(&args.opt)
        .map_err(|e| Failure::input(format!("--opt: {e}")))?;
    let run_options = RunOptions::for_protocol(Protocol::Bgw2Mal)
        .with_garble(garble)
        .with_linear(huddle_engine::garble::linear::LinearChoice::TrustedDealer);
    let run = huddle_engine::Run::builder(Protocol::Bgw2Mal)
        .parties(args.parties)
        .circuit(circuit)
        .options(run_options)
        .build()?;
    check_batch(args.batch).map_err(Failure::input)?;
    let files = huddle_engine::garble::deal(run.circuit(), args.parties, args.batch, run_options)?;
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
