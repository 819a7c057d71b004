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
//!
//! A large check spends much of its time waiting on memory: its lookups land all over a history of
//! gigabytes, and with 4 KiB pages nearly each one misses the translation cache too. glibc asks the
//! kernel for transparent huge pages (2 MiB) for its heaps when its `glibc.malloc.hugetlb=1` tunable is
//! set, and Debian's kernels give them to memory that asks (`madvise`, their default). Tunables are read
//! only when a program starts, so the process starts itself again, once, with the tunable added to
//! `GLIBC_TUNABLES` (the same process: `exec` keeps its pid, its name, its arguments and its open files), and then
//! puts the variable back as it was, so that the servers and browsers it starts do not inherit it.
//! Measured (README, Performance; medians of five, alternating): 1M list-append transactions 2.39 s to
//! 2.22 s with the tunable set by hand, 3.17 s to 3.03 s at a busier moment with the process starting
//! itself again; 10M 35.3 s to 30.7 s and 44.5 s to 35.3 s (two pairs of runs, the kernel's time halved);
//! 1M rw-register and 100k transactions unchanged; peak memory unchanged. A `GLIBC_TUNABLES` that already
//! names `glibc.malloc.hugetlb` (`=0` turns huge pages off) is left as it is.
//!
//! Huge pages cost as well as save: the kernel clears each 2 MiB page whole when it is first touched, and
//! on this machine's kind of VM (`defrag` set to `madvise`) may compact memory to find one. A check of the
//! linear weak levels alone (`read-committed-cerone`, `read-atomic`: one pass over the history, no graph)
//! walks its memory in order and gains nothing from them: on AWDIT's 1M-event read committed history
//! (298,056 transactions, 360 MB) they added 0.2-0.5 s of kernel time to a check of 0.5 s of user time,
//! 0.68-0.79 s wall with them off against 0.80-1.22 s on (three alternating pairs, 2026-12-05), and
//! `clear_page` took 57% of the samples `perf` drew with them against 30% without. Such a check
//! does not ask for them (`Cli::huge_pages`); every other command does, as measured above.
//!
//! Setting the top pad also stops glibc raising the size from which it maps an allocation on its own
//! (128 KiB) as large blocks are freed, so every block of 128 KiB or more was mapped fresh, its pages
//! cleared by the kernel as they were first touched, and unmapped when freed: a check allocates and frees
//! such blocks by the thousand (each reading thread's buffers, each range's arrays, the graph's parts).
//! With blocks of up to 256 MiB taken from the heaps, and freed memory kept at the top of a heap up to 1
//! GiB rather than returned, freed memory is used again. Measured (README, Performance; medians of eight,
//! alternating, `GLIBC_TUNABLES` on one binary): 1M list-append transactions 1.67 s to 1.50 s at a quiet
//! moment and 2.03 s to 1.68 s at a busy one, peak memory 763-785 MiB to 820-903 MiB (`/usr/bin/time`'s KiB
//! over 1024); 10M 20.3 s to 18.3 s, 6.99 GiB to 7.40 GiB, in one pair of runs.

/// The top pad: how much more than asked glibc makes ready each time a heap grows.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD: libc::c_int = 64 << 20;

/// The largest block glibc takes from a heap rather than mapping it on its own.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 256 << 20;

/// How much freed memory glibc keeps at the top of a heap before it returns any to the kernel.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: libc::c_int = 1 << 30;

/// The environment variable glibc reads its tunables from when a program starts.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TUNABLES: &str = "GLIBC_TUNABLES";

/// The tunable that has glibc ask for transparent huge pages for its heaps.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_PAGES: &str = "glibc.malloc.hugetlb";

/// Set only in the started-again process: what `GLIBC_TUNABLES` was before (empty when it was not set),
/// to be put back.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TUNABLES_BEFORE: &str = "ISOCHECK_GLIBC_TUNABLES_BEFORE";

/// Sets the allocator's parameters, asking for huge pages when `huge_pages` (the command gains by them:
/// `Cli::huge_pages`). Call it first in `main`, before starting any thread: it may start the program again
/// (see the module's documentation), and it changes the environment.
pub fn configure(huge_pages: bool) {
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = huge_pages;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        match std::env::var_os(TUNABLES_BEFORE) {
            Some(before) => restore_tunables(&before),
            None if !huge_pages => {}
            None => {
                if let Some(tunables) = with_huge_pages(std::env::var_os(TUNABLES).as_deref()) {
                    // Returns only if the program could not be started again: it then runs on as it is.
                    start_again(&tunables);
                }
            }
        }
        // SAFETY: `mallopt` only sets parameters of glibc's allocator, and no other thread allocates yet.
        // Its answer (1 set, 0 refused) needs no handling: a refused setting leaves glibc's default.
        unsafe {
            libc::mallopt(libc::M_TOP_PAD, TOP_PAD);
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
        }
    }
}

/// The `GLIBC_TUNABLES` to start again with, given the one this process has: `None` when it already
/// says what to do with huge pages (the user's choice, or this process already started again).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn with_huge_pages(tunables: Option<&std::ffi::OsStr>) -> Option<std::ffi::OsString> {
    let tunables = tunables.unwrap_or_default();
    let named = tunables.as_encoded_bytes().split(|&b| b == b':').any(|t| t.starts_with(HUGE_PAGES.as_bytes()));
    if named {
        return None;
    }
    let mut with = tunables.to_os_string();
    if !with.is_empty() {
        with.push(":");
    }
    with.push(HUGE_PAGES);
    with.push("=1");
    Some(with)
}

/// Starts this program again, with its arguments and `tunables`; returns only if it could not.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn start_again(tunables: &std::ffi::OsStr) {
    use std::os::unix::process::CommandExt;

    let mut args = std::env::args_os();
    let Some(name) = args.next() else { return };
    // The program's own path (not `/proc/self/exe`, which would make the process's name `exe` in `ps` and
    // `pgrep`); it cannot be found if its file was removed since, and then the program runs on as it is.
    let Ok(program) = std::env::current_exe() else { return };
    let before = std::env::var_os(TUNABLES).unwrap_or_default();
    let _ = std::process::Command::new(program)
        .arg0(name)
        .args(args)
        .env(TUNABLES, tunables)
        .env(TUNABLES_BEFORE, before)
        .exec();
}

/// Puts `GLIBC_TUNABLES` back as it was before the program started again.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn restore_tunables(before: &std::ffi::OsStr) {
    // SAFETY: called first in `main`, before any other thread exists, so nothing reads the environment
    // while it changes.
    unsafe {
        match before.is_empty() {
            true => std::env::remove_var(TUNABLES),
            false => std::env::set_var(TUNABLES, before),
        }
        std::env::remove_var(TUNABLES_BEFORE);
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    #[test]
    fn huge_pages_are_added_to_the_tunables_unless_they_already_name_them() {
        assert_eq!(with_huge_pages(None).as_deref(), Some(OsStr::new("glibc.malloc.hugetlb=1")));
        assert_eq!(with_huge_pages(Some(OsStr::new(""))).as_deref(), Some(OsStr::new("glibc.malloc.hugetlb=1")));
        assert_eq!(
            with_huge_pages(Some(OsStr::new("glibc.malloc.arena_max=2"))).as_deref(),
            Some(OsStr::new("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"))
        );
        assert_eq!(with_huge_pages(Some(OsStr::new("glibc.malloc.hugetlb=0"))), None);
        assert_eq!(with_huge_pages(Some(OsStr::new("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"))), None);
    }
}
