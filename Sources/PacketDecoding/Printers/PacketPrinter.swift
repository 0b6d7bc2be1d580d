import Glibc

/// Prints packets exactly as `tcpdump -n` 4.99.3 does: timestamp, link-layer prefix, the
/// network and transport line, and the `-x/-X/-A` dump, one packet per call.
///
/// The printer keeps tcpdump's per-run state — the TCP relative-sequence table and the previous
/// and first timestamps for `-ttt`/`-ttttt` — so one printer must see a capture's packets in
/// order. Malformed and truncated packets are not errors: they print tcpdump's markers
/// (`[|tcp]`, `bad-len 0`, `[bad opt]`, `[Invalid header: …]`) and the next packet prints normally.
///
/// The application printers are picked by port in tcpdump's order (``TCPApplication``,
/// ``UDPApplication``); the few ports tcpdump decodes and sockctl does not print the generic
/// line. `--decode` adds the TLS, WebSocket and HTTP/2 views (``ApplicationViewTracker``) after
/// the header line.
///
/// Limits: the sequence table holds at most ``maximumTrackedConnections`` entries and is
/// cleared when full (tcpdump's never shrinks).
public struct PacketPrinter {
    /// What to print for each packet; fixed for the printer's life.
    public let options: PrintOptions
    /// The most TCP conversations whose sequence bases are remembered at once.
    package static let maximumTrackedConnections = 1 << 20

    var sequenceBases4: [ConnectionKey4: SequenceBases] = [:]
    var sequenceBases6: [ConnectionKey6: SequenceBases] = [:]
    var clock = TimestampFormatter()
    /// Protocol named by ` [|proto]` when a read runs off the captured bytes.
    var protocolName: StaticString = ""
    /// Bytes of link-layer header the dump skips (tcpdump's `ndo_ll_hdr_len`).
    var linkHeaderLength = 0
    /// `--decode`: where each TCP connection's TLS, WebSocket or HTTP/2 view stands (nil without).
    var viewTracker: ApplicationViewTracker?

    /// A printer for one capture's packets, with no per-run state yet; the default options are
    /// sockctl's (`-X` dump, time of day).
    public init(options: PrintOptions = PrintOptions()) {
        self.options = options
        if !options.views.isEmpty { viewTracker = ApplicationViewTracker(views: options.views) }
    }

    /// A printer whose views also decrypt TLS connections with a key log (`--keylog`).
    package init(options: PrintOptions, keys: TLSKeyStore?) {
        self.options = options
        if !options.views.isEmpty { viewTracker = ApplicationViewTracker(views: options.views, keys: keys) }
    }

    /// tcpdump's largest valid snapshot length; records claiming more are invalid.
    public static let maximumSnapshotLength = 262_144

    /// Appends the text tcpdump prints for one packet, including its final newline.
    ///
    /// `bytes` holds the captured bytes (`header.capturedLength` of them; a shorter buffer is
    /// treated as the capture).
    public mutating func print(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if appendInvalidHeader(header, into: &out) { return }
        let captured = UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, header.capturedLength)])
        clock.append(header, style: options.timestamps, nanoseconds: options.nanoseconds, into: &out)

        protocolName = ""
        linkHeaderLength = 0
        var cursor = ByteCursor(captured)
        do {
            try printLinkLayer(header, &cursor, into: &out)
        } catch {
            out.append(" [|")
            out.append(protocolName)
            out.append("]")
            linkHeaderLength = 0
        }
        if viewTracker != nil { appendViews(header, captured, into: &out) }
        appendDump(captured, into: &out)
        out.append(0x0A)
    }

    /// `[Invalid header: …]` for records no printer may look at; true when printed.
    private func appendInvalidHeader(_ header: PacketHeader, into out: inout [UInt8]) -> Bool {
        var invalid = false
        func start(_ out: inout [UInt8]) {
            if invalid {
                out.append(",")
            } else {
                out.append("[Invalid header:")
                invalid = true
            }
        }
        let caplen = UInt32(truncatingIfNeeded: header.capturedLength)
        let len = UInt32(truncatingIfNeeded: header.originalLength)
        if caplen == 0 {
            start(&out)
            out.append(" caplen==0")
        }
        if len == 0 {
            start(&out)
            out.append(" len==0")
        } else if len < caplen {
            start(&out)
            out.append(" len(")
            out.appendDecimal(len)
            out.append(") < caplen(")
            out.appendDecimal(caplen)
            out.append(")")
        }
        if caplen > UInt32(Self.maximumSnapshotLength) {
            start(&out)
            out.append(" caplen(")
            out.appendDecimal(caplen)
            out.append(") > 262144")
        }
        if len > UInt32(Self.maximumSnapshotLength) {
            start(&out)
            out.append(" len(")
            out.appendDecimal(len)
            out.append(") > 262144")
        }
        if invalid { out.append("]\n") }
        return invalid
    }

    private func appendDump(_ captured: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let skip = options.dumpIncludesLinkHeader ? 0 : linkHeaderLength
        guard captured.count > skip else { return }
        let body = UnsafeRawBufferPointer(rebasing: captured[skip...])
        switch options.dump {
        case .none: return
        case .hexAndASCII: HexDump.appendHexAndASCII(body, into: &out)
        case .hex: HexDump.appendHex(body, into: &out)
        case .ascii: Self.appendASCII(body, into: &out)
        }
    }

    /// tcpdump's `-A` (`ascii_print`): printable bytes, space, tab and LF as themselves; a CR
    /// as `.` when more than one byte follows and the next is not LF, otherwise dropped.
    static func appendASCII(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(0x0A)
        let count = bytes.count
        var index = 0
        while index < count {
            let byte = bytes[index]
            index += 1
            if byte == 0x0D {
                if count - index > 1, bytes[index] != 0x0A { out.append(0x2E) }
            } else if (0x21...0x7E).contains(byte) || byte == 0x09 || byte == 0x20 || byte == 0x0A {
                out.append(byte)
            } else {
                out.append(0x2E)
            }
        }
    }

    /// tcpdump's `ND_DEFAULTPRINT`: the hex+ASCII dump of bytes no decoder claimed, unless
    /// `-x`/`-X` will dump the whole packet anyway.
    func appendDefaultDump(_ cursor: ByteCursor, from offset: Int, into out: inout [UInt8]) {
        guard !options.suppressesDefaultDump else { return }
        Self.appendUnconditionalDefaultDump(cursor, from: offset, into: &out)
    }

    /// The same dump for the printers that call tcpdump's `ND_DEFAULTPRINT` without asking
    /// whether `-x`/`-X` will dump the packet anyway (ARP's unknown operations): with `-X`
    /// those bytes are dumped twice.
    static func appendUnconditionalDefaultDump(_ cursor: ByteCursor, from offset: Int, into out: inout [UInt8]) {
        let count = cursor.available(from: offset)
        guard count > 0 else { return }
        HexDump.appendHexAndASCII(UnsafeRawBufferPointer(rebasing: cursor.bytes[offset..<(offset + count)]), into: &out)
    }
}
