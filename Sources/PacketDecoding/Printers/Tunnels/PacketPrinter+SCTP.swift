/// SCTP (tcpdump's `sctp_print`, IP protocol 132): addresses and ports, then one ` (N) [TYPE] …`
/// per chunk (`-vv`: one chunk per line): DATA with its flags, TSN, stream, sequence and payload
/// protocol (`-vv`: the payload in hex), INIT and INIT ACK, SACK with gap blocks and duplicate
/// TSNs, and the names of the others. Bad chunk lengths end the list with tcpdump's notes.
///
/// Limits: the ForCES (ports 6704–6706, PPIDs 21–23) and M3UA (`-vv`, PPID 3) payloads tcpdump
/// decodes print nothing.
extension PacketPrinter {
    private static let sctpChunkNames = NameTable([
        (0x00, "DATA"), (0x01, "INIT"), (0x02, "INIT ACK"), (0x03, "SACK"), (0x04, "HB REQ"), (0x05, "HB ACK"),
        (0x06, "ABORT"), (0x07, "SHUTDOWN"), (0x08, "SHUTDOWN ACK"), (0x09, "OP ERR"), (0x0A, "COOKIE ECHO"),
        (0x0B, "COOKIE ACK"), (0x0C, "ECN ECHO"), (0x0D, "ECN CWR"), (0x0E, "SHUTDOWN COMPLETE"),
        (0xC0, "FOR CUM TSN"), (0xC1, "REL CTRL"), (0xC2, "REL CTRL ACK"),
    ])

    private static let sctpPayloadNames = NameTable([
        (1, "ISDN Q.921"), (2, "M2UA"), (3, "M3UA"), (4, "SUA"), (5, "M2PA"), (6, "V5.2"), (7, "H.248"), (8, "BICC"),
        (9, "TALI"), (10, "DUA"), (11, "ASAP"), (12, "ENRP"), (13, "H.323"), (14, "Q.IPC"), (15, "SIMCO"),
        (16, "DDPSC"), (17, "DDPSSC"), (18, "S1AP"), (19, "RUA"), (20, "HNBAP"), (21, "ForCES HP"), (22, "ForCES MP"),
        (23, "ForCES LP"), (24, "SBc-AP"), (25, "NBAP"), (27, "X2AP"),
    ])

    private static let forcesChannelNames = NameTable([(6704, "ForCES HP"), (6705, "ForCES MP"), (6706, "ForCES LP")])

    /// `SOURCE.PORT > DESTINATION.PORT: ` with the addresses of the enclosing IP header.
    func appendTransportAddresses(_ cursor: ByteCursor, ip: IPContext, source: UInt16, destination: UInt16, into out: inout [UInt8]) throws(PacketDecodingError) {
        if ip.isIPv6 {
            try appendIPv6Address(cursor, at: ip.offset + 8, into: &out)
        } else {
            try appendIPv4Address(cursor, at: ip.offset + 12, into: &out)
        }
        out.append(".")
        out.appendDecimal(source)
        out.append(" > ")
        if ip.isIPv6 {
            try appendIPv6Address(cursor, at: ip.offset + 24, into: &out)
        } else {
            try appendIPv4Address(cursor, at: ip.offset + 16, into: &out)
        }
        out.append(".")
        out.appendDecimal(destination)
    }

    /// tcpdump's `sctp_print` for the packet at `sctp`, `length` bytes long.
    mutating func printSCTP(_ cursor: inout ByteCursor, at sctp: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "sctp"
        guard length >= 12 else {
            out.append("truncated-sctp - ")
            out.appendDecimal(12 - length)
            out.append(" bytes missing!")
            return
        }
        guard cursor.has(sctp, 12) else { return out.append(" [|sctp]") }
        let source = try cursor.u16(sctp)
        let destination = try cursor.u16(sctp + 2)
        try appendTransportAddresses(cursor, ip: ip, source: source, destination: destination, into: &out)
        out.append(": sctp")
        /// `[ForCES HP]` for a ForCES port; true when it was one.
        func appendChannel(_ port: UInt16, _ out: inout [UInt8]) -> Bool {
            guard let channel = Self.forcesChannelNames.name(UInt32(port)) else { return false }
            out.append("[")
            out.append(channel)
            out.append("]")
            return true
        }
        let sourceIsForces = appendChannel(source, &out)
        var forces = appendChannel(destination, &out) || sourceIsForces
        var offset = sctp + 12
        // tcpdump's unsigned arithmetic, so a length that runs past the packet wraps as there.
        var remaining = UInt32(truncatingIfNeeded: length - 12)
        let verbose = options.verbosity >= 2
        var separator: StaticString = verbose ? "\n\t" : " ("
        var count: UInt32 = 0
        func bogus(_ chunkLength: UInt16, _ out: inout [UInt8]) {
            out.append("bogus chunk length ")
            out.appendDecimal(chunkLength)
            out.append("]")
        }
        while remaining != 0 {
            count &+= 1
            guard remaining >= 4 else {
                out.append(separator)
                out.appendDecimal(count)
                out.append(") [chunk descriptor cut off at end of packet]")
                return
            }
            guard cursor.has(offset, 4) else { return out.append(" [|sctp]") }
            let chunkLength = try cursor.u16(offset + 2)
            guard chunkLength >= 4 else {
                out.append(separator)
                out.appendDecimal(count)
                out.append(") [Bad chunk length ")
                out.appendDecimal(chunkLength)
                out.append(", < size of chunk descriptor]")
                return
            }
            let align = UInt32((4 - chunkLength % 4) % 4)
            guard remaining >= align else {
                out.append(separator)
                out.appendDecimal(count)
                out.append(") [Bad chunk length ")
                out.appendDecimal(chunkLength)
                out.append(", > remaining data in packet]")
                return
            }
            guard cursor.has(offset, Int(chunkLength)) else { return out.append(" [|sctp]") }
            let id = try cursor.u8(offset)
            let flags = try cursor.u8(offset + 1)
            offset += 4
            remaining &-= 4
            var chunkLeft = Int(chunkLength) - 4
            out.append(separator)
            out.appendDecimal(count)
            out.append(") [")
            if let name = Self.sctpChunkNames.name(UInt32(id)) {
                out.append(name)
            } else {
                out.append("Unknown chunk type: 0x")
                out.appendHex(UInt64(id))
            }
            out.append("] ")
            switch id {
            case 0x00:
                if flags & 0x04 != 0 { out.append("(U)") }
                if flags & 0x02 != 0 { out.append("(B)") }
                if flags & 0x01 != 0 { out.append("(E)") }
                if flags & 0x07 != 0 { out.append(" ") }
                guard chunkLeft >= 12 else { return bogus(chunkLength, &out) }
                let ppid = try cursor.u32(offset + 8)
                out.append("[TSN: ")
                out.appendDecimal(try cursor.u32(offset))
                out.append("] [SID: ")
                out.appendDecimal(try cursor.u16(offset + 4))
                out.append("] [SSEQ ")
                out.appendDecimal(try cursor.u16(offset + 6))
                out.append("] [PPID ")
                if let name = Self.sctpPayloadNames.name(ppid) {
                    out.append(name)
                } else {
                    out.append("0x")
                    out.appendHex(UInt64(ppid))
                }
                out.append("] ")
                if !forces { forces = ppid == 21 || ppid == 22 || ppid == 23 }
                offset += 12
                remaining &-= 12
                chunkLeft -= 12
                guard chunkLeft > 0 else { return bogus(chunkLength, &out) }
                if !forces && verbose && ppid != 3 {
                    out.append("[Payload")
                    if !options.suppressesDefaultDump {
                        out.append(":")
                        HexDump.appendHexAndASCII(UnsafeRawBufferPointer(rebasing: cursor.bytes[offset..<(offset + chunkLeft)]), into: &out)
                    }
                    out.append("]")
                }
                offset += chunkLeft
                remaining &-= UInt32(chunkLeft)
                chunkLeft = 0
            case 0x01, 0x02:
                guard chunkLeft >= 16 else { return bogus(chunkLength, &out) }
                out.append("[init tag: ")
                out.appendDecimal(try cursor.u32(offset))
                out.append("] [rwnd: ")
                out.appendDecimal(try cursor.u32(offset + 4))
                out.append("] [OS: ")
                out.appendDecimal(try cursor.u16(offset + 8))
                out.append("] [MIS: ")
                out.appendDecimal(try cursor.u16(offset + 10))
                out.append("] [init TSN: ")
                out.appendDecimal(try cursor.u32(offset + 12))
                out.append("] ")
            case 0x03:
                guard chunkLeft >= 12 else { return bogus(chunkLength, &out) }
                let cumulative = try cursor.u32(offset)
                let gaps = Int(try cursor.u16(offset + 8))
                let duplicates = Int(try cursor.u16(offset + 10))
                out.append("[cum ack ")
                out.appendDecimal(cumulative)
                out.append("] [a_rwnd ")
                out.appendDecimal(try cursor.u32(offset + 4))
                out.append("] [#gap acks ")
                out.appendDecimal(gaps)
                out.append("] [#dup tsns ")
                out.appendDecimal(duplicates)
                out.append("] ")
                var entry = offset + 12
                var left = chunkLeft - 12
                var number = 0
                while left != 0 && number < gaps {
                    guard left >= 4 else { return bogus(chunkLength, &out) }
                    let start = cumulative &+ UInt32(try cursor.u16(entry))
                    let end = cumulative &+ UInt32(try cursor.u16(entry + 2))
                    out.append("\n\t\t[gap ack block #")
                    out.appendDecimal(number + 1)
                    out.append(": start = ")
                    out.appendDecimal(start)
                    out.append(", end = ")
                    out.appendDecimal(end)
                    out.append("] ")
                    entry += 4
                    left -= 4
                    number += 1
                }
                number = 0
                while left != 0 && number < duplicates {
                    guard left >= 4 else { return bogus(chunkLength, &out) }
                    out.append("\n\t\t[dup TSN #")
                    out.appendDecimal(number + 1)
                    out.append(": ")
                    out.appendDecimal(try cursor.u32(entry))
                    out.append("] ")
                    entry += 4
                    left -= 4
                    number += 1
                }
            default:
                break
            }
            offset += chunkLeft
            remaining &-= UInt32(truncatingIfNeeded: chunkLeft)
            if !verbose { separator = ", (" }
            if align != 0 {
                guard cursor.has(offset, Int(align)) else { return out.append(" [|sctp]") }
                offset += Int(align)
                remaining &-= align
            }
        }
    }
}
