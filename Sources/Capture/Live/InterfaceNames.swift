import Synchronization

import Glibc

/// The name of the network interface with this index (`if_indextoname`), e.g. `lo` for 1;
/// nil when no interface has that index.
///
/// Answers are cached for the life of the process (a renamed interface keeps its old name here),
/// so printing LINUX_SLL2 records costs one lookup per interface, not one socket call per packet.
/// The cache holds at most 1024 indexes; beyond that lookups are simply not cached.
package func interfaceName(index: UInt32) -> String? {
    InterfaceNameCache.shared.name(index: index)
}

final class InterfaceNameCache: Sendable {
    static let shared = InterfaceNameCache()
    static let limit = 1024

    private let names = Mutex<[UInt32: String?]>([:])

    func name(index: UInt32) -> String? {
        if let cached = names.withLock({ $0[index] }) { return cached }
        let found = Self.lookUp(index: index)
        names.withLock { table in
            if table.count < Self.limit { table[index] = .some(found) }
        }
        return found
    }

    private static func lookUp(index: UInt32) -> String? {
        guard index != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        return buffer.withUnsafeMutableBufferPointer { raw -> String? in
            guard let base = raw.baseAddress, if_indextoname(index, base) != nil else { return nil }
            return String(cString: base)
        }
    }
}
