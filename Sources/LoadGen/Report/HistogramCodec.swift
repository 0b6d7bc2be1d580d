import Foundation
import CZlib
import Histogram

/// HdrHistogram's standard "V2 compressed" encoding: the `HISTFAAA…` base64 text that the
/// Java, C, Go, Rust and Python HdrHistogram libraries read and write (and `HistogramLogProcessor`
/// plots), so a `loadtest --json` histogram can be checked with any of them.
///
/// ```
/// compressed:   cookie 0x1c849314 | int32 length | zlib( uncompressed )
/// uncompressed: cookie 0x1c849313 | int32 payload length | int32 normalizing offset (0)
///               | int32 significant digits | int64 lowest discernible | int64 highest trackable
///               | float64 conversion ratio (1.0) | payload
/// payload:      one ZigZag LEB128 varint per counts-array slot, up to the slot of the maximum;
///               a negative varint -N stands for N empty slots
/// ```
///
/// All integers are big-endian. Decoding accepts both forms (with and without the zlib layer),
/// checks every length against the bytes present, and refuses histograms whose decoded size
/// would exceed ``maximumDecodedBytes`` or ``maximumSlots`` — a hostile file cannot make it
/// allocate without bound — and histograms the library would trap on: a header it cannot
/// represent, counts whose total or whose values' sum (count × value, summed) passes 64 bits.
package enum HistogramCodec {
    static let uncompressedCookie: UInt32 = 0x1c84_9313
    static let compressedCookie: UInt32 = 0x1c84_9314
    static let headerSize = 40
    /// The most bytes a decoded (inflated) histogram may take.
    package static let maximumDecodedBytes = 16 << 20
    /// The most counts-array slots a decoded histogram may have (8 MiB of counts; a run's
    /// histograms have 33,792, a label's 4,608).
    static let maximumSlots = 1 << 20

    // MARK: Encoding

    /// The compressed encoding as base64 (`HISTFAAA…`).
    package static func encode(_ histogram: Histogram<UInt64>) -> String {
        base64Encode(compressed(histogram))
    }

    /// The compressed encoding's bytes.
    package static func compressed(_ histogram: Histogram<UInt64>) -> [UInt8] {
        let plain = uncompressed(histogram)
        var bound = compressBound(uLong(plain.count))
        var deflated = [UInt8](repeating: 0, count: Int(bound))
        let status = plain.withUnsafeBufferPointer { source in
            deflated.withUnsafeMutableBufferPointer { target in
                compress2(target.baseAddress, &bound, source.baseAddress, uLong(source.count), Z_DEFAULT_COMPRESSION)
            }
        }
        // compress2 does not fail with a buffer of compressBound() bytes; were it to (no memory),
        // the uncompressed encoding says the same, only longer, and decode() reads it too.
        guard status == Z_OK else { return plain }
        var out: [UInt8] = []
        out.reserveCapacity(8 + Int(bound))
        appendBigEndian(compressedCookie, to: &out)
        appendBigEndian(UInt32(bound), to: &out)
        out += deflated.prefix(Int(bound))
        return out
    }

    /// The uncompressed V2 encoding.
    package static func uncompressed(_ histogram: Histogram<UInt64>) -> [UInt8] {
        let layout = Layout(histogram)
        var payload: [UInt8] = []
        var nextSlot = 0
        for step in histogram.recordedValues() where step.count > 0 {
            let slot = layout.slot(of: step.value)
            if slot > nextSlot { appendZigZag(-Int64(slot - nextSlot), to: &payload) }
            appendZigZag(Int64(clamping: step.count), to: &payload)
            nextSlot = slot + 1
        }
        var out: [UInt8] = []
        out.reserveCapacity(headerSize + payload.count)
        appendBigEndian(uncompressedCookie, to: &out)
        appendBigEndian(UInt32(payload.count), to: &out)
        appendBigEndian(UInt32(0), to: &out)
        appendBigEndian(UInt32(histogram.numberOfSignificantValueDigits.rawValue), to: &out)
        appendBigEndian(histogram.lowestDiscernibleValue, to: &out)
        appendBigEndian(histogram.highestTrackableValue, to: &out)
        appendBigEndian((1.0 as Double).bitPattern, to: &out)
        return out + payload
    }

    // MARK: Decoding

    /// Decodes base64 text of either form.
    package static func decode(_ text: String) throws(LoadGenError) -> Histogram<UInt64> {
        guard let bytes = base64Decode(text) else { throw LoadGenError(.invalidHistogram, "histogram is not valid base64") }
        return try decode(bytes)
    }

    /// Decodes the bytes of either form.
    package static func decode(_ bytes: [UInt8]) throws(LoadGenError) -> Histogram<UInt64> {
        var reader = Reader(bytes[...])
        let cookie = try reader.uint32()
        switch cookie {
        case compressedCookie:
            let length = Int(try reader.uint32())
            guard length <= reader.remaining.count else {
                throw LoadGenError(.invalidHistogram, "compressed histogram says \(length) bytes, \(reader.remaining.count) present")
            }
            let inflated = try inflate(Array(reader.remaining.prefix(length)))
            guard inflated.count >= 4, readBigEndian32(inflated, at: 0) == uncompressedCookie else {
                throw LoadGenError(.invalidHistogram, "compressed histogram does not hold a V2 histogram")
            }
            return try decodeUncompressed(inflated)
        case uncompressedCookie:
            return try decodeUncompressed(bytes)
        default:
            throw LoadGenError(.invalidHistogram, "not an HdrHistogram V2 encoding (cookie 0x\(String(cookie, radix: 16)))")
        }
    }

    static func decodeUncompressed(_ bytes: [UInt8]) throws(LoadGenError) -> Histogram<UInt64> {
        var reader = Reader(bytes[...])
        _ = try reader.uint32()
        let payloadLength = Int(try reader.uint32())
        let normalizingOffset = try reader.uint32()
        let digits = try reader.uint32()
        let lowest = try reader.uint64()
        let highest = try reader.uint64()
        let ratio = Double(bitPattern: try reader.uint64())
        guard normalizingOffset == 0 else { throw LoadGenError(.invalidHistogram, "normalizing index offsets are not supported") }
        guard ratio == 1.0 else { throw LoadGenError(.invalidHistogram, "double histograms are not supported") }
        guard let significant = SignificantDigits(rawValue: Int8(clamping: digits)), digits <= 5 else {
            throw LoadGenError(.invalidHistogram, "invalid number of significant digits \(digits)")
        }
        guard lowest >= 1, lowest <= UInt64.max / 4, highest >= 2 * lowest, highest <= UInt64.max / 4 else {
            throw LoadGenError(.invalidHistogram, "invalid value range \(lowest)...\(highest)")
        }
        guard payloadLength <= reader.remaining.count else {
            throw LoadGenError(.invalidHistogram, "histogram payload says \(payloadLength) bytes, \(reader.remaining.count) present")
        }
        // Checked before the library sees them: it traps on some combinations, and allocates
        // its whole counts array up front.
        let layout = Layout(lowestDiscernibleValue: lowest, significantDigits: Int(digits))
        guard layout.unitMagnitude + layout.subBucketHalfCountMagnitude <= 61,
              layout.countsLength(highestTrackableValue: highest) <= maximumSlots else {
            throw LoadGenError(.invalidHistogram, "histogram range \(lowest)...\(highest) with \(digits) digits is too large")
        }
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: lowest, highestTrackableValue: highest, numberOfSignificantValueDigits: significant)
        // The library's own unit (the range of slot 0) must be the layout's, or slots would mean other values.
        guard histogram.sizeOfEquivalentRangeForValue(0) == UInt64(1) << UInt64(layout.unitMagnitude) else {
            throw LoadGenError(.invalidHistogram, "histogram lowest discernible value \(lowest) is not supported")
        }
        var payload = Reader(reader.remaining.prefix(payloadLength))
        var slot = 0
        // The library adds counts and count × value without checks (wrapping or trapping):
        // both totals must fit in 64 bits.
        var total: UInt64 = 0
        var valueSum: UInt64 = 0
        while !payload.remaining.isEmpty {
            let word = try payload.zigZag()
            if word < 0 {
                let (next, overflow) = slot.addingReportingOverflow(Int(clamping: word.magnitude))
                guard !overflow, next <= maximumSlots else { throw LoadGenError(.invalidHistogram, "histogram has too many slots") }
                slot = next
                continue
            }
            guard slot < maximumSlots else { throw LoadGenError(.invalidHistogram, "histogram has too many slots") }
            if word > 0 {
                let value = layout.value(ofSlot: slot)
                guard value <= highest else {
                    throw LoadGenError(.invalidHistogram, "histogram value \(value) is beyond its highest trackable value \(highest)")
                }
                let count = UInt64(word)
                let (newTotal, totalOverflow) = total.addingReportingOverflow(count)
                let (product, productOverflow) = count.multipliedReportingOverflow(by: histogram.highestEquivalentForValue(value))
                let (newSum, sumOverflow) = valueSum.addingReportingOverflow(product)
                guard !totalOverflow else { throw LoadGenError(.invalidHistogram, "histogram counts add up past 2^64") }
                guard !productOverflow, !sumOverflow else { throw LoadGenError(.invalidHistogram, "histogram values add up past 2^64") }
                guard histogram.record(value, count: count) else {
                    throw LoadGenError(.invalidHistogram, "histogram value \(value) is beyond its highest trackable value \(highest)")
                }
                total = newTotal
                valueSum = newSum
            }
            slot += 1
        }
        return histogram
    }

    /// The sum of a histogram's recorded values, each counted at the top of its slot's range —
    /// the figure the library's iteration accumulates (and traps on when it passes 64 bits).
    /// Only for histograms whose sum is known to fit: decoded ones, and sums of them that
    /// ``HistogramSum`` checked.
    static func valueSum(of histogram: Histogram<UInt64>) -> UInt64 {
        var sum: UInt64 = 0
        for step in histogram.recordedValues() { sum = step.totalValueToThisValue }
        return sum
    }

    /// zlib-inflates at most ``maximumDecodedBytes``.
    static func inflate(_ input: [UInt8]) throws(LoadGenError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw LoadGenError(.invalidHistogram, "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var source = input
        let result: Int32 = source.withUnsafeMutableBufferPointer { sourceBuffer in
            stream.next_in = sourceBuffer.baseAddress
            stream.avail_in = uInt(sourceBuffer.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { target -> Int32 in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output += chunk.prefix(produced)
                if output.count > maximumDecodedBytes { return Z_MEM_ERROR }
                if status == Z_STREAM_END { return Z_OK }
                if status != Z_OK { return status }
                if produced == 0 && stream.avail_in == 0 { return Z_DATA_ERROR }
            }
        }
        guard result == Z_OK else {
            throw LoadGenError(.invalidHistogram, result == Z_MEM_ERROR ? "compressed histogram inflates beyond \(maximumDecodedBytes) bytes" : "compressed histogram is corrupt (zlib \(result))")
        }
        return output
    }

    // MARK: Counts-array layout

    /// HdrHistogram's mapping between values and counts-array slots, from the parameters alone
    /// (the same for every implementation).
    struct Layout {
        let unitMagnitude: Int
        let subBucketHalfCountMagnitude: Int
        let subBucketMask: UInt64

        init(_ histogram: Histogram<UInt64>) {
            self.init(lowestDiscernibleValue: histogram.lowestDiscernibleValue, significantDigits: Int(histogram.numberOfSignificantValueDigits.rawValue))
        }

        /// `significantDigits` in 0...5; `lowestDiscernibleValue` at least 1.
        init(lowestDiscernibleValue: UInt64, significantDigits: Int) {
            // log2 of the value as a Double, cut to a whole number, exactly as the library (and
            // HdrHistogram's Java original) computes it: for values above 2^48 this can be one
            // more than the integer log2, and the layout must be the library's.
            unitMagnitude = min(63, Int(log2(Double(max(lowestDiscernibleValue, 1)))))
            var singleUnit: UInt64 = 2
            for _ in 0..<min(max(significantDigits, 0), 5) { singleUnit *= 10 }
            var countMagnitude = 0
            while (UInt64(1) << countMagnitude) < singleUnit { countMagnitude += 1 }
            subBucketHalfCountMagnitude = max(countMagnitude, 1) - 1
            subBucketMask = (UInt64(1) << (subBucketHalfCountMagnitude + 1) - 1) << unitMagnitude
        }

        /// The length of the counts array of a histogram reaching `highestTrackableValue`.
        func countsLength(highestTrackableValue: UInt64) -> Int {
            let subBucketCountMagnitude = subBucketHalfCountMagnitude + 1
            guard subBucketCountMagnitude + unitMagnitude < 63 else { return .max }
            var smallestUntrackable = UInt64(1) << UInt64(subBucketCountMagnitude + unitMagnitude)
            var buckets = 1
            while smallestUntrackable <= highestTrackableValue {
                if smallestUntrackable > UInt64.max / 2 {
                    buckets += 1
                    break
                }
                smallestUntrackable <<= 1
                buckets += 1
            }
            return (buckets + 1) << subBucketHalfCountMagnitude
        }

        func slot(of value: UInt64) -> Int {
            let powerOfTwoCeiling = 64 - (value | subBucketMask).leadingZeroBitCount
            let bucket = powerOfTwoCeiling - unitMagnitude - (subBucketHalfCountMagnitude + 1)
            let subBucket = Int(value >> UInt64(bucket + unitMagnitude))
            return ((bucket + 1) << subBucketHalfCountMagnitude) + subBucket - (1 << subBucketHalfCountMagnitude)
        }

        func value(ofSlot slot: Int) -> UInt64 {
            var bucket = (slot >> subBucketHalfCountMagnitude) - 1
            var subBucket = (slot & ((1 << subBucketHalfCountMagnitude) - 1)) + (1 << subBucketHalfCountMagnitude)
            if bucket < 0 {
                subBucket -= 1 << subBucketHalfCountMagnitude
                bucket = 0
            }
            let shift = bucket + unitMagnitude
            guard shift < 64, UInt64(subBucket) <= UInt64.max >> UInt64(shift) else { return .max }
            return UInt64(subBucket) << UInt64(shift)
        }
    }

    // MARK: Bytes

    struct Reader {
        var remaining: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) { remaining = bytes }

        mutating func uint32() throws(LoadGenError) -> UInt32 {
            guard remaining.count >= 4 else { throw LoadGenError(.invalidHistogram, "histogram ends inside its header") }
            var value: UInt32 = 0
            for byte in remaining.prefix(4) { value = value << 8 | UInt32(byte) }
            remaining = remaining.dropFirst(4)
            return value
        }

        mutating func uint64() throws(LoadGenError) -> UInt64 {
            UInt64(try uint32()) << 32 | UInt64(try uint32())
        }

        /// LEB128 of at most 9 bytes (the ninth carries 8 bits), then ZigZag.
        mutating func zigZag() throws(LoadGenError) -> Int64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            for index in 0..<9 {
                guard let byte = remaining.popFirst() else { throw LoadGenError(.invalidHistogram, "histogram payload ends inside a count") }
                if index == 8 {
                    value |= UInt64(byte) << 56
                    break
                }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            return Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
        }
    }

    static func appendZigZag(_ signed: Int64, to out: inout [UInt8]) {
        var value = UInt64(bitPattern: (signed << 1) ^ (signed >> 63))
        for _ in 0..<8 {
            if value < 0x80 {
                out.append(UInt8(value))
                return
            }
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(truncatingIfNeeded: value))
    }

    static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        let big = value.bigEndian
        withUnsafeBytes(of: big) { out.append(contentsOf: $0) }
    }

    static func readBigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    // MARK: Base64 (RFC 4648, with padding), by Foundation

    static func base64Encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Line breaks and spaces (a histogram pasted from a log) are left out before decoding; what
    /// is left must be canonical base64 (Foundation alone also takes `Zg=a`).
    static func base64Decode(_ text: String) -> [UInt8]? {
        let compact = text.filter { $0 != "\n" && $0 != "\r" && $0 != " " }
        guard let data = Data(base64Encoded: compact), data.base64EncodedString() == compact else { return nil }
        return Array(data)
    }
}
