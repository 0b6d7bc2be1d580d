import Foundation

/// libFuzzer target: `sockctl report merge` input — one or two part files through
/// ``LoadReport/init(json:name:)``, ``LoadReport/merge(named:)`` (every figure checked, the
/// histograms decoded, their layouts compared and added, every sum checked), the merged
/// report's JSON, text and thresholds, and the JSON read back and merged again alone.
///
/// The input is the part files one after the other, split at the first NUL byte (JSON text
/// holds none): no NUL, one part; one NUL, two. The seeds are real `loadtest --json` files
/// (Tests/Reports), alone and in pairs.
///
/// Besides crashes, ASan reports and timeouts, the target traps when a merge that succeeded
/// breaks what it promises: the merged counters are not the sums of the parts' (hosts,
/// messages sent, bytes received, histogram counts), the merged report does not encode, or its
/// JSON read back is refused — a merge must only make reports that merge again.
///
/// Built by fuzz/run.sh together with the files of Sources/LoadGen/Report (plus LoadGenError
/// and Threshold) as one module, over the hdrhistogram-swift package and zlib.
enum MergeFuzzer {
    static let thresholds = ["p99<50ms", "errors<1%", "errors<5", "rate>10", "unmatched<1%", "mean<=1s"].compactMap { try? Threshold(parsing: $0) }

    static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        let bytes = UnsafeBufferPointer(start: data, count: size)
        var files: [ArraySlice<UInt8>] = []
        if let split = bytes.firstIndex(of: 0) {
            files = [bytes[..<split], bytes[(split + 1)...]].map { ArraySlice($0) }
        } else {
            files = [ArraySlice(bytes)]
        }
        var parts: [(name: String, report: LoadReport)] = []
        for (index, file) in files.enumerated() {
            guard let report = try? LoadReport(json: Data(file), name: "part-\(index).json") else { return }
            parts.append((name: "part-\(index).json", report: report))
        }
        let merged: LoadReport
        do {
            merged = try LoadReport.merge(named: parts)
        } catch {
            guard !error.message.isEmpty, !error.message.contains("\n") else { fatalError("refusal is not one line: \(error.message)") }
            return
        }
        check(merged, parts.map(\.report))
        var evaluated = merged
        evaluated.thresholds = thresholds.map { $0.evaluate(merged) }
        _ = evaluated.failures()
        guard evaluated.text.hasSuffix("\n") else { fatalError("text does not end in a newline") }
        let json: Data
        do {
            json = try evaluated.jsonData()
        } catch {
            fatalError("merged report does not encode: \(error)")
        }
        do {
            let again = try LoadReport(json: json, name: "merged.json")
            _ = try LoadReport.merge(named: [(name: "merged.json", report: again)])
        } catch {
            fatalError("merged report is refused when read back: \(error)")
        }
    }

    /// The sums a merge promises.
    static func check(_ merged: LoadReport, _ parts: [LoadReport]) {
        func sum(_ value: (LoadReport) -> Int) -> Int { parts.reduce(0) { $0 &+ value($1) } }
        guard merged.hosts == sum(\.hosts), merged.messages.sent == sum(\.messages.sent),
              merged.bytes.received == sum(\.bytes.received), merged.connections.peakOpen == sum(\.connections.peakOpen)
        else { fatalError("merged counters are not the sums of the parts") }
        let counts = parts.compactMap { try? $0.decodedHistograms()?.corrected.totalCount }
        if let histograms = try? merged.decodedHistograms() {
            guard histograms.corrected.totalCount == counts.reduce(0, &+) else { fatalError("merged histogram count is not the sum") }
        } else if parts.contains(where: { $0.histograms != nil }), counts.reduce(0, &+) > 0 {
            fatalError("merged report lost its histograms")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMerge(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    MergeFuzzer.run(data, size)
    return 0
}
