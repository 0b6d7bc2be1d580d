/// A FIFO of up to 256 booleans in four words: no allocation. Past 256 outstanding requests the
/// extra ones count as not HEAD.
struct HTTPHeadRequestFlags: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var first = 0
    private var count = 0

    mutating func push(_ flag: Bool) {
        guard count < 256 else { return }
        set((first + count) & 255, flag)
        count += 1
    }

    /// The oldest flag; false when none is waiting.
    mutating func pop() -> Bool {
        guard count > 0 else { return false }
        let flag = get(first)
        first = (first + 1) & 255
        count -= 1
        return flag
    }

    private func get(_ index: Int) -> Bool {
        let bit = UInt64(1) << UInt64(index & 63)
        switch index >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }

    private mutating func set(_ index: Int, _ flag: Bool) {
        let bit = UInt64(1) << UInt64(index & 63)
        switch index >> 6 {
        case 0: words.0 = flag ? words.0 | bit : words.0 & ~bit
        case 1: words.1 = flag ? words.1 | bit : words.1 & ~bit
        case 2: words.2 = flag ? words.2 | bit : words.2 & ~bit
        default: words.3 = flag ? words.3 | bit : words.3 & ~bit
        }
    }
}
