import HTTPScanning
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import SocketEngine
import TestSupport

/// ``HTTPMessageScanner`` against NIOHTTP1's decoders (llhttp), the oracle, on the same random
/// streams of valid messages: the same messages, statuses or methods, and body bytes; the
/// scanner's message boundaries checked by parsing each cut message alone (``HTTPMessage``).
/// The scanner is fed in random pieces, NIO all at once.
@Suite(.serialized, .hangGuard) struct HTTPScannerDifferentialTests {
    /// One message of a generated stream: its bytes, and what it must decode to.
    struct Generated {
        var wire: [UInt8]
        var status = 0
        var method = ""
        var body: [UInt8]
        var answersHEAD = false
    }

    /// A random valid message: Content-Length, chunked (extensions, trailers) or, when `last`
    /// and a response, until close; random headers and name case.
    static func generate(response: Bool, last: Bool, random: inout SplitMix64) -> Generated {
        func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }
        let bodyLength = pick([0, 1, 2, 17, 100, 1000])
        let body = (0..<bodyLength).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var generated = Generated(wire: [], body: body)
        var head: String
        var status = 200
        var method = "GET"
        if response {
            status = pick([200, 200, 201, 204, 304, 404, 500, 503])
            head = "HTTP/1.1 \(status) \(pick(["OK", "Whatever", ""]))\r\n"
            generated.answersHEAD = status < 300 && random.next() % 4 == 0
        } else {
            method = pick(["GET", "POST", "PUT", "HEAD", "DELETE", "PATCH"])
            head = "\(method) /\(pick(["", "a/b?c=1", "x%20y"])) HTTP/1.1\r\n"
        }
        for index in 0..<Int(random.next() % 4) { head += "X-\(pick(["A", "b", "Long-Name"]))-\(index): \(pick(["1", "two words", "\tpadded "]))\r\n" }
        let noBody = response && (status == 204 || status == 304 || generated.answersHEAD)
        var encoding = pick(["length", "length", "chunked", "none"])
        if encoding == "none" && (response && !last) { encoding = "length" }
        if noBody && encoding == "none" { encoding = "length" }
        var bodyWire: [UInt8] = []
        switch encoding {
        case "chunked":
            head += "\(pick(["Transfer-Encoding", "transfer-encoding"])): chunked\r\n\r\n"
            var offset = 0
            while offset < body.count {
                let size = min(body.count - offset, Int(random.next() % 300) + 1)
                bodyWire += Array("\(String(size, radix: 16, uppercase: random.next() % 2 == 0))\(pick(["", ";ext=1", ";a;b=\"c\""]))\r\n".utf8)
                bodyWire += body[offset..<(offset + size)]
                bodyWire += [0x0D, 0x0A]
                offset += size
            }
            bodyWire += Array("0\r\n\(pick(["", "Checksum: 1\r\n", "A: 1\r\nB: 2\r\n"]))\r\n".utf8)
        case "length":
            head += "\(pick(["Content-Length", "content-length"])): \(body.count)\r\n\r\n"
            bodyWire = body
        default:
            head += "\r\n"
            bodyWire = response ? body : []
            if !response { generated.body = [] }
        }
        if noBody {
            bodyWire = []
            generated.body = []
        }
        generated.wire = Array(head.utf8) + bodyWire
        generated.status = response ? status : 0
        generated.method = response ? "" : method
        return generated
    }

    /// What NIO decoded: per message, the status (or method) and the body bytes.
    struct Decoded: Equatable, CustomStringConvertible {
        var status: Int
        var method: String
        var body: [UInt8]
        var description: String { "\(status)\(method) body \(body.count)" }
    }

    static func nioResponses(_ wire: [UInt8], heads: [Bool]) throws -> [Decoded] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)))
        for head in heads {
            try channel.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: head ? .HEAD : .GET, uri: "/")))
        }
        try channel.writeInbound(ByteBuffer(bytes: wire))
        _ = try? channel.close().wait()
        var decoded: [Decoded] = []
        while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
            switch part {
            case .head(let head): decoded.append(Decoded(status: Int(head.status.code), method: "", body: []))
            case .body(let bytes): decoded[decoded.count - 1].body += Array(buffer: bytes)
            case .end: break
            }
        }
        return decoded
    }

    static func nioRequests(_ wire: [UInt8]) throws -> [Decoded] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
        try channel.writeInbound(ByteBuffer(bytes: wire))
        _ = try? channel.close().wait()
        var decoded: [Decoded] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let head): decoded.append(Decoded(status: 0, method: head.method.rawValue, body: []))
            case .body(let bytes): decoded[decoded.count - 1].body += Array(buffer: bytes)
            case .end: break
            }
        }
        return decoded
    }

    /// The scanner's view: each message cut where the scanner said, parsed alone.
    static func scanned(_ wire: [UInt8], side: HTTPMessageScanner.Side, heads: [Bool], random: inout SplitMix64) throws -> [Decoded] {
        let cuts = (0..<Int(random.next() % 8)).map { _ in Int(random.next() % UInt64(max(1, wire.count))) }
        let result = ScannedStream.scan(wire, side: side, heads: heads, cuts: cuts)
        #expect(result.error == nil)
        #expect(result.consumed == wire.count)
        var offset = 0
        var decoded: [Decoded] = []
        for info in result.messages {
            let bytes = ByteBuffer(bytes: wire[offset..<(offset + info.wireBytes)])
            offset += info.wireBytes
            let message = try HTTPMessage(parsing: bytes)
            #expect(message.body.readableBytes == info.bodyBytes)
            #expect(message.status == info.status)
            decoded.append(Decoded(status: message.status, method: message.method, body: Array(buffer: message.body)))
        }
        return decoded
    }

    @Test func responsesDecodeAsNIODecodesThem() throws {
        var random = SplitMix64(seed: 29)
        for round in 0..<300 {
            let count = Int(random.next() % 5) + 1
            let messages = (0..<count).map { Self.generate(response: true, last: $0 == count - 1, random: &random) }
            let wire = messages.flatMap(\.wire)
            let heads = messages.map(\.answersHEAD)
            let oracle = try Self.nioResponses(wire, heads: heads)
            let ours = try Self.scanned(wire, side: .responses, heads: heads, random: &random)
            #expect(ours == oracle, "round \(round)")
            #expect(ours.map(\.body) == messages.map(\.body), "round \(round)")
            if ours != oracle { return }
        }
    }

    @Test func requestsDecodeAsNIODecodesThem() throws {
        var random = SplitMix64(seed: 9112)
        for round in 0..<300 {
            let count = Int(random.next() % 5) + 1
            let messages = (0..<count).map { _ in Self.generate(response: false, last: false, random: &random) }
            let wire = messages.flatMap(\.wire)
            let oracle = try Self.nioRequests(wire)
            let ours = try Self.scanned(wire, side: .requests, heads: [], random: &random)
            #expect(ours == oracle, "round \(round)")
            #expect(ours.map(\.method) == messages.map(\.method), "round \(round)")
            if ours != oracle { return }
        }
    }

    /// Interim responses: NIO drops them by default; the scanner reports them as interim.
    @Test func interimResponsesAreReportedApart() throws {
        let wire = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
        let oracle = try Self.nioResponses(wire, heads: [false])
        let result = ScannedStream.scan(wire, side: .responses)
        #expect(result.messages.filter { !$0.isInterim }.map(\.status) == oracle.map(\.status))
        #expect(result.messages.map(\.isInterim) == [true, false])
    }
}
