import NIOCore
import NIOSSL
import SocketEngine

import Glibc

/// Certificates and keys read from PEM files, each failure said as what it is: the file cannot
/// be read (no such file, permission denied, …), it reads but is not PEM, or the key does not
/// match the certificate. Every one is a usage error naming the file (by the caller's `naming`)
/// and its path.
extension TLSLayer {
    /// A larger file is refused: the largest CA bundles are a few hundred KiB.
    static let maximumFileSize = 16 << 20

    static func certificates(_ path: String, _ file: TLSFile, naming: (TLSFile) -> String) throws(SocketEngineError) -> [NIOSSLCertificate] {
        let bytes = try contents(of: path, file, naming: naming)
        let certificates = (try? NIOSSLCertificate.fromPEMBytes(bytes)) ?? []
        guard !certificates.isEmpty else {
            throw problem(file, path, naming: naming, "not a PEM certificate file (no certificate in it)")
        }
        return certificates
    }

    static func privateKey(_ path: String, naming: (TLSFile) -> String) throws(SocketEngineError) -> NIOSSLPrivateKey {
        let bytes = try contents(of: path, .privateKey, naming: naming)
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            let text = String(decoding: bytes.prefix(64 * 1024), as: UTF8.self)
            if text.contains("ENCRYPTED") {
                throw problem(.privateKey, path, naming: naming, "an encrypted key, which is not supported (decrypt it: openssl pkey -in KEY -out PLAIN)")
            }
            throw problem(.privateKey, path, naming: naming, "not a PEM private key")
        }
    }

    /// The context for `configuration`; BoringSSL refuses a key that does not belong to the
    /// certificate (`keyPair`: their paths) when the key is set.
    static func makeContext(
        _ configuration: TLSConfiguration, keyPair: (certificate: String, key: String)?, naming: (TLSFile) -> String
    ) throws(SocketEngineError) -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            if case .failedToLoadPrivateKey = error as? NIOSSLError, let keyPair {
                throw problem(.privateKey, keyPair.key, naming: naming,
                              "the key does not match the certificate (\(naming(.certificate)) \(keyPair.certificate))")
            }
            throw SocketEngineError(.invalidConfiguration, "TLS setup: \(error)")
        }
    }

    /// The whole file at `path`, at most ``maximumFileSize`` bytes.
    static func contents(of path: String, _ file: TLSFile, naming: (TLSFile) -> String) throws(SocketEngineError) -> [UInt8] {
        let descriptor = Syscall.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw problem(file, path, naming: naming, errno: errno) }
        defer { Syscall.close(descriptor) }
        switch WholeFile.read(descriptor, limit: maximumFileSize) {
        case .success(let bytes): return bytes
        case .failure(.unreadable(let code)): throw problem(file, path, naming: naming, errno: code)
        case .failure(.tooLarge): throw problem(file, path, naming: naming, "larger than \(maximumFileSize >> 20) MiB, not a PEM file")
        }
    }

    private static func problem(_ file: TLSFile, _ path: String, naming: (TLSFile) -> String, errno code: Int32) -> SocketEngineError {
        let reason = switch code {
        case ENOENT: "no such file"
        case EACCES: "permission denied"
        case EISDIR: "is a directory"
        default: String(cString: strerror(code)).lowercased()
        }
        return SocketEngineError(.invalidConfiguration, "\(naming(file)) \(path): \(reason)", errno: code)
    }

    private static func problem(_ file: TLSFile, _ path: String, naming: (TLSFile) -> String, _ reason: String) -> SocketEngineError {
        SocketEngineError(.invalidConfiguration, "\(naming(file)) \(path): \(reason)")
    }
}
