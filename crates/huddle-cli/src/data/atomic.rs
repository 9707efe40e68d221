//! Output files that exist whole or not at all. A file is written to a
//! temporary in the target's folder (a hidden name, owner-only unless it
//! replaces a file, whose mode it takes), flushed and synced, then renamed
//! over the target, so a reader never sees a half-written file under the
//! target's name: a failed write, a crash or a signal leaves the target as
//! it was (absent, or the old file whole). The temporary is removed on
//! failure, and by the signal handler ([`abandon_pending`]), which also
//! stops any rename still to come; only SIGKILL can leave one behind (under
//! its hidden name).
//!
//! A target that is not a regular file (`/dev/null`, a pipe) is written
//! straight through: it cannot be replaced, and holds nothing half-written.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The temporaries being written, and whether a signal has abandoned them
/// (then no rename may follow).
#[derive(Default)]
pub(super) struct Pending {
    temps: Vec<PathBuf>,
    abandoned: bool,
}

/// Every temporary of this process.
pub(super) static PENDING: Mutex<Pending> = Mutex::new(Pending {
    temps: Vec::new(),
    abandoned: false,
});

/// Removes every temporary being written and refuses their renames: the
/// process is about to end on a signal, and its output files stay as they
/// were. Their writers then fail with [`io::ErrorKind::Interrupted`].
pub fn abandon_pending() {
    abandon(&PENDING);
}

pub(super) fn abandon(pending: &Mutex<Pending>) {
    let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
    p.abandoned = true;
    for temp in p.temps.drain(..) {
        let _ = std::fs::remove_file(temp);
    }
}

/// Writes `target` whole through `write`, or leaves it as it was.
pub fn write_whole(
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_registered(&PENDING, target, write)
}

pub(super) fn write_registered(
    pending: &Mutex<Pending>,
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    // A symbolic link is followed: the file it names is replaced.
    let target = match std::fs::symlink_metadata(target) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(target)?,
        _ => target.to_path_buf(),
    };
    let existing = match std::fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let mut out = std::fs::OpenOptions::new().write(true).open(&target)?;
        write(&mut out)?;
        return out.flush();
    }
    let (file, temp) = create_temp(pending, &target)?;
    let written = fill(file, existing.as_ref(), write)
        .and_then(|()| commit(pending, &temp, &target))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&temp);
        });
    forget(pending, &temp);
    written?;
    sync_folder(&target);
    Ok(())
}

/// A new temporary beside `target`, owner-only, registered in `pending`.
fn create_temp(pending: &Mutex<Pending>, target: &Path) -> io::Result<(File, PathBuf)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
    if p.abandoned {
        return Err(interrupted());
    }
    loop {
        let temp = folder.join(format!(
            ".{}.huddle-{}-{}.part",
            name.to_string_lossy(),
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let mut open = std::fs::OpenOptions::new();
        open.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
        match open.open(&temp) {
            Ok(file) => {
                p.temps.push(temp.clone());
                return Ok((file, temp));
            }
            // Left by a killed process that had this one's id.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Writes, flushes and syncs the temporary; a replaced file's mode is kept.
fn fill(
    file: File,
    existing: Option<&std::fs::Metadata>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    if let Some(m) = existing {
        file.set_permissions(m.permissions())?;
    }
    let mut out = io::BufWriter::with_capacity(1 << 16, file);
    write(&mut out)?;
    let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.sync_all()
}

/// Renames the temporary over the target, unless a signal abandoned it.
fn commit(pending: &Mutex<Pending>, temp: &Path, target: &Path) -> io::Result<()> {
    let p = pending.lock().unwrap_or_else(|e| e.into_inner());
    if p.abandoned {
        return Err(interrupted());
    }
    std::fs::rename(temp, target)
}

fn forget(pending: &Mutex<Pending>, temp: &Path) {
    let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
    p.temps.retain(|t| t != temp);
}

fn interrupted() -> io::Error {
    io::Error::new(
        io::ErrorKind::Interrupted,
        "interrupted by a signal before the file was complete; it was left as it was",
    )
}

/// Makes the rename durable (best effort: some file systems refuse to sync
/// a folder, and the file's own contents are synced already).
fn sync_folder(target: &Path) {
    #[cfg(unix)]
    if let Some(folder) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        if let Ok(f) = File::open(folder) {
            let _ = f.sync_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> Mutex<Pending> {
        Mutex::new(Pending::default())
    }

    /// The folder's entries, sorted.
    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn half_then_fail(out: &mut dyn Write) -> io::Result<()> {
        out.write_all(&[b'x'; 100_000])?;
        Err(io::Error::other("the disk is full"))
    }

    #[test]
    fn a_writer_that_fails_midway_leaves_no_file_and_no_temporary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("out.csv");
        let e = write_registered(&fresh(), &target, half_then_fail).expect_err("fails");
        assert_eq!(e.to_string(), "the disk is full");
        assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    }

    #[test]
    fn an_existing_file_is_replaced_whole_or_left_as_it_was() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("out.csv");
        std::fs::write(&target, "old\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::Permissions::from_mode(0o640);
            std::fs::set_permissions(&target, mode).expect("chmod");
        }
        write_registered(&fresh(), &target, half_then_fail).expect_err("fails");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "old\n");
        assert_eq!(entries(dir.path()), ["out.csv"]);
        write_registered(&fresh(), &target, |out| out.write_all(b"new\n")).expect("writes");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new\n");
        assert_eq!(entries(dir.path()), ["out.csv"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&target)
                .expect("stat")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o640, "a replaced file keeps its mode");
        }
    }

    /// While the writer runs, the target's name shows nothing, and the
    /// temporary is owner-only.
    #[test]
    fn a_new_file_appears_only_when_complete_and_owner_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("out.csv");
        write_registered(&fresh(), &target, |out| {
            out.write_all(b"1,2\n")?;
            assert!(!target.exists(), "the target exists before it is complete");
            let temps = entries(dir.path());
            assert_eq!(temps.len(), 1);
            assert!(temps[0].starts_with(".out.csv.huddle-"), "{temps:?}");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let meta = std::fs::metadata(dir.path().join(&temps[0])).expect("stat");
                assert_eq!(meta.permissions().mode() & 0o777, 0o600);
            }
            Ok(())
        })
        .expect("writes");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "1,2\n");
        assert_eq!(entries(dir.path()), ["out.csv"]);
    }

    /// A signal in the middle of a write (the handler abandons every
    /// pending file): the temporary is gone, the rename never happens, the
    /// old file stays whole, and later writes are refused too.
    #[test]
    fn a_signal_midway_leaves_the_target_as_it_was() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pending = fresh();
        let (new, old) = (dir.path().join("new.csv"), dir.path().join("old.csv"));
        std::fs::write(&old, "old\n").expect("write");
        for target in [&new, &old] {
            let e = write_registered(&pending, target, |out| {
                out.write_all(&[b'y'; 100_000])?;
                abandon(&pending);
                out.write_all(b"\n")
            })
            .expect_err("abandoned");
            assert_eq!(e.kind(), io::ErrorKind::Interrupted);
        }
        assert!(!new.exists());
        assert_eq!(std::fs::read_to_string(&old).expect("read"), "old\n");
        assert_eq!(entries(dir.path()), ["old.csv"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_target_that_is_no_regular_file_is_written_through() {
        write_registered(&fresh(), Path::new("/dev/null"), |out| {
            out.write_all(b"gone\n")
        })
        .expect("writes to /dev/null");
    }
}
