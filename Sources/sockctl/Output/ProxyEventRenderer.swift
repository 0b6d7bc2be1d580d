import NIOCore
import PacketDecoding
import Recording
import SocketEngine
import Synchronization

/// What `proxy` prints as it relays: the client log on stderr; on stdout the live view —
/// `--hexdump` chunks in the tcpdump -X layout, `--print-messages` messages — or, with
/// `--json-log`, one JSON object per event. Lines from concurrent clients never interleave.
final class ProxyEventRenderer: Sendable {
    private let diagnostics: Diagnostics
    private let hexdump: Bool
    private let printMessages: Bool
    private let jsonLog: Bool
    private let output = Mutex(())

    init(diagnostics: Diagnostics, hexdump: Bool, printMessages: Bool, jsonLog: Bool) {
        self.diagnostics = diagnostics
        self.hexdump = hexdump
        self.printMessages = printMessages
        self.jsonLog = jsonLog
    }

    func render(_ event: RelayEvent) {
        log(event)
        if jsonLog {
            if let json = Self.json(event) { write(Array((json.rendered + "\n").utf8)) }
            return
        }
        switch event {
        case .data(let client, let direction, let bytes) where hexdump:
            var line = Array("\(Timestamp.now()) client \(client.id) \(direction.arrow) \(bytes.readableBytes) bytes".utf8)
            bytes.withUnsafeReadableBytes { HexDump.appendHexAndASCII($0, into: &line) }
            line.append(0x0A)
            write(line)
        case .message(let client, let direction, let bytes) where printMessages:
            var line = Array("\(Timestamp.now()) client \(client.id) \(direction.arrow)".utf8)
            bytes.withUnsafeReadableBytes { MessageRenderer.append($0, into: &line) }
            write(line)
        default:
            break
        }
    }

    /// The stderr line of an event, if it has one.
    private func log(_ event: RelayEvent) {
        switch event {
        case .clientConnected(let client):
            diagnostics.note("client \(client.id) connected from \(client.peer)")
        case .upstreamConnected(let client, let address):
            diagnostics.event("client \(client.id): upstream connected to \(address)")
        case .upstreamFailed(let client, let error):
            diagnostics.warning("client \(client.id): \(error.message)")
        case .fault(let client, let direction, let what):
            diagnostics.event("client \(client.id) \(direction.arrow) \(what)")
        case .finished(let client, let direction):
            diagnostics.event("client \(client.id) \(direction.arrow) finished (\(direction == .up ? "client" : "upstream") sent its end)")
        case .clientDisconnected(let client, let bytesUp, let bytesDown, let duration, let error):
            let reason = error.map { ": \($0.message)" } ?? ""
            diagnostics.note(
                "client \(client.id) from \(client.peer) disconnected after \(duration.formatted)"
                    + " (\(bytesUp) bytes up, \(bytesDown) bytes down)\(reason)"
            )
        case .rejected(let peer, let reason):
            diagnostics.note("refused \(peer): \(reason)")
        case .data, .message:
            break
        }
    }

    /// The shutdown summary: on stderr, and as the last JSON object with `--json-log`.
    func summary(_ summary: RelaySummary) {
        var parts = [plural(summary.clients, "client"), "\(summary.bytesUp) bytes up", "\(summary.bytesDown) bytes down"]
        if summary.upstreamFailures > 0 { parts.append("\(summary.upstreamFailures) upstream connections failed") }
        if summary.rejected > 0 { parts.append("\(summary.rejected) refused") }
        if summary.dropped > 0 { parts.append("\(summary.dropped) dropped") }
        if summary.discardedBytes > 0 { parts.append("\(summary.discardedBytes) bytes discarded by faults") }
        if summary.resets > 0 { parts.append("\(plural(summary.resets, "reset"))") }
        diagnostics.note("summary: " + parts.joined(separator: ", ") + " in \(summary.duration.formatted)")
        guard jsonLog else { return }
        let json = JSONValue.object([
            ("time", .string(Timestamp.now())), ("event", .string("summary")),
            ("clients", .int(summary.clients)), ("bytes_up", .int(summary.bytesUp)), ("bytes_down", .int(summary.bytesDown)),
            ("upstream_failures", .int(summary.upstreamFailures)), ("refused", .int(summary.rejected)),
            ("dropped", .int(summary.dropped)), ("discarded_bytes", .int(summary.discardedBytes)), ("resets", .int(summary.resets)),
            ("duration_ms", .double(summary.duration.milliseconds)),
        ])
        write(Array((json.rendered + "\n").utf8))
    }

    private func write(_ bytes: [UInt8]) {
        output.withLock { _ in FileDescriptorWriter.standardOutput.write(bytes) }
    }

    private static func json(_ event: RelayEvent) -> JSONValue? {
        var members: [(String, JSONValue)] = [("time", .string(Timestamp.now()))]
        func client(_ client: RelayClient) {
            members.append(("client", .int(client.id)))
            members.append(("peer", .string(client.peer)))
        }
        switch event {
        case .clientConnected(let info):
            members.append(("event", .string("connect")))
            client(info)
        case .upstreamConnected(let info, let address):
            members.append(("event", .string("upstream")))
            client(info)
            members.append(("upstream", .string(address)))
        case .upstreamFailed(let info, let error):
            members.append(("event", .string("upstream-failed")))
            client(info)
            members.append(("error", .string(error.message)))
        case .data(let info, let direction, let bytes):
            members.append(("event", .string("data")))
            client(info)
            members.append(("direction", .string(direction.rawValue)))
            members.append(("data", JSONValue.body(bytes)))
        case .message(let info, let direction, let bytes):
            members.append(("event", .string("message")))
            client(info)
            members.append(("direction", .string(direction.rawValue)))
            members.append(("message", JSONValue.body(bytes)))
        case .fault(let info, let direction, let what):
            members.append(("event", .string("fault")))
            client(info)
            members.append(("direction", .string(direction.rawValue)))
            members.append(("fault", .string(what)))
        case .finished(let info, let direction):
            members.append(("event", .string("finish")))
            client(info)
            members.append(("direction", .string(direction.rawValue)))
        case .clientDisconnected(let info, let bytesUp, let bytesDown, let duration, let error):
            members.append(("event", .string("disconnect")))
            client(info)
            members += [("bytes_up", .int(bytesUp)), ("bytes_down", .int(bytesDown)), ("duration_ms", .double(duration.milliseconds))]
            members.append(("error", error.map { .string($0.message) } ?? .null))
        case .rejected(let peer, let reason):
            members += [("event", .string("refused")), ("peer", .string(peer)), ("reason", .string(reason))]
        }
        return .object(members)
    }
}
