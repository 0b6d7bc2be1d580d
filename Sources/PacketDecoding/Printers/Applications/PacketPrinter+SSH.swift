extension PacketPrinter {
    /// tcpdump's `ssh_print` (its `ssh_print_version`): `: SSH: SSH-2.0-…` for a payload that
    /// starts with `SSH-` and whose first line is printable ASCII ended by LF or CR-LF; nothing
    /// for any other payload (the encrypted packets, a banner without its line ending, one
    /// with a control character or a lone CR).
    ///
    /// The first four bytes are read whatever the payload length, so a payload cut by the
    /// capture inside them prints ` [|ssh]`.
    mutating func printSSH(_ cursor: inout ByteCursor, at payload: Int, length: Int, into out: inout [UInt8]) throws(PacketDecodingError) {
        protocolName = "ssh"
        let prefix: UInt32 = 0x5353_482D // "SSH-", compared one byte at a time as tcpdump reads it
        for index in 0..<4 {
            let expected = UInt8(truncatingIfNeeded: prefix >> UInt32(24 - 8 * index))
            guard try cursor.u8(payload &+ index) == expected else { return }
        }
        var index = 4
        while index < length {
            let byte = try cursor.u8(payload &+ index)
            if byte == 0x0A { break }
            if byte == 0x0D {
                if index + 1 >= length { return }
                guard try cursor.u8(payload &+ index &+ 1) == 0x0A else { return }
                break
            }
            guard (0x20...0x7E).contains(byte) else { return }
            index += 1
        }
        guard index < length else { return }
        out.append(": SSH: ")
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: cursor.bytes[payload..<(payload + index)]))
    }
}
