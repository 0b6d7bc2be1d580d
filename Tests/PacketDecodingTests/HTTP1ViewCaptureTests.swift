import Foundation
import TestSupport
import Testing
@testable import PacketDecoding

/// `capture --decode http` against tshark's HTTP dissector, on sessions recorded by
/// scripts/captures/make-http11-sessions.sh (curl against nginx: Content-Length, HEAD, 404,
/// chunked both ways, until close) and on curl's HTTP/1.1 over TLS (Tests/Fixtures/TLS,
/// decrypted with its key log). tshark's `http.request.method`, `http.request.uri`,
/// `http.response.code` and header lines (`http.request.line` / `http.response.line`) equal the
/// view's, on the same frame (both show a message on the packet that completes it).
@Suite(.hangGuard) struct HTTP1ViewCaptureTests {
    static let directory = packageRoot.appendingPathComponent("Tests/Fixtures/http11")
    static let tlsDirectory = packageRoot.appendingPathComponent("Tests/Fixtures/TLS")

    /// One message as the comparison sees it.
    struct Message: Equatable, CustomStringConvertible {
        var frame: Int
        /// METHOD URI, or the status code.
        var start: String
        var headers: [String]
        var description: String { "\(frame) \(start) \(headers)" }
    }

    /// The view's messages of a capture, by frame (1-based), and every view line.
    static func viewed(_ path: String, keys: TLSKeyStore? = nil) throws -> (messages: [Message], summaries: [(frame: Int, HTTPMessageSummary)], lines: [String], json: [String]) {
        let reader = try CaptureFileReader(path: path)
        var tracker = ApplicationViewTracker(views: .http, keys: keys)
        var printer = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: .http), keys: keys)
        var json = PacketJSONWriter(keys: keys)
        var messages: [Message] = []
        var summaries: [(Int, HTTPMessageSummary)] = []
        var out: [UInt8] = []
        var jsonOut: [UInt8] = []
        var frame = 0
        while let record = try reader.next() {
            frame += 1
            printer.print(record.header, record.bytes, into: &out)
            json.append(record.header, record.bytes, into: &jsonOut)
            let captured = UnsafeRawBufferPointer(rebasing: record.bytes[0..<min(record.bytes.count, record.header.capturedLength)])
            guard let segment = TransportSegment.parse(record.header, captured) else { continue }
            for item in tracker.items(for: segment, payload: segment.payload(in: captured)) {
                guard case .httpMessage(let message) = item else { continue }
                summaries.append((frame, message))
                let start = message.isResponse ? String(message.status) : message.startLine.prefix(2).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
                let headers = message.fields.map { String(decoding: $0.name, as: UTF8.self) + ": " + String(decoding: $0.value, as: UTF8.self) }
                messages.append(Message(frame: frame, start: start, headers: headers))
            }
        }
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
        let objects = String(decoding: jsonOut, as: UTF8.self).split(separator: "\n").map(String.init)
        return (messages, summaries, lines, objects)
    }

    /// NAME.tshark.txt: `FRAME SRCPORT request|response METHOD|CODE URI HEADER...`, tab-separated.
    static func tshark(_ name: String) throws -> [Message] {
        let text = try String(contentsOf: directory.appendingPathComponent("\(name).tshark.txt"), encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let start = fields[2] == "request" ? fields[3] + " " + fields[4] : fields[3]
            return Message(frame: Int(fields[0]) ?? 0, start: start, headers: Array(fields.dropFirst(5)))
        }
    }

    @Test func nginxSessionEqualsTshark() throws {
        let ours = try Self.viewed(Self.directory.appendingPathComponent("http11-nginx.pcap").path)
        let theirs = try Self.tshark("http11-nginx")
        #expect(theirs.count == 12)
        #expect(ours.messages == theirs)
        #expect(!ours.lines.contains { $0.contains("lost track") }, "\(ours.lines)")
    }

    @Test func nginxSessionShowsEachFraming() throws {
        let ours = try Self.viewed(Self.directory.appendingPathComponent("http11-nginx.pcap").path)
        let framings = ours.summaries.map { "\($0.1.isResponse ? "response" : "request") \($0.1.framing)" }
        #expect(framings == [
            "request none", "response contentLength",     // GET /index.html: 48 bytes
            "request none", "response none",              // HEAD: no body although Content-Length 48
            "request none", "response contentLength",     // 404
            "request none", "response chunked",           // gzip'd, HTTP/1.1
            "request chunked", "response contentLength",  // POST with a chunked body, 405
            "request none", "response untilClose",        // gzip'd, HTTP/1.0: until nginx closes
        ])
        #expect(ours.summaries[1].1.bodyLength == 48)
        #expect(ours.summaries[8].1.bodyLength == 3000, "the request body de-chunked")
        #expect(ours.summaries[7].1.bodyLength > 0 && ours.summaries[11].1.bodyLength == ours.summaries[7].1.bodyLength, "the same gzip'd file both ways")
        #expect(ours.lines.contains { $0.hasPrefix("HTTP request GET /index.html HTTP/1.1 | Host: 127.0.0.1:") && $0.hasSuffix(", User-Agent: curl/7.88.1, Accept: */* | no body") })
        #expect(ours.lines.contains { $0.hasPrefix("HTTP response HTTP/1.1 200 OK | Server: nginx, Date: ") && $0.hasSuffix(" | body 48 bytes (Content-Length)") })
        #expect(ours.lines.contains { $0.hasPrefix("HTTP request POST /index.html HTTP/1.1 | ") && $0.hasSuffix("Transfer-Encoding: chunked, Content-Type: application/x-www-form-urlencoded | body 3000 bytes (chunked)") })
        #expect(ours.lines.contains { $0.hasPrefix("HTTP response HTTP/1.1 200 OK | ") && $0.contains("Connection: close, ETag: W/\\\"") && $0.hasSuffix("Content-Encoding: gzip | body \(ours.summaries[11].1.bodyLength) bytes (until close)") })
        #expect(ours.lines.count == 12, "one line per message: \(ours.lines)")
    }

    @Test func jsonCarriesEachMessage() throws {
        let ours = try Self.viewed(Self.directory.appendingPathComponent("http11-nginx.pcap").path)
        var apps: [[String: Any]] = []
        for line in ours.json {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            apps += (object["app"] as? [[String: Any]]) ?? []
        }
        let http = apps.filter { $0["proto"] as? String == "http" }
        #expect(http.count == 12)
        #expect(http.first?["type"] as? String == "request")
        #expect(http.first?["method"] as? String == "GET")
        #expect(http.first?["target"] as? String == "/index.html")
        #expect(http.first?["body_framing"] as? String == "none")
        #expect(http[1]["status"] as? Int == 200)
        #expect(http[1]["reason"] as? String == "OK")
        #expect(http[1]["body_length"] as? Int == 48)
        #expect((http[1]["headers"] as? [[String]])?.first == ["Server", "nginx"])
        #expect(http[7]["body_framing"] as? String == "chunked")
        #expect(http[11]["body_framing"] as? String == "until-close")
    }

    /// curl against openssl s_server -www over TLS 1.3, decrypted: tshark's requests on the same
    /// frames; s_server's HTTP/1.0 answer has no length, so it ends with the server's FIN (tshark
    /// never completes it and shows none).
    @Test func decryptedSessionEqualsTshark() throws {
        var log = TLSKeyLog()
        log.add(try [UInt8](Data(contentsOf: Self.tlsDirectory.appendingPathComponent("curl-http11.keylog"))))
        log.finish()
        let ours = try Self.viewed(Self.tlsDirectory.appendingPathComponent("curl-http11.pcap").path, keys: TLSKeyStore(log: log))
        let theirs = try Self.tshark("curl-http11-tls")
        #expect(theirs.map(\.start) == ["GET /one", "GET /two"])
        #expect(ours.messages.filter { !$0.start.hasPrefix("2") } == theirs)
        let responses = ours.summaries.filter { $0.1.isResponse }
        #expect(responses.count == 2)
        for (frame, response) in responses {
            #expect(response.status == 200 && response.framing == .untilClose && response.bodyLength > 0, "frame \(frame)")
        }
        #expect(!ours.lines.contains { $0.contains("lost track") || $0.contains("not decrypted") }, "\(ours.lines)")
    }

    @Test func theViewIsOffUnlessAsked() throws {
        let reader = try CaptureFileReader(path: Self.directory.appendingPathComponent("http11-nginx.pcap").path)
        var printer = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: [.tls, .webSocket, .http2]))
        var out: [UInt8] = []
        while let record = try reader.next() { printer.print(record.header, record.bytes, into: &out) }
        #expect(!String(decoding: out, as: UTF8.self).contains("HTTP request"))
        #expect(ProtocolViews(list: "http") == .http && ProtocolViews(list: "all")?.contains(.http) == true)
    }

    /// Every byte-prefix of the new fixture prints through the view without a trap.
    @Test func everyPrefixPrints() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent("http11-nginx.pcap")))
        var seen = Set<Int>()
        for length in 0...bytes.count {
            var records: [(header: PacketHeader, bytes: [UInt8])] = []
            if let reader = try? CaptureFileReader(bytes: Array(bytes[0..<length])) {
                while let record = try? reader.next() { records.append((record.header, Array(record.bytes))) }
            }
            guard seen.insert(records.count).inserted else { continue }
            var printer = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: .all))
            var out: [UInt8] = []
            for record in records {
                // Each packet cut at every length too: payloads that end mid-head, mid-chunk.
                for cut in stride(from: 0, through: record.bytes.count, by: 7) {
                    var header = record.header
                    header.capturedLength = min(header.capturedLength, cut)
                    var single = PacketPrinter(options: PrintOptions(dump: .none, timestamps: .none, views: .http))
                    record.bytes.withUnsafeBytes { single.print(header, UnsafeRawBufferPointer(rebasing: $0[0..<cut]), into: &out) }
                }
                record.bytes.withUnsafeBytes { printer.print(record.header, $0, into: &out) }
            }
            #expect(records.isEmpty || !out.isEmpty)
        }
        #expect(seen.count > 20)
    }
}
