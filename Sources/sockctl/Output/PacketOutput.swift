import PacketDecoding
import Recording

/// Where printed packets go: one reused buffer written to stdout per packet (`-l` or a
/// terminal) or per 64 KiB.
final class PacketOutput {
    private var format: PacketFormat
    private let lineBuffered: Bool
    private var buffer: [UInt8] = []
    private static let flushThreshold = 64 * 1024

    init(lineBuffered: Bool, format: PacketFormat) {
        self.lineBuffered = lineBuffered
        self.format = format
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    var isPrinting: Bool { format.isPrinting }

    func packet(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) {
        format.append(header, bytes, into: &buffer)
        if lineBuffered || buffer.count >= Self.flushThreshold { flush() }
    }

    /// Appends raw text (the blank line after an interrupted live capture).
    func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    func finish() {
        let summary = format.finish(into: &buffer)
        flush()
        if let summary { FileDescriptorWriter.standardError.write("sockctl capture: \(summary)\n") }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        FileDescriptorWriter.standardOutput.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
