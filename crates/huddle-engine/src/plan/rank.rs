//! Candidates in the order of what the user wants least of ([`rank`]),
//! and why the first is first ([`why_first`]).

use super::{Candidate, Objective};
use std::cmp::Ordering;

/// Sorts `candidates` best first by `objective`: total seconds (then
/// online seconds), online seconds (then total), or bytes (then online
/// rounds, then total seconds); remaining ties go to fewer bytes, then the
/// earlier candidate (the protocol table's order), so that every host
/// ranks alike.
pub fn rank(candidates: &mut [Candidate], objective: Objective) {
    candidates.sort_by(|a, b| compare(a, b, objective));
}

fn compare(a: &Candidate, b: &Candidate, objective: Objective) -> Ordering {
    let (p, q) = (&a.prediction, &b.prediction);
    let total = || p.total_seconds.total_cmp(&q.total_seconds);
    let online = || p.online_seconds.total_cmp(&q.online_seconds);
    let bytes = || a.bytes().cmp(&b.bytes());
    match objective {
        Objective::Total => total().then_with(online).then_with(bytes),
        Objective::Online => online().then_with(total).then_with(bytes),
        Objective::Bytes => bytes()
            .then_with(|| a.online_rounds().cmp(&b.online_rounds()))
            .then_with(total),
    }
}

/// Why the first of `ranked` (ranked by `objective`) wins, in a line or
/// two: what it has least of, what bounds it (`latency-bound: 22 rounds x
/// 50 ms`), and by how much it beats the best choice of another protocol.
/// None for an empty ranking.
pub fn why_first(ranked: &[Candidate], objective: Objective) -> Option<String> {
    let first = ranked.first()?;
    let p = first.choice.protocol;
    let f = &first.prediction;
    let runner_up = ranked.iter().find(|c| c.choice.protocol != p);
    let mut text = match objective {
        Objective::Total => format!(
            "{p} is fastest: {} in all ({} offline, {} online); its online phase is {}",
            seconds(f.total_seconds),
            seconds(f.offline_seconds),
            seconds(f.online_seconds),
            f.bound
        ),
        Objective::Online => format!(
            "{p} has the fastest online phase: {}; it is {}",
            seconds(f.online_seconds),
            f.bound
        ),
        Objective::Bytes => format!(
            "{p} sends the fewest bytes: {} over every link, {} online rounds",
            bytes(first.bytes()),
            first.online_rounds()
        ),
    };
    if let Some(next) = runner_up {
        let q = next.choice.protocol;
        let n = &next.prediction;
        text.push_str(&match objective {
            Objective::Total => format!(
                "; the best of another protocol, {q}, takes {} ({}, {})",
                seconds(n.total_seconds),
                times(n.total_seconds, f.total_seconds),
                n.bound
            ),
            Objective::Online => format!(
                "; the best of another protocol, {q}, takes {} online ({}, {})",
                seconds(n.online_seconds),
                times(n.online_seconds, f.online_seconds),
                n.bound
            ),
            Objective::Bytes => format!(
                "; the best of another protocol, {q}, sends {} ({})",
                bytes(next.bytes()),
                times(next.bytes() as f64, first.bytes() as f64)
            ),
        });
    }
    Some(text)
}

/// `x` against `base`: "2.50x", or "as much" where it is not more.
fn times(x: f64, base: f64) -> String {
    if base <= 0.0 || x <= base {
        "as much".into()
    } else {
        format!("{:.2}x", x / base)
    }
}

/// Seconds to three significant digits, with a unit (s, ms, µs).
pub fn seconds(s: f64) -> String {
    let (v, unit) = if s >= 1.0 || s == 0.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else {
        (s * 1e6, "µs")
    };
    let decimals = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.decimals$} {unit}")
}

/// Bytes with a unit: B, kB, MB, GB, TB (powers of 1000).
pub fn bytes(n: u64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_read_as_written() {
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(1_234_567), "1.2 MB");
        assert_eq!(seconds(0.0123), "12.3 ms");
        assert_eq!(seconds(2.5), "2.50 s");
        assert_eq!(seconds(0.000_004), "4.00 µs");
        assert_eq!(times(3.0, 1.5), "2.00x");
        assert_eq!(times(1.0, 1.5), "as much");
    }
}
