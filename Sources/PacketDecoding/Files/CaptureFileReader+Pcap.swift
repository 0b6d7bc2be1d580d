import Glibc

extension CaptureFileReader {
    /// How a file orders the caplen and len fields (swapped before pcap 2.3, and by DG/UX 543.0).
    enum LengthOrder {
        case normal, swapped, swappedIfCaplenExceedsLen
    }

    func readPcapHeader(magic: UInt32, swapped: Bool) throws(PacketDecodingError) {
        self.swapped = swapped
        format = .pcap
        let available = try input.fill(24, .open)
        if available < 24 {
            throw PacketDecodingError(.truncated, phase: .open, "truncated dump file; tried to read 24 file header bytes, only got \(available - 4)")
        }
        let base = input.start
        let major = u16(base + 4)
        let minor = u16(base + 6)
        let snaplen = u32(base + 16)
        let fileLinkType = u32(base + 20)
        if major < 2 {
            throw PacketDecodingError(.unsupportedFormat, phase: .open, "archaic pcap savefile format")
        }
        guard (major == 2 && minor <= 4) || (major == 543 && minor == 0) else {
            throw PacketDecodingError(.unsupportedFormat, phase: .open, "unsupported pcap savefile version \(major).\(minor)")
        }
        switch major {
        case 2: lengthOrder = minor < 3 ? .swapped : (minor == 3 ? .swappedIfCaplenExceedsLen : .normal)
        case 543: lengthOrder = .swapped
        default: lengthOrder = .normal
        }
        // The top 6 bits carry FCS information (LT_LINKTYPE_EXT); libpcap masks them off.
        let link = LinkType(fileValue: fileLinkType & 0x03FF_FFFF)
        var snapshot = Self.adjustedSnapshot(snaplen)
        if magic == Self.pcapPatchedMagic {
            recordHeaderLength = 24
            // libpcap assumes a cooked capture with a faked 14-byte Ethernet header.
            if link == .ethernet { snapshot += 14 }
        }
        let interface = CaptureInterface(
            linkType: link, snapshotLength: snapshot,
            precision: magic == Self.pcapNanosecondMagic ? .nanoseconds : .microseconds)
        interfaces = [interface]
        setFirstInterface(interface)
        input.start += 24
    }

    func nextPcapRecord() throws(PacketDecodingError) -> CaptureRecord? {
        let headerLength = recordHeaderLength
        let available = try input.fill(headerLength, .record)
        if available < headerLength {
            if available == 0 { return nil }
            throw PacketDecodingError(.truncated, phase: .record, "truncated dump file; tried to read \(headerLength) header bytes, only got \(available)")
        }
        let base = input.start
        let seconds = u32(base)
        let fraction = u32(base + 4)
        var caplen = u32(base + 8)
        var length = u32(base + 12)
        switch lengthOrder {
        case .normal: break
        case .swapped: swap(&caplen, &length)
        case .swappedIfCaplenExceedsLen: if caplen > length { swap(&caplen, &length) }
        }
        let snapshot = snapshotLength
        if caplen > UInt32(Self.maximumCaptureLength) {
            let limit = caplen > UInt32(snapshot) ? "snaplen of \(snapshot)" : "maximum of \(Self.maximumCaptureLength)"
            throw PacketDecodingError(.limitExceeded, phase: .record, "invalid packet capture length \(caplen), bigger than \(limit)")
        }
        let captured = Int(caplen)
        let got = try input.fill(headerLength + captured, .record) - headerLength
        if got < captured {
            // Like libpcap: reading up to the snapshot length fails first, then the discard.
            let wanted = captured > snapshot && got < snapshot ? snapshot : captured
            throw PacketDecodingError(.truncated, phase: .record, "truncated dump file; tried to read \(wanted) captured bytes, only got \(got)")
        }
        // A record longer than the snapshot length is clamped to it; the rest is discarded.
        let kept = min(captured, snapshot)
        let start = input.start
        input.start = start + headerLength + captured
        let interface = interfaces[0]
        return CaptureRecord(
            header: PacketHeader(
                seconds: Int64(Int32(bitPattern: seconds)), fraction: fraction, precision: interface.precision,
                capturedLength: kept, originalLength: Int(length), interfaceID: 0, linkType: interface.linkType),
            bytes: input.bytes(at: start + headerLength, count: kept))
    }
}
