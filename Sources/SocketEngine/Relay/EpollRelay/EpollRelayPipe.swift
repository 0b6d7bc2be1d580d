import CEpoll
import Glibc

/// The kernel pipe one direction of a spliced pair moves its bytes through: `splice(2)` from the
/// source socket into the pipe, then from the pipe into the sink socket, so the bytes are never
/// copied up to user space and back. Owned by one direction of an ``EpollRelayPair``, on the
/// loop's thread; its two descriptors are closed by ``close()`` however the pair ends.
///
/// Bytes in the pipe are in flight like bytes in a read buffer: the direction takes more from
/// its source only once the pipe is empty again, so it never holds more than ``capacity``.
///
/// A splice into a socket whose peer has gone fails with `EPIPE` and, unlike `send` with
/// `MSG_NOSIGNAL`, raises SIGPIPE as well: the loop relies on SIGPIPE being ignored, as NIOPosix
/// makes it process-wide before it opens a socket (every socket the loop is given is NIO's).
final class EpollRelayPipe {
    /// What one splice did.
    enum Outcome {
        /// This many bytes moved.
        case moved(Int)
        /// The source has ended (only a fill sees this).
        case ended
        /// Nothing could move now (the source is empty, or the sink or the pipe is full).
        case wouldBlock
        /// The socket does not support splicing (`EINVAL`): the direction copies instead.
        case unsupported
        /// Any other failure, with its errno.
        case failed(Int32)
    }

    private let readEnd: Int32
    private let writeEnd: Int32
    /// The pipe's capacity in bytes: the most one fill asks for.
    let capacity: Int
    /// Bytes in the pipe: taken from the source, not yet given to the sink.
    private(set) var parked = 0
    private var isClosed = false

    /// `SPLICE_F_MOVE | SPLICE_F_NONBLOCK`: pages moved where the kernel can, and the pipe never
    /// waited on (the sockets are non-blocking already).
    private static let flags = UInt32(SOCKCTL_SPLICE_F_MOVE | SOCKCTL_SPLICE_F_NONBLOCK)

    /// A new pipe of about `size` bytes (the kernel's default size when it refuses to raise it, e.g.
    /// past a user's pipe allowance); nil when no pipe can be made (descriptors exhausted).
    init?(size: Int) {
        var ends: [Int32] = [-1, -1]
        guard sockctl_pipe(&ends) == 0 else { return nil }
        (readEnd, writeEnd) = (ends[0], ends[1])
        let raised = sockctl_set_pipe_size(writeEnd, Int32(clamping: size))
        let actual = raised > 0 ? raised : fcntl(writeEnd, Int32(SOCKCTL_F_GETPIPE_SZ))
        capacity = actual > 0 ? Int(actual) : 65_536
    }

    deinit { close() }

    /// Moves what `source` has, up to the pipe's free room, into the pipe.
    func fill(from source: Int32) -> Outcome {
        let outcome = move(source, writeEnd, capacity - parked)
        if case .moved(let count) = outcome { parked += count }
        return outcome
    }

    /// Moves what the pipe holds, as much as `sink` takes now, into `sink`.
    func drain(to sink: Int32) -> Outcome {
        guard parked > 0 else { return .wouldBlock }
        let outcome = move(readEnd, sink, parked)
        if case .moved(let count) = outcome { parked -= count }
        return outcome
    }

    /// Reads back what the pipe holds (for a direction that falls back to copying because its
    /// sink cannot be spliced to); nil when the pipe cannot be read.
    func takeParked() -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: parked)
        var taken = 0
        while taken < parked {
            let count = bytes.withUnsafeMutableBytes { Syscall.read(readEnd, $0.baseAddress.map { $0 + taken }, parked - taken) }
            guard count > 0 else { return nil }
            taken += count
        }
        parked = 0
        return bytes
    }

    /// Closes both ends; safe to call more than once. Whatever was parked is dropped.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Syscall.close(readEnd)
        Syscall.close(writeEnd)
    }

    private func move(_ from: Int32, _ to: Int32, _ length: Int) -> Outcome {
        guard length > 0 else { return .wouldBlock }
        let count = Syscall.splice(from, to, length, Self.flags)
        if count > 0 { return .moved(count) }
        if count == 0 { return .ended }
        let code = errno
        if code == EINVAL { return .unsupported }
        return isRetryable(errno: code) ? .wouldBlock : .failed(code)
    }

    /// The size the loop gives each pipe: `wanted`, within `/proc/sys/fs/pipe-max-size` (the most
    /// a process without CAP_SYS_RESOURCE may ask for); `wanted` where that cannot be read.
    static func size(wanted: Int) -> Int {
        let file = Syscall.open("/proc/sys/fs/pipe-max-size", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return wanted }
        defer { Syscall.close(file) }
        var text = [UInt8](repeating: 0, count: 32)
        let count = text.withUnsafeMutableBytes { Syscall.read(file, $0.baseAddress, $0.count) }
        let digits = text.prefix(max(0, count)).prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard let most = Int(String(decoding: digits, as: UTF8.self)), most > 0 else { return wanted }
        return min(wanted, most)
    }
}
