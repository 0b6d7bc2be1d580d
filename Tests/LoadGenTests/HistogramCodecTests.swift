import Histogram
import TestSupport
import Testing

@testable import LoadGen

@Suite(.hangGuard) struct HistogramCodecTests {
    static func sample() -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .three)
        var value: UInt64 = 7
        for index in 0..<20_000 {
            value = value &* 6364136223846793005 &+ 1442695040888963407
            histogram.record(14_000 + (value >> 40) % 60_000)
            if index % 1000 == 0 { histogram.record(500_000_000) }
        }
        histogram.record(1, count: 3)
        return histogram
    }

    @Test func compressedRoundTripKeepsEveryCount() throws {
        let original = Self.sample()
        let text = HistogramCodec.encode(original)
        #expect(text.hasPrefix("HISTFAAA"))
        let decoded = try HistogramCodec.decode(text)
        #expect(decoded.totalCount == original.totalCount)
        #expect(decoded == original)
        // What the report shows is computed from the counts alone: identical after decoding.
        #expect(LoadReport.Percentiles(decoded) == LoadReport.Percentiles(original))
        #expect(LoadReport.Percentiles(original)?.p99_99 ?? 0 > 400_000)
    }

    @Test func uncompressedFormDecodesToo() throws {
        let original = Self.sample()
        let decoded = try HistogramCodec.decode(HistogramCodec.uncompressed(original))
        #expect(decoded == original)
    }

    @Test func emptyHistogramRoundTrips() throws {
        let empty = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 1_000_000, numberOfSignificantValueDigits: .two)
        let decoded = try HistogramCodec.decode(HistogramCodec.encode(empty))
        #expect(decoded.totalCount == 0)
        #expect(decoded.highestTrackableValue == 1_000_000)
    }

    /// The layout is HdrHistogram's: the first values map to their own slots, a value past the
    /// first bucket shares a slot with its neighbours.
    @Test func slotsFollowTheStandardLayout() {
        let layout = HistogramCodec.Layout(lowestDiscernibleValue: 1, significantDigits: 3)
        #expect(layout.subBucketHalfCountMagnitude == 10)
        #expect(layout.slot(of: 0) == 0)
        #expect(layout.slot(of: 2047) == 2047)
        #expect(layout.slot(of: 2048) == 2048)
        #expect(layout.slot(of: 2049) == 2048)
        #expect(layout.value(ofSlot: 2048) == 2048)
        #expect(layout.value(ofSlot: 3072) == 4096)
        for value: UInt64 in [0, 1, 999, 5000, 123_456_789, 3_600_000_000_000] {
            let slot = layout.slot(of: value)
            #expect(layout.value(ofSlot: slot) <= value)
            #expect(layout.slot(of: layout.value(ofSlot: slot)) == slot)
        }
    }

    @Test(arguments: [
        ("", "histogram ends inside its header"),
        ("HISTFAAA", "histogram ends inside its header"),
        ("AAAAAAAAAAAA", "not an HdrHistogram V2 encoding"),
        ("***", "not valid base64"),
    ])
    func badTextIsAnError(text: String, message: String) {
        let error = #expect(throws: LoadGenError.self) { try HistogramCodec.decode(text) }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    /// Every prefix and many single-byte corruptions of a real encoding: an error or a
    /// histogram, never a trap or a huge allocation.
    /// (Cut after every byte of the headers and every 5th byte after them, a corrupted byte
    /// every 7 bytes: each decode that gets past the header allocates a whole histogram.)
    @Test func cutAndCorruptedEncodingsNeverTrap() async {
        let decoded = await onOwnThread { () -> Int in
            let compressed = HistogramCodec.compressed(Self.sample())
            let plain = HistogramCodec.uncompressed(Self.sample())
            var count = 0
            for bytes in [compressed, plain] {
                for length in Array(0..<min(64, bytes.count)) + Array(stride(from: 64, to: bytes.count, by: 5)) {
                    if (try? HistogramCodec.decode(Array(bytes.prefix(length)))) != nil { count += 1 }
                }
                for index in stride(from: 0, to: bytes.count, by: 7) {
                    for flip: UInt8 in [0x01, 0x80, 0xFF] {
                        var corrupted = bytes
                        corrupted[index] ^= flip
                        if (try? HistogramCodec.decode(corrupted)) != nil { count += 1 }
                    }
                }
            }
            return count
        }
        // Some corruptions still decode (a changed count); most do not. None traps.
        #expect(decoded > 0)
    }

    @Test func hostileHeadersAreRefusedBeforeAllocating() throws {
        // Five significant digits, a lowest value of 2^60 and the largest highest value.
        var header: [UInt8] = []
        HistogramCodec.appendBigEndian(UInt32(0x1c84_9313), to: &header)
        HistogramCodec.appendBigEndian(UInt32(0), to: &header)
        HistogramCodec.appendBigEndian(UInt32(0), to: &header)
        HistogramCodec.appendBigEndian(UInt32(5), to: &header)
        HistogramCodec.appendBigEndian(UInt64(1) << 60, to: &header)
        HistogramCodec.appendBigEndian(UInt64.max / 4, to: &header)
        HistogramCodec.appendBigEndian((1.0 as Double).bitPattern, to: &header)
        #expect(throws: LoadGenError.self) { try HistogramCodec.decode(header) }
        // A run of zero slots longer than any histogram.
        var runaway = HistogramCodec.uncompressed(Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 1000, numberOfSignificantValueDigits: .one))
        var payload: [UInt8] = []
        HistogramCodec.appendZigZag(-(1 << 40), to: &payload)
        HistogramCodec.appendZigZag(5, to: &payload)
        runaway.replaceSubrange(4..<8, with: [0, 0, 0, UInt8(payload.count)])
        runaway += payload
        #expect(throws: LoadGenError.self) { try HistogramCodec.decode(runaway) }
    }

    @Test func zigZagCoversTheWholeRange() throws {
        for value: Int64 in [0, 1, -1, 63, -64, 64, 1 << 35, -(1 << 35), .max, .min] {
            var bytes: [UInt8] = []
            HistogramCodec.appendZigZag(value, to: &bytes)
            var reader = HistogramCodec.Reader(bytes[...])
            #expect(try reader.zigZag() == value)
            #expect(reader.remaining.isEmpty)
        }
    }

    @Test func base64MatchesRFC4648() {
        let vectors = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in vectors {
            #expect(HistogramCodec.base64Encode(Array(plain.utf8)) == encoded)
            #expect(HistogramCodec.base64Decode(encoded) == Array(plain.utf8))
        }
        #expect(HistogramCodec.base64Decode("Zg=a") == nil)
        #expect(HistogramCodec.base64Decode("Z") == nil)
    }
}

/// Decoding is total: any header — every number of significant digits, lowest and highest
/// values at the edges of what the library takes — gives a histogram that can be read,
/// summed and encoded again, or an error; never a trap inside the library.
@Suite(.hangGuard) struct HistogramHeaderTests {
    static let lowestValues: [UInt64] = [0, 1, 2, 3, 1000, (1 << 48) - 1, 1 << 48, (1 << 53) - 1, (1 << 58) - 1, (1 << 60) - 1, (1 << 61) - 1, 1 << 61, .max / 4, .max]

    @Test(arguments: 0...6 as ClosedRange<UInt32>)
    func everyHeaderDecodesOrIsRefused(digits: UInt32) throws {
        for lowest in Self.lowestValues {
            let doubled = lowest.multipliedReportingOverflow(by: 2)
            let highestValues: [UInt64] = [0, lowest, doubled.overflow ? .max : doubled.partialValue, 3_600_000_000_000, .max / 4, .max / 2, .max]
            for highest in highestValues {
                for words: [Int64] in [[], [5], [-3, 7, 0, 2], [-1000, .max], [.max, .max, .max]] {
                    let text = ReportMergeValidationTests.histogram(digits: digits, lowest: lowest, highest: highest, words)
                    guard let histogram = try? HistogramCodec.decode(text) else { continue }
                    _ = HistogramCodec.valueSum(of: histogram)
                    _ = LoadReport.Percentiles(histogram)
                    let again = try HistogramCodec.decode(HistogramCodec.encode(histogram))
                    #expect(again.totalCount == histogram.totalCount)
                }
            }
        }
    }
}
