//! A database's commit order given beside a history, in the shape adya's and Elle's `transaction-order`
//! take: a JSON object from a completion's `index` (a decimal string, as JSON keys are) to the
//! transaction's position in the database's commit order (an integer; larger is later), such as
//! `{"1": 0, "3": 1, "5": 2}`. This module reads that file, with located errors, and puts each position
//! on its completion ([`Op::commit_order`]), as if the history had recorded it; what the positions mean
//! to a check is the checker's business.

use std::collections::BTreeMap;

use crate::error::{HistoryError, Problem};
use crate::history::History;
use crate::op::{Op, OpType};
use crate::position::Position;

/// Positions in a database's commit order, by completion index, as a file gave them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionOrder {
    file: String,
    text: String,
    positions: BTreeMap<u64, i64>,
}

impl TransactionOrder {
    /// Reads the JSON object `text` (from `file`, for errors).
    pub fn parse(text: &str, file: &str) -> Result<TransactionOrder, HistoryError> {
        let located = |at: Position, problem: String| HistoryError::Malformed {
            file: file.to_string(),
            at,
            problem: Problem::Shape(problem),
        };
        let raw: BTreeMap<String, serde_json::Value> = serde_json::from_str(text).map_err(|e| {
            let message = e.to_string();
            let message = message.rfind(" at line ").map_or(message.clone(), |cut| message[..cut].to_string());
            located(
                Position::new(e.line().max(1) as u32, e.column().max(1) as u32),
                format!(
                    "{message}: expected a transaction order, a JSON object from completion index to position, \
                     such as {{\"1\": 0, \"3\": 1}}"
                ),
            )
        })?;
        let mut order = TransactionOrder { file: file.to_string(), text: text.to_string(), positions: BTreeMap::new() };
        for (key, value) in raw {
            let at = order.key_position(&key);
            let index = key.parse::<u64>().map_err(|_| {
                located(at, format!("{key:?} is not a completion index: expected a non-negative integer in a string"))
            })?;
            let position = value.as_i64().ok_or_else(|| {
                located(at, format!("the position of completion {index} is {value}: expected an integer"))
            })?;
            order.positions.insert(index, position);
        }
        Ok(order)
    }

    /// An order made rather than read: each `(completion index, position)` pair; `file` names it in
    /// errors.
    pub fn from_positions(positions: impl IntoIterator<Item = (u64, i64)>, file: &str) -> TransactionOrder {
        TransactionOrder { file: file.to_string(), text: String::new(), positions: positions.into_iter().collect() }
    }

    /// How many completions the order places.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the order places no completion.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The history with each placed completion carrying its position, replacing any the history
    /// recorded. Every index the order names must be a completion of a transaction in the history.
    pub fn apply(&self, history: &History) -> Result<History, HistoryError> {
        let mut ops: Vec<Op> = history.ops().to_vec();
        let at: BTreeMap<u64, usize> = ops.iter().enumerate().map(|(i, op)| (op.index, i)).collect();
        for (&index, &position) in &self.positions {
            let problem = match at.get(&index).map(|&i| &ops[i]) {
                None => Some(format!("the history has no operation with index {index}")),
                Some(op) if op.kind == OpType::Invoke => {
                    Some(format!("operation {index} is an invoke: a transaction order names completions (ok or info)"))
                }
                Some(op) if !op.is_client() => {
                    Some(format!("operation {index} is the nemesis's: a transaction order names transactions"))
                }
                Some(_) => None,
            };
            if let Some(problem) = problem {
                let key = index.to_string();
                return Err(HistoryError::Malformed {
                    file: self.file.clone(),
                    at: self.key_position(&key),
                    problem: Problem::Shape(problem),
                });
            }
            ops[at[&index]].set_commit_order(Some(position));
        }
        History::from_ops(ops).map_err(|(at, problem)| HistoryError::Malformed { file: self.file.clone(), at, problem })
    }

    /// Where `"key"` first stands as a member name in the file (its line and column), or the file's start.
    fn key_position(&self, key: &str) -> Position {
        let quoted = format!("\"{key}\"");
        let mut from = 0;
        while let Some(found) = self.text[from..].find(&quoted) {
            let start = from + found;
            let rest = self.text[start + quoted.len()..].trim_start();
            if rest.starts_with(':') {
                let before = &self.text[..start];
                let line = before.matches('\n').count() + 1;
                let column =
                    before.rfind('\n').map_or(before.chars().count(), |nl| before[nl + 1..].chars().count()) + 1;
                return Position::new(line as u32, column as u32);
            }
            from = start + quoted.len();
        }
        Position::new(1, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;

    fn history() -> History {
        let text = r#"{"index":0,"type":"invoke","process":0,"value":[["w",1,1]]}
{"index":1,"type":"ok","process":0,"value":[["w",1,1]]}
{"index":2,"type":"invoke","process":1,"value":[["w",1,2]]}
{"index":3,"type":"ok","process":1,"value":[["w",1,2]]}
"#;
        crate::parse(text, Format::JsonLines, "h.jsonl").unwrap()
    }

    #[test]
    fn an_order_puts_each_position_on_its_completion() {
        let order = TransactionOrder::parse("{\"1\": 5, \"3\": -2}", "order.json").unwrap();
        assert_eq!(order.len(), 2);
        let h = order.apply(&history()).unwrap();
        let positions: Vec<Option<i64>> = h.ops().iter().map(|op| op.commit_order()).collect();
        assert_eq!(positions, vec![None, Some(5), None, Some(-2)]);
    }

    #[test]
    fn a_bad_order_is_a_located_error_naming_the_file() {
        let message = |text: &str| match TransactionOrder::parse(text, "order.json").and_then(|o| o.apply(&history())) {
            Ok(_) => panic!("{text} must be refused"),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            message("{\"1\": 0,\n \"2\": 1}"),
            "order.json:2:2: operation 2 is an invoke: a transaction order names completions (ok or info)"
        );
        assert_eq!(message("{\"9\": 0}"), "order.json:1:2: the history has no operation with index 9");
        assert_eq!(
            message("{\"x\": 0}"),
            "order.json:1:2: \"x\" is not a completion index: expected a non-negative integer in a string"
        );
        assert_eq!(message("{\"1\": 0.5}"), "order.json:1:2: the position of completion 1 is 0.5: expected an integer");
        assert!(message("[1, 2]").starts_with("order.json:1:1: invalid type: sequence"), "{}", message("[1, 2]"));
    }
}
