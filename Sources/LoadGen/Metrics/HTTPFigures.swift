import MetricsExport
import Prometheus

/// The HTTP metrics of a load test of `http://` or `https://` targets:
/// `sockctl_loadtest_http_responses_total{code, class}` (final responses by status) and
/// `sockctl_loadtest_http_server_closes_total` (connections the server closed, reopened).
///
/// The label sets stay bounded whatever a server answers: the first ``maximumCodes`` codes the
/// run meets have their own `code`, any later one is counted under `code="other"` of its class.
/// Touched only inside the registry's updates.
final class HTTPFigures: @unchecked Sendable {
    /// Status codes with a label set of their own.
    static let maximumCodes = 64

    private let make: MetricFactory
    private var byCode: [Int: TotalCounter] = [:]
    /// `code="other"`, by class digit.
    private var others: [Int: TotalCounter] = [:]
    let serverCloses: TotalCounter

    init(_ make: MetricFactory) {
        self.make = make
        serverCloses = make.counter("http_server_closes", "total", "HTTP responses after which the server closed the connection (it was opened again).")
    }

    /// Sets every metric from the counts by code so far (`statuses`: lowest code first).
    func set(statuses: [(code: Int, count: Int)], serverCloses closes: Int) {
        var otherCounts: [Int: Int] = [:]
        for (code, count) in statuses {
            if let counter = byCode[code] ?? makeCounter(code) {
                counter.set(count)
            } else {
                otherCounts[code / 100, default: 0] += count
            }
        }
        for (digit, count) in otherCounts.sorted(by: { $0.key < $1.key }) {
            let counter = others[digit] ?? responses(code: "other", class: "\(digit)xx")
            others[digit] = counter
            counter.set(count)
        }
        serverCloses.set(closes)
    }

    private func makeCounter(_ code: Int) -> TotalCounter? {
        guard byCode.count < Self.maximumCodes else { return nil }
        let counter = responses(code: String(code), class: HTTPStatusCounts.className(of: code))
        byCode[code] = counter
        return counter
    }

    private func responses(code: String, class name: String) -> TotalCounter {
        make.counter("http_responses", "total", "Final HTTP responses by status code and class (codes past the first 64 seen: code=\"other\").", [("code", code), ("class", name)])
    }
}
