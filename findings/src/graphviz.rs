//! Graphviz, when it is installed and asked for (`--graphviz`): `dot -Tsvg` lays out a cycle's DOT file
//! instead of the in-process ring layout. Nothing here is needed for a report; a missing or failing
//! `dot` falls back to the in-process picture, with a warning in the log.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A Graphviz `dot` program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graphviz {
    program: PathBuf,
}

impl Graphviz {
    /// `dot` from `PATH`, if it runs.
    pub fn find() -> Option<Graphviz> {
        Graphviz::at("dot").works().then(|| Graphviz::at("dot"))
    }

    /// The `dot` program at `program` (a path, or a name to look up on `PATH`).
    pub fn at(program: impl Into<PathBuf>) -> Graphviz {
        Graphviz { program: program.into() }
    }

    fn works(&self) -> bool {
        Command::new(&self.program)
            .arg("-V")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The SVG Graphviz draws for `dot` (a DOT graph).
    pub fn svg(&self, dot: &str) -> io::Result<String> {
        let mut child = Command::new(&self.program)
            .arg("-Tsvg")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let mut stdin = child.stdin.take().ok_or_else(|| io::Error::other("dot's standard input"))?;
        let input = dot.to_string();
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let output = child.wait_with_output()?;
        writer.join().map_err(|_| io::Error::other("writing to dot panicked"))??;
        if !output.status.success() {
            return Err(io::Error::other(format!(
                "{} -Tsvg failed ({}): {}",
                self.program.display(),
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        String::from_utf8(output.stdout).map_err(|e| io::Error::other(format!("dot wrote invalid UTF-8: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn dot_reads_the_graph_on_stdin_and_its_svg_is_returned() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("dot");
        std::fs::write(&fake, "#!/bin/sh\n[ \"$1\" = -V ] && exit 0\nprintf '<svg>'; cat; printf '</svg>'\n").unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let graphviz = Graphviz::at(&fake);
        assert!(graphviz.works());
        assert_eq!(graphviz.svg("digraph {}").unwrap(), "<svg>digraph {}</svg>");
        assert!(!Graphviz::at(dir.path().join("missing")).works());
    }
}
