import Glibc

/// Who a client expects the server to be: the one name or address its certificate must carry.
///
/// The rule, in one place for every client path (connect, send, replay, loadtest on event loops
/// and on threads, the proxy's upstream): the server name of ``TLSClientOptions/serverName``
/// when there is one, and that name alone; otherwise the endpoint's host as it was written. An
/// address literal (`127.0.0.1`, `::1`, `[::1]`) is matched against the certificate's IP
/// entries only and is never sent in SNI; a name is sent in SNI and matched against the DNS
/// entries only (see ``CertificateNames``). The address the socket happens to be connected to
/// plays no part: a certificate for `localhost, 127.0.0.1` is not valid for `evil.example`
/// because the connection went to 127.0.0.1.
enum PeerIdentity: Equatable, Sendable {
    /// A DNS name, as written (compared without regard to ASCII case or a trailing dot).
    case name(String)
    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address, and how it was written.
    case address([UInt8], String)

    /// `text` read as an address literal if it is one (brackets and an IPv6 zone are allowed,
    /// and ignored), as a name otherwise.
    init(_ text: String) {
        var literal = Substring(text)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        if let percent = literal.firstIndex(of: "%") { literal = literal[..<percent] }
        if let bytes = Self.addressBytes(String(literal)) {
            self = .address(bytes, text)
        } else {
            self = .name(text)
        }
    }

    /// The name to send in SNI: the name, never an address.
    var serverNameIndication: String? {
        if case .name(let name) = self { return name }
        return nil
    }

    /// As written, for messages.
    var text: String {
        switch self {
        case .name(let name): name
        case .address(_, let text): text
        }
    }

    /// The network-order bytes of an IPv4 or IPv6 literal.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
