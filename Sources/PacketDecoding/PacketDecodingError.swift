import Glibc

/// The one error type of PacketDecoding: why a capture file could not be opened or read
/// further, or a stream was too large to keep; inside the printers, that the captured bytes
/// ended before a header did (``capturedBytesEnd``, which the printer turns into tcpdump's
/// `[|proto]` marker: it never leaves the module).
///
/// ``description`` is libpcap 1.10.3's message for the same input, word for word and on one line
/// (tcpdump 4.99.3 prints it as `tcpdump: <message>` when opening fails and as
/// `tcpdump: pcap_loop: <message>` when a record fails; ``phase`` tells the two apart), e.g.
/// `unknown file format`, `truncated dump file; tried to read 16 header bytes, only got 5`,
/// `invalid packet capture length 300000, bigger than snaplen of 262144`.
///
/// Not errors: a record with caplen 0, caplen > len, or a timestamp fraction ≥ 1 s (they are
/// handed out as they are, for the printer to flag), a record longer than the file's snapshot
/// length in a classic pcap file (clamped, like libpcap), unknown pcapng block types (skipped).
public struct PacketDecodingError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: Sendable, Equatable {
        /// The file could not be opened or read (``errno`` says why).
        case io
        /// Not a pcap/pcapng file, or a version this reader does not handle.
        case unsupportedFormat
        /// The file ends inside a header, block or record.
        case truncated
        /// A header, block or record is inconsistent (bad length, unknown interface, bad option…).
        case malformed
        /// A size is beyond a limit (caplen > 262144, block > 16 MiB, too many interfaces, a
        /// stream larger than replay keeps in memory).
        case limitExceeded
    }

    /// When the failure happened.
    public enum Phase: Sendable, Equatable {
        /// While opening: reading the file header / first section up to the first interface.
        case open
        /// While reading records (tcpdump prefixes these with `pcap_loop: `).
        case record
    }

    /// What kind of failure this is; ``description`` gives the details.
    public var code: Code
    package var phase: Phase
    /// The libpcap wording; one line, no trailing newline.
    public var description: String
    /// The `errno` of a failed system call (``Code/io`` only).
    package var errno: Int32?

    /// An error of kind `code` in `phase` with libpcap's one-line `description`; `errno` only for
    /// ``Code/io``.
    public init(_ code: Code, phase: Phase, _ description: String, errno: Int32? = nil) {
        self.code = code
        self.phase = phase
        self.description = description
        self.errno = errno
    }

    /// The captured bytes end before the header a printer is reading: the packet is printed up
    /// to there with tcpdump's truncation marker.
    static let capturedBytesEnd = PacketDecodingError(.truncated, phase: .record, "the captured bytes end inside a header")

    /// `strerror(errno)` as text.
    static func systemMessage(_ errorNumber: Int32) -> String {
        guard let text = strerror(errorNumber) else { return "error \(errorNumber)" }
        return String(cString: text)
    }
}
