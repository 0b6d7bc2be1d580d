import PacketDecoding
import SocketEngine

/// `--hexdump`: one header line per chunk (time, direction, peer, size) and the tcpdump -X
/// dump of its bytes.
final class HexdumpPrinter: Sendable {
    let output: FileDescriptorWriter

    init(output: FileDescriptorWriter) {
        self.output = output
    }

    func print(_ record: TrafficRecord) {
        let arrow = record.direction == .sent ? ">" : "<"
        let verb = record.direction == .sent ? "sent to" : "received from"
        var line = Array("\(Timestamp.now()) \(arrow) \(verb) \(record.connection), \(record.bytes.readableBytes) bytes".utf8)
        record.bytes.withUnsafeReadableBytes { HexDump.appendHexAndASCII($0, into: &line) }
        line.append(0x0A)
        output.write(line)
    }
}
