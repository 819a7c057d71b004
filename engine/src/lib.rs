//! The embedded MVCC engine (work in progress on the engine branch).
