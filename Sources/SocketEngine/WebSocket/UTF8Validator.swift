/// Incremental UTF-8 validation, byte by byte, across any number of pieces: a text message
/// arriving in fragments — even split inside a code point — is checked as it arrives, so an
/// invalid sequence is caught in the piece that holds it (RFC 6455 §8.1: fail fast).
///
/// It follows RFC 3629 exactly: no overlong forms, no surrogates (`ED A0..BF`), nothing above
/// U+10FFFF. Keeps two small integers of state; allocates nothing.
///
/// ```swift
/// var validator = UTF8Validator()
/// validator.feed(piece1)   // true: valid so far (perhaps mid code point)
/// validator.feed(piece2)
/// validator.isComplete     // true when the text ended on a code point boundary
/// ```
package struct UTF8Validator: Sendable, Equatable {
    /// Continuation bytes still expected for the current code point.
    private var remaining = 0
    /// The allowed range of the next continuation byte (it narrows after E0, ED, F0, F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    /// Once false, stays false.
    package private(set) var isValid = true

    package init() {}

    /// True when everything fed so far is valid and ends on a code point boundary.
    package var isComplete: Bool { isValid && remaining == 0 }

    /// Feeds the next piece; returns false (and stays invalid) as soon as a byte cannot
    /// continue valid UTF-8.
    @discardableResult
    package mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        guard isValid else { return false }
        for byte in bytes where !step(byte) {
            isValid = false
            return false
        }
        return true
    }

    private mutating func step(_ byte: UInt8) -> Bool {
        if remaining > 0 {
            guard byte >= lower && byte <= upper else { return false }
            remaining -= 1
            lower = 0x80
            upper = 0xBF
            return true
        }
        switch byte {
        case 0x00...0x7F:
            return true
        case 0xC2...0xDF:
            remaining = 1
        case 0xE0:
            remaining = 2
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF:
            remaining = 2
        case 0xED:
            remaining = 2
            upper = 0x9F
        case 0xF0:
            remaining = 3
            lower = 0x90
        case 0xF1...0xF3:
            remaining = 3
        case 0xF4:
            remaining = 3
            upper = 0x8F
        default:
            return false
        }
        return true
    }
}

extension UTF8Validator {
    /// True when `bytes` are, all together, valid UTF-8.
    package static func isValid<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        var validator = UTF8Validator()
        validator.feed(bytes)
        return validator.isComplete
    }
}
