//! Positions in a history file: the line and column a reader reports with every error. This module owns
//! the arithmetic of turning byte offsets and nested parsers' relative positions into absolute ones.

use std::fmt;

/// A 1-based line and column in a file (columns count bytes, as serde_json does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl Position {
    /// A position from its parts.
    pub fn new(line: u32, column: u32) -> Position {
        Position { line, column }
    }

    /// The absolute position of `relative`, a position reported by a parser that started reading at
    /// `self`.
    pub fn then(self, relative: Position) -> Position {
        if relative.line <= 1 {
            Position::new(self.line, self.column + relative.column.saturating_sub(1))
        } else {
            Position::new(self.line + relative.line - 1, relative.column)
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Maps byte offsets in a text to positions, by binary search over line starts.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    pub(crate) fn position(&self, offset: usize) -> Position {
        let line = self.starts.partition_point(|&start| start <= offset).max(1);
        let column = offset - self.starts[line - 1] + 1;
        Position::new(line as u32, column as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines_and_columns() {
        let index = LineIndex::new("ab\ncd\n\nef");
        assert_eq!(index.position(0), Position::new(1, 1));
        assert_eq!(index.position(1), Position::new(1, 2));
        assert_eq!(index.position(3), Position::new(2, 1));
        assert_eq!(index.position(6), Position::new(3, 1));
        assert_eq!(index.position(8), Position::new(4, 2));
    }

    #[test]
    fn relative_positions_shift_by_their_origin() {
        let origin = Position::new(10, 5);
        assert_eq!(origin.then(Position::new(1, 3)), Position::new(10, 7));
        assert_eq!(origin.then(Position::new(3, 2)), Position::new(12, 2));
    }
}
