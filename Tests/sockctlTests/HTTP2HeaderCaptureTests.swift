import Foundation
import TestSupport
import Testing

/// HTTP/2 header blocks and gRPC messages in `capture -r --json` and `--decode http2`, against
/// tshark on the same recorded sessions: plaintext h2c between nghttpd and nghttp, recorded by
/// tcpdump on loopback, and tshark's decoding of them (NAME.tshark.txt), both made by
/// scripts/captures/make-h2c-sessions.sh. A header list sockctl decodes differently from
/// tshark — a name, a value, the order, a block missed or made up — fails the test.
@Suite("HTTP/2 headers against tshark", .hangGuard)
struct HTTP2HeaderCaptureTests {
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/http2")

    /// sockctl's items in tshark's compact form: `headers SRCPORT STREAM<TAB>NAME: VALUE…` and
    /// `grpc SRCPORT COMPRESSED LENGTH`, from `capture -r FILE --json`, in capture order.
    /// `keylog`: the session is TLS, decrypted with that key log (`--keylog`).
    static func sockctlLines(_ name: String, in directory: URL = fixtures, keylog: URL? = nil) async throws -> [String] {
        let keys = keylog.map { ["--keylog", $0.path] } ?? []
        let result = try await run(try sockctlPath(), ["capture", "-r", directory.appendingPathComponent("\(name).pcap").path, "--json"] + keys)
        #expect(result.status == 0, "\(result.stderr)")
        var lines: [String] = []
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            guard let packet = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let items = packet["app"] as? [[String: Any]], let port = packet["sport"] as? Int else { continue }
            for item in items {
                if let headers = item["headers"] as? [[String]], let stream = item["stream"] as? Int {
                    lines.append("headers \(port) \(stream)\t" + headers.map { "\($0[0]): \($0[1])" }.joined(separator: "\t"))
                } else if item["proto"] as? String == "grpc", let length = item["length"] as? Int, let compressed = item["compressed"] as? Bool {
                    lines.append("grpc \(port) \(compressed ? 1 : 0) \(length)")
                }
            }
        }
        return lines
    }

    static func tsharkLines(_ name: String, file: URL? = nil) throws -> [String] {
        let text = try String(contentsOf: file ?? fixtures.appendingPathComponent("\(name).tshark.txt"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    /// Each direction's lines in order (the two directions interleave by packet time alike, but
    /// tshark's field lines for gRPC come after its header lines).
    static func byDirection(_ lines: [String]) -> [String: [String]] {
        Dictionary(grouping: lines) { line in
            let fields = line.split(separator: " ", maxSplits: 2)
            return "\(fields[0]) \(fields[1])"
        }
    }

    @Test(arguments: ["h2c-streams", "h2c-sequential", "h2c-table", "h2c-grpc", "h2c-grpc2"])
    func headerListsAndGRPCMessagesEqualTsharks(session: String) async throws {
        let expected = try Self.tsharkLines(session)
        #expect(expected.filter { $0.hasPrefix("headers ") }.count >= 2, "tshark decoded no headers: \(expected)")
        let ours = try await Self.sockctlLines(session)
        let (mine, theirs) = (Self.byDirection(ours), Self.byDirection(expected))
        #expect(Set(mine.keys) == Set(theirs.keys))
        for (direction, lines) in theirs {
            #expect(mine[direction] ?? [] == lines, "\(session) \(direction)")
        }
    }

    /// HTTP/2 over TLS with many streams (curl --http2 --parallel, 20 requests multiplexed on one
    /// connection to nghttpd; Tests/Fixtures/TLS, scripts/tls-sessions/record.sh): the header
    /// lists `capture --keylog` decodes from the decrypted bytes equal tshark's `http2.header`
    /// fields decrypted with the same key log, per direction and stream; the text view shows
    /// each stream's request and response.
    @Test func decryptedHeaderListsOfManyStreamsEqualTsharks() async throws {
        let tls = packageRoot.appendingPathComponent("Tests/Fixtures/TLS")
        let expected = try Self.tsharkLines("h2-tls-streams", file: tls.appendingPathComponent("h2-tls-streams.http2.tshark.txt"))
        #expect(expected.count == 40, "tshark decoded 20 requests and 20 responses: \(expected.count)")
        let ours = try await Self.sockctlLines("h2-tls-streams", in: tls, keylog: tls.appendingPathComponent("h2-tls-streams.keylog"))
        let (mine, theirs) = (Self.byDirection(ours), Self.byDirection(expected))
        #expect(Set(mine.keys) == Set(theirs.keys))
        for (direction, lines) in theirs {
            #expect(mine[direction] ?? [] == lines, "h2-tls-streams \(direction)")
        }
        let result = try await run(try sockctlPath(), ["capture", "-r", tls.appendingPathComponent("h2-tls-streams.pcap").path,
                                                       "--keylog", tls.appendingPathComponent("h2-tls-streams.keylog").path, "--decode", "http2"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let requests = lines.filter { $0.hasPrefix("HTTP/2 headers, stream ") && $0.contains(": :method: GET, :path: /") }
        #expect(Set(requests.compactMap { $0.split(separator: ":").first }).count == 20, "20 streams: \(requests)")
        #expect(lines.contains { $0.hasPrefix("HTTP/2 headers, stream 39: :method: GET, :path: /missing-4, :scheme: https, :authority: 127.0.0.1:") })
        #expect(lines.filter { $0.contains(": :status: 200, server: nghttpd") }.count == 16)
        #expect(lines.filter { $0.contains(": :status: 404, server: nghttpd") }.count == 4)
    }

    /// Many streams on one connection: the requests' and the responses' pseudo-headers and the
    /// rest, per stream, as text.
    @Test func theTextViewShowsEachStreamsHeaders() async throws {
        let result = try await run(try sockctlPath(), ["capture", "-r", Self.fixtures.appendingPathComponent("h2c-streams.pcap").path, "--decode", "http2"])
        let text = String(decoding: result.stdout, as: UTF8.self)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let requests = lines.filter { $0.hasPrefix("HTTP/2 headers, stream ") && $0.contains(":method: GET, :path: /") }
        #expect(requests.count == 13, "\(requests)")
        #expect(lines.contains { $0.hasPrefix("HTTP/2 headers, stream 13: :method: GET, :path: /page1.txt, :scheme: http, :authority: 127.0.0.1:") && $0.hasSuffix(", user-agent: sockctl-test/1, x-trace: abc,def") })
        #expect(lines.filter { $0.hasPrefix("HTTP/2 headers, stream ") && $0.contains(": :status: 200, server: nghttpd") }.count == 11)
        #expect(lines.filter { $0.hasPrefix("HTTP/2 headers, stream ") && $0.contains(": :status: 404, server: nghttpd") }.count == 2)
    }

    @Test func grpcMessagesShowTheirPrefixAndTextOrHex() async throws {
        let result = try await run(try sockctlPath(), ["capture", "-r", Self.fixtures.appendingPathComponent("h2c-grpc.pcap").path, "--decode", "http2"])
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("gRPC message, stream 13, length 10: \"hello grpc\""))
        #expect(lines.contains("gRPC message, stream 13, length 30: \"{\\\"name\\\":\\\"sockctl\\\",\\\"n\\\":[1,2,3]}\""))
        #expect(lines.contains("gRPC message, stream 13, length 9: hex 0a0568656c6c6f00ff"))
        let split = try await run(try sockctlPath(), ["capture", "-r", Self.fixtures.appendingPathComponent("h2c-grpc2.pcap").path, "--decode", "http2"])
        let more = String(decoding: split.stdout, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(more.contains("gRPC message, stream 13, compressed, length 14"))
        #expect(more.contains("gRPC message, stream 13, length 0"))
        #expect(more.contains { $0.hasPrefix("gRPC message, stream 13, length 20000: \"xxxx") && $0.hasSuffix("...") }, "one message over two DATA frames")
    }

    /// A capture that joined the connection late: the HPACK tables are unknown; each direction
    /// says so once, and the frames still print.
    @Test func aCaptureThatJoinedLateSaysOncePerDirectionWhichHeadersWereNotDecoded() async throws {
        let result = try await run(try sockctlPath(), ["capture", "-r", Self.fixtures.appendingPathComponent("h2c-late.pcap").path, "--decode", "http2"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let notes = lines.filter { $0.hasPrefix("HTTP/2 headers of this direction not decoded from stream ") }
        #expect(notes.count >= 1 && notes.count <= 2, "\(notes)")
        #expect(notes.allSatisfy { $0.hasSuffix(" on: the HPACK table is unknown (the capture started after the connection did)") })
        #expect(lines.contains { $0.hasPrefix("HTTP/2 DATA, stream ") }, "frames go on after the note")
        let json = try await run(try sockctlPath(), ["capture", "-r", Self.fixtures.appendingPathComponent("h2c-late.pcap").path, "--json"])
        #expect(String(decoding: json.stdout, as: UTF8.self).contains(#""headers_not_decoded":"table_unknown""#))
    }
}
