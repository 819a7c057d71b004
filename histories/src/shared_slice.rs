//! Immutable slices carved out of large shared blocks: a transaction's micro-ops ([`crate::OpValue::Txn`])
//! and a list read's elements ([`crate::Observed::List`]). A history of a million transactions holds
//! millions of both; as vectors each was a heap allocation of its own, which cost a tenth of reading
//! (the allocator's work and its per-block overhead). A reader instead moves them into blocks of tens of
//! thousands of items ([`BlockWriter`]), and each slice keeps its block alive by a reference count, so a
//! slice is as independent a value as a vector: cloned cheaply, compared, hashed, printed and serialised
//! as the items it holds, freed with the last slice of its block. This module owns that storage and its
//! one `unsafe` invariant; what the items mean is the modules' that define them.
//!
//! The invariant: a block's slots are written only by the one [`BlockWriter`] that made it, only past
//! every slice it has handed out, and each slot once; a slice only ever reads the slots it was handed,
//! which were written before it existed. So no slot is read and written at once, nor written twice.

use std::cell::UnsafeCell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::MaybeUninit;
use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many items a writer's block holds (a longer run of items gets a block of its own length). Small
/// under Miri, which checks each borrow of a block across all its slots, so that the tests, which cross
/// blocks, finish there (`cargo +nightly miri test -p histories --lib shared_slice`).
const BLOCK_ITEMS: usize = if cfg!(miri) { 64 } else { 1 << 16 };

/// Slots for items, the first `filled` of them written.
struct Block<T> {
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
    /// How many leading slots hold an item: raised by the block's writer after it writes them, read when
    /// the block is dropped.
    filled: AtomicUsize,
}

// SAFETY: a block is shared by its slices, which read their items from any thread (`T: Sync`) and whose
// last one drops them on any thread (`T: Send`); its writer writes only slots no slice covers (the
// module's invariant), so a shared block is never read and written in one place.
unsafe impl<T: Send + Sync> Sync for Block<T> {}

impl<T> Block<T> {
    /// A block with room for `capacity` items, none written.
    fn with_capacity(capacity: usize) -> Block<T> {
        let slots = std::iter::repeat_with(|| UnsafeCell::new(MaybeUninit::uninit())).take(capacity).collect();
        Block { slots, filled: AtomicUsize::new(0) }
    }

    /// A block holding `items`, all written.
    fn from_vec(items: Vec<T>) -> Block<T> {
        let filled = items.len();
        let slots: Box<[T]> = items.into_boxed_slice();
        // SAFETY: `UnsafeCell<MaybeUninit<T>>` has the layout of `T` (both are `repr(transparent)`), so a
        // boxed slice of `T` is one of those, every slot written, as `filled` says.
        let slots = unsafe { Box::from_raw(Box::into_raw(slots) as *mut [UnsafeCell<MaybeUninit<T>>]) };
        Block { slots, filled: AtomicUsize::new(filled) }
    }
}

impl<T> Drop for Block<T> {
    fn drop(&mut self) {
        let filled = *self.filled.get_mut();
        for slot in &mut self.slots[..filled] {
            // SAFETY: the first `filled` slots were written (each once), and nothing reads them any more:
            // the last slice of the block is gone.
            unsafe { slot.get_mut().assume_init_drop() };
        }
    }
}

/// An immutable run of items in a shared block; it dereferences to `[T]`. Equal, ordered and hashed as
/// its items are, whatever block holds them. It holds at most [`SharedSlice::MAX_LEN`] items, and takes
/// 16 bytes, so that a micro-op holding a list, and an operation holding micro-ops, are no larger than
/// they were with vectors (a vector's capacity leaves room for an enum's tag; this slice's optional
/// block pointer does not).
pub struct SharedSlice<T> {
    /// `None` for an empty slice, which needs no block.
    block: Option<Arc<Block<T>>>,
    start: u32,
    len: u32,
}

impl<T> SharedSlice<T> {
    /// The most items a slice holds (a history's micro-ops are counted in `u32` everywhere).
    pub const MAX_LEN: usize = u32::MAX as usize;

    /// The empty slice.
    pub const fn new() -> SharedSlice<T> {
        SharedSlice { block: None, start: 0, len: 0 }
    }

    /// The vector's items, in a block of their own (made from the vector's memory); the vector back when
    /// it holds more than [`SharedSlice::MAX_LEN`] items.
    pub fn try_from_vec(items: Vec<T>) -> Result<SharedSlice<T>, Vec<T>> {
        let Ok(len) = u32::try_from(items.len()) else {
            return Err(items);
        };
        if len == 0 {
            return Ok(SharedSlice::new());
        }
        Ok(SharedSlice { block: Some(Arc::new(Block::from_vec(items))), start: 0, len })
    }

    /// The items, as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match &self.block {
            // SAFETY: `start..start + len` are slots of the block written before this slice was made,
            // never written again (the module's invariant); `UnsafeCell<MaybeUninit<T>>` has `T`'s layout.
            Some(block) => unsafe {
                std::slice::from_raw_parts(block.slots.as_ptr().add(self.start as usize).cast::<T>(), self.len as usize)
            },
            None => &[],
        }
    }
}

impl<T: Clone> SharedSlice<T> {
    /// Changes the items by `change` on a copy of them, which then becomes this slice (in a block of its
    /// own): the block they were in may be shared, so it is never written again.
    pub fn edit<R>(&mut self, change: impl FnOnce(&mut Vec<T>) -> R) -> R {
        let mut items = self.as_slice().to_vec();
        let result = change(&mut items);
        *self = SharedSlice::from(items);
        result
    }
}

impl<T> Default for SharedSlice<T> {
    fn default() -> SharedSlice<T> {
        SharedSlice::new()
    }
}

impl<T> Clone for SharedSlice<T> {
    /// Another slice of the same items: their block is shared, not copied.
    fn clone(&self) -> SharedSlice<T> {
        SharedSlice { block: self.block.clone(), start: self.start, len: self.len }
    }
}

impl<T> Deref for SharedSlice<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> From<Vec<T>> for SharedSlice<T> {
    /// The vector's items, in a block of their own (made from the vector's memory). For items a program
    /// made; readers use [`SharedSlice::try_from_vec`].
    ///
    /// # Panics
    /// If the vector holds more than [`SharedSlice::MAX_LEN`] items.
    fn from(items: Vec<T>) -> SharedSlice<T> {
        match SharedSlice::try_from_vec(items) {
            Ok(slice) => slice,
            Err(items) => {
                panic!("a shared slice holds at most {} items, not {}", SharedSlice::<T>::MAX_LEN, items.len())
            }
        }
    }
}

impl<T> FromIterator<T> for SharedSlice<T> {
    /// # Panics
    /// As [`SharedSlice::from`] does.
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> SharedSlice<T> {
        SharedSlice::from(items.into_iter().collect::<Vec<T>>())
    }
}

impl<'a, T> IntoIterator for &'a SharedSlice<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for SharedSlice<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<T: PartialEq> PartialEq for SharedSlice<T> {
    fn eq(&self, other: &SharedSlice<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for SharedSlice<T> {}

impl<T: Hash> Hash for SharedSlice<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<T: Serialize> Serialize for SharedSlice<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for SharedSlice<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SharedSlice<T>, D::Error> {
        SharedSlice::try_from_vec(Vec::<T>::deserialize(d)?).map_err(|items| too_long(items.len()))
    }
}

/// The error of a run of more items than a slice holds.
pub(crate) fn too_long<E: serde::de::Error>(len: usize) -> E {
    E::custom(format_args!("{len} items in one array: at most {} are supported", SharedSlice::<()>::MAX_LEN))
}

/// Moves runs of items into blocks and hands each run out as a [`SharedSlice`]. Each writer fills its
/// own blocks, one at a time, and starts a new one when a run does not fit; a reader keeps one per
/// thread.
pub struct BlockWriter<T> {
    block: Arc<Block<T>>,
    /// How many of the block's slots are written (the block's own count, which only this writer raises).
    filled: usize,
    /// How many items a new block holds, at least.
    block_items: usize,
}

impl<T> Default for BlockWriter<T> {
    fn default() -> BlockWriter<T> {
        BlockWriter::new()
    }
}

impl<T> BlockWriter<T> {
    /// A writer with no block yet (the first run makes one).
    pub fn new() -> BlockWriter<T> {
        BlockWriter::with_block_items(BLOCK_ITEMS)
    }

    /// A writer with no block yet whose blocks hold `block_items` items at least.
    pub fn with_block_items(block_items: usize) -> BlockWriter<T> {
        BlockWriter { block: Arc::new(Block::with_capacity(0)), filled: 0, block_items }
    }

    /// Room in the block for `len` more items, in a new block if this one lacks it; where they go.
    fn room(&mut self, len: usize) -> usize {
        if self.block.slots.len() - self.filled < len {
            self.block = Arc::new(Block::with_capacity(self.block_items.max(len)));
            self.filled = 0;
        }
        self.filled
    }

    /// Moves the items of `run` (leaving it empty, its room kept) into the block, as one slice; `None`
    /// (and `run` as it was) when it holds more than [`SharedSlice::MAX_LEN`] items.
    pub fn take(&mut self, run: &mut Vec<T>) -> Option<SharedSlice<T>> {
        let len = run.len();
        (len <= SharedSlice::<T>::MAX_LEN).then(|| self.put(len, run.drain(..)))
    }

    /// Copies the items of `run` into the block, as one slice; `None` when it holds more than
    /// [`SharedSlice::MAX_LEN`] items.
    pub fn copy(&mut self, run: &[T]) -> Option<SharedSlice<T>>
    where
        T: Copy,
    {
        let len = run.len();
        (len <= SharedSlice::<T>::MAX_LEN).then(|| self.put(len, run.iter().copied()))
    }

    /// Writes `len` items (at most [`SharedSlice::MAX_LEN`]) into the block and hands them out as one
    /// slice.
    fn put(&mut self, len: usize, items: impl Iterator<Item = T>) -> SharedSlice<T> {
        if len == 0 {
            return SharedSlice::new();
        }
        let start = self.room(len);
        // The slots lie past every slice this writer handed out (they end at or before `filled`, and this
        // block is only ever written by this writer).
        write_slots(&self.block, start, len, items);
        self.filled = start + len;
        // Release: whoever drops the block sees the items it counts written.
        self.block.filled.store(self.filled, Ordering::Release);
        // Both fit in a `u32`: `len` does, and a block holds at most `BLOCK_ITEMS` or one run.
        SharedSlice { block: Some(Arc::clone(&self.block)), start: start as u32, len: len as u32 }
    }
}

/// A run of items that grows at its end, in a block of its own with room to grow, any prefix of which is
/// handed out as a [`SharedSlice`]: the storage of a key's list as its reads see it lengthen, so that
/// each read is a prefix of one run rather than a copy of its own. It keeps the module's invariant: the
/// run writes only its own block, only past its length (every slice it handed out ends at or before
/// it), and each slot once; when the block is full the run moves to a new one twice as large, and the
/// old block lives on for the slices that hold it.
pub struct GrowingRun<T> {
    block: Arc<Block<T>>,
    /// How many of the block's slots are written (the block's own count, which only this run raises).
    len: usize,
}

impl<T: Copy> GrowingRun<T> {
    /// The fewest slots a run's block has.
    const MIN_ROOM: usize = 8;

    /// A run holding `items`, with room for as many more; `None` when they are more than
    /// [`SharedSlice::MAX_LEN`].
    pub fn new(items: &[T]) -> Option<GrowingRun<T>> {
        let mut run = GrowingRun { block: Arc::new(Block::with_capacity(0)), len: 0 };
        run.extend(items).then_some(run)
    }

    /// The items, as a slice.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` slots were written by this run, and are never written again.
        unsafe { std::slice::from_raw_parts(self.block.slots.as_ptr().cast::<T>(), self.len) }
    }

    /// The first `len` items (at most the run's length), as a slice sharing the run's block.
    pub fn prefix(&self, len: usize) -> SharedSlice<T> {
        assert!(len <= self.len, "a prefix of {len} items of a run of {}", self.len);
        match len {
            0 => SharedSlice::new(),
            // `len` fits in a `u32`: the run's length does (see `extend`).
            _ => SharedSlice { block: Some(Arc::clone(&self.block)), start: 0, len: len as u32 },
        }
    }

    /// Adds `more` at the run's end, in a new block twice the new length when they do not fit; false
    /// (the run unchanged) when the run would hold more than [`SharedSlice::MAX_LEN`] items.
    pub fn extend(&mut self, more: &[T]) -> bool {
        let len = self.len + more.len();
        if len > SharedSlice::<T>::MAX_LEN {
            return false;
        }
        if self.block.slots.len() < len {
            let block = Arc::new(Block::with_capacity(len.saturating_mul(2).max(Self::MIN_ROOM)));
            write_slots(&block, 0, self.len, self.as_slice().iter().copied());
            block.filled.store(self.len, Ordering::Release);
            self.block = block;
        }
        // The slots lie past every prefix this run handed out.
        write_slots(&self.block, self.len, more.len(), more.iter().copied());
        self.len = len;
        // Release: whoever drops the block sees the items it counts written.
        self.block.filled.store(len, Ordering::Release);
        true
    }
}

/// Writes `len` items into `block`'s slots from `start`: slots that the block's one writer (a
/// [`BlockWriter`] or a [`GrowingRun`]) has not written and no slice covers, as the caller ensures.
fn write_slots<T>(block: &Block<T>, start: usize, len: usize, items: impl Iterator<Item = T>) {
    for (slot, item) in block.slots[start..start + len].iter().zip(items) {
        // SAFETY: the slot lies past every slice handed out of this block and is written once (the
        // module's invariant, which the caller keeps), so nothing reads it, and it has not been written.
        unsafe { (*slot.get()).write(item) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_is_two_words() {
        // A vector is three; an enum holding a slice then has a word for its tag and is no larger.
        assert_eq!(std::mem::size_of::<SharedSlice<i64>>(), 16);
    }

    #[test]
    fn runs_written_into_one_block_read_back_as_they_were() {
        let mut writer = BlockWriter::new();
        let mut run = vec![String::from("a"), String::from("b")];
        let first = writer.take(&mut run).expect("fits");
        assert!(run.is_empty());
        run.push(String::from("c"));
        let second = writer.take(&mut run).expect("fits");
        let empty = writer.take(&mut run).expect("fits");
        assert_eq!(first.as_slice(), ["a", "b"]);
        assert_eq!(second.as_slice(), ["c"]);
        assert!(empty.is_empty());
        assert!(Arc::ptr_eq(first.block.as_ref().unwrap(), second.block.as_ref().unwrap()));
        // The block outlives the writer and the first slice: the second still reads its item.
        drop(writer);
        drop(first);
        assert_eq!(second.as_slice(), ["c"]);
    }

    #[test]
    fn a_run_longer_than_a_block_gets_a_block_of_its_own() {
        let mut writer = BlockWriter::new();
        let small = writer.copy(&[1i64, 2, 3]).expect("fits");
        let big: Vec<i64> = (0..BLOCK_ITEMS as i64 + 5).collect();
        let long = writer.copy(&big).expect("fits");
        let after = writer.copy(&[7]).expect("fits");
        assert_eq!(small.as_slice(), [1, 2, 3]);
        assert_eq!(long.as_slice(), big.as_slice());
        assert_eq!(after.as_slice(), [7]);
        assert!(!Arc::ptr_eq(small.block.as_ref().unwrap(), long.block.as_ref().unwrap()));
    }

    #[test]
    fn a_writer_fills_blocks_of_the_size_it_was_given_before_starting_another() {
        let mut writer = BlockWriter::with_block_items(5);
        let slices: Vec<SharedSlice<i64>> = (0..4).map(|i| writer.copy(&[i, i]).expect("fits")).collect();
        let block = |s: &SharedSlice<i64>| Arc::as_ptr(s.block.as_ref().expect("a block"));
        // Two runs of two fill four of a block's five slots; the third starts a block, the fourth fits.
        assert_eq!(block(&slices[0]), block(&slices[1]));
        assert_ne!(block(&slices[1]), block(&slices[2]));
        assert_eq!(block(&slices[2]), block(&slices[3]));
        assert_eq!(slices.iter().map(|s| s.as_slice()).collect::<Vec<_>>(), [[0, 0], [1, 1], [2, 2], [3, 3]]);
    }

    #[test]
    fn every_item_is_dropped_once_when_the_last_slice_goes() {
        let counter = Arc::new(());
        let mut writer = BlockWriter::new();
        let mut run = vec![Arc::clone(&counter), Arc::clone(&counter), Arc::clone(&counter)];
        let slice = writer.take(&mut run).expect("fits");
        let copy = slice.clone();
        assert_eq!(Arc::strong_count(&counter), 4);
        drop(writer);
        drop(slice);
        assert_eq!(Arc::strong_count(&counter), 4);
        drop(copy);
        assert_eq!(Arc::strong_count(&counter), 1);
        let from_vec = SharedSlice::from(vec![Arc::clone(&counter)]);
        assert_eq!(Arc::strong_count(&counter), 2);
        drop(from_vec);
        assert_eq!(Arc::strong_count(&counter), 1);
    }

    #[test]
    fn slices_compare_and_hash_by_their_items_wherever_they_are_kept() {
        use std::collections::hash_map::DefaultHasher;
        let mut writer = BlockWriter::new();
        let _before = writer.copy(&[9i64, 9]).expect("fits");
        let in_block = writer.copy(&[1i64, 2]).expect("fits");
        let own = SharedSlice::from(vec![1i64, 2]);
        let hash = |s: &SharedSlice<i64>| {
            let mut h = DefaultHasher::new();
            s.hash(&mut h);
            h.finish()
        };
        assert_eq!(in_block, own);
        assert_eq!(hash(&in_block), hash(&own));
        assert_ne!(in_block, SharedSlice::from(vec![1i64, 3]));
        assert_eq!(SharedSlice::<i64>::new(), SharedSlice::from(Vec::new()));
        assert_eq!(format!("{in_block:?}"), "[1, 2]");
        assert_eq!(serde_json::to_string(&in_block).unwrap(), "[1,2]");
        let back: SharedSlice<i64> = serde_json::from_str("[1,2]").unwrap();
        assert_eq!(back, in_block);
    }

    #[test]
    fn an_edit_changes_one_slice_and_not_the_block_it_shares() {
        let mut writer = BlockWriter::new();
        let mut edited = writer.copy(&[1i64, 2, 3]).expect("fits");
        let neighbour = writer.copy(&[4i64]).expect("fits");
        let same = edited.clone();
        let popped = edited.edit(|items| items.pop());
        assert_eq!(popped, Some(3));
        assert_eq!(edited.as_slice(), [1, 2]);
        assert_eq!(same.as_slice(), [1, 2, 3]);
        assert_eq!(neighbour.as_slice(), [4]);
    }

    #[test]
    fn slices_made_on_one_thread_are_read_and_freed_on_another() {
        let mut writer = BlockWriter::new();
        let slices: Vec<SharedSlice<i64>> = (0..1000).map(|i| writer.copy(&[i, i + 1]).expect("fits")).collect();
        let reader = std::thread::spawn(move || slices.iter().map(|s| s.iter().sum::<i64>()).sum::<i64>());
        // The writer goes on filling the same block while the other thread reads the slices.
        let more: Vec<SharedSlice<i64>> = (0..1000).map(|i| writer.copy(&[i]).expect("fits")).collect();
        assert_eq!(reader.join().unwrap(), (0..1000).map(|i| 2 * i + 1).sum::<i64>());
        assert_eq!(more[999].as_slice(), [999]);
    }

    #[test]
    fn a_growing_run_hands_out_prefixes_that_keep_their_items_as_it_grows() {
        let mut run = GrowingRun::new(&[1i64, 2]).expect("fits");
        let first = run.prefix(2);
        let none = run.prefix(0);
        assert!(run.extend(&[3, 4, 5]));
        let middle = run.prefix(4);
        // Past its first block's eight slots, the run moves to a new block; the slices keep the old one.
        assert!(run.extend(&[6, 7, 8, 9, 10, 11]));
        let whole = run.prefix(11);
        assert_eq!(first.as_slice(), [1, 2]);
        assert!(none.is_empty());
        assert_eq!(middle.as_slice(), [1, 2, 3, 4]);
        assert_eq!(whole.as_slice(), (1..=11).collect::<Vec<i64>>());
        assert_eq!(run.as_slice(), whole.as_slice());
        assert!(Arc::ptr_eq(first.block.as_ref().unwrap(), middle.block.as_ref().unwrap()));
        assert!(!Arc::ptr_eq(first.block.as_ref().unwrap(), whole.block.as_ref().unwrap()));
        drop(run);
        assert_eq!(whole[10], 11);
        assert_eq!(middle.as_slice(), [1, 2, 3, 4]);
    }

    #[test]
    #[should_panic(expected = "a prefix of 3 items of a run of 2")]
    fn a_prefix_longer_than_its_run_is_refused() {
        let run = GrowingRun::new(&[1i64, 2]).expect("fits");
        let _ = run.prefix(3);
    }
}
