import NIOCore
import PacketDecoding
import Recording
import SocketEngine
import Synchronization

/// What `proxy` prints as it relays, by the output rule every command keeps (README "Output"):
/// the client log on stderr (without the per-client lines under `-q`); `--hexdump` chunks on
/// stderr, as every command prints them (``HexdumpPrinter``); `--print-messages` messages on
/// stdout — or, with `--json`, one JSON object per event on stdout and the messages on stderr
/// with the rest of the human text. Lines from concurrent clients never interleave.
final class ProxyEventRenderer: Sendable {
    private let diagnostics: Diagnostics
    private let hexdump: Bool
    private let printMessages: Bool
    private let jsonLog: Bool
    private let quiet: Bool
    /// How messages were cut: HTTP ones are shown as HTTP (``MessageRenderer``).
    private let framing: Framing
    private let output = Mutex(())

    init(diagnostics: Diagnostics, hexdump: Bool, printMessages: Bool, jsonLog: Bool, quiet: Bool = false, framing: Framing = .raw) {
        self.framing = framing
        self.diagnostics = diagnostics
        self.hexdump = hexdump
        self.printMessages = printMessages
        self.jsonLog = jsonLog
        self.quiet = quiet
    }

    func render(_ event: RelayEvent) {
        diagnostics.log(quiet ? event.logLine?.keptWhenQuiet : event.logLine)
        if jsonLog {
            write(Array((event.json(time: Timestamp.now(), naming: OptionNames.flag).rendered + "\n").utf8), to: .standardOutput)
        }
        switch event {
        case .data(let client, let direction, let bytes) where hexdump:
            let what = direction == .up ? "client \(client.id) (\(client.peer)) to upstream" : "upstream to client \(client.id) (\(client.peer))"
            HexdumpPrinter.standard.print(outgoing: direction == .up, what, bytes)
        case .message(let client, let direction, let bytes) where printMessages:
            var line = Array("\(Timestamp.now()) client \(client.id) \(direction.arrow)".utf8)
            MessageRenderer.append(bytes, framing: framing, into: &line)
            write(line, to: jsonLog ? .standardError : .standardOutput)
        default:
            break
        }
    }

    /// The shutdown summary: on stderr, and as the last JSON object with `--json`.
    func summary(_ summary: RelaySummary) {
        diagnostics.note(summary.text)
        if jsonLog { write(Array((summary.json(time: Timestamp.now()).rendered + "\n").utf8), to: .standardOutput) }
    }

    private func write(_ bytes: [UInt8], to writer: FileDescriptorWriter) {
        output.withLock { _ in writer.write(bytes) }
    }
}
