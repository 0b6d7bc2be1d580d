import NIOCore
import NIOPosix

import Glibc

/// The one error type of the socket engine.
///
/// Every error has a ``Code`` (what kind of failure, stable for scripts and for counting by
/// kind), a one-line human ``message`` that names the endpoint or address involved, and, where
/// the kernel reported it, the underlying `errno`.
///
/// Not errors: a peer closing its side (reads return `nil`), a datagram answered by nobody
/// (that is a timeout only when a caller asked for a timeout).
public struct SocketEngineError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, by kind.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name scripts see (`connect-timeout`, `refused`), as in `send --json`.
        public let name: String
        init(_ name: String) { self.name = name }
        /// The code's ``name``.
        public var description: String { name }

        /// An endpoint string that does not follow the grammar (a usage error).
        package static let invalidEndpoint = Code("invalid-endpoint")
        /// A framing specification that does not follow the grammar (a usage error).
        package static let invalidFraming = Code("invalid-framing")
        /// Any other invalid configuration value (a usage error).
        package static let invalidConfiguration = Code("invalid-configuration")
        /// A transport that this build does not implement yet (a usage error).
        package static let unsupported = Code("unsupported")
        /// Name resolution failed or returned no usable address.
        package static let resolutionFailed = Code("resolution-failed")
        /// The peer refused the connection (`ECONNREFUSED`, or ICMP port unreachable for UDP).
        package static let connectionRefused = Code("refused")
        /// No connection could be established within the connect timeout.
        public static let connectTimeout = Code("connect-timeout")
        /// Every connection attempt failed; ``SocketEngineError/attempts`` lists them.
        public static let connectFailed = Code("connect-failed")
        /// The peer reset the connection (`ECONNRESET`, `EPIPE`).
        package static let connectionReset = Code("reset")
        /// A read request did not complete within its timeout.
        package static let readTimeout = Code("read-timeout")
        /// A write did not complete within its timeout.
        package static let writeTimeout = Code("write-timeout")
        /// No traffic in either direction for the idle timeout.
        public static let idleTimeout = Code("idle-timeout")
        /// A frame longer than the configured maximum; the connection is closed.
        package static let frameTooLarge = Code("frame-too-large")
        /// The peer closed in the middle of a frame.
        package static let truncatedFrame = Code("truncated-frame")
        /// Bytes that are not HTTP/1.1 where an HTTP message was expected (a bad start line,
        /// header, Content-Length or chunk), or a protocol switch where none was asked.
        package static let httpProtocol = Code("http-protocol")
        /// A client of a listener that takes the PROXY protocol sent no header, or a malformed
        /// one, or none in time.
        package static let proxyHeader = Code("proxy-header")
        /// The heartbeat saw nothing from the peer for too many intervals.
        public static let peerUnresponsive = Code("peer-unresponsive")
        /// Binding a listening or source address failed.
        package static let bindFailed = Code("bind-failed")
        /// The connection is closed and cannot carry the operation.
        package static let connectionClosed = Code("closed")
        /// The process ran out of file descriptors (`EMFILE`, `ENFILE`).
        package static let descriptorsExhausted = Code("fd-exhausted")
        /// No local port was free for the connection (`EADDRNOTAVAIL`).
        package static let portsExhausted = Code("ports-exhausted")
        /// Any other I/O error; see ``SocketEngineError/errno``.
        package static let ioError = Code("io-error")
        /// The TLS handshake failed, or the peer's certificate was refused (names the reason).
        package static let tlsFailed = Code("tls")
        /// A relay fault (`proxy --fault`) closed or reset the connection on purpose.
        package static let faultInjected = Code("fault")
        /// A server closed a client to free its place: it was below the minimum rate when a
        /// newcomer found the server full (the idle timeout has ``idleTimeout``).
        package static let clientShed = Code("shed")
        /// An output file or socket path that cannot be written (a usage error): no such
        /// directory, permission denied, a directory or a symbolic link in the way (``OutputFile``).
        public static let unusableOutput = Code("unusable-output")
    }

    /// One failed connection attempt to one resolved address.
    public struct Attempt: Sendable, Equatable, CustomStringConvertible {
        /// The address tried (`127.0.0.1:80`, `[::1]:80`).
        public let address: String
        /// How it failed (`connection refused (ECONNREFUSED)`, `no answer in time`, `not tried`).
        public let error: String
        /// `ADDRESS: ERROR`.
        public var description: String { "\(address): \(error)" }
    }

    /// What kind of failure this is.
    public let code: Code
    /// One line, naming the endpoint, address or value involved, and the settings by key.
    public let text: SettingText
    /// The `errno` the kernel reported, when there was one.
    package let errno: Int32?
    /// For ``Code/connectFailed`` and ``Code/connectTimeout``: every address tried and how it failed.
    public let attempts: [Attempt]

    /// An error of kind `code` with a one-line `text` naming what was involved.
    ///
    /// There is deliberately no overload taking a `String`: the type checker prefers it for any
    /// string literal (`@_disfavoredOverload` does not outweigh a literal's default type on an
    /// initializer), so `"TLS: \(reason)"` would become the reason's plain words and lose its
    /// settings. A literal is always a ``SettingText``; words already in a `String` are passed
    /// as `SettingText(words)`.
    public init(_ code: Code, _ text: SettingText, errno: Int32? = nil, attempts: [Attempt] = []) {
        self.code = code
        self.text = text
        self.errno = errno
        self.attempts = attempts
    }

    /// The ``text`` in plain words (each setting by its ``SettingKey/plainName``); the CLI
    /// renders ``text`` with its flags instead.
    public var message: String { text.description }

    /// The ``message``.
    public var description: String { message }

    /// True for errors caused by the command line rather than by the network.
    public var isUsageError: Bool {
        [.invalidEndpoint, .invalidFraming, .invalidConfiguration, .unsupported, .unusableOutput].contains(code)
    }
}

extension SocketEngineError {
    /// Translates any error coming out of NIO or the kernel into an engine error.
    ///
    /// - Parameter context: what was being done, e.g. `"connect to 127.0.0.1:80"`.
    public static func wrapping(_ error: any Error, context: String) -> SocketEngineError {
        if let engine = error as? SocketEngineError { return engine }
        let (code, reason, errno) = classify(error)
        return SocketEngineError(code, "\(context): \(reason)", errno: errno)
    }

    /// The kind of `error` and a short reason without context: `connection refused (ECONNREFUSED)`;
    /// an engine error's reason is its text, its settings kept.
    static func classify(_ error: any Error) -> (Code, SettingText, Int32?) {
        if let engine = error as? SocketEngineError { return (engine.code, engine.text, engine.errno) }
        if let io = error as? IOError {
            return (code(forErrno: io.errnoCode), SettingText(describe(errno: io.errnoCode)), io.errnoCode)
        }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout(let amount):
                return (.connectTimeout, "timed out after \(describe(amount))", nil)
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof:
                return (.connectionClosed, "connection closed", nil)
            default:
                return (.ioError, "\(channel)", nil)
            }
        }
        if let address = error as? SocketAddressError {
            return (.invalidConfiguration, "\(address)", nil)
        }
        return (.ioError, "\(error)", nil)
    }

    static func code(forErrno value: CInt) -> Code {
        switch value {
        case ECONNREFUSED: return .connectionRefused
        case ECONNRESET, EPIPE, ECONNABORTED: return .connectionReset
        case ETIMEDOUT: return .connectTimeout
        case EMFILE, ENFILE: return .descriptorsExhausted
        case EADDRNOTAVAIL: return .portsExhausted
        case EADDRINUSE, EACCES: return .bindFailed
        default: return .ioError
        }
    }

    /// `"connection refused (ECONNREFUSED)"`.
    static func describe(errno value: CInt) -> String {
        let text = String(cString: strerror(value)).lowercased()
        if let name = errnoNames[value] { return "\(text) (\(name))" }
        return "\(text) (errno \(value))"
    }

    static func describe(_ amount: TimeAmount) -> String {
        let nanoseconds = amount.nanoseconds
        if nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000)s" }
        if nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000)ms" }
        return "\(Double(nanoseconds) / 1e6)ms"
    }

    private static let errnoNames: [CInt: String] = [
        ECONNREFUSED: "ECONNREFUSED", ECONNRESET: "ECONNRESET", EPIPE: "EPIPE", ETIMEDOUT: "ETIMEDOUT",
        EHOSTUNREACH: "EHOSTUNREACH", ENETUNREACH: "ENETUNREACH", EADDRINUSE: "EADDRINUSE",
        EADDRNOTAVAIL: "EADDRNOTAVAIL", EACCES: "EACCES", EMFILE: "EMFILE", ENFILE: "ENFILE",
        ECONNABORTED: "ECONNABORTED", ENOENT: "ENOENT", EAFNOSUPPORT: "EAFNOSUPPORT", ENODEV: "ENODEV",
        EPERM: "EPERM", EINVAL: "EINVAL", ENOTSOCK: "ENOTSOCK", ENOBUFS: "ENOBUFS",
    ]
}
