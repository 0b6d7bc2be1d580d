import Glibc
import NIOCore

/// A connection's socket taken out of its event loop (see ``Connection/handOver(with:beforeClosing:)``).
struct HandedOverSocket: Sendable {
    /// A descriptor of the socket that the taker owns (close-on-exec); the channel is closed.
    let descriptor: Int32
    /// Bytes the event loop had received and nobody had read yet: the first to forward.
    let unread: [UInt8]
    /// Whether the peer had already finished sending.
    let inputClosed: Bool
}

extension Connection {
    /// Takes this connection's socket and `other`'s out of their event loop, both or neither:
    /// each socket's descriptor is duplicated, what was received and not read is taken along,
    /// and the two channels are closed (the duplicates keep the sockets open; NIO's close is a
    /// plain `close`, no shutdown, no reset).
    ///
    /// Nil when they cannot be: not two plain byte streams on one event loop (TLS, WebSocket,
    /// UDP), a live view or recorder attached to either, a read or forward already running, a
    /// failure already seen. The connections are then untouched.
    ///
    /// `beforeClosing` runs on the event loop once the handover is certain, just before the
    /// channels close (the relay keeps the client's `--max-clients` place there); its result
    /// comes back with the sockets.
    func handOver<Kept: Sendable>(
        with other: Connection, beforeClosing: @escaping @Sendable () -> Kept
    ) async -> (HandedOverSocket, HandedOverSocket, Kept)? {
        let plain: Set<Endpoint.Transport> = [.tcp, .unix]
        guard plain.contains(transport), plain.contains(other.transport), security == nil, other.security == nil,
              canForward(to: other) else { return nil }
        let mine = (channel, handler)
        let theirs = (other.channel, other.handler)
        return try? await channel.eventLoop.submit { () -> (HandedOverSocket, HandedOverSocket, Kept)? in
            guard mine.1.value.canHandOver, theirs.1.value.canHandOver, Self.hasNothingQueued(mine.0),
                  Self.hasNothingQueued(theirs.0), let first = Self.duplicate(mine.0) else { return nil }
            guard let second = Self.duplicate(theirs.0) else {
                Syscall.close(first)
                return nil
            }
            let kept = beforeClosing()
            let taken = (mine.1.value.takeUnread(descriptor: first), theirs.1.value.takeUnread(descriptor: second), kept)
            mine.0.close(promise: nil)
            theirs.0.close(promise: nil)
            return taken
        }.get()
    }

    /// True when no write is waiting in the channel: closing it would drop one.
    private static func hasNothingQueued(_ channel: any Channel) -> Bool {
        (try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) == 0
    }

    /// A close-on-exec duplicate of the channel's socket; on the event loop.
    private static func duplicate(_ channel: any Channel) -> Int32? {
        let duplicate = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
            fcntl($0, F_DUPFD_CLOEXEC, 0)
        }
        guard let descriptor = duplicate ?? nil, descriptor >= 0 else { return nil }
        return descriptor
    }
}

extension ConnectionHandler {
    /// Whether nothing but the socket itself holds state that handing it over would lose.
    var canHandOver: Bool {
        !isDatagram && servesReads && pending.isEmpty
            && failure == nil && tap == nil && recorder == nil && context != nil
    }

    /// Everything received and not yet read, as one handed-over socket; the buffer is emptied.
    func takeUnread(descriptor: Int32) -> HandedOverSocket {
        let (chunks, bytes) = takeUnread()
        var unread: [UInt8] = []
        unread.reserveCapacity(bytes)
        for chunk in chunks { unread.append(contentsOf: chunk.readableBytesView) }
        return HandedOverSocket(descriptor: descriptor, unread: unread, inputClosed: inputClosed)
    }
}
