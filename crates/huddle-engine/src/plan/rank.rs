//! Candidates in the order of what the user wants least of ([`rank`]),
//! and why the first is first ([`why_first`]).

use super::{Candidate, Objective};
use std::cmp::Ordering;

/// Sorts `candidates` best first by `objective`; ties go to fewer online
/// rounds, then fewer bytes, then the earlier candidate (the protocol
/// table's order), so that every host ranks alike.
pub fn rank(candidates: &mut [Candidate], objective: Objective) {
    candidates.sort_by(|a, b| compare(a, b, objective));
}

fn compare(a: &Candidate, b: &Candidate, objective: Objective) -> Ordering {
    let rounds_then_bytes = |a: &Candidate, b: &Candidate| {
        (a.online_rounds(), a.bytes()).cmp(&(b.online_rounds(), b.bytes()))
    };
    match objective {
        Objective::Bytes => a
            .bytes()
            .cmp(&b.bytes())
            .then_with(|| a.online_rounds().cmp(&b.online_rounds())),
        Objective::Online => (a.online_rounds(), a.online_bytes(), a.bytes()).cmp(&(
            b.online_rounds(),
            b.online_bytes(),
            b.bytes(),
        )),
        Objective::Total => rounds_then_bytes(a, b),
    }
}

/// Why the first of `ranked` (ranked by `objective`) wins, in a line or
/// two: what it has least of, and by how much against the best choice of
/// another protocol. None for an empty ranking.
pub fn why_first(ranked: &[Candidate], objective: Objective) -> Option<String> {
    let first = ranked.first()?;
    let p = first.choice.protocol;
    let runner_up = ranked.iter().find(|c| c.choice.protocol != p);
    let mut text = match objective {
        Objective::Bytes => format!(
            "{p} sends the fewest bytes: {} over every link",
            bytes(first.bytes())
        ),
        Objective::Online | Objective::Total => format!(
            "{p} needs the fewest online rounds ({}), {} over every link",
            first.online_rounds(),
            bytes(first.bytes())
        ),
    };
    if let Some(next) = runner_up {
        let q = next.choice.protocol;
        text.push_str(&match objective {
            Objective::Bytes => format!(
                "; the next protocol, {q}, sends {} ({})",
                bytes(next.bytes()),
                ratio(next.bytes() as f64, first.bytes() as f64)
            ),
            Objective::Online | Objective::Total => format!(
                "; the next protocol, {q}, needs {} rounds and {}",
                next.online_rounds(),
                bytes(next.bytes())
            ),
        });
    }
    Some(text)
}

/// `x` against `base` as "2.5x as many", or "as many".
fn ratio(x: f64, base: f64) -> String {
    if base <= 0.0 || x <= base {
        "as many".into()
    } else {
        format!("{:.2}x as many", x / base)
    }
}

/// Bytes with a unit: B, kB, MB, GB (powers of 1000).
pub(crate) fn bytes(n: u64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}
