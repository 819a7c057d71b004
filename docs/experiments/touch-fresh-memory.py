#!/usr/bin/env python3
"""Times the first touch of N GiB of fresh anonymous memory (default 4), one byte per 2 MiB huge page, as a
check's allocations touch it: `python3 docs/experiments/touch-fresh-memory.py 4`, twice in a row. On this
project's virtual machine the first run pays for memory the guest had handed back to its host, the second
(memory just freed) does not: 9.92 s and then 0.24 s for 4 GiB on 2026-12-03 at 23:07 UTC."""
import mmap
import sys
import time

gib = int(sys.argv[1]) if len(sys.argv) > 1 else 4
size = gib << 30
start = time.time()
memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
memory.madvise(mmap.MADV_HUGEPAGE)
for offset in range(0, size, 1 << 21):
    memory[offset] = 1
print(f"{gib} GiB touched in {time.time() - start:.2f} s")
