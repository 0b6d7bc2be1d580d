/// A hash table from ``FieldKey`` to a message number, for one connection's open requests
/// (``OpenRequests``): open addressing with linear probing and backward-shift deletion, in one
/// array that grows (doubling) only when it is half full, so an insert, a lookup or a removal
/// allocates nothing once it has grown to the connection's pipeline. Empty until the first key
/// (a connection without `--correlate` pays nothing for it).
///
/// Why not `Dictionary`: its SipHash costs more per message than everything else `--correlate`
/// does; a key is already a well-spread value, so a multiply–xorshift mix of it is enough
/// (a peer that sends crafted keys can only make its own connection's probes longer).
struct KeyIndex {
    private struct Slot {
        var key: FieldKey
        /// The message number; -1: empty.
        var value: Int
    }

    private static let empty = Slot(key: FieldKey(first: 0, second: 0, length: 0), value: -1)
    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    /// An empty table; its slots are made with the first key.
    init() {
        slots = []
        mask = 0
    }

    @inline(__always)
    private static func home(of key: FieldKey, mask: Int) -> Int {
        var mixed = key.first ^ (key.second &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(truncatingIfNeeded: key.length) &* 0xC2B2_AE3D_27D4_EB4F)
        mixed ^= mixed >> 33
        mixed &*= 0xFF51_AFD7_ED55_8CCD
        mixed ^= mixed >> 33
        return Int(truncatingIfNeeded: mixed) & mask
    }

    /// Sets `key`'s number; returns the number it had.
    @inline(__always)
    mutating func updateValue(_ value: Int, forKey key: FieldKey) -> Int? {
        if (count + 1) * 2 > slots.count { grow() }
        var index = Self.home(of: key, mask: mask)
        while slots[index].value >= 0 {
            if slots[index].key == key {
                let old = slots[index].value
                slots[index].value = value
                return old
            }
            index = (index + 1) & mask
        }
        slots[index] = Slot(key: key, value: value)
        count += 1
        return nil
    }

    /// The number of `key`, or nil.
    @inline(__always)
    subscript(key: FieldKey) -> Int? {
        guard !slots.isEmpty else { return nil }
        var index = Self.home(of: key, mask: mask)
        while slots[index].value >= 0 {
            if slots[index].key == key { return slots[index].value }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Removes `key`; returns its number, or nil when it was not there.
    @inline(__always)
    mutating func removeValue(forKey key: FieldKey) -> Int? {
        guard !slots.isEmpty else { return nil }
        var index = Self.home(of: key, mask: mask)
        while slots[index].value >= 0 {
            if slots[index].key == key {
                let value = slots[index].value
                remove(at: index)
                return value
            }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Empties slot `index`, moving back the entries after it that probed past it, so that
    /// every lookup still stops at the first empty slot.
    private mutating func remove(at index: Int) {
        var hole = index
        var next = index
        while true {
            next = (next + 1) & mask
            guard slots[next].value >= 0 else { break }
            let home = Self.home(of: slots[next].key, mask: mask)
            // The entry stays when its home is cyclically within (hole, next].
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if stays { continue }
            slots[hole] = slots[next]
            hole = next
        }
        slots[hole] = Self.empty
        count -= 1
    }

    /// Forgets every key, keeping the table's size.
    mutating func removeAll() {
        guard count > 0 else { return }
        for index in slots.indices { slots[index] = Self.empty }
        count = 0
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Self.empty, count: max(16, old.count * 2))
        mask = slots.count - 1
        count = 0
        for slot in old where slot.value >= 0 { _ = updateValue(slot.value, forKey: slot.key) }
    }
}
