//! `huddle plan`'s table: one line per candidate, best first.

use super::json::{preprocess, About};
use huddle_engine::plan::rank::{bytes, seconds};
use huddle_engine::plan::Candidate;

const HEADER: [&str; 12] = [
    "#",
    "protocol",
    "fan-in",
    "roles",
    "preprocessing",
    "threads",
    "online rounds",
    "bytes",
    "offline",
    "online",
    "total",
    "bound (online)",
];

/// The plan's header line and the first `shown` rows of `rows`, columns
/// aligned, with a line saying how many more there are.
pub fn render(about: &About, rows: &[Candidate], shown: usize) -> String {
    let mut lines: Vec<[String; 12]> = vec![HEADER.map(String::from)];
    for (i, c) in rows.iter().take(shown).enumerate() {
        let ch = &c.choice;
        let p = &c.prediction;
        let mut protocol = ch.protocol.name().to_string();
        if let Some(l) = ch.linear {
            protocol.push_str(&format!(" ({})", l.name()));
        }
        let threads = if ch.split_roles {
            "split".to_string()
        } else {
            ch.threads.to_string()
        };
        let pre = if ch.protocol.descriptor().separate_preprocessing {
            preprocess(ch.preprocess)
        } else {
            "-"
        };
        lines.push([
            (i + 1).to_string(),
            protocol,
            ch.fan_in.to_string(),
            ch.roles_label(),
            pre.to_string(),
            threads,
            c.online_rounds().to_string(),
            bytes(c.bytes()),
            seconds(p.offline_seconds),
            seconds(p.online_seconds),
            seconds(p.total_seconds),
            p.why(),
        ]);
    }
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|col| {
            lines
                .iter()
                .map(|l| l[col].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = format!(
        "plan for {} on {}, batch {}, by {} ({} security{})\n",
        about.circuit,
        about.net,
        about.batch,
        about.objective.name(),
        about.req.guarantee.name(),
        if about.req.allow_dealer {
            ", a dealer allowed"
        } else {
            ""
        }
    );
    for line in &lines {
        let cells: Vec<String> = line
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(col, (cell, &w))| {
                // Numbers right-aligned, words left.
                if col == 0 || (6..=10).contains(&col) {
                    format!("{cell:>w$}")
                } else {
                    format!("{cell:<w$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    if rows.len() > shown {
        out.push_str(&format!(
            "... {} more (--top 0 lists every one)\n",
            rows.len() - shown
        ));
    }
    out.trim_end().to_string()
}
