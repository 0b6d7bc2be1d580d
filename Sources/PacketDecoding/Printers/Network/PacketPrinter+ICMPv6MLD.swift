/// Multicast Listener Discovery messages (tcpdump's `mld6_print`, `mldv2_query_print`,
/// `mldv2_report_print`), with what `-v` and `-vv` add.
extension PacketPrinter {
    /// MLDv1 (`mld6_print`), glued to the type name as tcpdump prints it:
    /// `multicast listener reportmax resp delay: 0 addr: ff02::1`. Nothing when the 24-byte
    /// message is not all captured.
    func appendMLDv1(_ cursor: ByteCursor, at icmp: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        guard cursor.has(icmp, 24) else { return }
        out.append("max resp delay: ")
        out.appendDecimal(try cursor.u16(icmp + 4))
        out.append(" addr: ")
        try appendIPv6Address(cursor, at: icmp + 8, into: &out)
    }

    /// MLDv2 query: ` [gaddr ADDRESS, N source(s)]`; `-v` adds ` [max resp delay=N]` before it
    /// and ` sflag`, ` robustness=N`, ` qqi=N` after the address; `-vv` lists the sources
    /// (` { A B }`) instead of counting them.
    func appendMLDv2Query(_ cursor: ByteCursor, at icmp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        let code = UInt32(try cursor.u16(icmp + 4))
        let verbosity = options.verbosity
        if verbosity > 0 {
            let delay = code < 32768 ? code : ((code & 0x0FFF) | 0x1000) << (((code & 0x7000) >> 12) + 3)
            out.append(" [max resp delay=")
            out.appendDecimal(delay)
            out.append("]")
        }
        try cursor.check(icmp + 8, 16)
        out.append(" [gaddr ")
        try appendIPv6Address(cursor, at: icmp + 8, into: &out)
        if verbosity > 0 {
            let flags = try cursor.u8(icmp + 24)
            if flags & 0x08 != 0 { out.append(" sflag") }
            if flags & 0x07 != 0 {
                out.append(" robustness=")
                out.appendDecimal(flags & 0x07)
            }
            let qqic = UInt32(try cursor.u8(icmp + 25))
            let interval = qqic < 128 ? qqic : ((qqic & 0x0F) | 0x10) << (((qqic & 0x70) >> 4) + 3)
            out.append(" qqi=")
            out.appendDecimal(interval)
        }
        let sources = Int(try cursor.u16(icmp + 26))
        try appendMulticastQuerySources(cursor, at: icmp + 28, count: sources, room: length - 28, addressLength: 16, into: &out)
        out.append("]")
    }

    /// MLDv2 report (`mldv2_report_print`): `, N group record(s)`; with `-v` each record,
    /// ` [gaddr ADDRESS is_ex, N source(s)]` (`-vv`: ` { A B }`), by ``appendMulticastGroupRecords``.
    func appendMLDv2Report(_ cursor: ByteCursor, at icmp: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        if length < 8 {
            out.append(" [invalid len ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append("]")
            return
        }
        try appendMulticastGroupRecords(cursor, at: icmp, length: length, addressLength: 16, unknownType: " [v2-report-#", into: &out)
    }
}
