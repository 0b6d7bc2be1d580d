/// BSD syslog (RFC 3164, UDP port 514) as tcpdump 4.99.3 prints it (`print-syslog.c`):
/// `SYSLOG daemon.info, length: 42`; with `-v` facility and severity on their own line and the
/// message text escaped, with `-vv` also a hex dump of the whole message.
extension PacketPrinter {
    /// tcpdump's `syslog_print`: the priority is up to three digits between `<` and `>`
    /// (anything else prints ` (invalid)`); facility is its bits 3–9, severity bits 0–2. The
    /// message text is read to `length`, so a message cut by the capture ends in ` [|syslog]`.
    mutating func printSyslog(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "syslog"
        guard try cursor.u8(payload) == UInt8(ascii: "<") else {
            out.append(" (invalid)")
            return
        }
        var offset = 1
        var priority = 0
        while offset <= 3 {
            let digit = try cursor.u8(payload + offset)
            guard digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") else { break }
            priority = priority * 10 + Int(digit - UInt8(ascii: "0"))
            offset += 1
        }
        guard try cursor.u8(payload + offset) == UInt8(ascii: ">") else {
            out.append(" (invalid)")
            return
        }
        offset += 1
        let facility = (priority & 0x3F8) >> 3
        let severity = priority & 7
        guard options.verbosity > 0 else {
            out.append("SYSLOG ")
            Self.appendSyslogFacility(facility, into: &out)
            out.append(".")
            Self.appendSyslogSeverity(severity, into: &out)
            out.append(", length: ")
            out.appendDecimal(UInt32(truncatingIfNeeded: length))
            return
        }
        out.append("SYSLOG, length: ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
        out.append("\n\tFacility ")
        Self.appendSyslogFacility(facility, into: &out)
        out.append(" (")
        out.appendDecimal(facility)
        out.append("), Severity ")
        Self.appendSyslogSeverity(severity, into: &out)
        out.append(" (")
        out.appendDecimal(severity)
        out.append(")\n\tMsg: ")
        try Self.appendEscaped(cursor, at: payload + offset, count: length - offset, into: &out)
        if options.verbosity > 1 {
            let count = min(length, cursor.available(from: payload))
            if count > 0 {
                HexDump.appendHex(UnsafeRawBufferPointer(rebasing: cursor.bytes[payload..<(payload + count)]), into: &out)
            }
        }
    }

    /// tcpdump's `syslog_facility_values`, `unknown (N)` beyond 23.
    private static func appendSyslogFacility(_ facility: Int, into out: inout [UInt8]) {
        guard facility < syslogFacilityNames.count else {
            out.append("unknown (")
            out.appendDecimal(facility)
            out.append(")")
            return
        }
        out.append(syslogFacilityNames[facility])
    }

    /// tcpdump's `syslog_severity_values` (all eight are named).
    private static func appendSyslogSeverity(_ severity: Int, into out: inout [UInt8]) {
        out.append(syslogSeverityNames[severity & 7])
    }

    private static let syslogFacilityNames: [StaticString] = [
        "kernel", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp",
        "ntp", "security", "console", "cron", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
    ]

    private static let syslogSeverityNames: [StaticString] = [
        "emergency", "alert", "critical", "error", "warning", "notice", "info", "debug",
    ]
}
