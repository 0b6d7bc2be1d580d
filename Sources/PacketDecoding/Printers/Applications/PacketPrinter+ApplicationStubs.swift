// TEMPORARY: the printers not written yet, each printing what sockctl printed before it had one.
// Every printer that lands deletes its stub here; this file goes when it is empty.
extension PacketPrinter {
    // MARK: text protocols (HTTP, RTSP, SIP, FTP, SMTP, whois), SSH, telnet, RESP

    mutating func printTelnet(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {}

    mutating func printSMTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {}

    mutating func printWhois(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {}

    mutating func printRESP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {}

    mutating func printSSH(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {}

    mutating func printFTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {}

    mutating func printHTTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {}

    mutating func printRTSP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {}

    mutating func printSIP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendStubUDP(length, into: &out)
    }

    // MARK: DNS and mDNS

    mutating func printDomain(
        _ cursor: inout ByteCursor, at payload: Int, length: Int, overTCP: Bool, multicast: Bool, into out: inout [UInt8]
    ) throws(PacketDecodingError) {
        if !overTCP { appendStubUDP(length, into: &out) }
    }

    // MARK: BOOTP/DHCP, DHCPv6, NTP, syslog

    mutating func printBOOTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendStubUDP(length, into: &out)
    }

    mutating func printDHCPv6(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendStubUDP(length, into: &out)
    }

    mutating func printNTP(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendStubUDP(length, into: &out)
    }

    mutating func printSyslog(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendStubUDP(length, into: &out)
    }

    // MARK: tunnels and other IP protocols (VXLAN, Geneve, GRE, IGMP, SCTP, DCCP)

    // MARK: shared by the UDP stubs

    func appendStubUDP(_ length: Int, into out: inout [UInt8]) {
        out.append("UDP, length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }
}
