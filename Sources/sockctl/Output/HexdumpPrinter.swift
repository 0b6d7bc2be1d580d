import NIOCore
import PacketDecoding
import SocketEngine

/// `--hexdump`, the same in every command that has it (connect, listen, send, replay, proxy):
/// on stderr, so that it combines with whatever stdout carries (received data, `--json`), one
/// header line per chunk — time, direction, whose bytes, size — and the chunk in the tcpdump -X
/// layout:
///
/// ```
/// 08:01:02.400000 > sent to 127.0.0.1:7000, 10 bytes
/// 	0x0000:  7b22 6964 223a 377d 0d0a                 {"id":7}..
/// ```
///
/// `>` is a chunk going out (towards the server, or from a proxy towards its upstream), `<` one
/// coming back.
final class HexdumpPrinter: Sendable {
    let output: FileDescriptorWriter

    /// The one every command uses.
    static let standard = HexdumpPrinter(output: .standardError)

    init(output: FileDescriptorWriter) {
        self.output = output
    }

    /// A client's or a listener's chunk: `> sent to PEER` or `< received from PEER`.
    func print(_ record: TrafficRecord) {
        let sent = record.direction == .sent
        print(outgoing: sent, (sent ? "sent to " : "received from ") + record.connection, record.bytes)
    }

    /// A chunk described by `what` (`client 2 (127.0.0.1:40792) to upstream`), one write so that
    /// chunks of concurrent connections never interleave.
    func print(outgoing: Bool, _ what: String, _ bytes: ByteBuffer) {
        var line = Array(Self.header(outgoing: outgoing, what, size: bytes.readableBytes, time: Timestamp.now()).utf8)
        bytes.withUnsafeReadableBytes { HexDump.appendHexAndASCII($0, into: &line) }
        line.append(0x0A)
        output.write(line)
    }

    /// `08:01:02.400000 > sent to 127.0.0.1:7000, 10 bytes` (no newline: the dump's lines each
    /// begin with one).
    static func header(outgoing: Bool, _ what: String, size: Int, time: String) -> String {
        "\(time) \(outgoing ? ">" : "<") \(what), \(plural(size, "byte"))"
    }
}
