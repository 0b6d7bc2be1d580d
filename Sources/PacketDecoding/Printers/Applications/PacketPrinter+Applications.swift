/// The hand-off from the transport printers to the application printers: tcpdump prints the
/// text protocols after `: `, the others print their own separator.
extension PacketPrinter {
    /// The TCP payload (`length` bytes at `payload`, the header fully captured) for the printer
    /// ``TCPApplication`` picked.
    mutating func printTCPApplication(
        _ application: TCPApplication, _ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        switch application {
        case .telnet:
            try printTelnet(&cursor, at: payload, length: length, into: &out)
        case .smtp:
            out.append(": ")
            try printSMTP(&cursor, at: payload, length: length, into: &out)
        case .whois:
            out.append(": ")
            try printWhois(&cursor, at: payload, length: length, into: &out)
        case .redis:
            try printRESP(&cursor, at: payload, length: length, into: &out)
        case .ssh:
            try printSSH(&cursor, at: payload, length: length, into: &out)
        case .ftp:
            out.append(": ")
            try printFTP(&cursor, at: payload, length: length, into: &out)
        case .http:
            out.append(": ")
            try printHTTP(&cursor, at: payload, length: length, into: &out)
        case .rtsp:
            out.append(": ")
            try printRTSP(&cursor, at: payload, length: length, into: &out)
        case .domain:
            try printDomain(&cursor, at: payload, length: length, overTCP: true, multicast: false, into: &out)
        case .bgp, .pptp, .beep, .openFlow, .msdp, .rpkiRTR, .ldp, .nfs, .none:
            break
        }
    }

    /// The UDP payload (`length` bytes at `payload`: the smaller of the UDP and IP lengths) for
    /// the printer ``UDPApplication`` picked; the addresses and ports are already printed.
    mutating func printUDPApplication(
        _ application: UDPApplication, _ cursor: inout ByteCursor, at payload: Int, length: Int, ip: IPContext, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        switch application {
        case .domain: try printDomain(&cursor, at: payload, length: length, overTCP: false, multicast: false, into: &out)
        case .multicastDomain: try printDomain(&cursor, at: payload, length: length, overTCP: false, multicast: true, into: &out)
        case .bootp: try printBOOTP(&cursor, at: payload, length: length, into: &out)
        case .ntp: try printNTP(&cursor, at: payload, length: length, into: &out)
        case .dhcp6: try printDHCPv6(&cursor, at: payload, length: length, into: &out)
        case .sip: try printSIP(&cursor, at: payload, length: length, into: &out)
        case .syslog: try printSyslog(&cursor, at: payload, length: length, into: &out)
        case .vxlan: try printVXLAN(&cursor, at: payload, length: length, ip: ip, into: &out)
        case .geneve: try printGeneve(&cursor, at: payload, length: length, ip: ip, into: &out)
        default: break
        }
    }
}
