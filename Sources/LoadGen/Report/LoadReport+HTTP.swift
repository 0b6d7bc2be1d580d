import SocketEngine

extension LoadReport {
    /// The HTTP responses of a run of `http://` or `https://` targets, as the `--json` file holds
    /// them: `{"statuses": {"200": n, "503": n}, "classes": {"2xx": n, "5xx": n}, "serverCloses":
    /// n, "interim": n}`.
    ///
    /// `statuses` counts the final responses that answered a measured message, so they add up
    /// to ``Messages/received``; `classes` adds them up by their first digit.
    public struct HTTP: Codable, Sendable, Equatable {
        /// Final responses by status code (`"200"`), codes seen only.
        public var statuses: [String: Int]
        /// The same by class (`"2xx"`), classes seen only.
        public var classes: [String: Int]
        /// Responses after which the server closed the connection (it was opened again at once).
        public var serverCloses: Int
        /// Interim responses (1xx other than 101), which answer no request.
        public var interim: Int

        /// The report's section for `counts`.
        package init(_ counts: HTTPStatusCounts) {
            statuses = Dictionary(uniqueKeysWithValues: counts.statuses.map { (String($0.code), $0.count) })
            classes = Dictionary(uniqueKeysWithValues: counts.classes.map { ($0.name, $0.count) })
            serverCloses = counts.serverCloses
            interim = counts.interim
        }

        /// The counts by numeric code (a key that is not a status code is left out: ``validate(_:received:)`` refuses it).
        package var byCode: [(code: Int, count: Int)] {
            statuses.compactMap { key, count in Self.code(key).map { ($0, count) } }.sorted { $0.code < $1.code }
        }

        /// The final responses whose class is `digit`xx.
        package func count(ofClass digit: Int) -> Int {
            classes["\(digit)xx"] ?? 0
        }

        /// Final responses in all.
        package var total: Int { classes.values.reduce(0, &+) }

        /// `"503"` as a code of ``HTTPStatusCounts/codes``; nil for anything else.
        static func code(_ key: String) -> Int? {
            guard key.utf8.count == 3, let code = Int(key), HTTPStatusCounts.codes.contains(code) else { return nil }
            return code
        }

        /// The figures checked as ``LoadReport/validate(named:)`` checks the rest: codes of three
        /// digits 100…599, counts zero or more, each class the sum of its codes, and the codes
        /// adding up to `received` (each answered message had one final response).
        func validate(_ check: ReportCheck, received: Int) throws(LoadGenError) {
            var sums = [Int](repeating: 0, count: 5)
            for (key, count) in statuses.sorted(by: { $0.key < $1.key }) {
                guard let code = Self.code(key) else { throw check.failure("http.statuses", "'\(key)' is not a status code (100 to 599)") }
                try check.count(count, "http.statuses.\(key)")
                sums[code / 100 - 1] = try check.sum(sums[code / 100 - 1], count, "http.classes.\(code / 100)xx")
            }
            for (key, count) in classes.sorted(by: { $0.key < $1.key }) {
                guard let digit = key.first?.wholeNumberValue, (1...5).contains(digit), key == "\(digit)xx" else {
                    throw check.failure("http.classes", "'\(key)' is not a status class (1xx to 5xx)")
                }
                try check.count(count, "http.classes.\(key)")
            }
            for digit in 1...5 where sums[digit - 1] != count(ofClass: digit) {
                throw check.failure("http.classes.\(digit)xx", "\(count(ofClass: digit)), its status codes add up to \(sums[digit - 1])")
            }
            try check.count(serverCloses, "http.serverCloses")
            try check.count(interim, "http.interim")
            var total = 0
            for sum in sums { total = try check.sum(total, sum, "http.statuses") }
            if total != received {
                throw check.failure("http.statuses", "\(total) responses, messages.received is \(received)")
            }
        }

        /// `other`'s counts added to these, every sum checked.
        func adding(_ other: HTTP, check: ReportCheck) throws(LoadGenError) -> HTTP {
            var sum = self
            for (key, count) in other.statuses { sum.statuses[key] = try check.sum(statuses[key] ?? 0, count, "http.statuses.\(key)") }
            for (key, count) in other.classes { sum.classes[key] = try check.sum(classes[key] ?? 0, count, "http.classes.\(key)") }
            sum.serverCloses = try check.sum(serverCloses, other.serverCloses, "http.serverCloses")
            sum.interim = try check.sum(interim, other.interim, "http.interim")
            return sum
        }

        /// `200: 9,950  503: 50 (2xx 99.5%, 5xx 0.5%)`: the report's `responses` row, each code
        /// with its count (its extra
        /// parts: `; 12 server closes`, `; 3 interim`).
        var line: String {
            let total = self.total
            var text = byCode.map { "\($0.code): \(ReportText.grouped($0.count))" }.joined(separator: "  ")
            if text.isEmpty { text = "none" }
            if total > 0 {
                let shares = (1...5).compactMap { digit -> String? in
                    let count = count(ofClass: digit)
                    return count > 0 ? "\(digit)xx \(Self.percent(count, of: total))" : nil
                }
                text += " (\(shares.joined(separator: ", ")))"
            }
            if serverCloses > 0 { text += "; \(ReportText.grouped(serverCloses)) closed by the server (reopened)" }
            if interim > 0 { text += "; \(ReportText.grouped(interim)) interim (1xx)" }
            return text
        }

        /// `99.5%`, `100%`, `0.01%`: a share with at most two decimals, trailing zeros dropped
        /// (a share that is not 0 is never shown as 0%).
        static func percent(_ part: Int, of whole: Int) -> String {
            let share = Double(part) / Double(whole) * 100
            var text = decimal(share, places: share < 0.1 ? 2 : 1)
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            if text == "0" && part > 0 { text = "<0.01" }
            return text + "%"
        }
    }
}
