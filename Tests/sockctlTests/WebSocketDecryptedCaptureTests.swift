import Foundation
import TestSupport
import Testing

/// WebSocket over TLS in `capture -r --keylog --json` and `--decode ws`, against tshark on the
/// same recorded sessions: Python websockets as server and client on loopback, with
/// permessage-deflate (both contexts taken over) and without, recorded by tcpdump with the
/// client's key log, and tshark's decrypted and inflated messages (NAME.ws.tshark.txt), all
/// made by scripts/tls-sessions/record.sh. A message sockctl shows differently from tshark —
/// its kind, its inflated length, the bytes it shows, the order, one missed or made up — fails
/// the test; what the peers say they sent (NAME.sent) anchors tshark's side.
@Suite("WebSocket over TLS against tshark", .hangGuard)
struct WebSocketDecryptedCaptureTests {
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/TLS")
    /// The bytes of a message the views show (`capture`'s payload limit).
    static let shown = 64

    /// A message as the view shows it: the sender's port, text or binary, the inflated length,
    /// and the first `shown` bytes in hex.
    struct Message: Hashable, CustomStringConvertible {
        var port: String
        var kind: String
        var length: Int
        var prefix: String
        var description: String { "\(port) \(kind) \(length) \(prefix)" }
    }

    /// sockctl's messages in capture order: the inflated ones (`"proto":"ws","message":…`
    /// items) and the frames of uncompressed ones.
    static func sockctl(_ name: String, _ extra: [String] = ["--json"]) async throws -> (messages: [Message], stdout: String) {
        let result = try await run(try sockctlPath(), ["capture", "-r", fixtures.appendingPathComponent("\(name).pcap").path,
                                                       "--keylog", fixtures.appendingPathComponent("\(name).keylog").path] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        let stdout = String(decoding: result.stdout, as: UTF8.self)
        guard extra == ["--json"] else { return ([], stdout) }
        var messages: [Message] = []
        for line in stdout.split(separator: "\n") {
            guard let packet = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let items = packet["app"] as? [[String: Any]], let port = packet["sport"] as? Int else { continue }
            for item in items where item["proto"] as? String == "ws" {
                // A compressed message is shown inflated as a message of its own; an
                // uncompressed one (none is fragmented here) is its frame.
                let kind: String
                if let message = item["message"] as? String {
                    #expect(item["inflated"] as? Bool == true, "\(item)")
                    kind = message
                } else if let opcode = item["opcode"] as? String, ["text", "binary"].contains(opcode), item["compressed"] == nil {
                    #expect(item["fin"] as? Bool == true, "\(item)")
                    kind = opcode
                } else {
                    continue
                }
                // The JSON string holds each byte as one character (`\u00XX` outside ASCII).
                let bytes = (item["payload"] as? String ?? "").unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
                messages.append(Message(port: "\(port)", kind: kind, length: item["length"] as? Int ?? -1, prefix: hex(bytes)))
            }
        }
        return (messages, stdout)
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Lines `… KIND HEX` (the last two fields) of a fixture file, whole.
    static func lines(_ file: String) throws -> [(head: [Substring], kind: String, hex: String)] {
        try String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8).split(separator: "\n").map { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            return (Array(fields.dropLast(2)), String(fields[fields.count - 2]), String(fields[fields.count - 1]))
        }
    }

    /// tshark's messages (`ws SRCPORT KIND HEX`) cut to what the view shows.
    static func tshark(_ name: String) throws -> [Message] {
        try lines("\(name).ws.tshark.txt").map { line in
            Message(port: String(line.head[1]), kind: line.kind, length: line.hex.count / 2, prefix: String(line.hex.prefix(2 * shown)))
        }
    }

    static func byPort(_ messages: [Message]) -> [String: [Message]] { Dictionary(grouping: messages, by: \.port) }

    @Test(arguments: ["ws-tls-deflate", "ws-tls-plain"])
    func inflatedMessagesEqualTsharks(_ name: String) async throws {
        let expected = try Self.tshark(name)
        // tshark's side, whole, is what the Python peers say they sent (each sender's order).
        let whole = try Self.lines("\(name).ws.tshark.txt")
        let sent = try Self.lines("\(name).sent")
        #expect(expected.count == 14 && sent.count == 14, "\(expected.count) messages in tshark, \(sent.count) sent")
        let sentByServer = sent.filter { $0.head == ["server"] }.map { "\($0.kind) \($0.hex)" }
        let seenByPort = Dictionary(grouping: whole, by: { String($0.head[1]) }).mapValues { $0.map { "\($0.kind) \($0.hex)" } }
        #expect(seenByPort.values.contains(sentByServer) && seenByPort.values.contains(sent.filter { $0.head == ["client"] }.map { "\($0.kind) \($0.hex)" }))
        #expect(expected.contains { $0.length > Self.shown }, "a message longer than the view shows")

        let ours = try await Self.sockctl(name).messages
        let (mine, theirs) = (Self.byPort(ours), Self.byPort(expected))
        #expect(Set(mine.keys) == Set(theirs.keys))
        for (port, messages) in theirs {
            #expect(mine[port] ?? [] == messages, "\(name) from port \(port)")
        }
    }

    /// The text view: the compressed session's frames say so and each message shows inflated;
    /// the other's frames carry the text as it is.
    @Test func theTextViewShowsTheMessagesInflated() async throws {
        let deflate = try await Self.sockctl("ws-tls-deflate", ["--decode", "ws"]).stdout
        #expect(deflate.contains("    WebSocket message, text, inflated 28 bytes: \"hello over websocket and TLS\"\n"), "\(deflate.prefix(4000))")
        #expect(deflate.contains("    WebSocket message, binary, inflated 8 bytes: 0x0102030405fafbfc\n"))
        #expect(deflate.contains("WebSocket text, FIN, compressed, masked, length "))
        #expect(!deflate.contains("not inflated") && !deflate.contains("not decrypted"))
        let plain = try await Self.sockctl("ws-tls-plain", ["--decode", "ws"]).stdout
        #expect(plain.contains("WebSocket text, FIN, masked, length 28: \"hello over websocket and TLS\""), "\(plain.prefix(4000))")
        #expect(!plain.contains("compressed") && !plain.contains("not decrypted"))
    }
}
