import NIOCore

/// Where a session's outgoing bytes come from (stdin for the CLI, anything in tests).
public protocol ByteSource: Sendable {
    /// The next chunk, or `nil` at end of input. Must be cancellable.
    func next() async throws -> ByteBuffer?

    /// When the rest of the input is a regular file: its descriptor, current offset and the
    /// bytes left, so a session that needs no look at the bytes can `sendfile(2)` them.
    func regularFile() -> (descriptor: Int32, offset: Int, length: Int)?
}

extension ByteSource {
    /// `nil`: unless a source says otherwise, its bytes are read with ``next()``.
    public func regularFile() -> (descriptor: Int32, offset: Int, length: Int)? { nil }
}

/// A source that is already at end of input.
public struct EmptyByteSource: ByteSource {
    /// A source with nothing to read.
    public init() {}
    /// Always `nil`: input has already ended.
    public func next() async throws -> ByteBuffer? { nil }
}

/// A ``ByteSource`` backed by an ``AsyncBoundedQueue``.
package struct QueueByteSource: ByteSource {
    package let queue: AsyncBoundedQueue<ByteBuffer>
    package init(queue: AsyncBoundedQueue<ByteBuffer>) { self.queue = queue }
    package func next() async throws -> ByteBuffer? { try await queue.next() }
}
