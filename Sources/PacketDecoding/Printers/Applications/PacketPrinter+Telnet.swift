/// Names of the telnet commands 236 (EOF) to 255 (IAC), print-telnet.c's `telcmds`.
private let telnetCommands: [StaticString] = [
    "EOF", "SUSP", "ABORT", "EOR", "SE", "NOP", "DMARK", "BRK", "IP", "AO", "AYT", "EC", "EL", "GA", "SB",
    "WILL", "WONT", "DO", "DONT", "IAC",
]

/// Names of the telnet options 0 to 39, print-telnet.c's `telopts`.
private let telnetOptions: [StaticString] = [
    "BINARY", "ECHO", "RCP", "SUPPRESS GO AHEAD", "NAME", "STATUS", "TIMING MARK", "RCTE", "NAOL", "NAOP",
    "NAOCRD", "NAOHTS", "NAOHTD", "NAOFFD", "NAOVTS", "NAOVTD", "NAOLFD", "EXTEND ASCII", "LOGOUT",
    "BYTE MACRO", "DATA ENTRY TERMINAL", "SUPDUP", "SUPDUP OUTPUT", "SEND LOCATION", "TERMINAL TYPE",
    "END OF RECORD", "TACACS UID", "OUTPUT MARKING", "TTYLOC", "3270 REGIME", "X.3 PAD", "NAWS", "TSPEED",
    "LFLOW", "LINEMODE", "XDISPLOC", "OLD-ENVIRON", "AUTHENTICATION", "ENCRYPT", "NEW-ENVIRON",
]

/// Sub-negotiation qualifiers: the ordinary ones, AUTHENTICATION's (37) and ENCRYPT's (38), and
/// the second byte of those two (authentication and encryption types); "" marks tcpdump's
/// NULL entries, printed as numbers.
private let telnetQualifiers: [StaticString] = ["IS", "SEND", "INFO"]
private let telnetAuthenticationCommands: [StaticString] = ["IS", "SEND", "REPLY", "NAME"]
private let telnetAuthenticationTypes: [StaticString] = [
    "NULL", "KERBEROS_V4", "KERBEROS_V5", "SPX", "MINK", "SRP", "RSA", "SSL", "", "", "LOKI", "SSA", "KEA_SJ",
    "KEA_SJ_INTEG", "DSS", "NTLM",
]
private let telnetEncryptionCommands: [StaticString] = [
    "IS", "SUPPORT", "REPLY", "START", "END", "REQUEST-START", "REQUEST-END", "END_KEYID", "DEC_KEYID",
]
private let telnetEncryptionTypes: [StaticString] = [
    "NULL", "DES_CFB64", "DES_OFB64", "DES3_CFB64", "DES3_OFB64", "", "CAST5_40_CFB64", "CAST5_40_OFB64",
    "CAST128_CFB64", "CAST128_OFB64",
]

private let interpretAsCommand: UInt8 = 255
private let subnegotiationBegin: UInt8 = 250
private let subnegotiationEnd: UInt8 = 240

extension PacketPrinter {
    /// tcpdump's `telnet_print`: the IAC commands at the start of the payload as
    /// ` [telnet WILL ECHO, DO NAWS, SB TERMINAL TYPE SEND SE]`; nothing for a payload that does
    /// not start with IAC (the session's data).
    ///
    /// With `-X` and `-vvv` each command is instead shown under `Telnet:` as its hex bytes (with
    /// their offset in the payload) followed by its text. A command tcpdump cannot parse (cut
    /// short, an unknown code) ends the list. An `SB` without `IAC SE` whose last byte is IAC is
    /// taken as ended one byte past the payload, as tcpdump does; the next read then runs off the
    /// capture and prints ` [|telnet]`.
    mutating func printTelnet(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "telnet"
        let hexMode = options.dump == .hexAndASCII && options.verbosity > 2
        var offset = payload
        var remaining = length
        var first = true
        while remaining > 0, try cursor.u8(offset) == interpretAsCommand {
            guard let commandLength = try parseTelnetCommand(cursor, at: offset, length: remaining, printing: false, into: &out) else {
                break
            }
            if hexMode {
                if first { out.append("\nTelnet:") }
                try Self.appendHexLines(cursor, at: offset, count: commandLength, offset: offset - payload, indent: "\n", into: &out)
                if commandLength > 8 {
                    out.append("\n\t\t\t\t")
                } else {
                    out.append(contentsOf: repeatElement(0x20, count: (8 - commandLength) * 3))
                    out.append("\t")
                }
            } else {
                out.append(first ? " [telnet " : ", ")
            }
            _ = try parseTelnetCommand(cursor, at: offset, length: remaining, printing: true, into: &out)
            first = false
            offset += commandLength
            remaining -= commandLength
            // tcpdump's unsigned length wraps when a command claims one byte past the payload;
            // the next read is then past the capture either way.
            if remaining < 0 { _ = try cursor.u8(offset) }
        }
        if !first {
            out.append(hexMode ? "\n" : "]")
        }
    }

    /// tcpdump's `telnet_parse`: the length of the IAC command at `start` (nil when it cannot be
    /// parsed: cut by `length`, or an unknown command code), its text appended when `printing`.
    private func parseTelnetCommand(
        _ cursor: ByteCursor, at start: Int, length: Int, printing: Bool, into out: inout [UInt8]
    ) throws(PacketDecodingError) -> Int? {
        var position = start
        var remaining = length
        func fetch() throws(PacketDecodingError) -> UInt8? {
            guard remaining >= 1 else { return nil }
            let byte = try cursor.u8(position)
            position += 1
            remaining -= 1
            return byte
        }
        guard let iac = try fetch(), iac == interpretAsCommand, let command = try fetch() else { return nil }
        if command == interpretAsCommand {
            if printing { out.append("IAC IAC") }
            return position - start
        }
        guard command >= 236 else { return nil }
        let name = telnetCommands[Int(command) - 236]
        guard command >= subnegotiationBegin && command <= 254 else {
            if printing { out.append(name) }
            return position - start
        }
        guard let option = try fetch() else { return nil }
        if printing {
            out.append(name)
            out.append(" ")
            if Int(option) < telnetOptions.count {
                out.append(telnetOptions[Int(option)])
            } else {
                Self.appendAlternateHex(option, into: &out)
            }
        }
        guard command == subnegotiationBegin else { return position - start }
        var end = position
        while remaining > end + 1 - position {
            if try cursor.u8(end) == interpretAsCommand, try cursor.u8(end + 1) == subnegotiationEnd { break }
            end += 1
        }
        guard try cursor.u8(end) == interpretAsCommand else { return nil }
        let (firstNames, secondNames): ([StaticString], [StaticString]?) = switch option {
        case 37: (telnetAuthenticationCommands, telnetAuthenticationTypes)
        case 38: (telnetEncryptionCommands, telnetEncryptionTypes)
        default: (telnetQualifiers, nil)
        }
        if end > position {
            guard let qualifier = try fetch() else { return nil }
            if printing { Self.appendName(qualifier, firstNames, into: &out) }
            if let secondNames, end > position {
                guard let type = try fetch() else { return nil }
                if printing { Self.appendName(type, secondNames, into: &out) }
            }
        }
        while end > position {
            guard let byte = try fetch() else { return nil }
            if printing {
                out.append(" ")
                Self.appendAlternateHex(byte, into: &out)
            }
        }
        if printing { out.append(" SE") }
        return position + 2 - start
    }

    /// tcpdump's `STR_OR_ID` after a space: the table's name, or the number (`%#x`).
    private static func appendName(_ value: UInt8, _ names: [StaticString], into out: inout [UInt8]) {
        out.append(" ")
        if Int(value) < names.count, names[Int(value)].utf8CodeUnitCount > 0 {
            out.append(names[Int(value)])
        } else {
            appendAlternateHex(value, into: &out)
        }
    }

    /// C's `%#x`: `0` for zero, `0x` and lowercase hex digits otherwise.
    static func appendAlternateHex(_ value: UInt8, into out: inout [UInt8]) {
        if value == 0 {
            out.append("0")
        } else {
            out.append("0x")
            out.appendHex(UInt64(value))
        }
    }
}
