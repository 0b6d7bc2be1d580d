import NIOCore

/// The local end a client binds before it connects: an address or a name, optionally with a
/// port — `ADDR`, `ADDR:PORT`, `[V6]` or `[V6]:PORT` (`127.0.0.5`, `[::1]:40000`).
///
/// Read once, where the value is given, so that a mistake is reported once (not by each
/// connection) and every connecting path — the engine's ``Connector``, a load test's event loops
/// and threads — binds the same thing. A bare IPv6 address (`::1`, more than one colon) is a
/// host without a port. The port is 0 (any) unless given, and must lie in 0…65535.
public struct SourceAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address or name to resolve (without brackets).
    public let host: String
    /// The port to bind; 0: any.
    public let port: Int
    /// The value as it was written.
    public let description: String

    /// Reads `ADDR`, `ADDR:PORT`, `[V6]` or `[V6]:PORT`; throws `.invalidConfiguration` for an
    /// empty address, a port that is not a number from 0 to 65535, or text after a bracketed
    /// address.
    public init(parsing text: String) throws(SocketEngineError) {
        let form = "expected ADDRESS[:PORT], e.g. 127.0.0.1 or [::1]:40000"
        description = text
        guard !text.isEmpty, text != "[]" else {
            throw SocketEngineError(.invalidConfiguration, "invalid source address '\(text)' (\(form))")
        }
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty {
                port = 0
                return
            }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65535).contains(port) else {
                throw SocketEngineError(.invalidConfiguration, "invalid source address '\(text)' (\(form))")
            }
            self.port = port
            return
        }
        guard text.filter({ $0 == ":" }).count == 1, let colon = text.lastIndex(of: ":") else {
            host = text
            port = 0
            return
        }
        guard let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw SocketEngineError(.invalidConfiguration, "invalid source port in '\(text)' (\(form), a port from 0 to 65535)")
        }
        host = String(text[..<colon])
        self.port = port
    }

    /// The addresses to bind, in the resolver's order; throws `.invalidConfiguration` (a name
    /// that does not resolve is the configuration's mistake, not the peer's).
    package func resolve(_ resolver: any HostResolver, datagram: Bool) async throws(SocketEngineError) -> [SocketAddress] {
        do {
            return try await resolver.resolve(host: host, port: port, datagram: datagram)
        } catch let error as SocketEngineError {
            throw SocketEngineError(.invalidConfiguration, "source address: \(error.text)")
        } catch {
            throw SocketEngineError(.invalidConfiguration, "source address: \(error)")
        }
    }
}
