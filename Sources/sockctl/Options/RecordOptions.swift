import ArgumentParser
import Recording
import SocketEngine

/// What differs between the commands that take `--record`: the help line, the refusal of a
/// Unix socket, and which side the process is.
protocol RecordScope {
    /// The help line of `--record`.
    static var help: String { get }
    /// The refusal of `--record` on a Unix socket (the command's own wording).
    static var unixRefusal: String { get }
    /// True for `connect` (the process is the client), false for the servers.
    static var localIsClient: Bool { get }
}

/// `--record FILE.pcap`, shared by connect, listen and proxy: checked with the command's other
/// options (``validate(transport:)``), opened before any traffic (``recorder(diagnostics:)``),
/// and reported once the work is done (``finish(_:diagnostics:)``).
struct RecordOptions<Scope: RecordScope>: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(Scope.help, valueName: "file.pcap"))
    var record: String?

    /// Refuses `--record` on a Unix socket (it records IP sessions) and an empty file name.
    func validate(transport: Endpoint.Transport) throws {
        guard let record else { return }
        if transport == .unix { throw UsageError(Scope.unixRefusal) }
        if record.isEmpty { throw UsageError("--record needs a file name") }
    }

    /// Opens the file and writes the pcap header, before any traffic; nil without `--record`.
    /// A file that cannot be written, found by either step, is a usage error (exit 2) naming it.
    func recorder(diagnostics: Diagnostics) throws -> SessionRecorder? {
        guard let record else { return nil }
        let file = try OutputFile.open(record, option: "--record", diagnostics: diagnostics)
        do {
            return try SessionRecorder(file: file, localIsClient: Scope.localIsClient)
        } catch {
            throw UsageError(error.message)
        }
    }

    /// Closes the file once the work is done and reports what was recorded.
    func finish(_ recorder: SessionRecorder?, diagnostics: Diagnostics) {
        if let recorder { diagnostics.log(recorder.finishAndReport()) }
    }
}

/// `connect --record`: the session.
enum ConnectRecording: RecordScope {
    static let help = "Write the traffic to this pcap file: the session, made-up Ethernet/IP/TCP or UDP headers around the real payload and times, for tcpdump, Wireshark and sockctl replay."
    static let unixRefusal = "--record records IP sessions (tcp, tls, udp, ws, wss), not unix:"
    static let localIsClient = true
}

/// `listen --record`: every client's session.
enum ListenRecording: RecordScope {
    static let help = "Write the traffic to this pcap file: every client's session, made-up Ethernet/IP/TCP headers around the real payload and times."
    static let unixRefusal = "listen --record records IP clients (tcp, tls, udp, ws, wss), not unix:"
    static let localIsClient = false
}

/// `proxy --record`: every client's session.
enum ProxyRecording: RecordScope {
    static let help = "Write the traffic to this pcap file: every client's session."
    static let unixRefusal = "proxy --record records IP clients, not a unix: listener"
    static let localIsClient = false
}
