import NIOCore

/// One rule of `proxy --allow-destination` / `--deny-destination`: which destinations a
/// SOCKS5 or HTTP CONNECT client may ask for, by network or by name, on any port or one.
///
/// ```
/// 10.0.0.0/8   ::1   127.0.0.1:8080   [::1]:443   [fd00::/8]:22
/// example.com   example.com:443   *.internal   *:443   *
/// ```
///
/// A network (an ``AddressRange``, the grammar of `--allow`/`--deny`) matches the addresses a
/// destination is dialled at — a name's after it is resolved; a name matches the name the
/// client sent, ignoring case (`*.internal` any name under `internal`); `*` any destination.
public struct DestinationPattern: Sendable, Hashable, CustomStringConvertible {
    enum Host: Sendable, Hashable {
        case any
        case range(AddressRange)
        case name(String)
        /// `*.suffix`: the lower-cased `.suffix`.
        case suffix(String)
    }

    let host: Host
    /// The port it applies to; nil: any.
    let port: UInt16?
    /// The pattern as it was written.
    public let description: String

    /// Parses `NETWORK`, `NAME`, `*.SUFFIX` or `*`, each optionally with `:PORT` (an IPv6
    /// address or network with a port in brackets).
    public init(parsing text: String) throws(SocketEngineError) {
        func fail(_ why: String) -> SocketEngineError {
            SocketEngineError(.invalidConfiguration, "invalid destination pattern '\(text)': \(why) (expected NETWORK, NAME, *.SUFFIX or *, with :PORT if wanted, e.g. 10.0.0.0/8, example.com:443, [::1]:80)")
        }
        var hostText = Substring(text)
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail("no ']'") }
            hostText = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw fail("'\(rest)' after ']'") }
                portText = rest.dropFirst()
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        if let portText {
            guard portText.count <= 5, portText.allSatisfy(\.isASCIIDigit), let port = Int(portText), (1...65535).contains(port) else {
                throw fail("port '\(portText)' is not 1-65535")
            }
            self.port = UInt16(port)
        } else {
            self.port = nil
        }
        guard !hostText.isEmpty else { throw fail("no host") }
        if hostText == "*" {
            host = .any
        } else if let range = try? AddressRange(parsing: String(hostText)) {
            host = .range(range)
        } else if text.hasPrefix("[") {
            throw fail("'\(hostText)' is not an IPv6 address or network")
        } else {
            let lowered = hostText.lowercased()
            let wildcard = lowered.hasPrefix("*.")
            let name = wildcard ? lowered.dropFirst(2) : Substring(lowered)
            let allowed = name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0) }
            guard !name.isEmpty, name.utf8.count <= 253, allowed, !name.contains("*") else {
                throw fail("'\(hostText)' is not an address, network or host name")
            }
            host = wildcard ? .suffix("." + name) : .name(String(name))
        }
        description = text
    }

    /// True when the pattern names hosts (not networks) and matches `name` on `port`.
    func matches(name: String, port: UInt16) -> Bool {
        guard self.port == nil || self.port == port else { return false }
        let lowered = name.lowercased()
        switch host {
        case .any: return true
        case .range: return false
        case .name(let pattern): return lowered == pattern
        case .suffix(let suffix): return lowered.hasSuffix(suffix)
        }
    }

    /// True when the pattern matches `address` (its port included): a network containing it,
    /// or `*`.
    func matches(address: SocketAddress) -> Bool {
        guard port == nil || address.port.map({ UInt16(clamping: $0) }) == port else { return false }
        switch host {
        case .any: return true
        case .range(let range): return range.contains(address)
        case .name, .suffix: return false
        }
    }
}
