import NIOCore
import PacketDecoding
import SocketEngine
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
/// An answer keeps its recorded delay after the client message it follows (divided by
/// `--speed`; none with `--topspeed`). What clients send is read and counted, not compared.
/// After the script the side that closed first in the recording closes first: the server sends
/// its FIN at once, or waits (at most `timeout`) for the client's. Clients are served side by
/// side until SIGINT or SIGTERM.
struct ReplayServer {
    enum Step {
        /// Wait for this many bytes (or frames, with framing) from the client.
        case await(Int)
        /// Send these bytes after this delay (from the end of the last wait).
        case send(ByteBuffer, after: Duration)
    }

    struct Script {
        var steps: [Step] = []
        var serverClosesFirst = false
    }

    /// Turns a stream's messages into the server's script.
    static func script(for stream: RecordedStream, framing: Framing?, maximumFrameSize: Int) -> Script {
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

    struct Totals {
        var clients = 0
        var bytesIn = 0
        var bytesOut = 0
        var errors = 0
    }

    /// The totals of every client, shared by their tasks.
    final class SharedTotals: Sendable {
        let value = Mutex(Totals())
    }

    let script: Script
    let framing: Framing?
    let maximumFrameSize: Int
    /// nil: top speed.
    let speed: Double?
    let timeout: Duration
    let diagnostics: Diagnostics

    /// Serves one client; never throws (a failure is logged and counted).
    func serve(_ connection: Connection, id: Int, totals: SharedTotals) async {
        let clock = ContinuousClock()
        let started = clock.now
        diagnostics.note("client \(id) connected from \(connection.label)")
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
                    let due = waitEnded + scaled(delay)
                    if clock.now < due { try await clock.sleep(until: due) }
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
        totals.value.withLock {
            $0.clients += 1
            $0.bytesIn += bytesIn
            $0.bytesOut += bytesOut
            if failure != nil { $0.errors += 1 }
        }
        let reason = failure.map { ": \($0.message)" } ?? ""
        diagnostics.note(
            "client \(id) from \(connection.label) disconnected after \((clock.now - started).formatted)"
                + " (\(bytesIn) bytes in, \(bytesOut) bytes out)\(reason)"
        )
    }

    private func scaled(_ offset: Duration) -> Duration {
        guard let speed else { return .zero }
        let nanoseconds = Double(offset.nanosecondsClamped) / speed
        guard nanoseconds.isFinite, nanoseconds < 9e18 else { return .seconds(1_000_000_000) }
        return .nanoseconds(Int64(nanoseconds))
    }
}
