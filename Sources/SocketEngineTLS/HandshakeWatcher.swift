import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SocketEngine

import Glibc

/// Sits after the NIOSSL handler: reports the handshake or why it failed, and afterwards turns
/// TLS errors into one-line reasons — TLS 1.3 reports a refused client certificate only after
/// the handshake — and lets a peer that closes without close_notify (most do) end the
/// connection like an ordinary close rather than an error. Once such a peer has ended its side,
/// our close does not wait for its close_notify (which can no longer come): the socket closes
/// as soon as our own close_notify is out.
///
/// On a client it also makes the checks BoringSSL's chain verification leaves: the server's
/// name (``PeerIdentity`` against ``CertificateNames``) and the pins. Until they pass, what the
/// handlers above write is held here (as NIOSSL itself holds writes until its handshake is
/// done), so nothing reaches a server that fails them; what it sends is not passed up.
final class HandshakeWatcher: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    let promise: EventLoopPromise<SecurityReport>
    private let server: Bool
    /// The name or address the server's certificate must carry; nil when not verifying.
    private let identity: PeerIdentity?
    private let pins: [[UInt8]]
    private let verification: SettingText
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
    /// Outbound operations held until the handshake and its checks have passed (clients only).
    /// What waits there is what the engine writes before a handshake is done — a WebSocket
    /// upgrade request, no more: the connections it hands out are handed out afterwards.
    private var gate: Gate

    enum Gate {
        /// Holding what the handlers above write, in order.
        case holding([HeldOperation])
        /// Passing everything on.
        case open
        /// The handshake or a check failed: writes fail with this, reads are dropped.
        case refused(any Error)
    }

    enum HeldOperation {
        case write(NIOAny, EventLoopPromise<Void>?)
        case flush
        case closeOutput(EventLoopPromise<Void>?)
    }

    init(server: Bool, identity: PeerIdentity?, pins: [[UInt8]], verification: SettingText, promise: EventLoopPromise<SecurityReport>) {
        self.server = server
        self.identity = identity
        self.pins = pins
        self.verification = verification
        self.promise = promise
        gate = server ? .open : .holding([])
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
        if case .refused = gate { return }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .refused = gate { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch gate {
        case .open: context.write(data, promise: promise)
        case .holding(var held):
            held.append(.write(data, promise))
            gate = .holding(held)
        case .refused(let error): promise?.fail(error)
        }
    }

    func flush(context: ChannelHandlerContext) {
        switch gate {
        case .open: context.flush()
        case .holding(var held):
            held.append(.flush)
            gate = .holding(held)
        case .refused: break
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output, case .holding(var held) = gate {
            // After the writes held before it.
            held.append(.closeOutput(promise))
            gate = .holding(held)
            return
        }
        if mode == .all, case .holding = gate {
            refuse(ChannelError.ioOnClosedChannel)
        }
        context.close(mode: mode, promise: promise)
        guard mode == .all, !closing else { return }
        closing = true
        if peerEnded { closer.closeAfterQueuedWrites() }
    }

    /// Lets the held operations through, in order, and everything after them.
    private func open(context: ChannelHandlerContext) {
        guard case .holding(let held) = gate else { return }
        gate = .open
        for operation in held {
            switch operation {
            case .write(let data, let promise): context.write(data, promise: promise)
            case .flush: context.flush()
            case .closeOutput(let promise): close(context: context, mode: .output, promise: promise)
            }
        }
    }

    /// Fails the held operations and whatever comes after them.
    private func refuse(_ error: any Error) {
        guard case .holding(let held) = gate else { return }
        gate = .refused(error)
        for operation in held {
            switch operation {
            case .write(_, let promise), .closeOutput(let promise): promise?.fail(error)
            case .flush: break
            }
        }
    }

    private func completed(context: ChannelHandlerContext, negotiated: String?) {
        let ssl = try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self)
        let peer = ssl?.peerCertificate
        if let identity, let refusal = Self.refusal(of: peer, for: identity) {
            fail(context: context, SocketEngineError(.tlsFailed, "TLS handshake failed: \(refusal)"))
            return
        }
        if !pins.isEmpty {
            let digest = (try? peer?.extractPublicKey().toSPKIBytes()).flatMap { $0 }.map(PublicKeyPin.digest(of:))
            guard let digest, pins.contains(digest) else {
                let shown = digest.map(PublicKeyPin.text(of:)) ?? "no public key"
                fail(context: context, SocketEngineError(.tlsFailed, "pin mismatch: the server's public key is \(shown), not one of the \(.pin) values"))
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
        open(context: context)
        promise.succeed(report)
    }

    /// A check after the handshake failed: nothing held goes out, and the connection closes.
    private func fail(context: ChannelHandlerContext, _ error: SocketEngineError) {
        refuse(error)
        promise.fail(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    /// Why `certificate` is not the server's that `identity` names, or nil when it is:
    /// `certificate is not valid for evil.example (it names localhost, 127.0.0.1)`.
    static func refusal(of certificate: NIOSSLCertificate?, for identity: PeerIdentity) -> String? {
        guard let certificate else { return "the server sent no certificate" }
        let names: CertificateNames
        do {
            names = try CertificateNames(certificate)
        } catch {
            return "certificate is not valid for \(identity.text) (its names cannot be read: \(error))"
        }
        return names.contains(identity) ? nil : "certificate is not valid for \(identity.text) (it names \(names.listed))"
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !done else {
            if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl { return }  // channelInactive follows
            guard error is NIOSSLError || error is BoringSSLError else {
                context.fireErrorCaught(error)
                return
            }
            context.fireErrorCaught(SocketEngineError(.tlsFailed, "TLS: \(Self.reason(error, server: server).text)"))
            return
        }
        done = true
        let reason = Self.reason(error, server: server)
        var text = reason.text
        // BoringSSL says only that verification failed; the certificate it refused is still
        // there (the handshake's), and says why.
        if reason.verification, let peer = (try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self))?.peerCertificate {
            text = TLSLayer.describeRefusal(peer)
        }
        let failure = SocketEngineError(.tlsFailed, "TLS handshake failed: \(text)")
        refuse(failure)
        promise.fail(failure)
        context.fireErrorCaught(failure)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(SocketEngineError(.tlsFailed, "TLS handshake failed: the peer closed the connection during the handshake"))
        }
        refuse(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    /// A channel that never became active (its connect failed, or it lost a Happy Eyeballs
    /// race) is torn down without `channelInactive`.
    func handlerRemoved(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(SocketEngineError(.tlsFailed, "TLS handshake not done: the connection closed first"))
        }
        refuse(ChannelError.ioOnClosedChannel)
    }

    /// A one-line reason; `verification` when the peer's certificate chain was refused.
    static func reason(_ error: any Error, server: Bool) -> (text: SettingText, verification: Bool) {
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
            return (server ? "the client's certificate was refused (not signed by a CA of \(.clientCA), expired, or not for client use)"
                           : "certificate verification failed", !server)
        }
        if text.contains("CERTIFICATE_REQUIRED") || text.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") {
            return (server ? "the client sent no certificate (\(.clientCA) requires one)" : "the server requires a client certificate (\(.cert) and \(.key))", false)
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
        return (SettingText(text), false)
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
