import NIOCore

/// The variables a child is given about its connection, on top of sockctl's own environment:
/// sockctl's names and, for programs written for ncat, ncat's.
///
/// | variable | value |
/// |---|---|
/// | `SOCKCTL_TRANSPORT` | the endpoint's scheme: `tcp`, `udp`, `unix`, `tls`, `ws`, `wss`, … |
/// | `SOCKCTL_PEER_ADDR`, `SOCKCTL_PEER_PORT` | the other side's address and port (Unix: the peer's path, if it has one, and no port) |
/// | `SOCKCTL_LOCAL_ADDR`, `SOCKCTL_LOCAL_PORT` | this side's address and port (Unix: the socket's path) |
/// | `NCAT_REMOTE_ADDR`, `NCAT_REMOTE_PORT`, `NCAT_LOCAL_ADDR`, `NCAT_LOCAL_PORT` | as ncat sets them (IP transports only) |
/// | `NCAT_PROTO` | `TCP` or `UDP`, as ncat (IP transports only) |
public struct ExecEnvironment: Sendable, Equatable {
    /// The variables, in the order above.
    public let variables: [(name: String, value: String)]

    /// The variables for a connection over `transport` between `local` and `peer`.
    public init(transport: Endpoint.Transport, local: SocketAddress?, peer: SocketAddress?) {
        var variables: [(String, String)] = [("SOCKCTL_TRANSPORT", transport.rawValue)]
        func parts(_ address: SocketAddress?) -> (String, String?)? {
            guard let address else { return nil }
            if case .unixDomainSocket = address { return (address.pathname ?? "", nil) }
            return (address.ipAddress ?? "", address.port.map(String.init))
        }
        let remote = parts(peer)
        let mine = parts(local)
        if let remote {
            variables.append(("SOCKCTL_PEER_ADDR", remote.0))
            if let port = remote.1 { variables.append(("SOCKCTL_PEER_PORT", port)) }
        }
        if let mine {
            variables.append(("SOCKCTL_LOCAL_ADDR", mine.0))
            if let port = mine.1 { variables.append(("SOCKCTL_LOCAL_PORT", port)) }
        }
        if transport != .unix {
            if let remote, let port = remote.1 {
                variables.append(("NCAT_REMOTE_ADDR", remote.0))
                variables.append(("NCAT_REMOTE_PORT", port))
            }
            if let mine, let port = mine.1 {
                variables.append(("NCAT_LOCAL_ADDR", mine.0))
                variables.append(("NCAT_LOCAL_PORT", port))
            }
            variables.append(("NCAT_PROTO", transport == .udp ? "UDP" : "TCP"))
        }
        self.variables = variables
    }

    /// `base` (`NAME=value` entries) with these variables set, replacing entries of the same names.
    package func applied(to base: [String]) -> [String] {
        let names = Set(variables.map { $0.name + "=" })
        let kept = base.filter { entry in
            guard let equals = entry.firstIndex(of: "=") else { return true }
            return !names.contains(String(entry[...equals]))
        }
        return kept + variables.map { "\($0.name)=\($0.value)" }
    }

    /// Equal when the same variables have the same values, in order.
    public static func == (lhs: ExecEnvironment, rhs: ExecEnvironment) -> Bool {
        lhs.variables.map(\.name) == rhs.variables.map(\.name) && lhs.variables.map(\.value) == rhs.variables.map(\.value)
    }
}
