// TEMPORARY: the printers not written yet, each printing what sockctl printed before it had one.
// Every printer that lands deletes its stub here; this file goes when it is empty.
extension PacketPrinter {
    // MARK: tunnels and other IP protocols (VXLAN, Geneve, GRE, IGMP, SCTP, DCCP)

    mutating func printVXLAN(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendStubUDP(length, into: &out)
    }

    mutating func printGeneve(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendStubUDP(length, into: &out)
    }

    mutating func printIGMP(_ cursor: inout ByteCursor, at offset: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendUnknownProtocol(2, length: length, into: &out)
    }

    mutating func printGRE(_ cursor: inout ByteCursor, at offset: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendUnknownProtocol(47, length: length, into: &out)
    }

    mutating func printSCTP(_ cursor: inout ByteCursor, at offset: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendUnknownProtocol(132, length: length, into: &out)
    }

    mutating func printDCCP(_ cursor: inout ByteCursor, at offset: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        appendUnknownProtocol(33, length: length, into: &out)
    }

    // MARK: shared by the UDP stubs

    func appendStubUDP(_ length: Int, into out: inout [UInt8]) {
        out.append("UDP, length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }
}
