/// DNS and mDNS messages (tcpdump 4.99.3's `domain_print` and `ns_qprint`) over UDP 53, UDP
/// 5353 and TCP 53.
///
/// A query prints `id[op][+][%] [counts] TYPE? name.`, a response `id[op][rcode][*][-][|][$]
/// [Nq] an/ns/ar answers`, both ending in ` (length)`. `-v` prints each answer's owner name and
/// the SOA and TSIG data, `-vv` the questions of a response (` q:`) and the authority
/// (` ns:`) and additional (` ar:`) sections, `-vvv` each record's TTL. mDNS splits the class
/// field's top bit off as the question's ` (QU)`/` (QM)` and the answer's ` (Cache flush)`.
extension PacketPrinter {
    /// tcpdump's `domain_print`: the DNS message in the `length` bytes at `payload`; over TCP
    /// the message must fill the segment behind its 2-byte length prefix.
    mutating func printDomain(
        _ cursor: inout ByteCursor, at payload: Int, length: Int, overTCP: Bool, multicast: Bool, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        protocolName = "domain"
        var base = payload
        var length = length
        if overTCP {
            if length < 2 {
                out.append(" [DNS over TCP: length ")
                out.appendDecimal(UInt32(truncatingIfNeeded: length))
                out.append(" < 2] (invalid)")
                return
            }
            length -= 2
            let prefix = try cursor.u16(base)
            if Int(prefix) != length {
                out.append(" [prefix length(")
                out.appendDecimal(prefix)
                out.append(") != length(")
                out.appendDecimal(UInt32(truncatingIfNeeded: length))
                out.append(")] (invalid)")
                return
            }
            base += 2
            out.append(" ")
        }
        if length < 12 {
            out.append("domain [length ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append(" < 12] (invalid)")
            return
        }
        guard cursor.has(base, 12) else {
            out.append(" [|domain]")
            return
        }
        let flags = try cursor.u16(base + 2)
        let counts = DNSCounts(
            questions: Int(try cursor.u16(base + 4)), answers: Int(try cursor.u16(base + 6)),
            authority: Int(try cursor.u16(base + 8)), additional: Int(try cursor.u16(base + 10)))
        let complete: Bool
        if flags & 0x8000 != 0 {
            complete = try appendDNSResponse(cursor, base: base, flags: flags, counts: counts, multicast: multicast, into: &out)
        } else {
            complete = try appendDNSQuery(cursor, base: base, flags: flags, counts: counts, multicast: multicast, into: &out)
        }
        if complete {
            out.append(" (")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            out.append(")")
        } else {
            out.append(" [|domain]")
        }
    }

    /// The four section counts of a DNS header.
    struct DNSCounts {
        var questions: Int
        var answers: Int
        var authority: Int
        var additional: Int
    }

    /// A response's header text and sections; false when tcpdump would print ` [|domain]`.
    private func appendDNSResponse(
        _ cursor: ByteCursor, base: Int, flags: UInt16, counts: DNSCounts, multicast: Bool, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        out.appendDecimal(try cursor.u16(base))
        out.append(Self.dnsOpcodeName(flags))
        Self.appendResponseCode(Self.extendedResponseCode(cursor, base: base, flags: flags, counts: counts), into: &out)
        if flags & 0x0400 != 0 { out.append("*") }
        if flags & 0x0080 == 0 { out.append("-") }
        if flags & 0x0200 != 0 { out.append("|") }
        if flags & 0x0020 != 0 { out.append("$") }
        if counts.questions != 1 {
            out.append(" [")
            out.appendDecimal(counts.questions)
            out.append("q]")
        }
        var position = base + 12
        for index in 0..<counts.questions {
            if index != 0 { out.append(",") }
            if options.verbosity > 1 {
                out.append(" q:")
                guard let next = try appendQuestion(cursor, at: position, base: base, multicast: multicast, into: &out) else { return false }
                position = next
            } else {
                guard let next = Self.skipDNSName(cursor, at: position) else { return false }
                position = next + 4
            }
        }
        out.append(" ")
        out.appendDecimal(counts.answers)
        out.append("/")
        out.appendDecimal(counts.authority)
        out.append("/")
        out.appendDecimal(counts.additional)
        guard let afterAnswers = try appendRecords(cursor, at: position, count: counts.answers, label: nil, base: base, multicast: multicast, into: &out) else {
            return false
        }
        guard options.verbosity > 1 else { return true }
        return try appendAuthorityAndAdditional(cursor, at: afterAnswers, counts: counts, base: base, multicast: multicast, into: &out)
    }

    /// A query's header text and sections; false when tcpdump would print ` [|domain]`.
    private func appendDNSQuery(
        _ cursor: ByteCursor, base: Int, flags: UInt16, counts: DNSCounts, multicast: Bool, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        out.appendDecimal(try cursor.u16(base))
        out.append(Self.dnsOpcodeName(flags))
        if flags & 0x0100 != 0 { out.append("+") }
        if flags & 0x0010 != 0 { out.append("%") }
        if flags & 0x06CF != 0 {
            out.append(" [b2&3=0x")
            out.appendHex(UInt64(flags))
            out.append("]")
        }
        func appendCount(_ count: Int, _ suffix: StaticString, _ out: inout [UInt8]) {
            out.append(" [")
            out.appendDecimal(count)
            out.append(suffix)
        }
        if (flags >> 11) & 0xF == 1 {
            if counts.questions != 0 { appendCount(counts.questions, "q]", &out) }
            if counts.answers != 1 { appendCount(counts.answers, "a]", &out) }
        } else {
            if counts.answers != 0 { appendCount(counts.answers, "a]", &out) }
            if counts.questions != 1 { appendCount(counts.questions, "q]", &out) }
        }
        if counts.authority != 0 { appendCount(counts.authority, "n]", &out) }
        if counts.additional != 0 { appendCount(counts.additional, "au]", &out) }

        var position = base + 12
        var remaining = counts.questions
        if remaining > 0 {
            guard let first = try appendQuestion(cursor, at: position, base: base, multicast: multicast, into: &out) else { return false }
            position = first
            remaining -= 1
            while position < cursor.end && remaining > 0 {
                guard let next = try appendQuestion(cursor, at: position, base: base, multicast: multicast, into: &out) else { return false }
                position = next
                remaining -= 1
            }
        }
        if remaining > 0 { return false }
        guard options.verbosity > 1 else { return true }
        guard let afterAnswers = try appendRecords(cursor, at: position, count: counts.answers, label: nil, base: base, multicast: multicast, into: &out) else {
            return false
        }
        return try appendAuthorityAndAdditional(cursor, at: afterAnswers, counts: counts, base: base, multicast: multicast, into: &out)
    }

    /// The ` ns:` and ` ar:` sections (`-vv`); false for ` [|domain]`.
    private func appendAuthorityAndAdditional(
        _ cursor: ByteCursor, at position: Int, counts: DNSCounts, base: Int, multicast: Bool, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Bool {
        guard let afterAuthority = try appendRecords(cursor, at: position, count: counts.authority, label: " ns:", base: base, multicast: multicast, into: &out) else {
            return false
        }
        return try appendRecords(cursor, at: afterAuthority, count: counts.additional, label: " ar:", base: base, multicast: multicast, into: &out) != nil
    }

    /// `count` records from `position`, comma-separated, as tcpdump's section loops print them:
    /// the loop stops when a record ends at or past the captured end, and a section not printed
    /// whole means ` [|domain]` (nil). A `label`led section (` ns:`, ` ar:`) prints nothing when
    /// its first record would start past the captured end; the answers are tried regardless.
    private func appendRecords(
        _ cursor: ByteCursor, at position: Int, count: Int, label: StaticString?, base: Int, multicast: Bool, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int? {
        var position = position
        var remaining = count
        if remaining > 0 && (label == nil || position < cursor.end) {
            if let label { out.append(label) }
            guard let first = try appendResourceRecord(cursor, at: position, base: base, multicast: multicast, into: &out) else { return nil }
            position = first
            remaining -= 1
            while position < cursor.end && remaining > 0 {
                out.append(",")
                guard let next = try appendResourceRecord(cursor, at: position, base: base, multicast: multicast, into: &out) else { return nil }
                position = next
                remaining -= 1
            }
        }
        return remaining > 0 ? nil : position
    }

    /// tcpdump's `ns_qprint`: ` TYPE[ CLASS][ (QU)|(QM)]? name.`; the position after the
    /// question, or nil when its name or fixed fields are not all captured or the name is bad.
    private func appendQuestion(_ cursor: ByteCursor, at start: Int, base: Int, multicast: Bool, into out: inout [UInt8]) throws(PacketDecodingError) -> Int? {
        guard let fields = Self.skipDNSName(cursor, at: start), cursor.has(fields, 4) else { return nil }
        out.append(" ")
        Self.appendDNSType(try cursor.u16(fields), into: &out)
        let rawClass = try cursor.u16(fields + 2)
        let questionClass = multicast ? rawClass & 0x7FFF : rawClass
        if questionClass != 1 {
            out.append(" ")
            Self.appendDNSClass(questionClass, into: &out)
        }
        if multicast { out.append(rawClass & 0x8000 != 0 ? " (QU)" : " (QM)") }
        out.append("? ")
        guard let end = try Self.appendDNSName(cursor, at: start, base: base, into: &out) else { return nil }
        return end + 4
    }

    /// The response code with the extended bits of the first OPT record in the additional
    /// section, found by tcpdump's pre-scan (which gives up, keeping the header's 4 bits, at
    /// the first name it cannot skip or the first record past the captured end).
    private static func extendedResponseCode(_ cursor: ByteCursor, base: Int, flags: UInt16, counts: DNSCounts) -> UInt16 {
        let code = flags & 0x000F
        let end = cursor.end
        var position = base + 12
        for _ in 0..<counts.questions {
            guard let next = skipDNSName(cursor, at: position) else { return code }
            position = next + 4
            if position >= end { return code }
        }
        for _ in 0..<(counts.answers + counts.authority) {
            guard let next = skipDNSName(cursor, at: position) else { return code }
            position = next + 8
            if position + 2 > end { return code }
            position += 2 + (Int(cursor.bytes[position]) << 8 | Int(cursor.bytes[position + 1]))
            if position >= end { return code }
        }
        for _ in 0..<counts.additional {
            guard let next = skipDNSName(cursor, at: position) else { return code }
            position = next
            if position + 2 > end { return code }
            let type = Int(cursor.bytes[position]) << 8 | Int(cursor.bytes[position + 1])
            position += 4
            if position + 1 > end { return code }
            if type == 41 { return code | UInt16(cursor.bytes[position]) << 4 }
            position += 4
            if position + 2 > end { return code }
            position += 2 + (Int(cursor.bytes[position]) << 8 | Int(cursor.bytes[position + 1]))
            if position >= end { return code }
        }
        return code
    }

    /// tcpdump's `ns_ops`, by the header's opcode bits (with its leading space).
    private static func dnsOpcodeName(_ flags: UInt16) -> StaticString {
        switch (flags >> 11) & 0xF {
        case 0: ""
        case 1: " inv_q"
        case 2: " stat"
        case 3: " op3"
        case 4: " notify"
        case 5: " update"
        case 6: " op6"
        case 7: " op7"
        case 8: " op8"
        case 9: " updateA"
        case 10: " updateD"
        case 11: " updateDA"
        case 12: " updateM"
        case 13: " updateMA"
        case 14: " zoneInit"
        default: " zoneRef"
        }
    }

    /// tcpdump's `ns_rcode`: the names of codes 0–23 (17 and 21 without their leading space, as
    /// tcpdump has them), ` Resp<N>` beyond.
    private static func appendResponseCode(_ code: UInt16, into out: inout [UInt8]) {
        let name: StaticString
        switch code {
        case 0: return
        case 1: name = " FormErr"
        case 2: name = " ServFail"
        case 3: name = " NXDomain"
        case 4: name = " NotImp"
        case 5: name = " Refused"
        case 6: name = " YXDomain"
        case 7: name = " YXRRSet"
        case 8: name = " NXRRSet"
        case 9: name = " NotAuth"
        case 10: name = " NotZone"
        case 15: name = " NoChange"
        case 16: name = " BadVers"
        case 17: name = "Resp17"
        case 21: name = "Resp21"
        case 23: name = " BadCookie"
        default:
            out.append(" Resp")
            out.appendDecimal(code & 0xFFF)
            return
        }
        out.append(name)
    }
}
