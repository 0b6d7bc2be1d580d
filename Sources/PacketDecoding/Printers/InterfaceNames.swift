import Synchronization
import Glibc

/// Interface names for Linux cooked v2 records, looked up with `if_indextoname` on the machine
/// that prints (as tcpdump does) and cached (at most 4096 indexes); unknown indexes print `?`.
enum InterfaceNames {
    private static let cache = Mutex<[UInt32: [UInt8]]>([:])

    static func name(index: UInt32) -> [UInt8] {
        if let known = cache.withLock({ $0[index] }) { return known }
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        let name: [UInt8]
        if if_indextoname(index, &buffer) != nil {
            name = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        } else {
            name = [UInt8(ascii: "?")]
        }
        cache.withLock { names in
            if names.count < 4096 { names[index] = name }
        }
        return name
    }
}
