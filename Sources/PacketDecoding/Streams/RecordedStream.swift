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
    public enum Transport: String, Sendable, Equatable {
        case tcp
        case udp
    }

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

        public var description: String {
            switch self {
            case .finished: "FIN"
            case .reset(let side): "RST from \(side == .client ? "client" : "server")"
            case .open: "open"
            }
        }
    }

    public struct Message: Sendable, Equatable {
        /// When the packet that completed it was captured (ns since the epoch).
        package var time: Int64
        public var side: Side
        public var bytes: [UInt8]

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

        public init() {}
    }

    /// 1, 2, 3 … in the order the streams start in the capture (TCP and UDP share the sequence,
    /// as in `capture --follow`).
    public var index: Int
    public var transport: Transport
    public var client: TCPReassembler.Endpoint
    public var server: TCPReassembler.Endpoint
    public var clientCounters = SideCounters()
    public var serverCounters = SideCounters()
    package var firstTime: Int64
    package var lastTime: Int64
    package var end: End = .open
    /// Every message in capture order: filled only for the stream asked for.
    public var messages: [Message] = []

    public init(index: Int, transport: Transport, client: TCPReassembler.Endpoint, server: TCPReassembler.Endpoint, time: Int64) {
        self.index = index
        self.transport = transport
        self.client = client
        self.server = server
        self.firstTime = time
        self.lastTime = time
    }

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
