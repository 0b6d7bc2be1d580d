/// The cipher suites whose records can be decrypted: the AEAD, its key length and the hash of
/// the key schedule (TLS 1.3's HKDF, TLS 1.2's PRF). TLS 1.3: AES-128-GCM, AES-256-GCM,
/// ChaCha20-Poly1305 (RFC 8446 §B.4); TLS 1.2: the ECDHE, DHE and RSA suites with AES-GCM
/// (RFC 5288, RFC 5289) and ChaCha20-Poly1305 (RFC 7905). CBC and CCM suites are not.
package struct TLSCipherSuite: Sendable, Equatable {
    package enum AEAD: Sendable, Equatable {
        case aesGCM
        case chaChaPoly
    }

    package enum Hash: Sendable, Equatable {
        case sha256
        case sha384

        package var length: Int { self == .sha256 ? 32 : 48 }
    }

    package var aead: AEAD
    package var keyLength: Int
    package var hash: Hash
    /// A TLS 1.3 suite (0x13xx).
    package var isTLS13: Bool

    /// The suite with this number, nil when its records cannot be decrypted.
    package init?(_ number: UInt16) {
        switch number {
        case 0x1301: self.init(.aesGCM, 16, .sha256, tls13: true)
        case 0x1302: self.init(.aesGCM, 32, .sha384, tls13: true)
        case 0x1303: self.init(.chaChaPoly, 32, .sha256, tls13: true)
        // AES-128-GCM-SHA256: ECDHE-ECDSA, ECDHE-RSA, DHE-RSA, RSA.
        case 0xC02B, 0xC02F, 0x009E, 0x009C: self.init(.aesGCM, 16, .sha256, tls13: false)
        // AES-256-GCM-SHA384.
        case 0xC02C, 0xC030, 0x009F, 0x009D: self.init(.aesGCM, 32, .sha384, tls13: false)
        // CHACHA20-POLY1305-SHA256: ECDHE-RSA, ECDHE-ECDSA, DHE-RSA.
        case 0xCCA8, 0xCCA9, 0xCCAA: self.init(.chaChaPoly, 32, .sha256, tls13: false)
        default: return nil
        }
    }

    private init(_ aead: AEAD, _ keyLength: Int, _ hash: Hash, tls13: Bool) {
        self.aead = aead
        self.keyLength = keyLength
        self.hash = hash
        self.isTLS13 = tls13
    }

    /// TLS 1.2: the IV bytes of the key block per side (GCM's 4-byte salt, ChaCha's 12).
    var implicitIVLength: Int { aead == .aesGCM && !isTLS13 ? 4 : 12 }
}
