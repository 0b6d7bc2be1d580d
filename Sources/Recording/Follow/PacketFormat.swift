import PacketDecoding

/// How `capture` prints packets: tcpdump text, JSON lines, followed streams, or nothing
/// (writing a file only). Each packet is appended to the caller's buffer.
public enum PacketFormat {
    case none
    case text(PacketPrinter)
    case json(PacketJSONWriter)
    case follow(StreamFollower)

    /// False when nothing is printed.
    public var isPrinting: Bool {
        if case .none = self { return false }
        return true
    }

    /// Appends what one packet prints.
    public mutating func append(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        // Each case takes its printer out of `self` while it works, so the printer's state is
        // changed in place rather than copied.
        switch self {
        case .none:
            return
        case .text(var printer):
            self = .none
            printer.print(header, bytes, into: &out)
            self = .text(printer)
        case .json(var writer):
            self = .none
            writer.append(header, bytes, into: &out)
            self = .json(writer)
        case .follow(var follower):
            self = .none
            follower.packet(header, bytes, into: &out)
            self = .follow(follower)
        }
    }

    /// At the end: appends what followed streams still hold and returns the follower's
    /// summary line (nil for the other formats). Nothing is printed after it.
    public mutating func finish(into out: inout [UInt8]) -> String? {
        guard case .follow(var follower) = self else { return nil }
        self = .none
        follower.finish(into: &out)
        return follower.summary
    }
}
