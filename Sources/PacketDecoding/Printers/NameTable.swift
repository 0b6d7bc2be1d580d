/// One of tcpdump's `struct tok` lists: values and their names, searched in order so the first
/// entry with a value wins (`tok2str`), or every entry whose bits are all set in a value
/// (`bittok2str`, `bittok2str_nosep`).
///
/// The tables are static constants; looking a value up allocates nothing.
struct NameTable {
    let entries: [(value: UInt32, name: StaticString)]

    init(_ entries: [(UInt32, StaticString)]) {
        self.entries = entries.map { (value: $0.0, name: $0.1) }
    }

    /// The first entry's name for `value` (tcpdump's `tok2str` when it finds one).
    func name(_ value: UInt32) -> StaticString? {
        for entry in entries where entry.value == value { return entry.name }
        return nil
    }

    /// `tok2str(table, fallback, value)` for fallbacks without a number in them.
    func name(_ value: UInt32, or fallback: StaticString) -> StaticString {
        name(value) ?? fallback
    }

    /// tcpdump's `bittok2str` (`separator` ", ") and `bittok2str_nosep` (""): the names of the
    /// non-zero entries whose bits are all set in `value`, in table order; `none` when no entry
    /// matched.
    func appendBits(_ value: UInt32, separator: StaticString = ", ", none: StaticString, into out: inout [UInt8]) {
        var first = true
        for entry in entries where entry.value != 0 && value & entry.value == entry.value {
            if !first { out.append(separator) }
            out.append(entry.name)
            first = false
        }
        if first { out.append(none) }
    }
}
