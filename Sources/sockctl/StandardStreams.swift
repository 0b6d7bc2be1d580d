import NIOCore
import NIOPosix
import SocketEngine
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a file descriptor with POSIX `write(2)`: loops over short writes and `EINTR`, and
/// on `EPIPE` (the reader went away, as in `sockctl … | head -c 10`) exits quietly with 141,
/// the status a shell reports for SIGPIPE. Never `FileHandle.write(_:)`, which traps on EPIPE
/// once SIGPIPE is ignored (and NIO ignores it).
final class FileDescriptorWriter: ByteSink, Sendable {
    let descriptor: Int32
    private let lock = Mutex(())

    static let standardOutput = FileDescriptorWriter(descriptor: 1)
    static let standardError = FileDescriptorWriter(descriptor: 2)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func write(_ data: ByteBuffer) async throws {
        data.withUnsafeReadableBytes { writeAll($0) }
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeAll($0) }
    }

    func write(_ text: String) {
        var copy = text
        copy.withUTF8 { writeAll(UnsafeRawBufferPointer($0)) }
    }

    private func writeAll(_ raw: UnsafeRawBufferPointer) {
        guard var base = raw.baseAddress, raw.count > 0 else { return }
        var remaining = raw.count
        lock.withLock { _ in
            while remaining > 0 {
                let written = Glibc.write(descriptor, base, remaining)
                if written > 0 {
                    remaining -= written
                    base += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && errno == EAGAIN {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, 100)
                } else {
                    // EPIPE or any other failure of our own output: nobody is listening.
                    exit(141)
                }
            }
        }
    }

    var isTerminal: Bool { isatty(descriptor) == 1 }
}

/// Reads a file descriptor (stdin) on a thread of its own, one chunk per ``next()``.
///
/// A ``next()`` cancelled while its read is in flight does not lose the chunk: the read keeps
/// going and the next call receives its result. Chunks are copied out of a reused 1 MiB buffer,
/// so a one-line read costs a one-line allocation.
final class FileDescriptorSource: ByteSource, Sendable {
    let descriptor: Int32
    private let pool: NIOThreadPool
    private let inFlight = Mutex<EventLoopFuture<ByteBuffer?>?>(nil)
    private let loop: any EventLoop
    static let chunkSize = 1 << 20

    init(descriptor: Int32) {
        self.descriptor = descriptor
        self.pool = NIOThreadPool(numberOfThreads: 1)
        self.pool.start()
        self.loop = MultiThreadedEventLoopGroup.singleton.next()
    }

    private let waiter = Mutex<CheckedContinuation<Result<ByteBuffer?, any Error>?, Never>?>(nil)

    func next() async throws -> ByteBuffer? {
        let future = inFlight.withLock { current -> EventLoopFuture<ByteBuffer?> in
            if let current { return current }
            let descriptor = self.descriptor
            let started = pool.runIfActive(eventLoop: loop) { try Self.readChunk(descriptor) }
            current = started
            return started
        }
        let outcome: Result<ByteBuffer?, any Error>? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.withLock { $0 = continuation }
                if Task.isCancelled, let stored = waiter.withLock({ slot in defer { slot = nil }; return slot }) {
                    stored.resume(returning: nil)
                    return
                }
                future.whenComplete { result in
                    if let stored = self.waiter.withLock({ slot in defer { slot = nil }; return slot }) {
                        stored.resume(returning: result)
                    }
                }
            }
        } onCancel: {
            if let stored = waiter.withLock({ slot in defer { slot = nil }; return slot }) {
                stored.resume(returning: nil)
            }
        }
        // Cancelled: the read stays in flight and the next call gets its chunk.
        guard let outcome else { throw CancellationError() }
        inFlight.withLock { $0 = nil }
        return try outcome.get()
    }

    private static let scratch = Mutex<UnsafeMutableRawBufferPointer>(
        UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
    )

    private static func readChunk(_ descriptor: Int32) throws -> ByteBuffer? {
        try scratch.withLock { buffer -> ByteBuffer? in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                if count > 0 {
                    return ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                }
                if count == 0 { return nil }
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&poller, 1, 1000)
                    continue
                }
                throw SocketEngineError(.ioError, "reading input: \(String(cString: strerror(errno)))")
            }
        }
    }
}
