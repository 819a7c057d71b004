//! The sentence that explains one list-append dependency, in Elle's words: "T2 appended 4 after T1
//! appended 3 to 5" (`ww`), "T2 observed T1's append of 3 to key 5" (`wr`), "T1 did not observe T2's
//! append of 4 to 5" (`rw`); two appends no read showed are ranked by the database's commit order
//! (see `unshown`). Each is found again from the indexes the edge came from, so an explanation
//! can never disagree with the graph.

use histories::{Key, Mop, Observed};

use super::{Index, Previous};
use crate::explain::DataExplainer;
use crate::graph::TxnId;
use crate::kind::Kind;
use crate::txn::Txns;

/// Explains list-append dependencies.
pub struct ListAppendExplainer<'a, 'h> {
    index: &'a Index<'h>,
    txns: &'a Txns<'h>,
}

impl<'a, 'h> ListAppendExplainer<'a, 'h> {
    /// An explainer over these indexes.
    pub fn new(index: &'a Index<'h>, txns: &'a Txns<'h>) -> Self {
        ListAppendExplainer { index, txns }
    }
}

impl DataExplainer for ListAppendExplainer<'_, '_> {
    fn explain(&self, from: TxnId, to: TxnId, kind: Kind) -> Option<(Option<Key>, String)> {
        let (index, txns) = (self.index, self.txns);
        let (a, b) = (txns.name(from), txns.name(to));
        txns.mops(to).iter().enumerate().find_map(|(i, mop)| {
            let k = index.key_of(to, i);
            match (kind, mop) {
                (Kind::Ww, Mop::Append { key, value }) => match index.previous(k, *value) {
                    Previous::Element(p) if index.possible_writer(txns, k, p) == Some(from) => {
                        Some((Some(key.clone()), format!("{b} appended {value} after {a} appended {p} to {key}")))
                    }
                    _ if index.unshown_after(k, to) == Some(from) => Some((
                        Some(key.clone()),
                        format!(
                            "{b} appended {value} to {key} after {a} appended to it: no read showed either append, \
                             and {}",
                            crate::commit_order::placed_before(txns, from, to)
                        ),
                    )),
                    _ => None,
                },
                (Kind::Wr, Mop::Read { key, value: Observed::List(list) }) => {
                    let last = *list.last()?;
                    (index.possible_writer(txns, k, last) == Some(from))
                        .then(|| (Some(key.clone()), format!("{b} observed {a}'s append of {last} to key {key}")))
                }
                (Kind::Rw, Mop::Append { key, value }) => {
                    let previous = index.previous(k, *value);
                    if !index.readers_of(k, previous).contains(&from) {
                        return None;
                    }
                    let text = match previous {
                        Previous::Initial => {
                            format!("{a} observed the initial (empty) state of {key}, which {b} created by appending {value}")
                        }
                        Previous::Element(_) => format!("{a} did not observe {b}'s append of {value} to {key}"),
                    };
                    Some((Some(key.clone()), text))
                }
                _ => None,
            }
        })
    }
}
