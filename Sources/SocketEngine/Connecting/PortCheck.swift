/// Whether ports accept connections — `nc -z`: each port of a ``PortList`` is connected to, one
/// after the other, and closed at once, nothing sent.
///
/// Every connection goes through the ``Connector``, so names, Happy Eyeballs, the address
/// family, the source address, the interface and the connect timeout (nc's `-w`) all apply as
/// they do to any client. A port is open when a connection to it opened; closed when it was
/// refused, reset or not answered within the connect timeout (the ``Result`` keeps why). A host
/// name that does not resolve, or an option the connector refuses, ends the check: every port
/// would fail the same way.
///
/// ``stop()`` (SIGINT) ends the check in order: the port being tried is abandoned, the
/// ``Summary`` says what was checked and is marked interrupted.
public struct PortCheck: Sendable {
    /// What one port did.
    public struct Result: Sendable {
        /// The host as given (or the socket path of a `unix:` target).
        public let host: String
        /// The port (0 for a `unix:` target).
        public let port: Int
        /// The target's transport (`tcp` or `unix`).
        public let transport: Endpoint.Transport
        /// Open (with the address that answered) or closed (with why).
        public let outcome: Outcome

        /// True when a connection opened.
        public var isOpen: Bool {
            if case .open = outcome { true } else { false }
        }
    }

    /// How one port answered.
    public enum Outcome: Sendable {
        /// A connection opened, to this IP address (nil for `unix:`).
        case open(address: String?)
        /// No connection: refused, reset or no answer in time.
        case closed(SocketEngineError)
    }

    /// The whole check.
    public struct Summary: Sendable {
        /// Ports checked, in order.
        public var results: [Result] = []
        /// What ended the check before its last port: a name that does not resolve, a bad option.
        public var error: SocketEngineError?
        /// True when ``PortCheck/stop()`` ended the check early.
        public var interrupted = false

        /// True when at least one port was open: nc's exit status 0.
        public var anyOpen: Bool { results.contains(where: \.isOpen) }
    }

    /// The host (or `unix:` path) and how to connect; its port is not used.
    public let target: Endpoint
    /// The ports to check (unused for `unix:`).
    public let ports: PortList?
    /// How to connect: family, source, interface, connect timeout, resolver.
    public let options: ConnectOptions
    private let stopRequest = StopRequest()

    /// A check of `ports` on `target`'s host (`tcp`), or of `target` itself (`unix:`, no ports).
    ///
    /// - Throws: ``SocketEngineError`` (`.unsupported`) for a transport other than TCP and Unix:
    ///   a TLS, WebSocket or UDP target cannot be checked without speaking to it.
    public init(target: Endpoint, ports: PortList?, options: ConnectOptions = ConnectOptions()) throws(SocketEngineError) {
        guard target.transport == .tcp || target.transport == .unix else {
            throw SocketEngineError(.unsupported, "a port check opens TCP connections (or a Unix socket), not \(target.transport.rawValue)://")
        }
        self.target = target
        self.ports = target.transport == .unix ? nil : ports
        self.options = options
    }

    /// Ends the check early and in order (SIGINT): the port being tried is abandoned.
    public func stop() {
        stopRequest.request()
    }

    /// Checks every port in order, calling `onResult` with each as soon as it is known.
    public func run(_ onResult: @Sendable (Result) -> Void = { _ in }) async -> Summary {
        var summary = Summary()
        let endpoints: [Endpoint] = target.transport == .unix
            ? [target]
            : (ports?.ports ?? [target.port]).map { Endpoint(transport: .tcp, host: target.host, port: $0) }
        for endpoint in endpoints {
            if stopRequest.isRequested {
                summary.interrupted = true
                break
            }
            let connector = Connector(endpoint: endpoint, options: options)
            let outcome: Outcome
            do {
                let attempt = Task { try await connector.connect() }
                guard let (connection, report) = try await stopRequest.value(of: attempt, abandoned: { await $0.0.close() }) else {
                    summary.interrupted = true
                    break
                }
                await connection.close()
                outcome = .open(address: report.connectedAddress?.ipAddress)
            } catch {
                let failure = SocketEngineError.wrapping(error, context: "connect to \(endpoint)")
                if failure.isUsageError || failure.code == .resolutionFailed {
                    summary.error = failure
                    break
                }
                outcome = .closed(failure)
            }
            let result = Result(host: target.transport == .unix ? target.path : target.host, port: endpoint.port, transport: target.transport, outcome: outcome)
            summary.results.append(result)
            onResult(result)
        }
        return summary
    }
}
