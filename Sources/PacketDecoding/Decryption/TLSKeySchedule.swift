import Crypto

/// The derivations from the key log's secrets to record keys: TLS 1.3's HKDF-Expand-Label
/// (RFC 8446 §7.1, §7.3) and TLS 1.2's PRF key block (RFC 5246 §5, §6.3).
enum TLSKeySchedule {
    /// HKDF-Expand-Label(secret, label, "", length) with the suite's hash.
    static func expandLabel(_ secret: [UInt8], _ label: String, length: Int, hash: TLSCipherSuite.Hash) -> [UInt8] {
        let fullLabel = Array("tls13 \(label)".utf8)
        var info: [UInt8] = [UInt8(length >> 8), UInt8(length & 0xFF), UInt8(fullLabel.count)]
        info += fullLabel
        info.append(0)  // empty context
        let key = SymmetricKey(data: secret)
        switch hash {
        case .sha256: return HKDF<SHA256>.expand(pseudoRandomKey: key, info: info, outputByteCount: length).bytes
        case .sha384: return HKDF<SHA384>.expand(pseudoRandomKey: key, info: info, outputByteCount: length).bytes
        }
    }

    /// TLS 1.3: a traffic secret's record key and IV.
    static func trafficKeys(_ secret: [UInt8], suite: TLSCipherSuite) -> (key: [UInt8], iv: [UInt8]) {
        (expandLabel(secret, "key", length: suite.keyLength, hash: suite.hash), expandLabel(secret, "iv", length: 12, hash: suite.hash))
    }

    /// TLS 1.3 KeyUpdate: the next traffic secret.
    static func nextSecret(_ secret: [UInt8], suite: TLSCipherSuite) -> [UInt8] {
        expandLabel(secret, "traffic upd", length: suite.hash.length, hash: suite.hash)
    }

    /// TLS 1.2: PRF(secret, label, seed) of `length` bytes (P_hash with the suite's hash).
    static func prf(_ secret: [UInt8], _ label: String, seed: [UInt8], length: Int, hash: TLSCipherSuite.Hash) -> [UInt8] {
        let labelSeed = Array(label.utf8) + seed
        switch hash {
        case .sha256: return pHash(SHA256.self, secret, labelSeed, length)
        case .sha384: return pHash(SHA384.self, secret, labelSeed, length)
        }
    }

    private static func pHash<H: HashFunction>(_: H.Type, _ secret: [UInt8], _ seed: [UInt8], _ length: Int) -> [UInt8] {
        let key = SymmetricKey(data: secret)
        var output: [UInt8] = []
        var a = Array(HMAC<H>.authenticationCode(for: seed, using: key))
        while output.count < length {
            output += HMAC<H>.authenticationCode(for: a + seed, using: key)
            a = Array(HMAC<H>.authenticationCode(for: a, using: key))
        }
        return Array(output.prefix(length))
    }

    /// TLS 1.2: each side's write key and IV from the master secret.
    static func keyBlock(masterSecret: [UInt8], clientRandom: [UInt8], serverRandom: [UInt8], suite: TLSCipherSuite)
        -> (clientKey: [UInt8], serverKey: [UInt8], clientIV: [UInt8], serverIV: [UInt8]) {
        let keyLength = suite.keyLength
        let ivLength = suite.implicitIVLength
        let block = prf(masterSecret, "key expansion", seed: serverRandom + clientRandom, length: 2 * (keyLength + ivLength), hash: suite.hash)
        let clientKey = Array(block[0..<keyLength])
        let serverKey = Array(block[keyLength..<(2 * keyLength)])
        let clientIV = Array(block[(2 * keyLength)..<(2 * keyLength + ivLength)])
        let serverIV = Array(block[(2 * keyLength + ivLength)..<(2 * keyLength + 2 * ivLength)])
        return (clientKey, serverKey, clientIV, serverIV)
    }
}

extension SymmetricKey {
    fileprivate var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
