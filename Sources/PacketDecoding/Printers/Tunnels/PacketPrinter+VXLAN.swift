/// VXLAN (tcpdump's `vxlan_print`, UDP port 4789): the flags and VNI, then a line break and the
/// inner Ethernet frame printed as a capture of its own would be (without timestamp).
extension PacketPrinter {
    /// The VXLAN header and frame in the UDP payload at `payload` (`length` bytes).
    mutating func printVXLAN(_ cursor: inout ByteCursor, at payload: Int, length: Int, ip: IPContext, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "vxlan"
        out.append("VXLAN")
        guard length >= 8 else {
            out.append(" (invalid)")
            return
        }
        let flags = try cursor.u8(payload)
        out.append(", flags [")
        out.append(flags & 0x08 != 0 ? "I" : "invalid")
        out.append("] (0x")
        out.appendHex(UInt64(flags), minimumDigits: 2)
        out.append("), ")
        let vni = UInt32(try cursor.u8(payload + 4)) << 16 | UInt32(try cursor.u16(payload + 5))
        out.append("vni ")
        out.appendDecimal(vni)
        out.append("\n")
        try cursor.check(payload + 7, 1)
        try printEthernet(&cursor, at: payload + 8, length: length - 8, depth: ip.depth + 1, into: &out)
    }
}
