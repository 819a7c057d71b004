//! The memory allocator's settings for this process, made once, first thing in `main`, before any other
//! thread exists. This module owns only that; what allocates, and how much, is every other module's.
//!
//! On glibc, each thread other than the main one allocates from a heap of its own, which glibc grows a
//! page at a time, one `mprotect` call each: reading a history of a million transactions on two cores
//! made about 110,000 of those calls, a fifth of the check's kernel time. With a 64 MiB top pad (a
//! thread's heap is at most 64 MiB) each heap is made ready in one call; a smaller pad only readies the
//! start of a heap, which then grows a page at a time as before (16 MiB saved almost nothing). Measured on
//! the 1M histories (README, Performance): list-append 3.64 s to 3.37 s and rw-register 4.35 s to 4.10 s
//! (medians of five, alternating), kernel time down 0.3-0.5 s. The cost is memory: glibc then keeps up to
//! the pad at the top of each heap when it is freed rather than returning it, so the peak grows by 45-80
//! MB (100k list-append transactions 103 MB to 149 MB, 1M 928 MB to 986-1,009 MB; MB as the README's
//! tables count them, /usr/bin/time's KiB over 1024; `GLIBC_TUNABLES=glibc.malloc.top_pad` on one binary). The pad also fixes the size from which glibc maps
//! an allocation on its own (128 KiB), rather than raising it as large blocks are freed.

/// The top pad: how much more than asked glibc makes ready each time a heap grows.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD: libc::c_int = 64 << 20;

/// Sets the allocator's parameters. Call it before starting any thread.
pub fn configure() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a parameter of glibc's allocator, and no other thread allocates yet.
    // Its answer (1 set, 0 refused) needs no handling: a refused setting leaves glibc's default.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD);
    }
}
