//! What is known of each appended (or observed) element of one key: who appended it, where the version
//! order puts it, and whether its writer appended to the key again afterwards. Generated workloads
//! append 1, 2, 3, ... per key, so the elements are kept in an [`IntTable`], a plain vector while the
//! values stay dense.

use crate::graph::TxnId;
use crate::int_table::{IntTable, Slot};

/// No transaction.
pub(super) const NO_TXN: TxnId = TxnId::MAX;
/// Not in the version order.
pub(super) const UNORDERED: u32 = u32::MAX;

/// What one element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Elem {
    /// The transaction that appended it, of any outcome; `NO_TXN` if none did.
    pub writer: TxnId,
    /// Its position in its key's version order; `UNORDERED` if no read showed it there.
    pub position: u32,
    /// Whether its writer appended to the same key again afterwards.
    pub intermediate: bool,
    known: bool,
}

impl Elem {
    pub(super) const NEW: Elem = Elem { writer: NO_TXN, position: UNORDERED, intermediate: false, known: true };
}

/// One key's elements, by value.
pub(super) type ElemMap = IntTable<Elem>;

impl Slot for Elem {
    const ABSENT: Elem = Elem { writer: NO_TXN, position: UNORDERED, intermediate: false, known: false };

    fn is_absent(&self) -> bool {
        !self.known
    }
}
