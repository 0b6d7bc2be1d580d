/// The names a mistyped subcommand or option most likely meant: `conect` → `connect`,
/// `--conections` → `--connections`, `proxy --cafile` → `--upstream-cafile`.
///
/// Two rules, the first that finds something wins:
/// - the same name with a qualifying word added or left out: a known name ends in `-` + the
///   typed name (`--cafile` → `--upstream-cafile`, `--timeout` → `--connect-timeout`), or the
///   typed name ends in `-` + a known one (`--upstream-cafile` → `--cafile`);
/// - a small edit distance (letters added, dropped, changed or swapped): at most one edit for
///   names of up to four letters, two up to eight, three beyond; the closest names win.
enum NameSuggestion {
    /// The best candidates for `typed` among `known`, closest first (at most three); empty when
    /// nothing is close.
    static func nearest(to typed: String, among known: [String]) -> [String] {
        let typedBody = body(typed)
        // A single letter is as near to every other letter: short options get no guess.
        guard typedBody.count > 1 else { return [] }
        let candidates = Array(Set(known)).sorted().filter { $0 != typed }
        let qualified = candidates.filter { candidate in
            let candidateBody = body(candidate)
            guard sameKind(candidate, typed), !typedBody.isEmpty, !candidateBody.isEmpty else { return false }
            return candidateBody.hasSuffix("-" + typedBody) || typedBody.hasSuffix("-" + candidateBody)
        }
        if !qualified.isEmpty { return Array(qualified.prefix(3)) }
        let limit = typedBody.count <= 4 ? 1 : (typedBody.count <= 8 ? 2 : 3)
        let scored = candidates
            .filter { sameKind($0, typed) }
            .map { (name: $0, distance: distance(body($0), typedBody)) }
            .filter { $0.distance <= limit }
        guard let best = scored.map(\.distance).min() else { return [] }
        return Array(scored.filter { $0.distance == best }.map(\.name).prefix(3))
    }

    /// `did you mean --a?`, `did you mean --a or --b?`; nil for no candidates.
    static func question(_ candidates: [String]) -> String? {
        switch candidates.count {
        case 0: nil
        case 1: "did you mean \(candidates[0])?"
        default: "did you mean \(candidates.dropLast().joined(separator: ", ")) or \(candidates[candidates.count - 1])?"
        }
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours each count one.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }

    /// The name without its dashes.
    private static func body(_ name: String) -> String {
        String(name.drop { $0 == "-" })
    }

    /// Long options are matched with long ones, short with short, words with words.
    private static func sameKind(_ a: String, _ b: String) -> Bool {
        a.hasPrefix("--") == b.hasPrefix("--") && a.hasPrefix("-") == b.hasPrefix("-")
    }
}
