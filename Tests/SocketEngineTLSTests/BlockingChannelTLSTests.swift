import NIOCore
import SocketEngine
import SocketEngineTLS
import TestSupport
import Testing

import Glibc

/// The TLS layer on a ``BlockingChannel`` (``BlockingConnection`` with `tls://`), against
/// `openssl s_server` on loopback: the handshake completes and data reaches the server
/// decrypted; a refused certificate fails the open with the layer's own reason.
@Suite(.hangGuard)
struct BlockingChannelTLSTests {
    /// Opens `tls://127.0.0.1:PORT` on a thread of its own (trusting the test CA) and, once
    /// open, sends `text`; the negotiated protocol or the failure.
    static func open(_ port: Int, sending text: String) async throws -> Result<String, SocketEngineError> {
        let dir = try await TestCertificates.shared.directory()
        var tls = TLSClientOptions()
        tls.caFile = "\(dir)/ca.pem"
        var options = ConnectOptions.patient
        options.secureTransport = try TLSLayer(client: tls)
        let settings = options
        let endpoint = try Endpoint(parsing: "tls://127.0.0.1:\(port)")
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        return try await onOwnThread {
            do {
                let opened = try BlockingConnection.open(endpoint, address: address, source: nil, options: settings)
                defer { opened.stream.close() }
                var bytes = ByteBuffer(string: text)
                while bytes.readableBytes > 0 {
                    try opened.stream.sendAvailable(&bytes)
                    if bytes.readableBytes > 0 { _ = try opened.stream.waitWritable(until: .max) }
                }
                return .success(opened.security?.protocolVersion ?? "no report")
            } catch let error as SocketEngineError {
                return .failure(error)
            }
        }
    }

    @Test func theHandshakeCompletesAndTheServerReadsPlaintext() async throws {
        let (server, port) = try await openSSLServer("server")
        defer { server.signal(SIGKILL) }
        let result = try await Self.open(port, sending: "over a blocking channel\n")
        guard case .success(let version) = result else { Issue.record("refused: \(result)"); return }
        #expect(version.hasPrefix("TLS"), "\(version)")
        try await server.waitForStdout("over a blocking channel")
    }

    @Test func aRefusedCertificateSaysWhy() async throws {
        let (server, port) = try await openSSLServer("selfsigned")
        defer { server.signal(SIGKILL) }
        let result = try await Self.open(port, sending: "never sent\n")
        guard case .failure(let error) = result else { Issue.record("accepted: \(result)"); return }
        #expect(error.code == .tlsFailed)
        #expect(error.message.contains("self-signed certificate (subject CN=localhost)"), "\(error.message)")
    }
}
