/// Makes up the packets of one TCP connection or UDP flow from what its socket saw, for
/// `--record`: Ethernet, IPv4 or IPv6, and TCP or UDP headers with correct lengths, sequence
/// numbers and checksums around the real payload, so tcpdump, Wireshark and ``TCPReassembler``
/// read the file as a capture.
///
/// ```
/// open()            client > server  S      seq c            (handshake: S, S., .)
/// data(…, client)   client > server  P.     seq c+1:c+6 ack s+1
/// finish(client)    client > server  F.
/// close()           the FINs not yet written, and the ACK of the last one
/// ```
///
/// A payload longer than ``maximumSegmentPayload`` is cut into several segments (an IPv4
/// datagram holds at most 65535 bytes). ``skip(_:from:)`` advances a side's sequence number
/// without writing its bytes: data the recorder could not keep shows as missing bytes, not as
/// a stream that silently lost them. The Ethernet addresses are zero, as on Linux's loopback.
package struct SyntheticConnection {
    /// Which end sends a frame: ``SyntheticConnection/client`` or ``SyntheticConnection/server``.
    package enum Side: Sendable {
        case client
        case server
    }

    package static let maximumSegmentPayload = 65_000

    package let client: TCPReassembler.Endpoint
    package let server: TCPReassembler.Endpoint
    package let isTCP: Bool
    private var clientNext: UInt32
    private var serverNext: UInt32
    private var clientFinished = false
    private var serverFinished = false
    private var ended = false
    private var identification: UInt16 = 0

    package init(client: TCPReassembler.Endpoint, server: TCPReassembler.Endpoint, tcp: Bool, clientISN: UInt32 = .random(in: 0...UInt32.max), serverISN: UInt32 = .random(in: 0...UInt32.max)) {
        self.client = client
        self.server = server
        isTCP = tcp
        clientNext = clientISN
        serverNext = serverISN
    }

    /// The three-way handshake (nothing for UDP).
    package mutating func open() -> [[UInt8]] {
        guard isTCP else { return [] }
        var frames: [[UInt8]] = []
        frames.append(segment(from: .client, flags: [.syn], sequence: clientNext, acknowledgment: 0, payload: []))
        clientNext &+= 1
        frames.append(segment(from: .server, flags: [.syn, .ack], sequence: serverNext, acknowledgment: clientNext, payload: []))
        serverNext &+= 1
        frames.append(segment(from: .client, flags: [.ack], sequence: clientNext, acknowledgment: serverNext, payload: []))
        return frames
    }

    /// `bytes` sent by `side`: one or more data segments, or one datagram.
    package mutating func data(_ bytes: UnsafeRawBufferPointer, from side: Side) -> [[UInt8]] {
        guard !ended else { return [] }
        guard isTCP else { return [datagram(from: side, payload: bytes)] }
        var frames: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            let length = min(Self.maximumSegmentPayload, bytes.count - offset)
            let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
            let sequence = side == .client ? clientNext : serverNext
            let acknowledgment = side == .client ? serverNext : clientNext
            frames.append(segment(from: side, flags: [.psh, .ack], sequence: sequence, acknowledgment: acknowledgment, payload: piece))
            advance(side, by: length)
            offset += length
        }
        return frames
    }

    /// `count` bytes `side` sent that are not recorded: its sequence number moves on.
    package mutating func skip(_ count: Int, from side: Side) {
        guard isTCP, count > 0 else { return }
        advance(side, by: count)
    }

    /// `side` shut down its output: a FIN (and the other side's ACK of it).
    package mutating func finish(from side: Side) -> [[UInt8]] {
        guard isTCP, !ended else { return [] }
        if side == .client ? clientFinished : serverFinished { return [] }
        var frames: [[UInt8]] = []
        let sequence = side == .client ? clientNext : serverNext
        let acknowledgment = side == .client ? serverNext : clientNext
        frames.append(segment(from: side, flags: [.fin, .ack], sequence: sequence, acknowledgment: acknowledgment, payload: []))
        advance(side, by: 1)
        if side == .client { clientFinished = true } else { serverFinished = true }
        let other: Side = side == .client ? .server : .client
        frames.append(segment(
            from: other, flags: [.ack], sequence: other == .client ? clientNext : serverNext,
            acknowledgment: other == .client ? serverNext : clientNext, payload: []
        ))
        return frames
    }

    /// `side` aborted the connection: an RST; nothing follows it.
    package mutating func reset(from side: Side) -> [[UInt8]] {
        guard isTCP, !ended else { return [] }
        ended = true
        let sequence = side == .client ? clientNext : serverNext
        let acknowledgment = side == .client ? serverNext : clientNext
        return [segment(from: side, flags: [.rst, .ack], sequence: sequence, acknowledgment: acknowledgment, payload: [])]
    }

    /// The connection is gone: FINs for the sides that had not sent one, `first` first.
    package mutating func close(first: Side) -> [[UInt8]] {
        guard isTCP, !ended else { return [] }
        let second: Side = first == .client ? .server : .client
        let frames = finish(from: first) + finish(from: second)
        ended = true
        return frames
    }

    private mutating func advance(_ side: Side, by count: Int) {
        let step = UInt32(truncatingIfNeeded: count)
        if side == .client { clientNext &+= step } else { serverNext &+= step }
    }

    // MARK: Frames

    private mutating func segment(
        from side: Side, flags: TransportSegment.TCPFlags, sequence: UInt32, acknowledgment: UInt32, payload: UnsafeRawBufferPointer
    ) -> [UInt8] {
        var tcp: [UInt8] = []
        tcp.reserveCapacity(20 + payload.count)
        let (source, destination) = side == .client ? (client, server) : (server, client)
        tcp.appendBigEndian16(source.port)
        tcp.appendBigEndian16(destination.port)
        tcp.appendBigEndian32(sequence)
        tcp.appendBigEndian32(acknowledgment)
        tcp.append(5 << 4)  // data offset: 20 bytes, no options
        tcp.append(flags.rawValue)
        tcp.appendBigEndian16(65_535)  // window
        tcp.appendBigEndian16(0)  // checksum, filled below
        tcp.appendBigEndian16(0)  // urgent pointer
        tcp.append(contentsOf: payload)
        return frame(source: source.address, destination: destination.address, protocolNumber: 6, transport: tcp, checksumOffset: 16)
    }

    private mutating func segment(from side: Side, flags: TransportSegment.TCPFlags, sequence: UInt32, acknowledgment: UInt32, payload: [UInt8]) -> [UInt8] {
        payload.withUnsafeBytes { segment(from: side, flags: flags, sequence: sequence, acknowledgment: acknowledgment, payload: $0) }
    }

    private mutating func datagram(from side: Side, payload: UnsafeRawBufferPointer) -> [UInt8] {
        let (source, destination) = side == .client ? (client, server) : (server, client)
        let length = min(payload.count, 65_507)
        var udp: [UInt8] = []
        udp.reserveCapacity(8 + length)
        udp.appendBigEndian16(source.port)
        udp.appendBigEndian16(destination.port)
        udp.appendBigEndian16(UInt16(8 + length))
        udp.appendBigEndian16(0)
        udp.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[0..<length]))
        return frame(source: source.address, destination: destination.address, protocolNumber: 17, transport: udp, checksumOffset: 6)
    }

    /// Ethernet + IP around `transport`, whose checksum (at `checksumOffset`) is computed here.
    private mutating func frame(
        source: TransportSegment.Address, destination: TransportSegment.Address, protocolNumber: UInt8, transport: [UInt8], checksumOffset: Int
    ) -> [UInt8] {
        var transport = transport
        var pseudo: [UInt8] = []
        var out: [UInt8] = Array(repeating: 0, count: 12)  // destination and source MAC: zero
        switch (source, destination) {
        case (.v4(let from), .v4(let to)):
            out.appendBigEndian16(0x0800)
            var ip: [UInt8] = []
            ip.append(0x45)
            ip.append(0)
            ip.appendBigEndian16(UInt16(truncatingIfNeeded: 20 + transport.count))
            identification &+= 1
            ip.appendBigEndian16(identification)
            ip.appendBigEndian16(0x4000)  // don't fragment
            ip.append(64)
            ip.append(protocolNumber)
            ip.appendBigEndian16(0)
            ip.appendBigEndian32(from)
            ip.appendBigEndian32(to)
            let headerSum = InternetChecksum.result(ip)
            ip[10] = UInt8(headerSum >> 8)
            ip[11] = UInt8(headerSum & 0xFF)
            pseudo.appendBigEndian32(from)
            pseudo.appendBigEndian32(to)
            pseudo.append(0)
            pseudo.append(protocolNumber)
            pseudo.appendBigEndian16(UInt16(truncatingIfNeeded: transport.count))
            fillChecksum(&transport, pseudo: pseudo, at: checksumOffset, udp: protocolNumber == 17)
            out += ip
        default:
            out.appendBigEndian16(0x86DD)
            var ip: [UInt8] = [0x60, 0, 0, 0]
            ip.appendBigEndian16(UInt16(truncatingIfNeeded: transport.count))
            ip.append(protocolNumber)
            ip.append(64)
            let from = Self.bytes16(source)
            let to = Self.bytes16(destination)
            ip += from
            ip += to
            pseudo += from
            pseudo += to
            pseudo.appendBigEndian32(UInt32(truncatingIfNeeded: transport.count))
            pseudo += [0, 0, 0, protocolNumber]
            fillChecksum(&transport, pseudo: pseudo, at: checksumOffset, udp: protocolNumber == 17)
            out += ip
        }
        out += transport
        return out
    }

    private func fillChecksum(_ transport: inout [UInt8], pseudo: [UInt8], at offset: Int, udp: Bool) {
        var sum = InternetChecksum.result(pseudo + transport)
        if udp && sum == 0 { sum = 0xFFFF }
        transport[offset] = UInt8(sum >> 8)
        transport[offset + 1] = UInt8(sum & 0xFF)
    }

    /// An IPv4 address as an IPv4-mapped IPv6 one when the other end is IPv6.
    private static func bytes16(_ address: TransportSegment.Address) -> [UInt8] {
        var out: [UInt8] = []
        switch address {
        case .v4(let value):
            out = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            out.appendBigEndian32(value)
        case .v6(let high, let low):
            out.appendBigEndian32(UInt32(truncatingIfNeeded: high >> 32))
            out.appendBigEndian32(UInt32(truncatingIfNeeded: high))
            out.appendBigEndian32(UInt32(truncatingIfNeeded: low >> 32))
            out.appendBigEndian32(UInt32(truncatingIfNeeded: low))
        }
        return out
    }
}

extension [UInt8] {
    mutating func appendBigEndian16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian32(_ value: UInt32) {
        appendBigEndian16(UInt16(truncatingIfNeeded: value >> 16))
        appendBigEndian16(UInt16(truncatingIfNeeded: value))
    }
}
