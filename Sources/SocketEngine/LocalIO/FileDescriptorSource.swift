import NIOCore
import NIOPosix
import Synchronization

import Glibc

/// Reads a file descriptor (stdin) on a thread of its own, one chunk per ``next()``.
///
/// A ``next()`` cancelled while its read is in flight does not lose the chunk: the read keeps
/// going and the next call receives its result. Each chunk holds what one blocking read
/// returned plus whatever else is readable at once, up to 1 MiB, so a fast pipe is moved in
/// large pieces and a typed line is sent as soon as Enter is pressed. Small chunks are copied
/// into buffers of their own size so they do not pin 1 MiB each while queued.
public final class FileDescriptorSource: ByteSource, Sendable {
    /// The descriptor read; the source does not close it.
    public let descriptor: Int32
    private let pool: NIOThreadPool
    private let inFlight = Mutex<EventLoopFuture<ByteBuffer?>?>(nil)
    private let reachedEnd = Mutex(false)
    private let loop: any EventLoop
    /// The most one chunk holds.
    package static let chunkSize = 1 << 20

    /// A source reading `descriptor` (0 for stdin) on its own thread; a pipe is asked for a 1 MiB
    /// buffer.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        self.pool = NIOThreadPool(numberOfThreads: 1)
        self.pool.start()
        self.loop = MultiThreadedEventLoopGroup.singleton.next()
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO {
            // Larger pipe, larger reads (best effort; the limit is fs.pipe-max-size).
            _ = fcntl(descriptor, 1031 /* F_SETPIPE_SZ */, Int32(Self.chunkSize))
        }
    }

    /// Stdin redirected from a regular file: hand over the rest of it, and move the file
    /// offset to its end so reads see end of input (the session sends it with sendfile).
    public func regularFile() -> (descriptor: Int32, offset: Int, length: Int)? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let offset = lseek(descriptor, 0, SEEK_CUR)
        guard offset >= 0, Int(info.st_size) >= Int(offset) else { return nil }
        let length = Int(info.st_size) - Int(offset)
        guard lseek(descriptor, off_t(info.st_size), SEEK_SET) >= 0 else { return nil }
        return (descriptor, Int(offset), length)
    }

    private let waiter = Mutex<CheckedContinuation<Result<ByteBuffer?, any Error>?, Never>?>(nil)

    /// The next chunk, up to 1 MiB, or `nil` at end of input. A cancelled call throws
    /// `CancellationError`; its read goes on and the next call gets the chunk.
    public func next() async throws -> ByteBuffer? {
        let future = inFlight.withLock { current -> EventLoopFuture<ByteBuffer?> in
            if let current { return current }
            let started = pool.runIfActive(eventLoop: loop) { try self.readChunk() }
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

    private func readChunk() throws -> ByteBuffer? {
        if reachedEnd.withLock({ $0 }) { return nil }
        var buffer = ByteBufferAllocator().buffer(capacity: Self.chunkSize)
        var total = 0
        while buffer.writableBytes > 0 {
            if total > 0 {
                // Only take more if it is there right now.
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard Syscall.poll(&poller, 1, 0) > 0, poller.revents & Int16(POLLIN) != 0 else { break }
            }
            var result = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { raw in
                result = Syscall.read(descriptor, raw.baseAddress, raw.count)
                return max(0, result)
            }
            if result > 0 {
                total += result
                continue
            }
            if result == 0 {
                reachedEnd.withLock { $0 = true }
                break
            }
            switch errno {
            case EAGAIN:
                if total > 0 { break }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = Syscall.poll(&poller, 1, 1000)
                continue
            case let failure:
                if total > 0 { break }
                throw SocketEngineError(.ioError, "reading input: \(String(cString: strerror(failure)))")
            }
            break
        }
        guard total > 0 else { return nil }
        if total < 64 * 1024 {
            return ByteBuffer(bytes: buffer.readableBytesView)
        }
        return buffer
    }
}
