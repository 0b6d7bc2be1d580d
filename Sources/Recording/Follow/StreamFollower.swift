import NIOCore
import PacketDecoding
import SocketEngine

/// `capture --follow`: the payload of every TCP stream, reassembled in order, and of every UDP
/// flow, with one header line per stream and a direction marker on every chunk.
///
/// Without `--framing` (TCP), a marker line starts each run of bytes in one direction; text
/// follows as it is, anything else as a `-X` style hex dump whose offsets count the bytes of
/// that direction:
///
/// ```
/// == stream 1: 127.0.0.1.41234 > 127.0.0.1.6969 (tcp)
/// [1] >>
/// GET / HTTP/1.1
/// Host: x
///
/// [1] <<
/// 	0x0000:  0001 0203 ff                             .....
/// [1] >> [... 1234 bytes missing ...]
/// == stream 1 end: FIN
/// ```
///
/// `>>` is client → server (the client sent the SYN; see ``TCPReassembler`` for captures that
/// start mid-stream), `<<` server → client, and `[1]` the stream number shown in its `==` line.
/// With `--framing F` (and always for UDP, where a datagram is a message) every message is one
/// marker-prefixed line: `[1] >> {"a":1}` — JSON objects and arrays pretty-printed over several
/// lines (two-space indent), other text with CR, LF, tab and other control characters written as
/// `\r`, `\n`, `\t`, `\xHH`, and messages that are not UTF-8 text as `[1] >> N bytes` and a hex
/// dump. A gap flushes an incomplete message first; a framing error (a frame over 1 MiB, a bad
/// length) is reported and the rest of that direction is shown as without `--framing`.
///
/// What a text chunk is: valid UTF-8 with no control characters other than tab, LF, and CR
/// before LF or at the chunk's end; it is written unchanged, so raw output never sends escape
/// sequences to a terminal. Stream ends: `FIN`, `RST from client|server`, `4-tuple reused`,
/// `evicted (too many connections)`, `capture ended`.
///
/// Without `--framing`, streams that speak TLS, WebSocket or HTTP/2 are shown through their
/// views (see ``ConnectionViews``): one line per TLS record (`[1] >> TLS handshake ClientHello
/// (TLSv1.0 record, length 512): SNI example.com, …`), per HTTP/2 frame, and per WebSocket frame,
/// followed by its payload the way a framed message is shown (JSON pretty-printed); the HTTP
/// upgrade request and answer are shown as text first. A view that loses its place (a gap) hands
/// the rest of that direction back to the raw display.
///
/// Limits: the reassembler's (4 MiB per direction, 64 MiB in all, 65536 connections); one
/// incomplete message of at most ``maximumMessageSize`` per direction; UDP flows are numbered
/// from a table of at most 65536 entries, cleared when full (a flow seen again then gets a new
/// number and header line).
public struct StreamFollower {
    /// The largest message `--framing` shows as one; longer ones are a framing error.
    public static let maximumMessageSize = 1 << 20
    /// WebSocket payload bytes shown per frame (the rest is passed over, marked `...`).
    public static let maximumViewPayload = 16 << 10
    /// The most UDP flows remembered for numbering.
    package static let maximumUDPFlows = 65_536

    private var reassembler = TCPReassembler()
    private var printer: StreamPrinter

    /// `framing`: nil or `.raw` shows bytes as they come; anything else one message per line.
    public init(framing: Framing?) {
        printer = StreamPrinter(framing: framing)
    }

    /// A follower that decrypts TLS streams with a key log (`--keylog`): their decrypted bytes
    /// are shown as a plaintext stream's are, after the TLS view's record lines.
    package init(framing: Framing?, keys: TLSKeyStore?) {
        printer = StreamPrinter(framing: framing, keys: keys)
    }

    /// Appends whatever this packet completes (often nothing, for out-of-order segments).
    public mutating func packet(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let captured = UnsafeRawBufferPointer(rebasing: bytes[0..<max(0, min(bytes.count, header.capturedLength))])
        guard let segment = TransportSegment.parse(header, captured) else { return }
        let payload = segment.payload(in: captured)
        if segment.transport == .udp {
            printer.datagram(segment, payload: payload, into: &out)
            return
        }
        // The printer is moved out while the reassembler calls back into it (exclusive access).
        var printer = StreamPrinter(framing: nil)
        swap(&printer, &self.printer)
        reassembler.process(segment, payload: payload) { printer.handle($0, into: &out) }
        swap(&printer, &self.printer)
    }

    /// Ends every open stream (incomplete messages and buffered data are printed, holes as gaps).
    public mutating func finish(into out: inout [UInt8]) {
        var printer = StreamPrinter(framing: nil)
        swap(&printer, &self.printer)
        reassembler.finish { printer.handle($0, into: &out) }
        swap(&printer, &self.printer)
        printer.endLine(into: &out)
    }

    /// What reassembly could not show as stream bytes, for stderr after the streams:
    /// `follow: 3 bytes missing, 2 retransmitted segments dropped, 4 bytes after FIN ignored`;
    /// nil when every captured byte was shown once.
    public var summary: String? {
        let statistics = reassembler.statistics
        var parts: [String] = []
        if statistics.missingBytes > 0 { parts.append("\(statistics.missingBytes) byte\(statistics.missingBytes == 1 ? "" : "s") missing") }
        if statistics.duplicateSegments > 0 {
            parts.append("\(statistics.duplicateSegments) retransmitted segment\(statistics.duplicateSegments == 1 ? "" : "s") dropped")
        }
        if statistics.bytesAfterFIN > 0 { parts.append("\(statistics.bytesAfterFIN) byte\(statistics.bytesAfterFIN == 1 ? "" : "s") after FIN ignored") }
        if statistics.bytesBeyondWindow > 0 {
            parts.append("\(statistics.bytesBeyondWindow) byte\(statistics.bytesBeyondWindow == 1 ? "" : "s") beyond the sequence window ignored")
        }
        if statistics.evictedConnections > 0 {
            parts.append("\(statistics.evictedConnections) connection\(statistics.evictedConnections == 1 ? "" : "s") evicted (too many open)")
        }
        return parts.isEmpty ? nil : "follow: " + parts.joined(separator: ", ")
    }
}
