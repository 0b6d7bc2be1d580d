import NIOCore
import NIOEmbedded
import NIOSSL
import SocketEngine
import TestSupport
import Testing
@testable import SocketEngineTLS

/// The name a client checks in the server's certificate: `serverName` alone when given, else
/// the host as written (an address against IP entries only), with curl's matching rules.
@Suite(.hangGuard)
struct CertificateNameRuleTests {
    @Test func addressLiteralsAreAddressesAndNamesAreNames() {
        #expect(PeerIdentity("127.0.0.1") == .address([127, 0, 0, 1], "127.0.0.1"))
        #expect(PeerIdentity("[::1]") == .address([UInt8](repeating: 0, count: 15) + [1], "[::1]"))
        #expect(PeerIdentity("fe80::1%lo").serverNameIndication == nil)
        #expect(PeerIdentity("localhost") == .name("localhost"))
        #expect(PeerIdentity("localhost").serverNameIndication == "localhost")
        #expect(PeerIdentity("1.2.3.4.example").serverNameIndication == "1.2.3.4.example")
    }

    @Test(arguments: [
        ("localhost", "localhost", true),
        ("LocalHost", "localhost.", true),
        ("localhost.", "LOCALHOST", true),
        ("localhost", "localhost2", false),
        ("*.example.com", "a.example.com", true),
        ("*.example.com", "A.Example.COM", true),
        ("*.example.com", "example.com", false),
        ("*.example.com", "a.b.example.com", false),
        ("*.example.com", ".example.com", false),
        ("*.com", "example.com", false),
        ("f*.example.com", "foo.example.com", false),
        ("*.*.example.com", "a.b.example.com", false),
        ("a.*.example.com", "a.b.example.com", false),
        ("", "", false),
    ])
    func dnsEntriesMatchAsCurlMatchesThem(pattern: String, name: String, matches: Bool) {
        #expect(CertificateNames.matches(pattern: pattern, name: name) == matches, "\(pattern) vs \(name)")
    }

    @Test func anAddressMatchesOnlyIPEntriesAndANameOnlyDNSEntries() {
        let names = CertificateNames(dnsNames: ["localhost", "127.0.0.2"], addresses: [[127, 0, 0, 1]], commonName: "127.0.0.3")
        #expect(names.contains(PeerIdentity("127.0.0.1")))
        #expect(!names.contains(PeerIdentity("127.0.0.2")), "a DNS entry written like an address is not an IP entry")
        #expect(!names.contains(PeerIdentity("127.0.0.3")), "never the common name for an address")
        #expect(names.contains(PeerIdentity("localhost")))
        #expect(!names.contains(PeerIdentity("evil.example")))
        #expect(names.listed == "localhost, 127.0.0.2, 127.0.0.1")
    }

    @Test func theCommonNameCountsOnlyWithoutAnyEntry() {
        #expect(CertificateNames(commonName: "old.example").contains(PeerIdentity("old.example")))
        #expect(!CertificateNames(dnsNames: ["new.example"], commonName: "old.example").contains(PeerIdentity("old.example")))
        #expect(!CertificateNames(addresses: [[10, 0, 0, 1]], commonName: "old.example").contains(PeerIdentity("old.example")))
        #expect(CertificateNames(commonName: "old.example").listed == "old.example")
        #expect(CertificateNames().listed == "no name at all")
        let many = CertificateNames(dnsNames: (1...10).map { "n\($0).example" })
        #expect(many.listed.hasSuffix("n8.example and 2 more"))
    }

    /// The names of the test server certificate (`DNS:localhost, IP:127.0.0.1, IP:::1`),
    /// read from the file openssl made.
    @Test func theNamesAreReadFromTheCertificate() async throws {
        let dir = try await TestCertificates.shared.directory()
        let certificate = try #require(try NIOSSLCertificate.fromPEMFile("\(dir)/server.pem").first)
        let names = try CertificateNames(certificate)
        #expect(names.dnsNames == ["localhost"])
        #expect(names.addresses == [[127, 0, 0, 1], [UInt8](repeating: 0, count: 15) + [1]])
        #expect(names.commonName == "localhost")
        #expect(names.listed == "localhost, 127.0.0.1, ::1")
    }
}

/// A client and a server TLS layer handshaking in memory, on one `NIOAsyncTestingEventLoop`
/// (no socket, as loadtest's thread path drives the layer): the test carries the bytes.
@Suite(.hangGuard)
struct TLSNameCheckTests {
    struct Handshake {
        let loop = NIOAsyncTestingEventLoop()
        let client: NIOAsyncTestingChannel
        let server: NIOAsyncTestingChannel
        let clientReport: EventLoopFuture<SecurityReport>
        /// What the client wrote before its handshake was done.
        let early: EventLoopFuture<Void>

        /// The server presents `certificate`; the client connects to `host` with `options`
        /// (trusting the test CA unless told otherwise) and writes `early` at once.
        init(certificate: String, host: String, trustTestCA: Bool = true, _ configure: (inout TLSClientOptions) -> Void = { _ in }) async throws {
            let dir = try await TestCertificates.shared.directory()
            let serverLayer = try TLSLayer(server: TLSServerOptions(certificateFile: "\(dir)/\(certificate).pem", keyFile: "\(dir)/\(certificate).key"))
            var options = TLSClientOptions()
            if trustTestCA { options.caFile = "\(dir)/ca.pem" }
            configure(&options)
            let clientLayer = try TLSLayer(client: options)
            let (client, server) = (NIOAsyncTestingChannel(loop: loop), NIOAsyncTestingChannel(loop: loop))
            (self.client, self.server) = (client, server)
            clientReport = try await loop.executeInContext {
                _ = try serverLayer.addServerLayer(to: server)
                return try clientLayer.addClientLayer(to: client, host: host)
            }
            let address = try SocketAddress(ipAddress: "127.0.0.1", port: 7443)
            try await server.connect(to: address).get()
            try await client.connect(to: address).get()
            early = client.writeAndFlush(ByteBuffer(string: "written before the handshake"))
            try await pump()
        }

        /// Carries what each side wrote to the other until neither has more.
        func pump() async throws {
            var moved = true
            while moved {
                moved = false
                while let bytes = try await client.readOutbound(as: ByteBuffer.self) {
                    _ = try? await server.writeInbound(bytes)
                    moved = true
                }
                while let bytes = try await server.readOutbound(as: ByteBuffer.self) {
                    _ = try? await client.writeInbound(bytes)
                    moved = true
                }
            }
        }

        /// Everything the server's TLS layer decrypted (skipping the errors it reported: a
        /// refused client alerts it).
        func serverReceived() async throws -> String {
            var text = ""
            for _ in 0..<1000 {
                do {
                    guard let chunk = try await server.readInbound(as: ByteBuffer.self) else { break }
                    text += String(buffer: chunk)
                } catch {
                    continue
                }
            }
            return text
        }

        /// The client's failure, or nil when its handshake succeeded.
        func failure() async -> String? {
            do {
                _ = try await clientReport.get()
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    /// The certificate names `localhost, 127.0.0.1, ::1` and the connection goes to
    /// 127.0.0.1: `serverName` evil.example is refused all the same (NIOSSL's own check took
    /// the socket's address as a match), and what the client wrote early never leaves it.
    @Test func theServerNameAloneIsCheckedAndNothingIsWrittenBeforeTheCheck() async throws {
        let handshake = try await Handshake(certificate: "server", host: "127.0.0.1") { $0.serverName = "evil.example" }
        #expect(await handshake.failure() == "TLS handshake failed: certificate is not valid for evil.example (it names localhost, 127.0.0.1, ::1)")
        await #expect(throws: (any Error).self) { try await handshake.early.get() }
        #expect(try await handshake.serverReceived() == "")
    }

    @Test(arguments: [
        ("127.0.0.1", nil as String?), ("localhost", nil), ("127.0.0.1", "localhost"), ("::1", nil), ("evil.example", "localhost"),
    ])
    func theRightNameIsAcceptedAndTheEarlyWriteFollows(host: String, serverName: String?) async throws {
        let handshake = try await Handshake(certificate: "server", host: host) { $0.serverName = serverName }
        #expect(await handshake.failure() == nil)
        try await handshake.early.get()
        #expect(try await handshake.serverReceived() == "written before the handshake")
    }

    @Test(arguments: [
        ("server", "127.0.0.2", nil as String?, "certificate is not valid for 127.0.0.2 (it names localhost, 127.0.0.1, ::1)"),
        ("server", "evil.example", nil, "certificate is not valid for evil.example (it names localhost, 127.0.0.1, ::1)"),
        ("server", "127.0.0.1", "127.0.0.2", "certificate is not valid for 127.0.0.2 (it names localhost, 127.0.0.1, ::1)"),
        ("wronghost", "127.0.0.1", nil, "certificate is not valid for 127.0.0.1 (it names wrong.example)"),
    ])
    func aWrongNameIsRefusedSayingWhatTheCertificateNames(certificate: String, host: String, serverName: String?, reason: String) async throws {
        let handshake = try await Handshake(certificate: certificate, host: host) { $0.serverName = serverName }
        #expect(await handshake.failure() == "TLS handshake failed: \(reason)")
        #expect(try await handshake.serverReceived() == "")
    }

    /// Pins are checked on top of the name, and hold the early write back the same way.
    @Test func aPinMismatchWritesNothingEither() async throws {
        let handshake = try await Handshake(certificate: "server", host: "localhost") { $0.pins = [[UInt8](repeating: 0, count: 32)] }
        #expect(await handshake.failure()?.hasPrefix("pin mismatch: the server's public key is sha256//") == true)
        #expect(try await handshake.serverReceived() == "")
    }

    /// `--insecure` checks no name (pins, if any, still).
    @Test func withoutVerificationNoNameIsChecked() async throws {
        let handshake = try await Handshake(certificate: "wronghost", host: "127.0.0.1", trustTestCA: false) { $0.verify = false }
        #expect(await handshake.failure() == nil)
        #expect(try await handshake.serverReceived() == "written before the handshake")
    }

    /// A refused chain is named from the certificate of the refused handshake itself — no second
    /// connection, so a layer with no socket (loadtest's thread path) says why as well.
    @Test(arguments: [
        ("selfsigned", false, "self-signed certificate (subject CN=localhost)"),
        ("server", false, "certificate signed by an unknown CA (issuer CN=sockctl test CA)"),
        ("expired", true, "certificate expired on 2020-01-02 00:00:00 UTC (subject CN=localhost)"),
    ])
    func aRefusedChainIsNamedWithoutConnectingAgain(certificate: String, trustTestCA: Bool, reason: String) async throws {
        let handshake = try await Handshake(certificate: certificate, host: "127.0.0.1", trustTestCA: trustTestCA)
        let failure = try #require(await handshake.failure())
        #expect(failure.hasPrefix("TLS handshake failed: \(reason)"), "\(failure)")
        #expect(try await handshake.serverReceived() == "")
    }
}
