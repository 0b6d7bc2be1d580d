import NIOCore
import Glibc
import NIOEmbedded
import ProxyProtocol
import Testing
@testable import SocketEngine
import TestSupport

/// The PROXY protocol header (haproxy's proxy-protocol.txt): the bytes of its examples, both
/// versions written and read back, every prefix of a header waiting for more, malformed ones
/// refused with their reason — and the listener's receiver, its time limit in the loop's time.
@Suite(.hangGuard) struct ProxyProtocolHeaderTests {
    /// What the receiver told, in order (the embedded channel runs on the test's thread).
    final class Told: @unchecked Sendable {
        var results: [Result<ProxyProtocolHeader, SocketEngineError>] = []
    }

    static func parse(_ bytes: [UInt8]) throws(ProxyProtocolHeader.Failure) -> ProxyProtocolHeader.Parsed {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(ProxyProtocolHeader.Failure) in try ProxyProtocolHeader.parse(raw) } }
        return try result.get()
    }

    static let v4 = ProxyProtocolHeader.Addresses(
        source: .init(ipv4: "192.0.2.7", 40001), destination: .init(ipv4: "198.51.100.1", 443))
    static let v6 = ProxyProtocolHeader.Addresses(
        source: .init(ipv6: "2001:db8::7", 40001), destination: .init(ipv6: "2001:db8::1", 443))

    @Test func aV1LineIsTheSpecificationsText() {
        let header = ProxyProtocolHeader(version: .v1, source: Self.v4.source, destination: Self.v4.destination)
        #expect(String(decoding: header.encoded(), as: UTF8.self) == "PROXY TCP4 192.0.2.7 198.51.100.1 40001 443\r\n")
        let six = ProxyProtocolHeader(version: .v1, source: Self.v6.source, destination: Self.v6.destination)
        #expect(String(decoding: six.encoded(), as: UTF8.self) == "PROXY TCP6 2001:db8::7 2001:db8::1 40001 443\r\n")
        let mixed = ProxyProtocolHeader(version: .v1, source: Self.v4.source, destination: Self.v6.destination)
        #expect(String(decoding: mixed.encoded(), as: UTF8.self) == "PROXY TCP6 ::ffff:192.0.2.7 2001:db8::1 40001 443\r\n")
        #expect(String(decoding: ProxyProtocolHeader(version: .v1, addresses: nil).encoded(), as: UTF8.self) == "PROXY UNKNOWN\r\n")
    }

    @Test func aV2BlockIsTheSpecificationsLayout() {
        let header = ProxyProtocolHeader(version: .v2, source: Self.v4.source, destination: Self.v4.destination)
        #expect(header.encoded() == ProxyProtocolHeader.signature + [0x21, 0x11, 0x00, 0x0C,
                                                                     192, 0, 2, 7, 198, 51, 100, 1, 0x9C, 0x41, 0x01, 0xBB])
        let six = ProxyProtocolHeader(version: .v2, source: Self.v6.source, destination: Self.v6.destination).encoded()
        #expect(six.count == 16 + 36)
        #expect(Array(six[12..<16]) == [0x21, 0x21, 0x00, 0x24])
        #expect(Array(six[16..<20]) == [0x20, 0x01, 0x0D, 0xB8])
    }

    @Test(arguments: [ProxyProtocolHeader.Version.v1, .v2])
    func eachHeaderReadsBackWhateverFollowsIt(version: ProxyProtocolHeader.Version) throws {
        for addresses in [Self.v4, Self.v6] {
            let header = ProxyProtocolHeader(version: version, addresses: addresses)
            let bytes = header.encoded()
            #expect(try Self.parse(bytes + Array("GET / HTTP/1.1\r\n".utf8)) == .header(header, length: bytes.count))
            // Every shorter prefix is the start of a header: more is needed, never an error.
            for cut in 0..<bytes.count {
                #expect(try Self.parse(Array(bytes[..<cut])) == .incomplete, "\(version), \(cut) bytes")
            }
        }
    }

    @Test func v2LocalAndTLVsAndUnixPathsAreRead() throws {
        let local = ProxyProtocolHeader.signature + [0x20, 0x00, 0x00, 0x00]
        #expect(try Self.parse(local) == .header(ProxyProtocolHeader(version: .v2, addresses: nil, isLocal: true), length: 16))
        // An IPv4 block followed by a 7-byte TLV (PP2_TYPE_AUTHORITY "host"): read past it.
        let tlv: [UInt8] = [0x02, 0x00, 0x04] + Array("host".utf8)
        let withTLV = ProxyProtocolHeader.signature + [0x21, 0x11, 0x00, UInt8(12 + tlv.count),
                                                       192, 0, 2, 7, 198, 51, 100, 1, 0x9C, 0x41, 0x01, 0xBB] + tlv
        #expect(try Self.parse(withTLV + [0x16]) == .header(ProxyProtocolHeader(version: .v2, addresses: Self.v4, extensionBytes: 7), length: withTLV.count))
        let unix = ProxyProtocolHeader(
            version: .v2, source: try SocketAddress(unixDomainSocketPath: "/tmp/client.sock"), destination: try SocketAddress(unixDomainSocketPath: "/run/app.sock"))
        let bytes = unix.encoded()
        #expect(bytes.count == 16 + 216)
        #expect(try Self.parse(bytes) == .header(unix, length: bytes.count))
        #expect(unix.description == "v2 unix:/tmp/client.sock > unix:/run/app.sock")
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\n", "the connection does not begin with one"),
        ("PROXY TCP4 192.0.2.7 198.51.100.1 40001\r\n", "v1 line with 5 fields (6 needed)"),
        ("PROXY TCP4 192.0.2 198.51.100.1 40001 443\r\n", "v1 line with source address '192.0.2'"),
        ("PROXY TCP4 2001:db8::7 198.51.100.1 40001 443\r\n", "v1 line with source address '2001:db8::7' (not IPv4)"),
        ("PROXY TCP4 192.0.2.7 198.51.100.1 40001 65536\r\n", "v1 line with destination port '65536'"),
        ("PROXY TCP4 192.0.2.7  198.51.100.1 40001 443\r\n", "v1 line with 7 fields (6 needed)"),
        ("PROXY UDP4 192.0.2.7 198.51.100.1 40001 443\r\n", "v1 line with protocol 'UDP4' (TCP4, TCP6 or UNKNOWN)"),
        ("PROXY TCP4 192.0.2.7 198.51.100.1 40001 443\n", "v1 line with a line feed not after a carriage return"),
        ("PROXY " + String(repeating: "x", count: 120), "v1 line without CRLF within 107 bytes"),
    ])
    func aMalformedV1LineIsRefusedWithItsReason(text: String, reason: String) {
        #expect(throws: ProxyProtocolHeader.Failure.self) { try Self.parse(Array(text.utf8)) }
        do {
            _ = try Self.parse(Array(text.utf8))
        } catch {
            #expect(error.description == reason)
        }
    }

    @Test func aMalformedV2BlockIsRefusedWithItsReason() {
        let signature = ProxyProtocolHeader.signature
        let cases: [([UInt8], String)] = [
            (signature + [0x11, 0x11, 0x00, 0x00], "v2 version 1"),
            (signature + [0x22, 0x11, 0x00, 0x00], "v2 command 2"),
            (signature + [0x21, 0x41, 0x00, 0x00], "v2 family and protocol byte 0x41"),
            (signature + [0x21, 0x13, 0x00, 0x00], "v2 family and protocol byte 0x13"),
            (signature + [0x21, 0x11, 0x00, 0x04, 1, 2, 3, 4], "v2 IPv4 addresses in 4 bytes (12 needed)"),
            (Array(signature.prefix(5)) + [0x41], "the connection does not begin with one"),
        ]
        for (bytes, reason) in cases {
            do {
                _ = try Self.parse(bytes)
                Issue.record("\(bytes) was read as a header")
            } catch {
                #expect(error.description == reason)
            }
        }
    }

    // MARK: The listener's receiver

    /// The header and the client's first bytes in one read: the set-up goes on with the
    /// carried addresses and the bytes behind the header come out alone.
    @Test func theReceiverPassesOnWhatFollowsTheHeader() throws {
        let channel = EmbeddedChannel()
        let told = Told()
        try channel.pipeline.syncOperations.addHandler(ProxyProtocolReceiver(timeout: .seconds(10)) { told.results.append($0) })
        try channel.connect(to: SocketAddress(ipv4: "127.0.0.1", 1)).wait()
        let header = ProxyProtocolHeader(version: .v2, addresses: Self.v4)
        try channel.writeInbound(ByteBuffer(bytes: Array(header.encoded().prefix(10))))
        #expect(told.results.isEmpty)
        try channel.writeInbound(ByteBuffer(bytes: Array(header.encoded().dropFirst(10)) + Array("hello".utf8)))
        #expect(told.results.count == 1)
        #expect(try told.results.first?.get() == header)
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "hello"))
        #expect(Connection.carriedAddresses(of: channel) == Self.v4)
        try channel.writeInbound(ByteBuffer(string: "more"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "more"))
        #expect(channel.isActive)
    }

    /// No header within the time limit (the loop's time): refused with the limit, closed.
    @Test func aClientWithoutAHeaderInTimeIsRefused() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        let told = Told()
        try channel.pipeline.syncOperations.addHandler(ProxyProtocolReceiver(timeout: .seconds(10)) { told.results.append($0) })
        try channel.connect(to: SocketAddress(ipv4: "127.0.0.1", 1)).wait()
        try channel.writeInbound(ByteBuffer(string: "PROXY TCP4 "))
        loop.advanceTime(by: .milliseconds(9_999))
        #expect(told.results.isEmpty)
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(told.results.count == 1)
        if case .failure(let error) = told.results.first {
            #expect(error.code == SocketEngineError.Code.proxyHeader)
            #expect(error.message == "no PROXY protocol header within 10s")
        } else {
            Issue.record("not refused")
        }
        #expect(!channel.isActive)
    }
}

extension SocketAddress {
    /// A literal IPv4 address (the tests' own, always valid: an invalid one is the unspecified address).
    init(ipv4 text: String, _ port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        _ = inet_pton(AF_INET, text, &address.sin_addr)
        self.init(address, host: text)
    }

    /// A literal IPv6 address (as ``init(ipv4:_:)``).
    init(ipv6 text: String, _ port: Int) {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        _ = inet_pton(AF_INET6, text, &address.sin6_addr)
        self.init(address, host: text)
    }
}
