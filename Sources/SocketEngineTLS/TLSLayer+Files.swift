import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SocketEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Certificates and keys read from PEM files, and NIOSSL's errors said in a few words.
extension TLSLayer {
    static func certificates(_ path: String, option: String) throws(SocketEngineError) -> [NIOSSLCertificate] {
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(path)
            guard !certificates.isEmpty else { throw SocketEngineError(.invalidConfiguration, "\(option) \(path): no certificate in it") }
            return certificates
        } catch let error as SocketEngineError {
            throw error
        } catch {
            throw SocketEngineError(.invalidConfiguration, "\(option) \(path): not a PEM certificate file (\(Self.reason(error)))")
        }
    }

    static func privateKey(_ path: String) throws(SocketEngineError) -> NIOSSLPrivateKey {
        do {
            return try NIOSSLPrivateKey(file: path, format: .pem)
        } catch {
            throw SocketEngineError(.invalidConfiguration, "--key \(path): not a PEM private key (\(Self.reason(error)))")
        }
    }

    static func makeContext(_ configuration: TLSConfiguration) throws(SocketEngineError) -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SocketEngineError(.invalidConfiguration, "TLS setup: \(Self.reason(error))")
        }
    }

    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)).lowercased() }
        if case .failedToLoadCertificate = error as? NIOSSLError { return "unreadable or not PEM" }
        if case .failedToLoadPrivateKey = error as? NIOSSLError { return "unreadable or not PEM" }
        return "\(error)"
    }

    static func isAddressLiteral(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}
