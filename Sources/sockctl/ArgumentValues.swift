import NIOCore
import SocketEngine

/// Parsers for option values, each failing with one line that names the bad value.
enum ArgumentValues {
    /// `250ms`, `2s`, `1.5s`, `1m`, `1h`, `100us`; a bare number is seconds.
    static func duration(_ text: String, option: String) throws -> Duration {
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text)
        var scale = 1.0
        for (suffix, factor) in units.sorted(by: { $0.0.count > $1.0.count }) where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = factor
            break
        }
        guard !number.isEmpty,
              number.allSatisfy({ $0.isNumber || $0 == "." }),
              number.filter({ $0 == "." }).count <= 1,
              let value = Double(number), value.isFinite
        else {
            throw UsageError("invalid duration '\(text)' for \(option) (expected e.g. 250ms, 2s, 1m)")
        }
        let seconds = value * scale
        guard seconds <= 31_536_000 * 10 else {
            throw UsageError("duration '\(text)' for \(option) is too long")
        }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// A positive duration.
    static func positiveDuration(_ text: String, option: String) throws -> Duration {
        let value = try duration(text, option: option)
        guard value > .zero else { throw UsageError("\(option) must be greater than zero") }
        return value
    }

    /// `1048576`, `64k`, `64KiB`, `16M`, `16MiB`, `1G` (binary multiples).
    static func byteSize(_ text: String, option: String, range: ClosedRange<Int>) throws -> Int {
        let lowered = text.lowercased()
        let suffixes: [(String, Int)] = [("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("kb", 1 << 10), ("mb", 1 << 20), ("gb", 1 << 30), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("b", 1)]
        var digits = Substring(lowered)
        var multiplier = 1
        for (suffix, factor) in suffixes where lowered.hasSuffix(suffix) {
            digits = lowered.dropLast(suffix.count)
            multiplier = factor
            break
        }
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy(\.isNumber), let value = Int(digits) else {
            throw UsageError("invalid size '\(text)' for \(option) (expected e.g. 65536, 64KiB, 16MiB)")
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow, range.contains(bytes) else {
            throw UsageError("\(option) \(text) is out of range (\(range.lowerBound)-\(range.upperBound) bytes)")
        }
        return bytes
    }

    /// A whole number within `range`.
    static func count(_ text: String, option: String, range: ClosedRange<Int>) throws -> Int {
        guard !text.isEmpty, text.count <= 12, text.allSatisfy(\.isNumber), let value = Int(text), range.contains(value) else {
            throw UsageError("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// Backslash escapes: `\n \r \t \0 \\ \xHH`.
    static func unescape(_ text: String, option: String) throws -> ByteBuffer {
        var out = ByteBuffer()
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                out.writeInteger(byte)
                continue
            }
            guard let escape = bytes.popFirst() else {
                throw UsageError("\(option): a trailing backslash escapes nothing")
            }
            switch escape {
            case UInt8(ascii: "n"): out.writeInteger(UInt8(0x0A))
            case UInt8(ascii: "r"): out.writeInteger(UInt8(0x0D))
            case UInt8(ascii: "t"): out.writeInteger(UInt8(0x09))
            case UInt8(ascii: "0"): out.writeInteger(UInt8(0x00))
            case UInt8(ascii: "\\"): out.writeInteger(UInt8(ascii: "\\"))
            case UInt8(ascii: "x"):
                let hex = bytes.prefix(2)
                guard hex.count == 2, let value = UInt8(String(decoding: hex, as: UTF8.self), radix: 16) else {
                    throw UsageError("\(option): \\x needs two hex digits")
                }
                bytes = bytes.dropFirst(2)
                out.writeInteger(value)
            default:
                throw UsageError("\(option): unknown escape '\\\(Character(UnicodeScalar(escape)))' (use \\n \\r \\t \\0 \\\\ \\xHH)")
            }
        }
        return out
    }

    static func endpoint(_ text: String, role: Endpoint.Role) throws -> Endpoint {
        do {
            return try Endpoint(parsing: text, role: role)
        } catch {
            throw UsageError(error.message)
        }
    }

    static func framing(_ text: String) throws -> Framing {
        do {
            return try Framing(parsing: text)
        } catch {
            throw UsageError(error.message)
        }
    }

    static func addressRange(_ text: String) throws -> AddressRange {
        do {
            return try AddressRange(parsing: text)
        } catch {
            throw UsageError(error.message)
        }
    }
}
