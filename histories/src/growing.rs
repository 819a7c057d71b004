//! A history file another process is still writing, one operation a line (JSON Lines or EDN): the
//! bytes read so far, of which the complete lines are a history prefix and the rest a line still being
//! written. This module owns that split; reading the file as it grows is the caller's, checking the
//! prefix the checker's.

use crate::error::HistoryError;
use crate::{Format, History, parse_bytes};

/// The bytes of a growing history read so far.
#[derive(Debug, Clone, Default)]
pub struct Growing {
    bytes: Vec<u8>,
    /// The length of the complete lines: up to and including the last newline.
    complete: usize,
}

impl Growing {
    /// Nothing read yet.
    pub fn new() -> Growing {
        Growing::default()
    }

    /// Adds bytes read from the end of the file; returns whether a line was completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> bool {
        self.bytes.extend_from_slice(bytes);
        let before = self.complete;
        if let Some(last) = bytes.iter().rposition(|&b| b == b'\n') {
            self.complete = self.bytes.len() - bytes.len() + last + 1;
        }
        self.complete > before
    }

    /// How many bytes have been read.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether nothing has been read.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// How many bytes the complete lines hold.
    pub fn complete_len(&self) -> usize {
        self.complete
    }

    /// The complete lines' bytes.
    pub fn complete(&self) -> &[u8] {
        &self.bytes[..self.complete]
    }

    /// The complete lines as a history: a prefix of the finished one, the line being written left out.
    pub fn prefix(&self, format: Format, file: &str) -> Result<History, HistoryError> {
        parse_bytes(&self.bytes[..self.complete], format, file)
    }

    /// Everything read as a history, the last line too: the history once the writer is done.
    pub fn finished(&self, format: Format, file: &str) -> Result<History, HistoryError> {
        parse_bytes(&self.bytes, format, file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INVOKE: &str = r#"{"type":"invoke","process":0,"value":[["append","x",1]]}"#;
    const OK: &str = r#"{"type":"ok","process":0,"value":[["append","x",1]]}"#;

    #[test]
    fn a_line_being_written_is_left_out_of_the_prefix_until_its_newline() {
        let mut growing = Growing::new();
        let text = format!("{INVOKE}\n{OK}");
        let (first, rest) = text.split_at(30);
        assert!(!growing.push(first.as_bytes()));
        assert_eq!(growing.prefix(Format::JsonLines, "h.jsonl").map(|h| h.len()).ok(), Some(0));
        assert!(growing.push(rest.as_bytes()));
        assert_eq!(growing.complete_len(), INVOKE.len() + 1);
        let prefix = growing.prefix(Format::JsonLines, "h.jsonl").map(|h| h.len()).ok();
        assert_eq!(prefix, Some(1));
        let finished = growing.finished(Format::JsonLines, "h.jsonl").map(|h| h.len()).ok();
        assert_eq!(finished, Some(2));
        assert!(!growing.push(b""));
        assert!(growing.push(b"\n"));
        assert_eq!(growing.complete_len(), growing.len());
    }
}
