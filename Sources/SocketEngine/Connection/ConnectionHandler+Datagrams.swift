import NIOCore

extension ConnectionHandler {
    /// Received messages of a datagram connection (UDP, or WebSocket messages) not yet read,
    /// each handed out whole by one read.
    struct DatagramQueue {
        /// At most this many messages wait.
        let limit: Int
        /// Without dropping, reads are held once the waiting messages hold this many bytes.
        let byteLimit: Int
        /// UDP: a message that finds the queue full is dropped (and counted). WebSocket messages
        /// never are: reads are held instead, and one read's worth of messages may overshoot.
        let dropsWhenFull: Bool
        private var messages = CircularBuffer<ByteBuffer>()
        /// WebSocket: the kind of each message, in step with `messages` (empty for UDP).
        private var kinds = CircularBuffer<WebSocketMessageKind>()
        /// Bytes in `messages`.
        private(set) var bytes = 0

        init(limit: Int, byteLimit: Int, dropsWhenFull: Bool) {
            self.limit = limit
            self.byteLimit = byteLimit
            self.dropsWhenFull = dropsWhenFull
        }

        /// The socket is not read while this is true.
        var holdsReads: Bool { messages.count >= limit || (!dropsWhenFull && bytes >= byteLimit) }

        /// Queues a received message of `kind` (WebSocket); false when it was dropped instead.
        mutating func receive(_ message: ByteBuffer, kind: WebSocketMessageKind?) -> Bool {
            if dropsWhenFull && messages.count >= limit { return false }
            messages.append(message)
            if let kind { kinds.append(kind) }
            bytes += message.readableBytes
            return true
        }

        /// The oldest message and its kind (nil for UDP), if one waits.
        mutating func next() -> (message: ByteBuffer, kind: WebSocketMessageKind?)? {
            guard let message = messages.popFirst() else { return nil }
            bytes -= message.readableBytes
            return (message, kinds.popFirst())
        }

        /// Drops every waiting message; returns their bytes.
        mutating func removeAll() -> Int {
            defer {
                messages.removeAll()
                kinds.removeAll()
                bytes = 0
            }
            return bytes
        }
    }
}
