//! The files a check leaves in `--out DIR`: `findings.json` (the whole result) and, under `cycles/`, one
//! DOT file per reported cycle, named after its class and number.

use std::io;
use std::path::{Path, PathBuf};

use checker::{Anomaly, CheckResult};

/// Writes the result's files into `dir` (created if missing); returns the paths written.
pub fn write_out_dir(dir: &Path, result: &CheckResult) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let json = dir.join("findings.json");
    std::fs::write(&json, crate::json(result))?;
    written.push(json);
    let cycles = dir.join("cycles");
    for (name, anomalies) in &result.anomalies {
        for (i, anomaly) in anomalies.iter().enumerate() {
            if let Anomaly::Cycle(cycle) = anomaly {
                std::fs::create_dir_all(&cycles)?;
                let path = cycles.join(format!("{name}-{}.dot", i + 1));
                std::fs::write(&path, crate::dot(name, i + 1, cycle))?;
                written.push(path);
            }
        }
    }
    Ok(written)
}
