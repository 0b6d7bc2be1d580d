/// What IGMPv3 (over IPv4) and MLDv2 (over IPv6) print alike: the group records of a report and
/// the source lists of reports and queries. tcpdump has the same loops twice
/// (`print_igmpv3_report` and `print_igmpv3_query` in print-igmp.c, `mldv2_report_print` and
/// `mldv2_query_print` in print-icmp6.c), differing only in the address length.
extension PacketPrinter {
    /// tcpdump's `igmpv3report2str` and `mldv2report2str`: the record types.
    private static let groupRecordTypeNames = NameTable([
        (1, "is_in"), (2, "is_ex"), (3, "to_in"), (4, "to_ex"), (5, "allow"), (6, "block"),
    ])

    /// The group records of the report at `message` (`length` bytes, the count at byte 6, the
    /// records from byte 8): `, N group record(s)`, and with `-v` each record as
    /// ` [gaddr GROUP TYPE, N source(s)]`, `-vv` listing the sources (` { A B }`) instead of
    /// counting them. A record the length cannot hold ends the list with
    /// ` [invalid number of groups]` or ` [invalid number of sources N]`. `addressLength` is 4
    /// (IGMPv3) or 16 (MLDv2); `unknownType` leads the number of a type without a name
    /// (` [v3-report-#`, ` [v2-report-#`).
    func appendMulticastGroupRecords(
        _ cursor: ByteCursor, at message: Int, length: Int, addressLength: Int, unknownType: StaticString, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        let groups = Int(try cursor.u16(message + 6))
        out.append(", ")
        out.appendDecimal(groups)
        out.append(" group record(s)")
        guard options.verbosity > 0 else { return }
        let header = 4 + addressLength
        var record = 8
        for _ in 0..<groups {
            guard length >= record + header else { return out.append(" [invalid number of groups]") }
            try cursor.check(message + record + 4, addressLength)
            out.append(" [gaddr ")
            try appendMulticastAddress(cursor, at: message + record + 4, addressLength: addressLength, into: &out)
            let type = try cursor.u8(message + record)
            out.append(" ")
            if let name = Self.groupRecordTypeNames.name(UInt32(type)) {
                out.append(name)
            } else {
                out.append(unknownType)
                out.appendDecimal(type)
                out.append("]")
            }
            let sources = Int(try cursor.u16(message + record + 2))
            guard length >= record + header + sources * addressLength else {
                out.append(" [invalid number of sources ")
                out.appendDecimal(sources)
                out.append("]")
                return
            }
            if options.verbosity == 1 {
                Self.appendSourceCount(sources, into: &out)
            } else {
                try appendMulticastSources(cursor, at: message + record + header, count: sources, addressLength: addressLength, into: &out)
            }
            record += header + sources * addressLength
            out.append("]")
        }
    }

    /// A query's sources, `count` addresses at `first`: nothing for none,
    /// ` [invalid number of sources]` when they need more than the `room` bytes the message's
    /// length leaves for them, the list with `-vv`, else `, N source(s)`.
    func appendMulticastQuerySources(
        _ cursor: ByteCursor, at first: Int, count: Int, room: Int, addressLength: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        guard count > 0 else { return }
        if room < count * addressLength {
            out.append(" [invalid number of sources]")
        } else if options.verbosity > 1 {
            try appendMulticastSources(cursor, at: first, count: count, addressLength: addressLength, into: &out)
        } else {
            Self.appendSourceCount(count, into: &out)
        }
    }

    /// `, N source(s)`.
    private static func appendSourceCount(_ count: Int, into out: inout [UInt8]) {
        out.append(", ")
        out.appendDecimal(count)
        out.append(" source(s)")
    }

    /// ` { A B }`: `count` addresses at `first`, each read whole before it is printed.
    private func appendMulticastSources(
        _ cursor: ByteCursor, at first: Int, count: Int, addressLength: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        out.append(" {")
        for index in 0..<count {
            let address = first + index * addressLength
            try cursor.check(address, addressLength)
            out.append(" ")
            try appendMulticastAddress(cursor, at: address, addressLength: addressLength, into: &out)
        }
        out.append(" }")
    }

    /// An IPv4 address when `addressLength` is 4, else an IPv6 address.
    private func appendMulticastAddress(_ cursor: ByteCursor, at offset: Int, addressLength: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        if addressLength == 4 {
            try appendIPv4Address(cursor, at: offset, into: &out)
        } else {
            try appendIPv6Address(cursor, at: offset, into: &out)
        }
    }
}
