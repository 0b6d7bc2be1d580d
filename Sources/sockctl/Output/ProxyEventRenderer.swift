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
        diagnostics.log(event.logLine)
        if jsonLog {
            write(Array((event.json(time: Timestamp.now()).rendered + "\n").utf8))
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

    /// The shutdown summary: on stderr, and as the last JSON object with `--json-log`.
    func summary(_ summary: RelaySummary) {
        diagnostics.note(summary.text)
        if jsonLog { write(Array((summary.json(time: Timestamp.now()).rendered + "\n").utf8)) }
    }

    private func write(_ bytes: [UInt8]) {
        output.withLock { _ in FileDescriptorWriter.standardOutput.write(bytes) }
    }
}
