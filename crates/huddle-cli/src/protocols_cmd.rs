//! `huddle protocols`: what this build runs, from the engine's protocol table.

use crate::failure::Failure;
use crate::stdout::listing;
use clap::Args;
use huddle_engine::protocol::{PartyRule, Protocol};
use serde_json::json;

#[derive(Args)]
pub struct ProtocolsArgs {
    /// Print JSON (one object per protocol) instead of a table.
    #[arg(long)]
    json: bool,
}

fn parties(rule: PartyRule) -> String {
    match rule {
        PartyRule::Exactly(k) => k.to_string(),
        PartyRule::AtLeast(k) => format!("{k}+"),
    }
}

pub fn run(args: ProtocolsArgs) -> Result<(), Failure> {
    let table = Protocol::ALL.map(|p| p.descriptor());
    if args.json {
        let rows: Vec<_> = table
            .iter()
            .map(|d| {
                json!({
                    "name": d.name, "parties": parties(d.parties),
                    "security": d.security.label(), "rings": d.rings,
                    "max_fan_in": d.max_fan_in, "preprocessing": d.preprocessing,
                    "separate_preprocessing": d.separate_preprocessing,
                    "conversions": d.conversions, "fused_truncation": d.fused_truncation,
                    "dealer": d.dealer, "summary": d.summary,
                })
            })
            .collect();
        let text =
            serde_json::to_string_pretty(&rows).map_err(|e| Failure::internal(e.to_string()))?;
        return listing(text);
    }
    listing(format!(
        "{:<11} {:<8} {:<27} {:<6} summary",
        "protocol", "parties", "security", "rings"
    ))?;
    for d in table {
        listing(format!(
            "{:<11} {:<8} {:<27} {:<6} {}",
            d.name,
            parties(d.parties),
            d.security.label(),
            if d.rings { "yes" } else { "no" },
            d.summary
        ))?;
    }
    Ok(())
}
