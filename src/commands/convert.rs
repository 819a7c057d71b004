//! `isocheck convert FILE --to jsonl|json|edn`: read a history in any format and write it in another, so a
//! finding can be handed to Elle, elle-cli or adya as is. Reading and writing are the `histories` crate's;
//! this only chooses where.

use std::io::Write;

use anyhow::Context;

use crate::cli::ConvertArgs;
use crate::exit;

pub fn run(args: &ConvertArgs) -> anyhow::Result<u8> {
    let (history, source) = super::checking::read_history(&args.file)?;
    let format = args.to.format();
    match &args.out {
        Some(path) => {
            let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            histories::write_history(history.ops(), format, &mut out)
                .and_then(|()| out.flush())
                .with_context(|| format!("writing {}", path.display()))?;
            log::info!("wrote the {} operations of {source} to {}", history.len(), path.display());
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            histories::write_history(history.ops(), format, &mut out)?;
            out.flush()?;
        }
    }
    Ok(exit::VALID)
}
