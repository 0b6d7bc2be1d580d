import NIOCore

/// Where a session's incoming bytes go (stdout for the CLI).
public protocol ByteSink: Sendable {
    func write(_ data: ByteBuffer) async throws
}

/// A sink that drops everything.
package struct DiscardingByteSink: ByteSink {
    package init() {}
    package func write(_ data: ByteBuffer) async throws {}
}
