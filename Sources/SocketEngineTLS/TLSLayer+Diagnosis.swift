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

/// Why a server's certificate was refused, found out by connecting once more without
/// verification (for the one-line reason a failed connect reports).
extension TLSLayer {
    /// Connects once more without verification and says what is wrong with the certificate
    /// the server sends; nil if that cannot be found out within 2 s.
    func diagnose(address: SocketAddress, serverName: String?, on loop: any EventLoop) -> EventLoopFuture<String?> {
        // A layer run without sockets (loadtest's thread path drives it in an EmbeddedChannel)
        // has no loop to connect on: then the refusal goes undiagnosed.
        guard let diagnosticContext, let bootstrap = ClientBootstrap(validatingGroup: loop) else { return loop.makeSucceededFuture(nil) }
        let sni = serverName.flatMap { Self.isAddressLiteral($0) ? nil : $0 }
        let promise = loop.makePromise(of: String?.self)
        let timeout = loop.scheduleTask(in: .seconds(2)) { promise.succeed(nil) }
        bootstrap
            .connectTimeout(.seconds(2))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: diagnosticContext, serverHostname: sni))
                    try channel.pipeline.syncOperations.addHandler(CertificateGrabber(promise: promise))
                }
            }
            .connect(to: address)
            .whenComplete { result in
                if case .failure = result { promise.succeed(nil) }
            }
        promise.futureResult.whenComplete { _ in timeout.cancel() }
        return promise.futureResult
    }

    /// What is wrong with `certificate` for a client that refused it.
    static func describeRefusal(_ certificate: NIOSSLCertificate) -> String {
        let now = time(nil)
        let subject = describe(certificate.subjectName)
        if certificate.notValidAfter < now {
            return "certificate expired on \(date(certificate.notValidAfter)) (subject \(subject))"
        }
        if certificate.notValidBefore > now {
            return "certificate is not valid before \(date(certificate.notValidBefore)) (subject \(subject))"
        }
        if certificate.subjectName == certificate.issuerName {
            return "self-signed certificate (subject \(subject)): trust it with --cafile, or skip verification with --insecure"
        }
        return "certificate signed by an unknown CA (issuer \(describe(certificate.issuerName))): give that CA with --cafile"
    }

    static func describe(_ names: [SSLCertificateName]) -> String {
        let parts = names.map { name -> String in
            let key: String
            switch name.type {
            case .commonName: key = "CN"
            case .organization: key = "O"
            case .organizationalUnit: key = "OU"
            case .country: key = "C"
            case .state: key = "ST"
            case .city: key = "L"
            case .emailAddress: key = "emailAddress"
            default: key = "?"
            }
            return "\(key)=\(name.value)"
        }
        return parts.isEmpty ? "(empty)" : parts.joined(separator: ", ")
    }

    static func date(_ time: time_t) -> String {
        var value = time
        var parts = tm()
        gmtime_r(&value, &parts)
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
