import NIOCore

extension ConnectionHandler {
    /// A read the application asked for: served in order, each with its own decoder and timeout.
    struct PendingRead {
        let id: UInt64
        var decoder: FrameDecoder
        let promise: EventLoopPromise<ByteBuffer?>
        var timeout: Scheduled<Void>?
        /// Whether a message over the read's limit ends the connection (the stream cannot be
        /// resynchronised). False leaves it to the reader, which answers and closes it itself
        /// (a proxy's 431 to an oversized CONNECT head); the bytes stay buffered meanwhile.
        var closesWhenTooLarge = true
    }
}
