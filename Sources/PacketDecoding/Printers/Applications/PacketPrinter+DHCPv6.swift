/// DHCPv6 (UDP ports 546 and 547) as tcpdump 4.99.3 prints it (`print-dhcp6.c`):
/// `dhcp6 solicit` without `-v`; with `-v` the transaction ID or the relay addresses and every
/// option in parentheses, options inside options (IA_NA, IA_ADDR …) and relayed messages nested:
/// ```
/// dhcp6 relay-fwd (linkaddr=2001:db8::1 peeraddr=fe80::1 (relay-message (dhcp6 solicit (xid=1e291d (elapsed-time 0))))
/// ```
extension PacketPrinter {
    /// One enclosing option while the walk is inside its sub-options (or inside the message a
    /// relay-message option carries).
    private struct DHCPv6Level {
        /// The end of the enclosing option list.
        let end: Int
        /// Where the enclosing list goes on: just past the option.
        let resume: Int
        /// For a relay message, the cursor to go back to (the nested message's is narrowed to
        /// the option, as tcpdump narrows its snapshot end); nil for plain sub-options.
        let outer: ByteCursor?
    }

    /// tcpdump's `dhcp6_print`: `dhcp6 NAME`, and with `-v` ` (xid=X OPTIONS)` or
    /// ` (linkaddr=A peeraddr=B OPTIONS)` for relay messages. A message shorter than its
    /// 4-byte header in the capture prints ` [|dhcp6]`.
    mutating func printDHCPv6(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "dhcp6"
        out.append("dhcp6")
        let end = min(cursor.end, payload &+ length)
        guard cursor.has(payload, 4) else {
            out.append(" [|dhcp6]")
            return
        }
        guard options.verbosity > 0 else {
            out.append(" ")
            Self.appendDHCPv6MessageType(try cursor.u8(payload), into: &out)
            return
        }
        let start = try appendDHCPv6MessageHeader(cursor, at: payload, into: &out)
        try appendDHCPv6Options(cursor, from: start, to: end, into: &out)
        out.append(")")
    }

    /// ` NAME (xid=X` or ` NAME (linkaddr=A peeraddr=B` for the message at `message` (its
    /// first 4 bytes captured); returns where its options start.
    private func appendDHCPv6MessageHeader(_ cursor: ByteCursor, at message: Int, into out: inout [UInt8]) throws(PacketDecodingError) -> Int {
        let type = try cursor.u8(message)
        out.append(" ")
        Self.appendDHCPv6MessageType(type, into: &out)
        out.append(" (")
        if type != 12 && type != 13 {
            out.append("xid=")
            out.appendHex(UInt64(try cursor.u32(message) & 0xFF_FFFF))
            return message + 4
        }
        try cursor.check(message + 2, 16)
        out.append("linkaddr=")
        try appendIPv6Address(cursor, at: message + 2, into: &out)
        try cursor.check(message + 18, 16)
        out.append(" peeraddr=")
        try appendIPv6Address(cursor, at: message + 18, into: &out)
        return message + 34
    }

    /// tcpdump's `dhcp6opt_print` over `start..<end`, its recursion (sub-options, relayed
    /// messages) unrolled into a stack so deep nesting cannot exhaust the thread's stack.
    /// An option list that runs past `end` or the capture prints ` [|dhcp6]` and ends that
    /// list only; the enclosing option then closes and its list goes on, as in tcpdump.
    private func appendDHCPv6Options(_ cursor: ByteCursor, from start: Int, to end: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        var cursor = cursor
        var levels: [DHCPv6Level] = []
        var offset = start
        var limit = end
        while true {
            var truncated = false
            walk: while offset < limit {
                guard limit - offset >= 4, cursor.has(offset, 4) else {
                    truncated = true
                    break walk
                }
                let length = Int(try cursor.u16(offset + 2))
                guard limit - offset - 4 >= length else {
                    truncated = true
                    break walk
                }
                let type = try cursor.u16(offset)
                out.append(" (")
                Self.appendDHCPv6OptionName(type, into: &out)
                let value = offset + 4
                let next = value + length
                guard cursor.has(value, length) else {
                    truncated = true
                    break walk
                }
                switch try appendDHCPv6OptionValue(type, cursor, at: value, length: length, into: &out) {
                case .printed:
                    offset = next
                case .truncated:
                    truncated = true
                    break walk
                case .suboptions(let first):
                    levels.append(DHCPv6Level(end: limit, resume: next, outer: nil))
                    offset = first
                    limit = next
                case .relayedMessage:
                    out.append(" (dhcp6")
                    var inner = cursor
                    inner.narrow(from: value, length: length)
                    guard inner.has(value, 4) else {
                        out.append(" [|dhcp6])")
                        offset = next
                        continue walk
                    }
                    offset = try appendDHCPv6MessageHeader(inner, at: value, into: &out)
                    levels.append(DHCPv6Level(end: limit, resume: next, outer: cursor))
                    limit = min(inner.end, next)
                    cursor = inner
                }
            }
            if truncated { out.append(" [|dhcp6]") }
            guard let level = levels.popLast() else { return }
            if let outer = level.outer {
                out.append("))")
                cursor = outer
            } else {
                out.append(")")
            }
            offset = level.resume
            limit = level.end
        }
    }
}
