//! The sentence that explains one rw-register dependency, in Elle's words: "T1 wrote x = 2, which was
//! read by T2" (`wr`); "T1 set key x to 1, and T2 set it to 2, which came later in the version order"
//! (`ww`); "T1 read key x = 1, and T2 set it to 2, which came later in the version order" (`rw`). Elle
//! leaves the version order unexplained (its source notes it should); here each `ww` and `rw` sentence
//! also says why one version came before the other. Each is found again from the indexes the edge came
//! from, so an explanation can never disagree with the graph.

use histories::Key;

use super::Index;
use crate::explain::DataExplainer;
use crate::graph::TxnId;
use crate::item::value_text;
use crate::kind::Kind;
use crate::txn::Txns;

/// Explains rw-register dependencies.
pub struct RwRegisterExplainer<'a, 'h> {
    index: &'a Index<'h>,
    txns: &'a Txns<'h>,
}

impl<'a, 'h> RwRegisterExplainer<'a, 'h> {
    /// An explainer over these indexes.
    pub fn new(index: &'a Index<'h>, txns: &'a Txns<'h>) -> Self {
        RwRegisterExplainer { index, txns }
    }
}

impl DataExplainer for RwRegisterExplainer<'_, '_> {
    fn explain(&self, from: TxnId, to: TxnId, kind: Kind) -> Option<(Option<Key>, String)> {
        let (index, txns) = (self.index, self.txns);
        let (a, b) = (txns.name(from), txns.name(to));
        match kind {
            Kind::Wr => index.externals(to).iter().find_map(|e| {
                let value = (*e.read.as_ref()?)?;
                let kv = &index.versions[e.key as usize];
                let v = kv.id(Some(value))?;
                let key = index.items.key(e.key);
                (kv.ext_writer[v as usize] == from)
                    .then(|| (Some(key.clone()), format!("{a} wrote {key} = {value}, which was read by {b}")))
            }),
            Kind::Ww | Kind::Rw => index.externals(to).iter().find_map(|later| {
                let written = later.write?;
                let earlier = index.externals(from).iter().find(|e| e.key == later.key)?;
                let seen = if kind == Kind::Ww { earlier.write? } else { earlier.read? };
                let kv = &index.versions[later.key as usize];
                let source = kv.edge(kv.id(seen)?, kv.id(written)?)?;
                let key = index.items.key(later.key);
                let first = if kind == Kind::Ww {
                    format!("{a} set key {key} to {}", value_text(seen))
                } else {
                    format!("{a} read key {key} = {}", value_text(seen))
                };
                Some((
                    Some(key.clone()),
                    format!(
                        "{first}, and {b} set it to {}, which came later in the version order ({})",
                        value_text(written),
                        source.reason(txns, key)
                    ),
                ))
            }),
            _ => None,
        }
    }
}
