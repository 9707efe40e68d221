//! The time model from a program: measures this host's rates, or predicts
//! a local run's time (`huddle local` with the same options measures it).
//!
//! ```text
//! cargo run --release -p huddle-engine --example time_model -- calibrate > rates.toml
//! cargo run --release -p huddle-engine --example time_model -- \
//!     predict PROTOCOL CIRCUIT NET BATCH [RATES.toml]
//! ```
//!
//! `predict` prints the prediction as JSON: offline, online and total
//! seconds, rounds, bytes and the bound that dominates, with its one-line
//! explanation.

use huddle_circuit::{read_circuit_file, Format};
use huddle_engine::{LocalNet, Rates, Run};
use huddle_net::NetProfile;
use std::error::Error;
use std::path::Path;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("calibrate") => {
            print!("{}", Rates::calibrate()?.to_toml());
            Ok(())
        }
        Some("predict") if args.len() >= 5 => {
            let circuit = read_circuit_file(Path::new(&args[2]), Format::Auto)?;
            let run = Run::builder(args[1].parse()?).circuit(circuit).build()?;
            let net = LocalNet::memory().with_profile(NetProfile::named(&args[3])?);
            let rates = match args.get(5) {
                Some(path) => Rates::from_file(Path::new(path))?,
                None => Rates::default(),
            };
            let p = run.predict_local(args[4].parse()?, &net, &rates)?;
            let mut json = serde_json::to_value(&p)?;
            json["why"] = p.why().into();
            println!("{json}");
            Ok(())
        }
        _ => Err("usage: time_model calibrate | predict PROTOCOL CIRCUIT NET BATCH [RATES]".into()),
    }
}
