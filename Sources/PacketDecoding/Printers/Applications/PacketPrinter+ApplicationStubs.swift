// TEMPORARY: the printers not written yet, each printing what sockctl printed before it had one.
// Every printer that lands deletes its stub here; this file goes when it is empty.
extension PacketPrinter {
    // MARK: tunnels and other IP protocols (VXLAN, Geneve, GRE, IGMP, SCTP, DCCP)

    // MARK: shared by the UDP stubs

    func appendStubUDP(_ length: Int, into out: inout [UInt8]) {
        out.append("UDP, length ")
        out.appendDecimal(UInt32(truncatingIfNeeded: length))
    }
}
