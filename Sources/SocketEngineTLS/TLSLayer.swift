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

/// How a client checks the server (`connect`, `send`, `loadtest` with `tls://` and `wss://`).
///
/// Secure by default: the chain is verified against the system trust store (plus `caFile`),
/// the host name against the certificate, and TLS 1.2 is the minimum. `verify = false`
/// (`--insecure`) skips chain and name checks — pins are still checked, as with curl.
public struct TLSClientOptions: Sendable {
    public var verify = true
    /// More trusted CAs (PEM), in addition to the system store.
    public var caFile: String?
    /// The name sent in SNI and checked against the certificate, instead of the target host.
    public var serverName: String?
    /// SHA-256 digests of acceptable SubjectPublicKeyInfos (`--pin sha256//BASE64`), checked on
    /// top of the normal verification.
    public var pins: [[UInt8]] = []
    /// A client certificate chain (PEM) and its key, for servers that ask for one.
    public var certificateFile: String?
    public var keyFile: String?
    /// ALPN protocols to offer (`http/1.1` for WebSocket).
    public var applicationProtocols: [String] = []

    public init() {}

    /// Parses `sha256//BASE64[;sha256//BASE64…]` into digests.
    public static func pins(parsing text: String) throws(SocketEngineError) -> [[UInt8]] {
        var digests: [[UInt8]] = []
        for item in text.split(separator: ";", omittingEmptySubsequences: true) {
            let trimmed = item.trimmingCharacters(in: " ")
            guard trimmed.hasPrefix("sha256//") else {
                throw SocketEngineError(.invalidConfiguration, "invalid --pin '\(item)' (expected sha256//BASE64 of the public key)")
            }
            guard let digest = Base64.decode(String(trimmed.dropFirst("sha256//".count))), digest.count == 32 else {
                throw SocketEngineError(.invalidConfiguration, "invalid --pin '\(item)': not the base64 of a 32-byte SHA-256 digest")
            }
            digests.append(digest)
        }
        guard !digests.isEmpty else { throw SocketEngineError(.invalidConfiguration, "--pin needs sha256//BASE64") }
        return digests
    }
}

/// How a server presents itself (`listen tls://` and `wss://`).
public struct TLSServerOptions: Sendable {
    public var certificateFile: String
    public var keyFile: String
    /// Require a client certificate signed by a CA in this file (PEM).
    public var clientCAFile: String?
    public var applicationProtocols: [String] = []

    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// The engine's TLS layer (``SecureTransport``), on SwiftNIO SSL.
///
/// One TLS context per layer, shared by every connection (a load test's thousands included).
/// Each connection gets, nearest the socket: a ``ServerHelloObserver`` (the cipher suite), the
/// NIOSSL handler, and a watcher that turns the handshake's outcome into a ``SecurityReport``
/// or a one-line reason: `certificate expired on 2020-01-02 (subject CN=localhost)`,
/// `certificate is not valid for 127.0.0.1`, `self-signed certificate …`, `… unknown CA …`,
/// `pin mismatch …`. To name the reason of a failed chain verification it makes one more
/// connection without verification and looks at the certificate (BoringSSL reports only that
/// verification failed).
public final class TLSLayer: SecureTransport, Sendable {
    enum Role: Sendable {
        case client(TLSClientOptions)
        case server(TLSServerOptions)
    }

    let role: Role
    /// How long a close waits for the peer's close_notify (NIOSSL's default is 5 s): our reads
    /// are over when we close, so a peer that never answers must not hold the close.
    static let shutdownTimeout = TimeAmount.milliseconds(500)
    private let context: NIOSSLContext
    /// Without verification, to fetch a refused certificate and say what is wrong with it.
    private let diagnosticContext: NIOSSLContext?

    public init(client options: TLSClientOptions) throws(SocketEngineError) {
        role = .client(options)
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.shutdownTimeout = Self.shutdownTimeout
        configuration.certificateVerification = options.verify ? .fullVerification : .none
        configuration.applicationProtocols = options.applicationProtocols
        if let caFile = options.caFile {
            configuration.additionalTrustRoots = [.certificates(try Self.certificates(caFile, option: "--cafile"))]
        }
        if let certificateFile = options.certificateFile {
            guard let keyFile = options.keyFile else { throw SocketEngineError(.invalidConfiguration, "--cert needs --key") }
            configuration.certificateChain = try Self.certificates(certificateFile, option: "--cert").map { .certificate($0) }
            configuration.privateKey = .privateKey(try Self.privateKey(keyFile))
        } else if options.keyFile != nil {
            throw SocketEngineError(.invalidConfiguration, "--key needs --cert")
        }
        context = try Self.makeContext(configuration)
        if options.verify {
            var diagnostic = TLSConfiguration.makeClientConfiguration()
            diagnostic.certificateVerification = .none
            diagnosticContext = try? NIOSSLContext(configuration: diagnostic)
        } else {
            diagnosticContext = nil
        }
    }

    public init(server options: TLSServerOptions) throws(SocketEngineError) {
        role = .server(options)
        let chain = try Self.certificates(options.certificateFile, option: "--cert").map { NIOSSLCertificateSource.certificate($0) }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(try Self.privateKey(options.keyFile)))
        configuration.minimumTLSVersion = .tlsv12
        configuration.shutdownTimeout = Self.shutdownTimeout
        configuration.applicationProtocols = options.applicationProtocols
        if let clientCAFile = options.clientCAFile {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try Self.certificates(clientCAFile, option: "--client-ca"))
        }
        context = try Self.makeContext(configuration)
        diagnosticContext = nil
    }

    // MARK: SecureTransport

    public func addClientLayer(to channel: any Channel, serverName: String?) throws -> EventLoopFuture<SecurityReport> {
        guard case .client(let options) = role else {
            throw SocketEngineError(.invalidConfiguration, "a server TLS layer cannot connect")
        }
        // SNI carries a name, never an address; without one, the certificate is checked
        // against the address connected to.
        let name = options.serverName ?? serverName.flatMap { Self.isAddressLiteral($0) ? nil : $0 }
        let handler = try NIOSSLClientHandler(context: context, serverHostname: name)
        var verification = options.verify ? "verified (chain and host name)" : "not verified (--insecure)"
        if !options.pins.isEmpty { verification += ", pin matched" }
        let watcher = HandshakeWatcher(
            layer: self, server: false, pins: options.pins, verification: verification,
            expectedName: name ?? serverName, promise: channel.eventLoop.makePromise())
        return try Self.install(handler, watcher: watcher, on: channel)
    }

    public func addServerLayer(to channel: any Channel) throws -> EventLoopFuture<SecurityReport> {
        guard case .server(let options) = role else {
            throw SocketEngineError(.invalidConfiguration, "a client TLS layer cannot accept")
        }
        let handler = NIOSSLServerHandler(context: context)
        let verification = options.clientCAFile == nil ? "no client certificate asked for" : "client certificate verified"
        let watcher = HandshakeWatcher(
            layer: self, server: true, pins: [], verification: verification, expectedName: nil,
            promise: channel.eventLoop.makePromise())
        return try Self.install(handler, watcher: watcher, on: channel)
    }

    /// Puts a connection's TLS handlers on its pipeline, nearest the socket first: the
    /// watcher's socket-end closer and ServerHello observer, NIOSSL's `handler`, the watcher.
    /// Returns the handshake's outcome.
    private static func install(_ handler: any ChannelHandler, watcher: HandshakeWatcher, on channel: any Channel) throws -> EventLoopFuture<SecurityReport> {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(watcher, position: .first)
        try operations.addHandler(handler, position: .first)
        try operations.addHandler(watcher.observer, position: .first)
        try operations.addHandler(watcher.closer, position: .first)
        return watcher.promise.futureResult
    }

    // MARK: Diagnosis

    /// Connects once more without verification and says what is wrong with the certificate
    /// the server sends; nil if that cannot be found out within 2 s.
    func diagnose(address: SocketAddress, serverName: String?, on loop: any EventLoop) -> EventLoopFuture<String?> {
        guard let diagnosticContext else { return loop.makeSucceededFuture(nil) }
        let sni = serverName.flatMap { Self.isAddressLiteral($0) ? nil : $0 }
        let promise = loop.makePromise(of: String?.self)
        let timeout = loop.scheduleTask(in: .seconds(2)) { promise.succeed(nil) }
        ClientBootstrap(group: loop)
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

    // MARK: Files

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

/// Sits after the NIOSSL handler: reports the handshake or why it failed, and afterwards turns
/// TLS errors into one-line reasons — TLS 1.3 reports a refused client certificate only after
/// the handshake — and lets a peer that closes without close_notify (most do) end the
/// connection like an ordinary close rather than an error. Once such a peer has ended its side,
/// our close does not wait for its close_notify (which can no longer come): the socket closes
/// as soon as our own close_notify is out.
final class HandshakeWatcher: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    let promise: EventLoopPromise<SecurityReport>
    private let layer: TLSLayer
    private let server: Bool
    private let pins: [[UInt8]]
    private let verification: String
    private let expectedName: String?
    /// When the handler joined the pipeline, in its loop's time.
    private var started: NIODeadline?
    /// Below the NIOSSL handler: the negotiated cipher suite.
    let observer: ServerHelloObserver
    /// Nearest the socket: closes it without waiting for a close_notify that cannot come.
    let closer = SocketEndCloser()
    private var done = false
    /// The peer's end of input (a FIN) has come through the TLS layer.
    private var peerEnded = false
    /// A full close has gone down to the TLS layer, which now waits for the peer's close_notify.
    private var closing = false

    init(layer: TLSLayer, server: Bool, pins: [[UInt8]], verification: String, expectedName: String?, promise: EventLoopPromise<SecurityReport>) {
        self.layer = layer
        self.server = server
        self.pins = pins
        self.verification = verification
        self.expectedName = expectedName
        self.promise = promise
        observer = ServerHelloObserver(server: server)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        started = context.eventLoop.now
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if !done, let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event {
            done = true
            completed(context: context, negotiated: negotiated)
        }
        if case ChannelEvent.inputClosed? = event as? ChannelEvent {
            peerEnded = true
            if closing { closer.closeAfterQueuedWrites() }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        context.close(mode: mode, promise: promise)
        guard mode == .all, !closing else { return }
        closing = true
        if peerEnded { closer.closeAfterQueuedWrites() }
    }

    private func completed(context: ChannelHandlerContext, negotiated: String?) {
        let ssl = try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self)
        let peer = ssl?.peerCertificate
        if !pins.isEmpty {
            let digest = (try? peer?.extractPublicKey().toSPKIBytes()).flatMap { $0 }.map(SHA256.hash)
            guard let digest, pins.contains(digest) else {
                let shown = digest.map { "sha256//" + Base64.encode($0) } ?? "no public key"
                let error = SocketEngineError(.tlsFailed, "pin mismatch: the server's public key is \(shown), not one of the --pin values")
                promise.fail(error)
                context.fireErrorCaught(error)
                context.close(promise: nil)
                return
            }
        }
        let report = SecurityReport(
            protocolVersion: ssl?.tlsVersion.map(Self.describe),
            cipher: observer.cipherSuite.map(ServerHelloObserver.name(of:)),
            peerSubject: peer.map { TLSLayer.describe($0.subjectName) },
            verification: verification,
            applicationProtocol: negotiated,
            handshakeDuration: .nanoseconds((context.eventLoop.now - (started ?? context.eventLoop.now)).nanoseconds))
        promise.succeed(report)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !done else {
            if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl { return }  // channelInactive follows
            guard error is NIOSSLError || error is BoringSSLError else {
                context.fireErrorCaught(error)
                return
            }
            context.fireErrorCaught(SocketEngineError(.tlsFailed, "TLS: \(Self.reason(error, expectedName: expectedName, server: server).text)"))
            return
        }
        done = true
        let reason = Self.reason(error, expectedName: expectedName, server: server)
        guard reason.verification, !server, let address = context.channel.remoteAddress else {
            let failure = SocketEngineError(.tlsFailed, "TLS handshake failed: \(reason.text)")
            promise.fail(failure)
            context.fireErrorCaught(failure)
            return
        }
        // Name what is wrong with the refused certificate before failing.
        let promise = self.promise
        let loop = context.eventLoop
        let expectedName = self.expectedName
        layer.diagnose(address: address, serverName: expectedName, on: loop).whenComplete { result in
            let detail = (try? result.get()).flatMap { $0 }
            promise.fail(SocketEngineError(.tlsFailed, "TLS handshake failed: \(detail ?? reason.text)"))
        }
        context.fireErrorCaught(SocketEngineError(.tlsFailed, "TLS handshake failed: \(reason.text)"))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(SocketEngineError(.tlsFailed, "TLS handshake failed: the peer closed the connection during the handshake"))
        }
        context.fireChannelInactive()
    }

    /// A channel that never became active (its connect failed, or it lost a Happy Eyeballs
    /// race) is torn down without `channelInactive`.
    func handlerRemoved(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(SocketEngineError(.tlsFailed, "TLS handshake not done: the connection closed first"))
        }
    }

    /// A one-line reason; `verification` when the peer's certificate chain was refused.
    static func reason(_ error: any Error, expectedName: String?, server: Bool) -> (text: String, verification: Bool) {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return ("certificate is not valid for \(expectedName ?? "this address")", false)
        }
        let text: String
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case .handshakeFailed(let inner): text = "\(inner)"
            case .uncleanShutdown: return ("the peer closed the connection without a TLS close", false)
            default: text = "\(ssl)"
            }
        } else if let boring = error as? BoringSSLError {
            // After the handshake NIOSSL reports alerts as they are.
            text = "\(boring)"
        } else {
            return ("\(error)", false)
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return (server ? "the client's certificate was refused (not signed by a CA of --client-ca, expired, or not for client use)"
                           : "certificate verification failed", !server)
        }
        if text.contains("CERTIFICATE_REQUIRED") || text.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") {
            return (server ? "the client sent no certificate (--client-ca requires one)" : "the server requires a client certificate (--cert and --key)", false)
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") { return ("the peer does not speak TLS", false) }
        if text.contains("UNSUPPORTED_PROTOCOL") || text.contains("PROTOCOL_VERSION") { return ("no TLS version in common (TLS 1.2 at least)", false) }
        if let alert = alertName(in: text) {
            let certificateAlerts = ["unknown ca", "bad certificate", "unsupported certificate", "certificate unknown", "certificate expired", "certificate revoked"]
            if !server && certificateAlerts.contains(alert) {
                return ("the server refused our client certificate (\(alert))", false)
            }
            return ("the peer sent the TLS alert \"\(alert)\"", false)
        }
        return (text, false)
    }

    /// `SSLV3_ALERT_UNSUPPORTED_CERTIFICATE` → `unsupported certificate`.
    static func alertName(in text: String) -> String? {
        let marker = Array("_ALERT_".utf8)
        let bytes = Array(text.utf8)
        guard bytes.count > marker.count,
              let start = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }) else {
            return nil
        }
        let name = bytes[(start + marker.count)...].prefix { ($0 >= 0x41 && $0 <= 0x5A) || $0 == 0x5F || ($0 >= 0x30 && $0 <= 0x39) }
        guard !name.isEmpty else { return nil }
        return String(decoding: name.map { $0 == 0x5F ? 0x20 : ($0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0) }, as: UTF8.self)
    }

    static func describe(_ version: TLSVersion) -> String {
        switch version {
        case .tlsv1: "TLSv1.0"
        case .tlsv11: "TLSv1.1"
        case .tlsv12: "TLSv1.2"
        case .tlsv13: "TLSv1.3"
        @unknown default: "\(version)"
        }
    }
}

/// Nearest the socket: closes it once what is queued for it has been written, below the TLS
/// layer, whose close would otherwise wait its `shutdownTimeout` for a close_notify from a peer
/// that has already ended its side. Should the peer not read, that timeout still closes.
final class SocketEndCloser: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func closeAfterQueuedWrites() {
        guard let context else { return }
        // Writes complete in order: when this empty one is done, our close_notify is written.
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(capacity: 0)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

/// Resolves with what is wrong with the certificate a server sends (for the diagnosis).
final class CertificateGrabber: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<String?>

    init(promise: EventLoopPromise<String?>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            let peer = (try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self))?.peerCertificate
            promise.succeed(peer.map(TLSLayer.describeRefusal))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.succeed(nil)
        context.close(promise: nil)
    }
}

/// RFC 4648 base64 for pins.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            var word: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { word |= UInt32(byte) << UInt32(16 - offset * 8) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[Int(word >> UInt32(18 - position * 6) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt32] = []
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0, let value = alphabet.firstIndex(of: byte) else { return nil }
            values.append(UInt32(value))
        }
        guard (values.count + padding) % 4 == 0, padding <= 2 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index < values.count {
            let group = values[index..<min(index + 4, values.count)]
            var word: UInt32 = 0
            for (offset, value) in group.enumerated() { word |= value << UInt32(18 - offset * 6) }
            for position in 0..<(group.count - 1) { out.append(UInt8(truncatingIfNeeded: word >> UInt32(16 - position * 8))) }
            index += 4
        }
        return out
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in character: Character) -> Substring {
        var copy = self
        while copy.first == character { copy.removeFirst() }
        while copy.last == character { copy.removeLast() }
        return copy
    }
}
