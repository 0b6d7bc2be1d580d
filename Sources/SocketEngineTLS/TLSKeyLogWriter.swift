import NIOCore
import NIOSSL
import SocketEngine
import Synchronization

/// The TLS secrets of every connection of a layer, written to a key log file in the NSS format
/// (`CLIENT_RANDOM <client random> <secret>`, `CLIENT_HANDSHAKE_TRAFFIC_SECRET …`, one line per
/// secret, as BoringSSL gives them) for Wireshark, tshark and `capture --keylog`.
///
/// The file is an ``OutputFile`` in ``OutputFile/Mode/append``: created mode 0600, never
/// through a symbolic link, an existing file appended to, never truncated. Each line is one
/// `write(2)` on the `O_APPEND` descriptor, so the lines of concurrent connections — on every
/// event loop, on loadtest's threads, in other processes writing the same file — never
/// interleave. One writer may serve several layers (proxy's two sides).
///
/// Writing a line never fails the connection: a failed write (a full disk) is counted and the
/// first failure kept (``firstFailure``), for the caller to say once.
public final class TLSKeyLogWriter: Sendable {
    /// The file's path as given.
    public var path: String { file.path }
    private let file: OutputFile
    private let state = Mutex(State())

    private struct State {
        var lines = 0
        var failures = 0
        var firstFailure: SocketEngineError?
    }

    /// Opens (or creates) the key log at `path`, or throws `.unusableOutput` with the reason:
    /// a symbolic link, permission denied, no such directory, a directory.
    public init(path: String) throws(SocketEngineError) {
        file = try OutputFile.open(path, mode: .append)
    }

    /// The callback NIOSSL calls with each secret's line (newline included).
    var callback: NIOSSLKeyLogCallback {
        { [self] line in write(line) }
    }

    /// Appends one line (one `write(2)`).
    func write(_ line: ByteBuffer) {
        let failure: SocketEngineError? = line.withUnsafeReadableBytes { raw in
            do throws(SocketEngineError) {
                try file.write(raw)
                return nil
            } catch {
                return error
            }
        }
        state.withLock { state in
            if let failure {
                state.failures += 1
                if state.firstFailure == nil { state.firstFailure = failure }
            } else {
                state.lines += 1
            }
        }
    }

    /// How many lines were written.
    public var linesWritten: Int { state.withLock { $0.lines } }

    /// The first write that failed, if any (later ones are only counted).
    public var firstFailure: SocketEngineError? { state.withLock { $0.firstFailure } }

    /// Closes the file; lines NIOSSL gives afterwards are counted as failures.
    public func close() {
        try? file.finish()
    }
}
