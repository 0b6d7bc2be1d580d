import CMalloc

import Glibc

/// How the process's allocator treats large buffers: a long-running server (listen, proxy)
/// that once held big frames must give that memory back when the clients are gone.
///
/// glibc's malloc serves a block of at least `M_MMAP_THRESHOLD` (128 KiB at start) with its own
/// `mmap`, unmapped on `free`. But that threshold is dynamic: each such block freed raises it to
/// the block's size (up to 32 MiB), so once one 16 MiB frame has come and gone, the next ones
/// are carved from the heap arenas — and a freed arena block stays resident. Measured on a proxy
/// with `--framing line` that relayed 3 × 20 concurrent 16 MiB partial lines (debug build): 101,
/// 180, 164 MB resident after each round with no client left; `malloc_trim(0)` (through gdb) took
/// it from 164 to 64 MB, so the memory was free but held. With the threshold fixed at 1 MiB the
/// same rounds ended at 42 MB each time.
///
/// Buffers below 1 MiB (socket reads, the relay loop's 256 KiB buffer) are unaffected.
/// `MALLOC_MMAP_THRESHOLD_` in the environment, glibc's own setting, wins over this.
public enum LargeBufferPolicy {
    /// The size from which a buffer gets its own mapping, returned to the system when freed.
    public static let mappedFrom = 1 << 20

    /// Fixes glibc's mmap threshold at ``mappedFrom`` (which also stops its dynamic growth),
    /// unless the environment sets one. Call once, at start-up.
    public static func returnLargeBuffersToTheSystem() {
        guard getenv("MALLOC_MMAP_THRESHOLD_") == nil else { return }
        _ = mallopt(M_MMAP_THRESHOLD, Int32(mappedFrom))
    }
}
