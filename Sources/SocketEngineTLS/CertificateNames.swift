import NIOSSL
import X509

import Glibc

/// The names a server certificate is valid for, and whether a ``PeerIdentity`` is one of them.
///
/// Read from the certificate's subjectAlternativeName extension (parsed by swift-certificates):
/// its DNS entries and its IP entries. Matching, as curl and browsers do it:
///
/// - an address matches an IP entry with the same bytes, and nothing else (never a DNS entry,
///   never the common name);
/// - a name matches a DNS entry equal to it, ignoring ASCII case and one trailing dot;
/// - a DNS entry `*.example.com` matches a name with exactly one more, non-empty label in front
///   (`a.example.com`, not `example.com` nor `a.b.example.com`); the `*` must be the whole
///   left-most label and at least two labels must follow it (`*.com` matches nothing);
/// - only a certificate with no DNS and no IP entries at all is matched by its subject's
///   common name (the deprecated practice some old self-made certificates still need), with
///   the same rules.
struct CertificateNames: Equatable, Sendable {
    /// The DNS entries, as written in the certificate.
    var dnsNames: [String] = []
    /// The IP entries: 4 bytes (IPv4) or 16 (IPv6) each.
    var addresses: [[UInt8]] = []
    /// The subject's last common name, if it has one.
    var commonName: String?

    /// At most this many names are listed in a message.
    static let listedLimit = 8

    init(dnsNames: [String] = [], addresses: [[UInt8]] = [], commonName: String? = nil) {
        self.dnsNames = dnsNames
        self.addresses = addresses
        self.commonName = commonName
    }

    /// The names of `certificate`; throws when its DER or its subjectAlternativeName extension
    /// cannot be parsed (such a certificate is valid for no name).
    init(_ certificate: NIOSSLCertificate) throws {
        let parsed = try Certificate(derEncoded: certificate.toDERBytes())
        for name in try parsed.extensions.subjectAlternativeNames ?? SubjectAlternativeNames() {
            switch name {
            case .dnsName(let dns): dnsNames.append(dns)
            case .ipAddress(let octets): addresses.append(Array(octets.bytes))
            default: continue
            }
        }
        commonName = certificate.subjectName.last { $0.type == .commonName }?.value
    }

    /// Whether the certificate is valid for `identity` (the rules above).
    func contains(_ identity: PeerIdentity) -> Bool {
        switch identity {
        case .address(let bytes, _):
            return addresses.contains(bytes)
        case .name(let name):
            if dnsNames.isEmpty && addresses.isEmpty {
                return commonName.map { Self.matches(pattern: $0, name: name) } ?? false
            }
            return dnsNames.contains { Self.matches(pattern: $0, name: name) }
        }
    }

    /// The names, for a message: `localhost, 127.0.0.1, ::1` (the common name when there is no
    /// entry; at most ``listedLimit``, then how many more).
    var listed: String {
        var names = dnsNames + addresses.map(Self.text(of:))
        if names.isEmpty, let commonName { names = [commonName] }
        guard !names.isEmpty else { return "no name at all" }
        let shown = names.prefix(Self.listedLimit).joined(separator: ", ")
        return names.count > Self.listedLimit ? "\(shown) and \(names.count - Self.listedLimit) more" : shown
    }

    /// Whether the DNS entry `pattern` stands for `name`.
    static func matches(pattern: String, name: String) -> Bool {
        let pattern = normalized(pattern)
        let name = normalized(name)
        guard !pattern.isEmpty, !name.isEmpty else { return false }
        guard pattern.contains(UInt8(ascii: "*")) else { return pattern == name }
        // Only `*.` followed by at least two labels, and no other `*`.
        let rest = pattern.dropFirst(2)
        guard pattern.starts(with: Array("*.".utf8)), !rest.contains(UInt8(ascii: "*")),
              rest.contains(UInt8(ascii: ".")), rest.first != UInt8(ascii: "."), rest.last != UInt8(ascii: ".") else {
            return false
        }
        guard let dot = name.firstIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return false }
        return name[(dot + 1)...].elementsEqual(rest)
    }

    /// ASCII-lowercased bytes without one trailing dot.
    private static func normalized(_ text: String) -> [UInt8] {
        var bytes = text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        return bytes
    }

    /// `127.0.0.1`, `::1`; other lengths in hex.
    static func text(of address: [UInt8]) -> String {
        let family: Int32
        switch address.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return address.map { String($0, radix: 16) }.joined(separator: ":")
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = address.withUnsafeBytes { bytes in
            inet_ntop(family, bytes.baseAddress, &text, socklen_t(text.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
