import Foundation

/// The output README shows beneath a command, held against what the command printed.
///
/// Each shown line must be printed — on stdout or stderr, in the order shown within each — once
/// both sides are normalized: blanks collapsed, and what differs from run to run replaced by a
/// placeholder (times of day, durations, ports, decimal fractions — timings — while whole
/// numbers, the counts, stay; with ``Rules/numbers`` `.all` every number, and with
/// ``Rules/hexdumpBytes`` the bytes of `-X` rows). `…` (or `...`) inside a shown line stands
/// for any text; a line of only `…` and blank lines stand for nothing. Lines printed but not
/// shown are allowed: README shows the lines that matter, and says `…` where it leaves some out.
enum ShownOutput {
    struct Rules: Sendable {
        enum Numbers: Sendable {
            /// Times of day, durations (a number with its unit), ports and decimal fractions: what
            /// differs between runs of the same example on the same machine. Counts stay as shown.
            case varying
            /// Every number (reports whose counts depend on the machine's speed).
            case all
        }

        var numbers: Numbers = .varying
        /// The hex and ASCII of hexdump rows (`0x0010:  7f00 0001 …  ....`): packet headers
        /// whose ports, sequence numbers and checksums differ.
        var hexdumpBytes = false
        /// The shown lines are one printed line wrapped for the page (a JSON object): joined,
        /// each trimmed, before they are matched.
        var joinLines = false
        /// Phrases (regular expressions) whose numbers differ from run to run although they are
        /// counts, their digits replaced by `#` (`received \\d+ bytes`: what a replay that stops
        /// at the first mismatch had received by then).
        var varyingPhrases: [String] = []

        static let varying = Rules()
        static let allNumbers = Rules(numbers: .all)
    }

    /// Why the shown lines were not printed, or nil when they were.
    static func mismatch(shown: [ShownLine], stdout: String, stderr: String, rules: Rules) -> String? {
        var shown = shown
        if rules.joinLines, let first = shown.first {
            shown = [ShownLine(line: first.line, text: shown.map { $0.text.trimmingCharacters(in: .whitespaces) }.joined())]
        }
        let streams = [("stdout", lines(of: stdout, rules)), ("stderr", lines(of: stderr, rules))]
        var next = [0, 0]
        for shownLine in shown {
            let pattern = normalize(shownLine.text, rules)
            if pattern.isEmpty || pattern == "…" || pattern == "..." { continue }
            // sockctl's own lines (`sockctl CMD: …`) are its stderr; try that stream first for them.
            let order = pattern.hasPrefix("sockctl ") ? [1, 0] : [0, 1]
            var found = false
            for stream in order {
                let printed = streams[stream].1
                if let at = printed[next[stream]...].firstIndex(where: { matches($0, pattern) }) {
                    next[stream] = at + 1
                    found = true
                    break
                }
            }
            if !found {
                let printed = streams.map { name, lines in
                    "  \(name) (normalized):\n" + (lines.isEmpty ? "    (nothing)" : lines.prefix(60).map { "    \($0)" }.joined(separator: "\n"))
                }
                return """
                    README.md:\(shownLine.line) shows a line that was not printed (in this order):
                        \(shownLine.text)
                      normalized: \(pattern)
                    \(printed.joined(separator: "\n"))
                    """
            }
        }
        return nil
    }

    /// The printed lines, normalized.
    static func lines(of text: String, _ rules: Rules) -> [String] {
        text.split(separator: "\n").map { normalize(String($0), rules) }.filter { !$0.isEmpty }
    }

    /// One line with what varies replaced by placeholders.
    static func normalize(_ line: String, _ rules: Rules) -> String {
        var text = line.replacing(#/[ \t\r]+/#, with: " ").trimmingCharacters(in: .whitespaces)
        if rules.hexdumpBytes, let offset = text.firstMatch(of: #/^(0x[0-9a-f]{4}:) /#) {
            return "\(offset.1) <bytes>"
        }
        for phrase in rules.varyingPhrases {
            guard let regex = try? Regex(phrase) else { continue }
            text = text.replacing(regex) { String($0.output[0].substring ?? "").replacing(#/\d+/#, with: "#") }
        }
        text = text.replacing(#/(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}\.\d+/#, with: "<time>")
        text = text.replacing(#/\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b/#, with: "<duration>")
        text = text.replacing(#/(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})([:.])\d+\b/#) { "\($0.1)\($0.2)<port>" }
        text = text.replacing(#/(\]|localhost):\d+\b/#) { "\($0.1):<port>" }
        switch rules.numbers {
        case .varying:
            text = text.replacing(#/\d+(\.\d+)+/#) { $0.output.0.split(separator: ".").count == 2 ? "#.#" : String($0.output.0) }
        case .all:
            text = text.replacing(#/\d+([.,]\d+)*/#, with: "#")
        }
        return text
    }

    /// Whether a printed line matches a shown one, whose `…` stands for any text.
    static func matches(_ printed: String, _ pattern: String) -> Bool {
        let pieces = pattern.replacing("...", with: "…").split(separator: "…", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count > 1 else { return printed == pattern }
        guard printed.hasPrefix(pieces[0]), printed.hasSuffix(pieces[pieces.count - 1]) else { return false }
        var rest = printed.dropFirst(pieces[0].count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.count >= pieces[pieces.count - 1].count
    }
}
