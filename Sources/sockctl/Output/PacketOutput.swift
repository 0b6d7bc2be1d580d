import PacketDecoding
import Recording

/// Where printed packets go: tcpdump text, JSON lines or followed streams, into one reused
/// buffer written to stdout per packet (`-l` or a terminal) or per 64 KiB.
final class PacketOutput {
    enum Mode {
        case none
        case text(PacketPrinter)
        case json(PacketJSONWriter)
        case follow(StreamFollower)
    }

    private var mode: Mode
    private let lineBuffered: Bool
    private var buffer: [UInt8] = []
    private static let flushThreshold = 64 * 1024

    init(lineBuffered: Bool, mode: Mode) {
        self.lineBuffered = lineBuffered
        self.mode = mode
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    var isPrinting: Bool {
        if case .none = mode { return false }
        return true
    }

    func packet(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) {
        switch mode {
        case .none:
            return
        case .text(var printer):
            mode = .none
            printer.print(header, bytes, into: &buffer)
            mode = .text(printer)
        case .json(var writer):
            mode = .none
            writer.append(header, bytes, into: &buffer)
            mode = .json(writer)
        case .follow(var follower):
            mode = .none
            follower.packet(header, bytes, into: &buffer)
            mode = .follow(follower)
        }
        if lineBuffered || buffer.count >= Self.flushThreshold { flush() }
    }

    /// Appends raw text (the blank line after an interrupted live capture).
    func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    func finish() {
        var summary: String?
        if case .follow(var follower) = mode {
            mode = .none
            follower.finish(into: &buffer)
            summary = follower.summary
        }
        flush()
        if let summary { FileDescriptorWriter.standardError.write("sockctl capture: \(summary)\n") }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        FileDescriptorWriter.standardOutput.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
