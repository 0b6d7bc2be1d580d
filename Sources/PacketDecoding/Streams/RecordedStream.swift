/// One TCP connection or UDP flow of a capture, as `replay` sees it: who the client and the
/// server were, how much each sent, and (when extracted) what each sent, when.
///
/// ```
/// stream 1  127.0.0.1.41234 > 127.0.0.1.7000 (tcp)
/// messages: [t0 client "HELLO\n"] [t0+3ms server "HI\n"] [t0+200ms client "BYE\n"] ...
/// ```
///
/// A message is what one captured packet added to one side's byte stream after reassembly: a
/// TCP segment's new bytes in order (a retransmission adds nothing; an out-of-order segment
/// becomes part of the message of the packet that fills the hole before it), or one UDP
/// datagram. Times are nanoseconds since the Unix epoch, from the capture's timestamps.
public struct RecordedStream: Sendable {
    /// The stream's protocol; the raw value (`tcp`, `udp`) is what `replay` prints.
    public enum Transport: String, Sendable, Equatable {
        case tcp
        case udp
    }

    /// Which end of the stream: its ``RecordedStream/client`` or its ``RecordedStream/server``.
    public enum Side: Sendable, Equatable {
        case client
        case server

        package var other: Side { self == .client ? .server : .client }
    }

    /// How a TCP stream ended in the capture.
    public enum End: Sendable, Equatable, CustomStringConvertible {
        /// Both sides sent FIN.
        case finished
        case reset(by: Side)
        /// Still open when the capture ended (or the flow is UDP).
        case open

        /// `FIN`, `RST from client`, `RST from server` or `open`.
        public var description: String {
            switch self {
            case .finished: "FIN"
            case .reset(let side): "RST from \(side == .client ? "client" : "server")"
            case .open: "open"
            }
        }
    }

    /// What one captured packet added to one side's byte stream (see the type's discussion); made
    /// by ``StreamExtractor`` for the kept stream's ``RecordedStream/messages``.
    public struct Message: Sendable, Equatable {
        /// When the packet that completed it was captured (ns since the epoch).
        package var time: Int64
        /// The side that sent the bytes.
        public var side: Side
        /// The bytes added, in stream order; empty only for an empty UDP datagram.
        public var bytes: [UInt8]

        /// A message of `bytes` from `side`, completed at `time` (ns since the epoch).
        public init(time: Int64, side: Side, bytes: [UInt8]) {
            self.time = time
            self.side = side
            self.bytes = bytes
        }
    }

    /// Counters for one side.
    public struct SideCounters: Sendable, Equatable {
        /// Packets captured from this side (handshake, ACKs and retransmissions included).
        public var packets = 0
        /// Payload bytes of this side's stream after reassembly (each byte once).
        public var bytes = 0
        /// Bytes of this side's stream that the capture does not hold.
        public var missingBytes = 0
        /// When this side's first FIN was captured (TCP), nil if never.
        package var finTime: Int64?

        /// All counters zero.
        public init() {}
    }

    /// 1, 2, 3 … in the order the streams start in the capture (TCP and UDP share the sequence,
    /// as in `capture --follow`).
    public var index: Int
    /// TCP connection or UDP flow.
    public var transport: Transport
    /// The end that opened the stream: the SYN's sender (by ``TCPReassembler``'s rules) or the
    /// sender of the first UDP datagram.
    public var client: TCPReassembler.Endpoint
    /// The other end.
    public var server: TCPReassembler.Endpoint
    /// Packets and bytes the client sent.
    public var clientCounters = SideCounters()
    /// Packets and bytes the server sent.
    public var serverCounters = SideCounters()
    package var firstTime: Int64
    package var lastTime: Int64
    package var end: End = .open
    /// Every message in capture order: filled only for the stream asked for.
    public var messages: [Message] = []

    /// A stream with nothing counted yet, first and last seen at `time` (ns since the epoch).
    public init(index: Int, transport: Transport, client: TCPReassembler.Endpoint, server: TCPReassembler.Endpoint, time: Int64) {
        self.index = index
        self.transport = transport
        self.client = client
        self.server = server
        self.firstTime = time
        self.lastTime = time
    }

    /// ``clientCounters`` or ``serverCounters``.
    public func counters(_ side: Side) -> SideCounters {
        side == .client ? clientCounters : serverCounters
    }

    /// From the first packet to the last, in nanoseconds.
    public var duration: Int64 { lastTime >= firstTime ? lastTime - firstTime : 0 }

    /// The concatenated bytes one side sent.
    public func stream(of side: Side) -> [UInt8] {
        var out: [UInt8] = []
        for message in messages where message.side == side { out += message.bytes }
        return out
    }
}

extension PacketHeader {
    /// The timestamp in nanoseconds since the epoch, saturating instead of overflowing.
    package var nanosecondsSinceEpoch: Int64 {
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        let fractionNanoseconds = precision == .microseconds ? Int64(fraction) * 1000 : Int64(fraction)
        let (total, overflowed) = whole.addingReportingOverflow(fractionNanoseconds)
        return overflowed ? Int64.max : total
    }
}
