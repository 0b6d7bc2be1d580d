import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SocketEngine

import Glibc

/// The engine's TLS layer (``SecureTransport``), on SwiftNIO SSL.
///
/// One TLS context per layer, shared by every connection (a load test's thousands included).
/// Each connection gets, nearest the socket: a ``ServerHelloObserver`` (the cipher suite), the
/// NIOSSL handler, and a watcher that turns the handshake's outcome into a ``SecurityReport``
/// or a one-line reason: `certificate expired on 2020-01-02 (subject CN=localhost)`,
/// `certificate is not valid for evil.example (it names localhost, 127.0.0.1)`,
/// `self-signed certificate …`, `… unknown CA …`, `pin mismatch …`.
///
/// A client's chain is verified by BoringSSL; the server's name is checked by the watcher,
/// after the handshake and before anything is written, against one name or address
/// (``PeerIdentity``) — not against "the name, or else the address connected to", as NIOSSL's
/// own check would. With a ``TLSKeyLogWriter`` in the options, every connection's secrets are
/// logged (NIOSSL's key log callback). When BoringSSL refuses a chain, the watcher names why from the certificate
/// that handshake received: one connection, whatever the outcome.
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

    /// A client layer; reads the CA, certificate and key files now, and throws a usage error
    /// (``SocketEngineError/isUsageError``) naming the file by `naming` and saying what is
    /// wrong: no such file, permission denied, not PEM, the key does not match the
    /// certificate, a certificate without its key (or a key without its certificate).
    public init(client options: TLSClientOptions, naming: (TLSFile) -> String = { $0.plainName }) throws(SocketEngineError) {
        role = .client(options)
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.shutdownTimeout = Self.shutdownTimeout
        // The name is checked by the HandshakeWatcher (PeerIdentity), the chain by BoringSSL.
        configuration.certificateVerification = options.verify ? .noHostnameVerification : .none
        configuration.applicationProtocols = options.applicationProtocols
        configuration.keyLogCallback = options.keyLog?.callback
        if let caFile = options.caFile {
            configuration.additionalTrustRoots = [.certificates(try Self.certificates(caFile, .trustedCAs, naming: naming))]
        }
        var keyPair: (certificate: String, key: String)?
        if let certificateFile = options.certificateFile {
            guard let keyFile = options.keyFile else {
                throw SocketEngineError(.invalidConfiguration, "\(naming(.certificate)) needs \(naming(.privateKey))")
            }
            configuration.certificateChain = try Self.certificates(certificateFile, .certificate, naming: naming).map { .certificate($0) }
            configuration.privateKey = .privateKey(try Self.privateKey(keyFile, naming: naming))
            keyPair = (certificateFile, keyFile)
        } else if options.keyFile != nil {
            throw SocketEngineError(.invalidConfiguration, "\(naming(.privateKey)) needs \(naming(.certificate))")
        }
        context = try Self.makeContext(configuration, keyPair: keyPair, naming: naming)
    }

    /// A server layer; reads the certificate, key and client-CA files now, and throws a usage
    /// error naming the file by `naming` and saying what is wrong, as the client's does.
    public init(server options: TLSServerOptions, naming: (TLSFile) -> String = { $0.plainName }) throws(SocketEngineError) {
        role = .server(options)
        let chain = try Self.certificates(options.certificateFile, .certificate, naming: naming).map { NIOSSLCertificateSource.certificate($0) }
        let key = try Self.privateKey(options.keyFile, naming: naming)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.shutdownTimeout = Self.shutdownTimeout
        configuration.applicationProtocols = options.applicationProtocols
        configuration.keyLogCallback = options.keyLog?.callback
        if let clientCAFile = options.clientCAFile {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try Self.certificates(clientCAFile, .clientCAs, naming: naming))
        }
        context = try Self.makeContext(configuration, keyPair: (options.certificateFile, options.keyFile), naming: naming)
    }

    // MARK: SecureTransport

    /// Adds TLS to an outgoing connection to `host` (the endpoint's host as written); the
    /// future gives the handshake's ``SecurityReport`` or fails with a one-line reason. The
    /// certificate must carry ``TLSClientOptions/serverName`` if set, else `host`, and that one
    /// name only: an address literal is matched against its IP entries (and not sent in SNI),
    /// a name against its DNS entries. Throws on a server layer.
    public func addClientLayer(to channel: any Channel, host: String) throws -> EventLoopFuture<SecurityReport> {
        guard case .client(let options) = role else {
            throw SocketEngineError(.invalidConfiguration, "a server TLS layer cannot connect")
        }
        let identity = PeerIdentity(options.serverName ?? host)
        let handler = try NIOSSLClientHandler(context: context, serverHostname: identity.serverNameIndication)
        var verification: SettingText = options.verify ? "verified (chain and host name)" : "not verified (\(.insecure))"
        if !options.pins.isEmpty { verification = verification + ", pin matched" }
        let watcher = HandshakeWatcher(
            server: false, identity: options.verify ? identity : nil, pins: options.pins, verification: verification,
            promise: channel.eventLoop.makePromise())
        return try Self.install(handler, watcher: watcher, on: channel)
    }

    /// Adds TLS to an accepted connection; the future gives the handshake's ``SecurityReport`` (a
    /// client certificate verified when ``TLSServerOptions/clientCAFile`` is set). Throws on a client layer.
    public func addServerLayer(to channel: any Channel) throws -> EventLoopFuture<SecurityReport> {
        guard case .server(let options) = role else {
            throw SocketEngineError(.invalidConfiguration, "a client TLS layer cannot accept")
        }
        let handler = NIOSSLServerHandler(context: context)
        let verification: SettingText = options.clientCAFile == nil ? "no client certificate asked for" : "client certificate verified"
        let watcher = HandshakeWatcher(
            server: true, identity: nil, pins: [], verification: verification, promise: channel.eventLoop.makePromise())
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
}
