import NIOCore

extension ConnectionHandler {
    /// ``Connection/discardAll()``: incoming bytes are counted and dropped on arrival, and the
    /// count is handed over at the end of the stream.
    struct Discarding {
        let promise: EventLoopPromise<Int>
        /// Bytes dropped so far (those already buffered when discarding began included).
        private(set) var count: Int

        init(promise: EventLoopPromise<Int>, alreadyBuffered: Int) {
            self.promise = promise
            self.count = alreadyBuffered
        }

        /// Drops one received chunk.
        mutating func drop(_ chunk: ByteBuffer) {
            count += chunk.readableBytes
        }

        /// Discarding is over once the connection failed or its input ended.
        func isOver(failure: SocketEngineError?, inputClosed: Bool) -> Bool {
            failure != nil || inputClosed
        }

        /// Hands over the count, or the connection's `failure`.
        func complete(failure: SocketEngineError?) {
            if let failure {
                promise.fail(failure)
            } else {
                promise.succeed(count)
            }
        }
    }
}
