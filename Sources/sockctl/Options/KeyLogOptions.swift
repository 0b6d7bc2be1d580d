import ArgumentParser
import Foundation
import SocketEngine
import SocketEngineTLS

/// `--keylog FILE`, and `SSLKEYLOGFILE` when it is absent: where the TLS secrets of every
/// connection go (NSS key log format), for Wireshark, tshark and `capture --keylog`. Shared by
/// connect, send, replay, loadtest (in ``TLSOptions``), listen and proxy (in
/// ``ListenTLSOptions``; proxy logs both its sides to the one file).
///
/// `SSLKEYLOGFILE` only adds observation, so it is honoured by default as curl and browsers
/// do, with one line under `-v`; `--keylog` wins over it. The file is opened before any
/// traffic — one line naming it and the reason when it cannot be — and only when a side speaks
/// TLS.
struct KeyLogOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "TLS key log file (NSS format, as SSLKEYLOGFILE): the secrets of every connection are appended to it, for Wireshark, tshark and capture --keylog; created 0600, never through a symbolic link; a write that fails is said once and the run goes on. Default: $SSLKEYLOGFILE.",
            valueName: "file"))
    var keylog: String?

    /// The environment variable honoured when `--keylog` is absent.
    static let environmentVariable = "SSLKEYLOGFILE"

    /// Refuses `--keylog` when no side speaks TLS (an empty name too).
    func validate(secured: Bool) throws {
        guard let keylog else { return }
        if keylog.isEmpty { throw UsageError("--keylog needs a file name") }
        if !secured { throw UsageError("--keylog needs a tls://, wss:// or https:// endpoint") }
    }

    /// The key log writer, opened now (before any traffic): `--keylog`, else a non-empty
    /// `SSLKEYLOGFILE` (said under `-v`); nil when neither is given, when no side speaks TLS
    /// (`secured`), or without `diagnostics` (the checks of `validate()`, which open nothing).
    /// A file that cannot be opened is a usage error (exit 2), one line naming it; the first
    /// write that fails later (a full disk) is one warning line naming the file and the
    /// system's reason, and the run goes on.
    func writer(secured: Bool, diagnostics: Diagnostics?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TLSKeyLogWriter? {
        try validate(secured: secured)
        guard secured, let diagnostics else { return nil }
        let (path, origin): (String, String)
        if let keylog {
            (path, origin) = (keylog, "--keylog")
        } else if let variable = environment[Self.environmentVariable], !variable.isEmpty {
            (path, origin) = (variable, Self.environmentVariable)
        } else {
            return nil
        }
        do {
            let writer = try TLSKeyLogWriter(path: path, onFirstFailure: { (failure: SocketEngineError) in
                diagnostics.warning("\(origin) \(failure.message) (TLS secrets are being lost; the connections go on)")
            })
            if origin == Self.environmentVariable {
                diagnostics.event("TLS keys go to \(path) (\(Self.environmentVariable); --keylog FILE to choose another)")
            }
            return writer
        } catch {
            diagnostics.error("\(origin) \(error.message)")
            throw CommandFailed(status: 2)
        }
    }
}
