import Crypto
import Foundation

/// `--pin sha256//BASE64`: the SHA-256 digest (swift-crypto) of a certificate's
/// SubjectPublicKeyInfo, written in standard base64 (Foundation), as curl's `--pinnedpubkey`.
enum PublicKeyPin {
    /// The digest a pin names for `spki`, the DER bytes of a SubjectPublicKeyInfo.
    static func digest(of spki: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: spki))
    }

    /// The 32 digest bytes written in `base64`, or nil when it is not that.
    static func digest(base64: String) -> [UInt8]? {
        guard let bytes = Data(base64Encoded: base64), bytes.count == SHA256.byteCount, bytes.base64EncodedString() == base64 else {
            return nil
        }
        return Array(bytes)
    }

    /// `sha256//BASE64` for a digest, as a pin is written.
    static func text(of digest: [UInt8]) -> String {
        "sha256//" + Data(digest).base64EncodedString()
    }
}
