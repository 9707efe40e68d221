//! The ledger of spent deals: which trusted-dealer material (`huddle party
//! --dealt`, bgw2-mal) this user has used. Replaying a deal would reuse
//! every wire mask and key, so each party may use a deal once.
//!
//! One ledger per user, wherever the dealt file lies (a copy of it is the
//! same deal): `$XDG_STATE_HOME/huddle/spent-deals/`, by default
//! `~/.local/state/huddle/spent-deals/`. Each use is one marker file named
//! by the deal id and the party, created exclusively: checking and marking
//! are one atomic step, so two runs started at once cannot both pass, and
//! parties sharing a ledger cannot spend each other's share of a deal. The
//! mark is written and synced to disk (with its folder's entry) before the
//! run touches the dealt material, so a crash cannot unmark a deal that was
//! used. Folders are created owner-only (0700), markers 0600.

use huddle_engine::error::{Refusal, RunError};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The ledger's folder under the state home.
const LEDGER: &str = "huddle/spent-deals";

/// Marks party `me`'s use of the deal in `dealt` (read from `path`) in this
/// user's ledger, refusing a second use ([`Refusal::Spent`]). Returns the
/// deal id for the hello (all parties must replay the same deal).
pub fn spend(path: &Path, dealt: &[u8], me: usize) -> Result<String, RunError> {
    let ledger = ledger_dir(|name| std::env::var_os(name)).map_err(RunError::Input)?;
    spend_in(&ledger, path, dealt, me)
}

/// The ledger's folder from the environment (`var` reads a variable):
/// `$XDG_STATE_HOME`, else `$HOME/.local/state`. The XDG base directory
/// specification takes only absolute paths; a relative one is ignored.
fn ledger_dir(var: impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, String> {
    let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let state = match (absolute("XDG_STATE_HOME"), absolute("HOME")) {
        (Some(state), _) => state,
        (None, Some(home)) => home.join(".local/state"),
        (None, None) => {
            return Err(format!(
                "--dealt: nowhere to record that the deal is spent (dealt material is one-time): \
                 neither XDG_STATE_HOME nor HOME is set to an absolute path; set one (the ledger is \
                 $XDG_STATE_HOME/{LEDGER}, by default ~/.local/state/{LEDGER})"
            ))
        }
    };
    Ok(state.join(LEDGER))
}

/// [`spend`] with the ledger in `ledger`.
fn spend_in(ledger: &Path, path: &Path, dealt: &[u8], me: usize) -> Result<String, RunError> {
    let deal = huddle_engine::garble::linear::deal_id(dealt)?;
    let id: String = deal.iter().map(|b| format!("{b:02x}")).collect();
    let in_ledger = |e: std::io::Error| {
        RunError::Input(format!(
            "the ledger of spent deals, {}: {e}",
            ledger.display()
        ))
    };
    create_private_dir(ledger).map_err(in_ledger)?;
    let marker = ledger.join(format!("{id}.party-{me}"));
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let mut file = match open.open(&marker) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(RunError::refused(
                Refusal::Spent { deal, party: me },
                format!(
                    "--dealt {}: deal {id} was used before (see {}); dealt material is one-time: run `huddle deal` again",
                    path.display(),
                    marker.display()
                ),
            ))
        }
        Err(e) => return Err(RunError::Input(format!("{}: {e}", marker.display()))),
    };
    // Durable before use: the marker's contents, then its folder's entries.
    let durable = writeln!(file, "deal {id}, party {me}, from {}", path.display())
        .and_then(|()| file.sync_all())
        .and_then(|()| sync_dir(ledger))
        .and_then(|()| ledger.parent().map_or(Ok(()), sync_dir));
    durable.map_err(|e| {
        RunError::Input(format!(
            "{}: {e}; the deal is marked as used but the mark may not be on disk: run `huddle deal` again",
            marker.display()
        ))
    })?;
    Ok(id)
}

/// Creates `dir` and any missing parents owner-only; an existing `dir` is
/// made owner-only too (it lists which deals this user spent).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        builder.mode(0o700);
        builder.create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    builder.create(dir)
}

/// Syncs a folder's entries to disk (where the system can).
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::fs::File::open(dir)?.sync_all();
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use huddle_engine::RunOptions;

    /// The dealt files of a 4-party deal.
    fn deal() -> Vec<Vec<u8>> {
        let text = "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n";
        let circuit = huddle_circuit::format::read_circuit(text.as_bytes()).expect("circuit");
        let options = RunOptions::default()
            .with_linear(huddle_engine::garble::linear::LinearChoice::TrustedDealer);
        huddle_engine::garble::deal(&circuit, 4, 1, options).expect("deal")
    }

    /// The party whose share of a deal `e` refuses as spent, if it does.
    fn spent_by(e: &RunError) -> Option<usize> {
        match e {
            RunError::Refused {
                refusal: Refusal::Spent { party, .. },
                ..
            } => Some(*party),
            _ => None,
        }
    }

    /// The ledger under a scratch state home (`XDG_STATE_HOME` as the CLI
    /// would read it; no test touches the real home).
    fn ledger_in(state: &Path) -> PathBuf {
        let state = state.as_os_str().to_owned();
        ledger_dir(|name| (name == "XDG_STATE_HOME").then(|| state.clone())).expect("ledger")
    }

    /// Dealt files of four parties in one folder, each spent by two runs
    /// started at once: exactly one run per party passes, whatever the
    /// interleaving, and every later run is refused.
    #[test]
    fn a_deal_is_spent_once_per_party_even_by_runs_started_together() {
        let files = deal();
        let state = tempfile::tempdir().expect("temp dir");
        let ledger = ledger_in(state.path());
        let dir = tempfile::tempdir().expect("temp dir");
        let paths: Vec<PathBuf> = (0..4)
            .map(|p| dir.path().join(format!("party-{p}.dealt")))
            .collect();
        let passed: Vec<bool> = std::thread::scope(|s| {
            let runs: Vec<_> = (0..8)
                .map(|r| {
                    let (path, bytes, ledger) = (&paths[r % 4], &files[r % 4], &ledger);
                    s.spawn(move || spend_in(ledger, path, bytes, r % 4).is_ok())
                })
                .collect();
            runs.into_iter()
                .map(|h| h.join().expect("no panic"))
                .collect()
        });
        for p in 0..4 {
            assert!(
                passed[p] ^ passed[p + 4],
                "party {p}: exactly one run may pass"
            );
            let again = spend_in(&ledger, &paths[p], &files[p], p).expect_err("spent");
            assert_eq!(spent_by(&again), Some(p), "{again}");
            assert!(again.to_string().contains("was used before"), "{again}");
        }
    }

    #[test]
    fn a_copied_dealt_file_in_another_folder_is_refused_as_spent() {
        let files = deal();
        let state = tempfile::tempdir().expect("temp dir");
        let ledger = ledger_in(state.path());
        let (a, b) = (
            tempfile::tempdir().expect("temp dir"),
            tempfile::tempdir().expect("temp dir"),
        );
        let (original, copy) = (a.path().join("party-1.dealt"), b.path().join("mine.dealt"));
        std::fs::write(&original, &files[1]).expect("write");
        std::fs::copy(&original, &copy).expect("copy");
        let id = spend_in(&ledger, &original, &files[1], 1).expect("first use");
        let again = spend_in(&ledger, &copy, &files[1], 1).expect_err("a copy is the same deal");
        assert_eq!(spent_by(&again), Some(1), "{again}");
        assert!(
            again
                .to_string()
                .contains(&format!("deal {id} was used before")),
            "{again}"
        );
        // Nothing is written beside either file; the mark is in the ledger.
        for folder in [a.path(), b.path()] {
            assert_eq!(std::fs::read_dir(folder).expect("folder").count(), 1);
        }
        let marker = std::fs::read_to_string(ledger.join(format!("{id}.party-1"))).expect("mark");
        assert!(marker.contains(&original.display().to_string()), "{marker}");
        // Another party's share of the same deal is its own to spend.
        spend_in(&ledger, &copy, &files[2], 2).expect("party 2's first use");
    }

    #[cfg(unix)]
    #[test]
    fn the_ledger_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let files = deal();
        let state = tempfile::tempdir().expect("temp dir");
        let ledger = ledger_in(state.path());
        let id = spend_in(&ledger, Path::new("party-0.dealt"), &files[0], 0).expect("spend");
        let mode = |p: &Path| std::fs::metadata(p).expect("exists").permissions().mode() & 0o777;
        assert_eq!(mode(&ledger), 0o700);
        assert_eq!(mode(ledger.parent().expect("huddle")), 0o700);
        assert_eq!(mode(&ledger.join(format!("{id}.party-0"))), 0o600);
    }

    #[test]
    fn the_ledger_is_in_the_state_home_or_else_the_home() {
        let vars = |state: Option<&str>, home: Option<&str>| {
            let (state, home) = (state.map(OsString::from), home.map(OsString::from));
            ledger_dir(move |name| match name {
                "XDG_STATE_HOME" => state.clone(),
                "HOME" => home.clone(),
                _ => None,
            })
        };
        let at = |p: &str| Ok(PathBuf::from(p));
        assert_eq!(vars(Some("/s"), Some("/h")), at("/s/huddle/spent-deals"));
        assert_eq!(
            vars(None, Some("/h")),
            at("/h/.local/state/huddle/spent-deals")
        );
        // A relative (or empty) XDG_STATE_HOME is not a state home.
        assert_eq!(
            vars(Some("s"), Some("/h")),
            at("/h/.local/state/huddle/spent-deals")
        );
        assert_eq!(
            vars(Some(""), Some("/h")),
            at("/h/.local/state/huddle/spent-deals")
        );
        for (state, home) in [(None, None), (Some(""), None), (Some("s"), Some("h"))] {
            let e = vars(state, home).expect_err("nowhere");
            assert!(e.contains("neither XDG_STATE_HOME nor HOME"), "{e}");
        }
    }
}
