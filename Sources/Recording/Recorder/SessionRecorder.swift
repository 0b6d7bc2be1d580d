import Dispatch
import NIOCore
import PacketDecoding
import SocketEngine
import Synchronization

import Glibc

/// `--record FILE.pcap`: writes every connection of a session as a pcap file — Ethernet, IP and
/// TCP/UDP headers made up around the real payload (``SyntheticConnection``), stamped with the
/// time each event happened.
///
/// The socket path never waits for the disk: events are stamped and queued on the event loop
/// under a short lock, and a writer queue turns them into packets and writes them. The queue
/// holds at most ``bufferLimit`` payload bytes; data beyond that is not kept — its bytes still
/// advance the sequence numbers (the file shows them as missing, not as a shorter stream) —
/// and ``finish()`` reports how much was dropped. Every drain is written through, so a session
/// that is killed leaves a file that ends at a packet boundary (libpcap reads it; only the
/// events still queued are lost).
///
/// Where the bytes go is the caller's: a file opened before the session (``init(file:localIsClient:)``,
/// an ``OutputFile``, which refuses a path it cannot write or a planted symbolic link) or any sink (as
/// swift-nio-extras' pcap handler does), which is how a test holds the writer back to see the
/// limit at work. Packets are stamped with `timestamp` (the wall clock by default: pcap files
/// carry real times).
public final class SessionRecorder: Sendable {
    /// Payload bytes that may wait for the writer by default.
    public static let defaultBufferLimit = 64 * 1024 * 1024

    /// What a recording holds, and what it lost.
    public struct Totals: Sendable, Equatable {
        /// Connections written to the file.
        public var connections = 0
        /// Packets written, the made-up handshakes and closes included.
        public var packets = 0
        /// Chunks of data the writer fell too far behind to keep (their bytes show as missing).
        public var droppedEvents = 0
        /// The payload bytes of those chunks: counted, not written.
        public var droppedBytes = 0
        /// Why writing stopped, if it did (the file is incomplete).
        public var writeError: String?
    }

    /// Seconds and nanoseconds since the epoch.
    public typealias Timestamp = @Sendable () -> (seconds: Int64, nanoseconds: UInt32)

    private struct Pending {
        var time: (seconds: Int64, nanoseconds: UInt32)
        var connection: UInt64
        var event: ConnectionRecordEvent
        /// Data not kept (the buffer was full): only its length.
        var skipped: Int
    }

    private struct Queue {
        var events: [Pending] = []
        var bytes = 0
        var draining = false
        var droppedEvents = 0
        var droppedBytes = 0
    }

    /// Only touched on `writerQueue`.
    private final class WriterState: @unchecked Sendable {
        var writer: PcapWriter?
        var connections: [UInt64: (synthetic: SyntheticConnection, localIsClient: Bool)] = [:]
        var totals = Totals()
        let close: @Sendable () -> Void

        init(close: @escaping @Sendable () -> Void) {
            self.close = close
        }
    }

    /// Where the recording goes, for messages (the file's path, or what the caller named it).
    public let name: String
    /// Payload bytes that may wait for the writer; beyond it data is counted, not kept.
    public let bufferLimit: Int
    private let queue = Mutex(Queue())
    private let writerQueue = DispatchQueue(label: "sockctl.record")
    private let state: WriterState
    /// Accepted connections are servers' (listen); connected ones are clients'.
    private let localIsClient: Bool
    private let timestamp: Timestamp

    /// Writes the pcap file header to `file` (opened by the caller, ``OutputFile/Mode/stream``)
    /// and everything recorded after it; ``finish()`` closes the file.
    public convenience init(file: OutputFile, localIsClient: Bool) throws(RecordingError) {
        try self.init(name: file.path, localIsClient: localIsClient, sink: { chunk in try file.write(chunk) }, close: {
            try? file.finish()
        })
    }

    /// Writes the pcap file header to `sink` and everything recorded after it; `close` runs once
    /// ``finish()`` has written the last packet.
    public init(
        name: String, localIsClient: Bool, bufferLimit: Int = SessionRecorder.defaultBufferLimit,
        timestamp: @escaping Timestamp = SessionRecorder.wallClock,
        sink: @escaping @Sendable ([UInt8]) throws -> Void, close: @escaping @Sendable () -> Void = {}
    ) throws(RecordingError) {
        self.name = name
        self.localIsClient = localIsClient
        self.bufferLimit = max(0, bufferLimit)
        self.timestamp = timestamp
        state = WriterState(close: close)
        do {
            state.writer = try PcapWriter(linkType: .ethernet, snapshotLength: 262_144, precision: .nanoseconds, write: sink)
        } catch {
            close()
            throw RecordingError(.recordingFailed, "recording to \(name): \(error)")
        }
    }

    /// The time of day, for packets' timestamps.
    public static let wallClock: Timestamp = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return (Int64(now.tv_sec), UInt32(clamping: now.tv_nsec))
    }

    /// The engine hook (``ConnectOptions/recorder``, ``ListenOptions/recorder``): stamps and
    /// queues an event, on the connection's event loop.
    public var hook: ConnectionRecorder {
        { [self] connection, event in self.enqueue(connection, event) }
    }

    private func enqueue(_ connection: UInt64, _ event: ConnectionRecordEvent) {
        let time = timestamp()
        var size = 0
        switch event {
        case .sent(let bytes), .received(let bytes): size = bytes.readableBytes
        default: break
        }
        let scheduleDrain = queue.withLock { queue -> Bool in
            var pending = Pending(time: time, connection: connection, event: event, skipped: 0)
            if size > 0 && queue.bytes + size > bufferLimit {
                queue.droppedEvents += 1
                queue.droppedBytes += size
                pending.skipped = size
                switch event {
                case .sent: pending.event = .sent(ByteBuffer())
                default: pending.event = .received(ByteBuffer())
                }
                size = 0
            }
            queue.events.append(pending)
            queue.bytes += size
            if queue.draining { return false }
            queue.draining = true
            return true
        }
        if scheduleDrain {
            writerQueue.async { [self] in drain() }
        }
    }

    /// On the writer queue: turns everything queued into packets and writes them.
    private func drain() {
        while true {
            let batch = queue.withLock { queue -> [Pending] in
                let events = queue.events
                queue.events.removeAll(keepingCapacity: true)
                queue.bytes = 0
                if events.isEmpty { queue.draining = false }
                return events
            }
            if batch.isEmpty { return }
            for pending in batch { write(pending) }
            flush()
        }
    }

    private func write(_ pending: Pending) {
        var frames: [[UInt8]] = []
        if case .opened(let local, let remote, let transport) = pending.event {
            guard let local = Self.endpoint(local), let remote = Self.endpoint(remote) else { return }
            let (client, server) = localIsClient ? (local, remote) : (remote, local)
            var synthetic = SyntheticConnection(client: client, server: server, tcp: transport != .udp)
            frames = synthetic.open()
            state.connections[pending.connection] = (synthetic, localIsClient)
            state.totals.connections += 1
        } else {
            guard var entry = state.connections[pending.connection] else { return }
            let local: SyntheticConnection.Side = entry.localIsClient ? .client : .server
            let remote: SyntheticConnection.Side = entry.localIsClient ? .server : .client
            switch pending.event {
            case .opened: break
            case .sent(let bytes):
                if pending.skipped > 0 { entry.synthetic.skip(pending.skipped, from: local) }
                frames = bytes.withUnsafeReadableBytes { entry.synthetic.data($0, from: local) }
            case .received(let bytes):
                if pending.skipped > 0 { entry.synthetic.skip(pending.skipped, from: remote) }
                frames = bytes.withUnsafeReadableBytes { entry.synthetic.data($0, from: remote) }
            case .finished(let direction):
                frames = entry.synthetic.finish(from: direction == .sent ? local : remote)
            case .reset(let direction):
                frames = entry.synthetic.reset(from: direction == .sent ? local : remote)
            case .closed:
                frames = entry.synthetic.close(first: local)
                state.connections[pending.connection] = nil
            }
            if case .closed = pending.event {} else { state.connections[pending.connection] = entry }
        }
        guard state.totals.writeError == nil else { return }
        for frame in frames {
            let header = PacketHeader(
                seconds: pending.time.seconds, fraction: pending.time.nanoseconds, precision: .nanoseconds,
                capturedLength: frame.count, originalLength: frame.count, linkType: .ethernet
            )
            do {
                try frame.withUnsafeBytes { try state.writer?.write(header, $0) }
                state.totals.packets += 1
            } catch {
                state.totals.writeError = "\(error)"
                return
            }
        }
    }

    private func flush() {
        guard state.totals.writeError == nil else { return }
        do {
            try state.writer?.flush()
        } catch {
            state.totals.writeError = "\(error)"
        }
    }

    /// Waits for everything queued to be written, closes the file and returns the totals.
    public func finish() -> Totals {
        writerQueue.sync {}
        // A drain may have been scheduled after the sync started: run what is left here.
        writerQueue.sync { drain() }
        return writerQueue.sync {
            flush()
            state.close()
            var totals = state.totals
            let dropped = queue.withLock { ($0.droppedEvents, $0.droppedBytes) }
            totals.droppedEvents = dropped.0
            totals.droppedBytes = dropped.1
            return totals
        }
    }

    private static func endpoint(_ address: SocketAddress?) -> TCPReassembler.Endpoint? {
        guard let address, let port = address.port, let text = address.ipAddress else { return nil }
        let mapped = text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
        if let v4 = Self.parseIPv4(mapped) {
            return TCPReassembler.Endpoint(address: .v4(v4), port: UInt16(clamping: port))
        }
        guard case .v6(let storage) = address else { return nil }
        var bytes = storage.address.sin6_addr
        let (high, low) = withUnsafeBytes(of: &bytes) { raw -> (UInt64, UInt64) in
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<8 { high = high << 8 | UInt64(raw[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(raw[index]) }
            return (high, low)
        }
        return TCPReassembler.Endpoint(address: .v6(high, low), port: UInt16(clamping: port))
    }

    private static func parseIPv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard let octet = UInt8(part) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }
}
