//! Prints the `isocheck check` flags that ask for exactly what a model prohibits except its exact
//! decisions (the `no-<model>-order` anomalies), one `--anomaly NAME` pair a line: the same inference
//! and cycle search as `--model MODEL`, without the solver. `scripts/bench-exact` times the two side
//! by side.
//!
//! ```sh
//! cargo run -p checker --example inference_only_flags -- serializable
//! ```

use checker::Options;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = std::env::args().nth(1).ok_or("usage: inference_only_flags MODEL")?;
    let options = Options::new(&[model], &[])?;
    for anomaly in options.prohibited() {
        // Nothing but another exact decision implies an exact decision's anomaly, so the rest is a set
        // `--anomaly` reproduces exactly (each name brings the anomalies that imply it).
        if !(anomaly.starts_with("no-") && anomaly.ends_with("-order")) {
            println!("--anomaly\n{anomaly}");
        }
    }
    Ok(())
}
