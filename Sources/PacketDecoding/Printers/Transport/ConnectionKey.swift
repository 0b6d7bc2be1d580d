/// Direction-independent IPv6 conversation key (lower side first).
struct ConnectionKey6: Hashable {
    var a: UInt64, b: UInt64, c: UInt64, d: UInt64
    var ports: UInt32

    init(_ cursor: ByteCursor, _ low: Int, _ high: Int, ports: UInt32) {
        func word(_ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(cursor.bytes[offset + index]) }
            return value
        }
        a = word(low)
        b = word(low + 8)
        c = word(high)
        d = word(high + 8)
        self.ports = ports
    }
}

/// Direction-independent IPv4 conversation key (lower side first).
struct ConnectionKey4: Hashable {
    var addresses: UInt64
    var ports: UInt32

    init(_ cursor: ByteCursor, _ low: Int, _ high: Int, ports: UInt32) {
        var value: UInt64 = 0
        for index in 0..<4 { value = value << 8 | UInt64(cursor.bytes[low + index]) }
        for index in 0..<4 { value = value << 8 | UInt64(cursor.bytes[high + index]) }
        self.addresses = value
        self.ports = ports
    }
}
