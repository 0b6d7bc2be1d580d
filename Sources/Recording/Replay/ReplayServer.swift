import NIOCore
import PacketDecoding
import SocketEngine
import Clocks
import Synchronization

/// `replay --as-server`: a mock server made from a capture. Every client that connects gets the
/// recorded server side, each answer sent only once the client has sent what the recorded client
/// had sent before it.
///
/// ```
/// recording:  c "HELLO\n"  s "HI\n"  s "READY\n"  c "GET x\n"  s "DATA\n"  s FIN
/// script:     wait 6 bytes → send "HI\n", "READY\n" → wait 6 bytes → send "DATA\n" → FIN
/// --framing line:  wait 1 frame → …   (requests may differ in length: ids, timestamps)
/// ```
///
/// An answer keeps its recorded delay after the client message it follows (divided by the
/// speed's factor; none at top speed). What clients send is read and counted, not compared.
/// After the script the side that closed first in the recording closes first: the server sends
/// its FIN at once, or waits (at most `timeout`) for the client's. Clients are served side by
/// side until SIGINT or SIGTERM.
public final class ReplayServer: Sendable {
    /// One step of the recorded server's part.
    public enum Step: Sendable, Equatable {
        /// Wait for this many bytes (or frames, with framing) from the client.
        case await(Int)
        /// Send these bytes after this delay (from the end of the last wait).
        case send(ByteBuffer, after: Duration)
    }

    /// The recorded server's part, in order.
    public struct Script: Sendable, Equatable {
        package var steps: [Step] = []
        package var serverClosesFirst = false

        /// A script made by hand: these steps, then the server's FIN at once when
        /// `serverClosesFirst`, else a wait for the client's.
        public init(steps: [Step] = [], serverClosesFirst: Bool = false) {
            self.steps = steps
            self.serverClosesFirst = serverClosesFirst
        }
    }

    /// What the server reports about each client.
    public enum Event: Sendable {
        case clientConnected(id: Int, peer: String)
        case clientDisconnected(id: Int, peer: String, after: Duration, bytesIn: Int, bytesOut: Int, error: SocketEngineError?)
    }

    /// Turns a stream's messages into the server's script.
    public static func script(for stream: RecordedStream, framing: Framing?, maximumFrameSize: Int) -> Script {
        var script = Script()
        var decoder = framing.map { FrameDecoder(framing: $0, maximumFrameSize: maximumFrameSize) }
        var clientBuffer = ByteBuffer()
        var pending = 0
        var lastClientTime = stream.firstTime
        func flushWait() {
            if pending > 0 {
                script.steps.append(.await(pending))
                pending = 0
            }
        }
        for message in stream.messages {
            switch message.side {
            case .client:
                lastClientTime = message.time
                if decoder == nil {
                    pending += message.bytes.count
                    continue
                }
                clientBuffer.writeBytes(message.bytes)
                while var frames = decoder {
                    let frame = try? frames.decode(&clientBuffer, atEOF: false)
                    decoder = frames
                    guard frame != nil else { break }
                    pending += 1
                }
            case .server:
                flushWait()
                let delay = Duration.nanoseconds(max(0, message.time - lastClientTime))
                script.steps.append(.send(ByteBuffer(bytes: message.bytes), after: delay))
            }
        }
        // Client bytes after the last answer need no waiting: they are read until the client closes.
        if let serverFIN = stream.serverCounters.finTime {
            script.serverClosesFirst = stream.clientCounters.finTime.map { serverFIN < $0 } ?? true
        }
        return script
    }

    /// Every client's figures added up.
    public struct Totals: Sendable, Equatable {
        /// Clients served to the end (connected, then closed).
        public var clients = 0
        /// Bytes received from all of them.
        public var bytesIn = 0
        /// Bytes sent to all of them.
        public var bytesOut = 0
        /// Clients whose session ended in an error (a timeout, an early close, a failed write).
        public var errors = 0
    }

    /// What every client is served: the ``Step``s in order, and which side closes first.
    public let script: Script
    /// How a client's messages are counted while the script waits: nil counts bytes, else frames
    /// of this framing.
    public let framing: Framing?
    /// The largest frame body read from a client with ``framing``; a longer one ends that
    /// client's session with an error.
    public let maximumFrameSize: Int
    /// The recorded pace times a factor, or top speed.
    public let speed: ReplaySpeed
    /// How long a client may stay silent while the script waits for it.
    public let timeout: Duration
    /// Schedules the answers' delays.
    package let clock: EngineClock
    private let totals = Mutex(Totals())
    private let onEvent: @Sendable (Event) -> Void

    /// A server that plays `script` to every client; `clock` schedules the answers' delays and
    /// `onEvent` hears of each client that connects and leaves.
    public init(
        script: Script, framing: Framing?, maximumFrameSize: Int, speed: ReplaySpeed, timeout: Duration,
        clock: EngineClock = .system, onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.script = script
        self.framing = framing
        self.maximumFrameSize = maximumFrameSize
        self.speed = speed
        self.timeout = timeout
        self.clock = clock
        self.onEvent = onEvent
    }

    /// The figures of every client served so far.
    public var served: Totals { totals.withLock { $0 } }

    /// Serves every connection the listener accepts, side by side, until it closes.
    public func serve(_ listener: Listener) async {
        await withTaskGroup(of: Void.self) { group in
            var id = 0
            for await connection in listener.connections {
                id += 1
                let clientID = id
                group.addTask { await self.serve(connection, id: clientID) }
            }
            group.cancelAll()
        }
    }

    /// Serves one client; never throws (a failure is reported and counted).
    public func serve(_ connection: Connection, id: Int) async {
        let started = clock.now
        onEvent(.clientConnected(id: id, peer: connection.label))
        var failure: SocketEngineError?
        do {
            var waitEnded = clock.now
            for step in script.steps {
                switch step {
                case .await(let count):
                    for _ in 0..<count where framing != nil {
                        guard try await connection.readFrame(framing ?? .raw, maxFrameSize: maximumFrameSize, timeout: timeout) != nil else {
                            throw SocketEngineError(.connectionClosed, "\(connection.label): the client closed before sending what the recording's client sent")
                        }
                    }
                    if framing == nil {
                        guard try await connection.read(.exactly(count), timeout: timeout) != nil else {
                            throw SocketEngineError(.connectionClosed, "\(connection.label): the client closed before sending what the recording's client sent")
                        }
                    }
                    waitEnded = clock.now
                case .send(let bytes, let delay):
                    try await clock.sleep(until: waitEnded.advanced(by: speed.scaled(delay)))
                    try await connection.write(bytes, timeout: timeout)
                }
            }
            if script.serverClosesFirst {
                try await connection.closeWrite()
            }
            // Whatever else the client sends is read and counted until it closes.
            while try await connection.read(.available(maxLength: 1 << 20), timeout: timeout) != nil {}
        } catch let error as SocketEngineError where error.code == .readTimeout {
            failure = SocketEngineError(.readTimeout, "\(connection.label): nothing from the client for \(timeout.formatted)")
        } catch {
            failure = SocketEngineError.wrapping(error, context: connection.label)
        }
        await connection.close()
        let bytesIn = connection.statistics.bytesReceived
        let bytesOut = connection.statistics.bytesSent
        totals.withLock {
            $0.clients += 1
            $0.bytesIn += bytesIn
            $0.bytesOut += bytesOut
            if failure != nil { $0.errors += 1 }
        }
        onEvent(.clientDisconnected(
            id: id, peer: connection.label, after: clock.elapsed(since: started), bytesIn: bytesIn, bytesOut: bytesOut, error: failure
        ))
    }
}
