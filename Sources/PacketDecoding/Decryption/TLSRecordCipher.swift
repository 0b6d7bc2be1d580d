import Crypto

/// One direction's record protection: the AEAD key, its IV and the record sequence number.
///
/// TLS 1.3 (RFC 8446 §5.2–5.3): nonce = IV XOR the sequence number (left-padded to 12 bytes),
/// AAD = the record header as sent, the plaintext ends with the real content type and zero
/// padding. TLS 1.2 (RFC 5288 §3, RFC 7905 §2): AES-GCM's nonce is the 4-byte implicit IV and
/// the 8 bytes that start each record, ChaCha20's the 12-byte IV XOR the sequence number; AAD =
/// sequence number, type, version, plaintext length.
struct TLSRecordCipher {
    let suite: TLSCipherSuite
    private let key: SymmetricKey
    private let iv: [UInt8]
    /// TLS 1.3: the traffic secret the key came from (for KeyUpdate).
    let secret: [UInt8]
    private(set) var sequence: UInt64 = 0

    static let tagLength = 16

    init(suite: TLSCipherSuite, key: [UInt8], iv: [UInt8], secret: [UInt8] = []) {
        self.suite = suite
        self.key = SymmetricKey(data: key)
        self.iv = iv
        self.secret = secret
    }

    /// TLS 1.3: the cipher of a traffic secret.
    init(tls13Secret secret: [UInt8], suite: TLSCipherSuite) {
        let keys = TLSKeySchedule.trafficKeys(secret, suite: suite)
        self.init(suite: suite, key: keys.key, iv: keys.iv, secret: secret)
    }

    /// TLS 1.3 KeyUpdate: the cipher of the next traffic secret (sequence back to 0).
    func updated() -> TLSRecordCipher {
        TLSRecordCipher(tls13Secret: TLSKeySchedule.nextSecret(secret, suite: suite), suite: suite)
    }

    /// The record's plaintext and its content type (TLS 1.3: the inner type), or nil when the
    /// record does not authenticate with this key (or is too short to hold a tag). The
    /// sequence number advances either way.
    mutating func open(_ record: UnsafeRawBufferPointer) -> (type: UInt8, plaintext: [UInt8])? {
        defer { sequence &+= 1 }
        guard record.count >= 5 else { return nil }
        let header = UnsafeRawBufferPointer(rebasing: record[0..<5])
        let body = UnsafeRawBufferPointer(rebasing: record[5...])
        if suite.isTLS13 {
            guard body.count >= Self.tagLength + 1, var plaintext = openSealed(nonce: xorNonce(), aad: Array(header), body) else { return nil }
            while let last = plaintext.last, last == 0 { plaintext.removeLast() }
            guard let type = plaintext.popLast() else { return nil }
            return (type, plaintext)
        }
        let explicit = suite.aead == .aesGCM ? 8 : 0
        guard body.count >= explicit + Self.tagLength else { return nil }
        let nonce = explicit == 8 ? iv + body[0..<8] : xorNonce()
        let length = body.count - explicit - Self.tagLength
        var aad: [UInt8] = []
        aad.reserveCapacity(13)
        for shift in stride(from: 56, through: 0, by: -8) { aad.append(UInt8(truncatingIfNeeded: sequence >> UInt64(shift))) }
        aad += [header[0], header[1], header[2], UInt8(length >> 8), UInt8(length & 0xFF)]
        guard let plaintext = openSealed(nonce: nonce, aad: aad, UnsafeRawBufferPointer(rebasing: body[explicit...])) else { return nil }
        return (header[0], plaintext)
    }

    private func xorNonce() -> [UInt8] {
        var nonce = iv
        for index in 0..<8 { nonce[4 + index] ^= UInt8(truncatingIfNeeded: sequence >> UInt64(56 - 8 * index)) }
        return nonce
    }

    /// Opens ciphertext + tag.
    private func openSealed(nonce: [UInt8], aad: [UInt8], _ sealed: UnsafeRawBufferPointer) -> [UInt8]? {
        let split = sealed.count - Self.tagLength
        let ciphertext = UnsafeRawBufferPointer(rebasing: sealed[0..<split])
        let tag = UnsafeRawBufferPointer(rebasing: sealed[split...])
        do {
            switch suite.aead {
            case .aesGCM:
                let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                return Array(try AES.GCM.open(box, using: key, authenticating: aad))
            case .chaChaPoly:
                let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                return Array(try ChaChaPoly.open(box, using: key, authenticating: aad))
            }
        } catch {
            return nil
        }
    }
}
