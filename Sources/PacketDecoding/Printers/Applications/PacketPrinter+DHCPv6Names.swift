/// Domain names inside DHCPv6 options: the NTP server's FQDN sub-option and the AFTR name,
/// printed as tcpdump 4.99.3 prints them. The names (here and in the search list and SIP domain
/// options) go through ``appendDNSName(_:at:base:into:)``, tcpdump's `fqdn_print`, with the
/// option's end as the base of compression pointers, as `print-dhcp6.c` passes it.
extension PacketPrinter {
    /// The NTP server option (RFC 5908): ` subopt:N` and the server or multicast address or
    /// the server's FQDN for each sub-option, ` ?` for others; a sub-option running past the
    /// option truncates the list. Closes with `)`.
    func appendDHCPv6NTPServer(
        _ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> DHCPv6OptionOutcome {
        let end = value + length
        var offset = value
        while offset < end - 4 {
            let code = try cursor.u16(offset)
            let size = Int(try cursor.u16(offset + 2))
            offset += 4
            if offset + size > end { return .truncated }
            out.append(" subopt:")
            out.appendDecimal(code)
            switch code {
            case 1, 2:
                if size == 16 {
                    out.append(" ")
                    try appendIPv6Address(cursor, at: offset, into: &out)
                } else {
                    out.append(" ?")
                }
            case 3:
                out.append(" ")
                guard try Self.appendDNSName(cursor, at: offset, base: offset + size, into: &out) != nil else {
                    return .truncated
                }
            default:
                out.append(" ?")
            }
            offset += size
        }
        out.append(")")
        return .printed
    }

    /// The AFTR name (RFC 6334): its labels joined by `.`, ` ?` where a label runs past the
    /// option; reads the byte after each label (maybe past the option) as tcpdump does.
    /// Closes with `)`.
    func appendDHCPv6AFTRName(_ cursor: ByteCursor, at value: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var offset = value
        var left = length
        out.append(" ")
        while left > 0, try cursor.u8(offset) != 0 {
            let label = Int(try cursor.u8(offset))
            offset += 1
            guard label < left - 1 else {
                out.append(" ?")
                break
            }
            try Self.appendNullPaddedText(cursor, at: offset, count: label, into: &out)
            offset += label
            left -= label + 1
            if try cursor.u8(offset) != 0 { out.append(".") }
        }
        out.append(")")
    }
}
