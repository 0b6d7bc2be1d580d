/// Domain names inside a DNS message (tcpdump 4.99.3's `ns_nskip`, `labellen`, `fqdn_print`,
/// `blabel_print`, `ns_cprint`), printed straight into the output as tcpdump prints them; the
/// characters go through `nd_printn` (``appendEscapedInCapture(_:at:count:into:)``).
///
/// Positions are offsets into the captured frame; a position past the captured bytes is not
/// an error until something is read there. `base` is the first byte of the DNS header (after
/// the TCP length prefix), the origin of compression pointers. A name function that returns
/// `nil` is tcpdump's `NULL` (a checked read found the bytes missing, or the name is bad): its
/// caller prints ` [|domain]` by hand. A read tcpdump does without a check throws instead (the
/// longjmp).
///
/// Loops are bounded as tcpdump bounds them: every compression pointer must point before the
/// previous one (`<BAD PTR>` otherwise), every label moves forward, and at most 255 characters
/// of one name are printed (`<DOMAIN NAME TOO LONG>`).
extension PacketPrinter {
    /// The label-type bits of a length byte.
    static let dnsLabelTypeMask: UInt8 = 0xC0
    /// `11......`: a compression pointer.
    static let dnsPointer: UInt8 = 0xC0
    /// `01......`: an extended label type (RFC 2671); only type 1, the bit-string label, is known.
    static let dnsExtendedLabel: UInt8 = 0x40
    /// `10......`: reserved.
    static let dnsReservedLabel: UInt8 = 0x80
    /// The most characters of one name tcpdump prints (its `MAXCDNAME`).
    static let dnsMaximumNameCharacters = 255

    /// tcpdump's `ns_nskip`: the position after the name at `start` without printing it (two
    /// bytes after a compression pointer, unchecked), or nil when the name's bytes are not all
    /// captured, or a reserved or unknown extended label type appears.
    @inline(__always)
    static func skipDNSName(_ cursor: ByteCursor, at start: Int) -> Int? {
        var position = start
        guard cursor.has(position, 1) else { return nil }
        var byte = cursor.bytes[position]
        position += 1
        while byte != 0 {
            switch byte & dnsLabelTypeMask {
            case dnsPointer:
                return position + 1
            case dnsExtendedLabel:
                guard byte & 0x3F == 1, cursor.has(position, 1) else { return nil }
                var bits = Int(cursor.bytes[position])
                if bits == 0 { bits = 256 }
                position += 1 + (bits + 7) / 8
            case dnsReservedLabel:
                return nil
            default:
                position += Int(byte)
            }
            guard cursor.has(position, 1) else { return nil }
            byte = cursor.bytes[position]
            position += 1
        }
        return position
    }

    /// tcpdump's `labellen`: the length the label byte at `position` stands for (its value for
    /// plain labels and pointers, the bit string's bytes plus one for a bit-string label), or nil
    /// when it is not captured or is of a bad type (printing `<ELT n>` or `<BAD LABEL TYPE>`).
    @inline(__always)
    static func dnsLabelLength(_ cursor: ByteCursor, at position: Int, into out: inout [UInt8]) -> Int? {
        guard cursor.has(position, 1) else { return nil }
        let byte = cursor.bytes[position]
        switch byte & dnsLabelTypeMask {
        case dnsExtendedLabel:
            let extendedType = byte & 0x3F
            guard extendedType == 1 else {
                out.append("<ELT ")
                out.appendDecimal(extendedType)
                out.append(">")
                return nil
            }
            guard cursor.has(position + 1, 1) else { return nil }
            var bits = Int(cursor.bytes[position + 1])
            if bits == 0 { bits = 256 }
            return (bits + 7) / 8 + 1
        case dnsReservedLabel:
            out.append("<BAD LABEL TYPE>")
            return nil
        default:
            return Int(byte)
        }
    }

    /// tcpdump's `fqdn_print`: prints the name at `start` (`www.example.com.`, `.` for the
    /// root), following compression pointers relative to `base`, and returns the position after
    /// the name where it sits in the message (after the first pointer when there is one), or
    /// nil after a bad pointer or label type, or when a checked read finds the bytes missing.
    /// The one implementation for every caller: DNS messages (`base` the DNS header), the
    /// ICMPv6 DNS search list option (`base` the start of the options) and the DHCPv6 domain
    /// lists and NTP server FQDN (`base` the option's end). The bounds are the captured bytes
    /// (`cursor.end`, tcpdump's `ndo_snapend`) for all of them.
    ///
    /// tcpdump's quirks are kept: the walk stops quietly once it reaches the end of the captured
    /// bytes; `base` may lie after `start` (an EDNS CHAIN option's name and the DHCPv6 names,
    /// where tcpdump passes the option's end): the offset bound is unsigned, as tcpdump's
    /// `max_offset`, so the first pointer's check passes for any offset; each later pointer
    /// must point before the one followed last, which bounds the jumps.
    static func appendDNSName(_ cursor: ByteCursor, at start: Int, base: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        guard var length = dnsLabelLength(cursor, at: start, into: &out) else { return nil }
        var maximumOffset = UInt32(truncatingIfNeeded: start &- base)
        var position = start
        var byte = cursor.bytes[position]
        position += 1
        var resume: Int? = nil
        var compressed = false
        if byte & dnsLabelTypeMask != dnsPointer { resume = position + length }
        guard byte != 0 else {
            out.append(".")
            return resume
        }
        var characters = 0
        let end = cursor.end
        while byte != 0 && position < end {
            switch byte & dnsLabelTypeMask {
            case dnsPointer:
                if !compressed {
                    resume = position + 1
                    compressed = true
                }
                guard cursor.has(position, 1) else { return nil }
                let offset = (UInt32(byte) << 8 | UInt32(cursor.bytes[position])) & 0x3FFF
                if offset >= maximumOffset {
                    out.append("<BAD PTR>")
                    return nil
                }
                maximumOffset = offset
                position = base + Int(offset)
                guard cursor.has(position, 1) else { return nil }
                byte = cursor.bytes[position]
                guard let next = dnsLabelLength(cursor, at: position, into: &out) else { return nil }
                length = next
                position += 1
                continue
            case dnsExtendedLabel:
                guard byte & 0x3F == 1 else {
                    out.append("<ELT ")
                    out.appendDecimal(byte & 0x3F)
                    out.append(">")
                    return nil
                }
                guard try appendBitStringLabel(cursor, at: position, into: &out) else { return nil }
            case dnsReservedLabel:
                out.append("<BAD LABEL TYPE>")
                return nil
            default:
                if characters + length <= dnsMaximumNameCharacters {
                    guard appendEscapedInCapture(cursor, at: position, count: length, into: &out) else { return nil }
                } else if characters < dnsMaximumNameCharacters {
                    guard appendEscapedInCapture(cursor, at: position, count: dnsMaximumNameCharacters - characters, into: &out) else {
                        return nil
                    }
                }
                characters += length
            }
            position += length
            if characters <= dnsMaximumNameCharacters { out.append(UInt8(ascii: ".")) }
            characters += 1
            guard cursor.has(position, 1) else { return nil }
            byte = cursor.bytes[position]
            guard let next = dnsLabelLength(cursor, at: position, into: &out) else { return nil }
            length = next
            position += 1
            if !compressed, let previous = resume { resume = previous + length + 1 }
        }
        if characters > dnsMaximumNameCharacters { out.append("<DOMAIN NAME TOO LONG>") }
        return resume
    }

    /// tcpdump's `blabel_print`: a bit-string label (its bit count at `position`, then the
    /// bits) as `\[x<hex>/<bits>]`; false when the count byte is not captured. The hex digits
    /// are read unchecked, as tcpdump reads them.
    private static func appendBitStringLabel(_ cursor: ByteCursor, at position: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Bool {
        guard cursor.has(position, 1) else { return false }
        var bits = Int(cursor.bytes[position])
        if bits == 0 { bits = 256 }
        let limit = position + 1 + (bits + 3) / 4
        out.append("\\[x")
        var bitPosition = position + 1
        var remaining = bits
        while bitPosition < limit && remaining > 7 {
            out.appendHex(UInt64(try cursor.u8(bitPosition)), minimumDigits: 2)
            remaining -= 8
            bitPosition += 1
        }
        if remaining > 4 {
            let last = try cursor.u8(bitPosition)
            out.appendHex(UInt64(last & UInt8(truncatingIfNeeded: 0xFF << (8 - remaining))), minimumDigits: 2)
        } else if remaining > 0 {
            let last = try cursor.u8(bitPosition)
            out.appendHex(UInt64((last >> 4) & UInt8(truncatingIfNeeded: 0x0F << (4 - remaining))))
        }
        out.append("/")
        out.appendDecimal(bits)
        out.append("]")
        return true
    }

    /// tcpdump's `ns_cprint`: the character-string at `position` (a length byte, then that many
    /// bytes, printed escaped); the position after it, or nil when its bytes are not all captured.
    static func appendDNSCharacterString(_ cursor: ByteCursor, at position: Int, into out: inout [UInt8]) -> Int? {
        guard cursor.has(position, 1) else { return nil }
        let count = Int(cursor.bytes[position])
        guard appendEscapedInCapture(cursor, at: position + 1, count: count, into: &out) else { return nil }
        return position + 1 + count
    }
}
