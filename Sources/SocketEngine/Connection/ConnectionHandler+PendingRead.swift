import NIOCore

extension ConnectionHandler {
    /// A read the application asked for: served in order, each with its own decoder and timeout.
    struct PendingRead {
        let id: UInt64
        var decoder: FrameDecoder
        let promise: EventLoopPromise<ByteBuffer?>
        var timeout: Scheduled<Void>?
    }
}
