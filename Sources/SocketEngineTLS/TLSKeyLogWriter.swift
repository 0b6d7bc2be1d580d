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
/// Writing a line never fails the connection: a failed write (a full disk) is counted, the
/// first failure kept (``firstFailure``) and handed, once, to the caller's `onFirstFailure`
/// as it happens (the command line says it on stderr; losing keys must not lose the traffic).
public final class TLSKeyLogWriter: Sendable {
    /// The file's path as given.
    public var path: String { file.path }
    private let file: OutputFile
    private let state = Mutex(State())
    private let onFirstFailure: (@Sendable (SocketEngineError) -> Void)?

    private struct State {
        var lines = 0
        var failures = 0
        var firstFailure: SocketEngineError?
    }

    /// Opens (or creates) the key log at `path`, or throws `.unusableOutput` with the reason:
    /// a symbolic link, permission denied, no such directory, a directory. `onFirstFailure` is
    /// called once, on the thread of the write, with the first write that fails (an `.ioError`
    /// naming the path and the system's reason).
    public init(path: String, onFirstFailure: (@Sendable (SocketEngineError) -> Void)? = nil) throws(SocketEngineError) {
        file = try OutputFile.open(path, mode: .append)
        self.onFirstFailure = onFirstFailure
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
        let first = state.withLock { state -> Bool in
            guard let failure else {
                state.lines += 1
                return false
            }
            state.failures += 1
            guard state.firstFailure == nil else { return false }
            state.firstFailure = failure
            return true
        }
        if first, let failure { onFirstFailure?(failure) }
    }

    /// How many writes failed.
    public var failedWrites: Int { state.withLock { $0.failures } }

    /// How many lines were written.
    public var linesWritten: Int { state.withLock { $0.lines } }

    /// The first write that failed, if any (later ones are only counted).
    public var firstFailure: SocketEngineError? { state.withLock { $0.firstFailure } }

    /// Closes the file; lines NIOSSL gives afterwards are counted as failures.
    public func close() {
        try? file.finish()
    }
}
