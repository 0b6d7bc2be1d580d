import Foundation
import TestSupport

/// The module map of ARCHITECTURE.md (the box-drawn tree under "## Module map") read as
/// dependencies, and the same read from `swift package dump-package`, to compare.
///
/// How the map is read: a name followed by an arrow (`─►`) depends on the name after it; a `┬`
/// on an arrow opens a branch whose `├─►`/`└─►` lines below, in the same column, continue it.
/// `+ A (comment), B` lists more dependencies of the first module written on its line. Text in
/// parentheses is comment.
struct ModuleMap: Equatable {
    /// One dependency: `from` depends on `to`.
    struct Edge: Hashable, Comparable, CustomStringConvertible {
        let from: String
        let to: String

        static func < (left: Edge, right: Edge) -> Bool { (left.from, left.to) < (right.from, right.to) }
        var description: String { "\(from) → \(to)" }
    }

    var edges: Set<Edge> = []

    /// The modules named, as a source or a dependency.
    var modules: Set<String> { Set(edges.flatMap { [$0.from, $0.to] }) }

    /// The map in `markdown`'s code block under `## Module map`.
    init(architecture markdown: String) throws {
        guard let heading = markdown.range(of: "## Module map\n") else { throw HarnessError("no '## Module map' heading") }
        let lines = markdown[heading.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        guard let open = lines.firstIndex(where: { $0.hasPrefix("```") }),
              let close = lines[(open + 1)...].firstIndex(where: { $0.hasPrefix("```") })
        else { throw HarnessError("no code block under '## Module map'") }
        var branches: [Int: String] = [:]
        for (number, line) in lines[(open + 1)..<close].enumerated() {
            try read(Array(line), branches: &branches, line: number + 1)
        }
    }

    /// What `dump-package` says `root` is built from.
    struct Manifest {
        /// `root` and every module of the package it depends on, directly or not.
        var modules: Set<String>
        /// Their dependencies on modules of the package.
        var edges: Set<Edge>
        /// Per module, the products of other packages it depends on, and those packages.
        var foreign: [String: Set<String>]
    }

    /// Where the map and `manifest` differ, one line each; empty when they agree. The map's
    /// arrows to another package's product (or that package) are checked only to exist.
    func differences(from manifest: Manifest) -> [String] {
        let own = Set(edges.filter { !(manifest.foreign[$0.from] ?? []).contains($0.to) || manifest.modules.contains($0.to) })
        let drawn = Set(own.flatMap { [$0.from, $0.to] })
        var lines: [String] = []
        for module in drawn.subtracting(manifest.modules).sorted() {
            lines.append("ARCHITECTURE.md names \(module): neither a module sockctl is built from nor a product (or package) the module it hangs from uses")
        }
        for module in manifest.modules.subtracting(drawn).sorted() {
            lines.append("Package.swift builds sockctl from \(module): the map does not name it")
        }
        for edge in own.subtracting(manifest.edges).sorted() {
            lines.append("ARCHITECTURE.md draws \(edge): Package.swift declares no such dependency")
        }
        for edge in manifest.edges.subtracting(own).sorted() {
            lines.append("Package.swift declares \(edge): the map does not draw it")
        }
        return lines
    }

    /// `dump-package`'s JSON read as what `root` is built from.
    static func manifest(_ json: Data, root: String) throws -> Manifest {
        guard let package = try JSONSerialization.jsonObject(with: json) as? [String: Any],
              let targets = package["targets"] as? [[String: Any]]
        else { throw HarnessError("dump-package: no targets") }
        var own: [String: [String]] = [:]
        var foreign: [String: Set<String>] = [:]
        for target in targets {
            guard let name = target["name"] as? String else { continue }
            own[name] = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                if let named = (dependency["byName"] ?? dependency["target"]) as? [Any], let module = named.first as? String {
                    own[name, default: []].append(module)
                } else if let product = dependency["product"] as? [Any] {
                    for case let text as String in product.prefix(2) { foreign[name, default: []].insert(text) }
                }
            }
        }
        var edges = Set<Edge>()
        var pending = [root]
        var seen: Set<String> = [root]
        while let module = pending.popLast() {
            for dependency in own[module] ?? [] where own[dependency] != nil {
                edges.insert(Edge(from: module, to: dependency))
                if seen.insert(dependency).inserted { pending.append(dependency) }
            }
        }
        return Manifest(modules: seen, edges: edges, foreign: foreign.filter { seen.contains($0.key) })
    }

    // MARK: Reading one line

    private mutating func read(_ line: [Character], branches: inout [Int: String], line number: Int) throws {
        var index = 0
        var first: String?
        var previous: String?
        var arrowFrom: String?
        while index < line.count {
            let character = line[index]
            if character == " " || character == "│" {
                index += 1
            } else if character == "(" {
                index = Self.skipComment(line, from: index)
            } else if "─┬├└".contains(character) {
                var source = previous
                if character == "├" || character == "└" {
                    guard let owner = branches[index] else {
                        throw HarnessError("line \(number): a branch at column \(index) under no '┬'")
                    }
                    source = owner
                }
                guard let from = source else { throw HarnessError("line \(number): an arrow from nothing at column \(index)") }
                while index < line.count, "─┬├└►".contains(line[index]) {
                    if line[index] == "┬" { branches[index] = from }
                    index += 1
                }
                arrowFrom = from
            } else if character == "+" {
                guard let owner = first else { throw HarnessError("line \(number): '+' before any module") }
                for name in Self.entries(String(line[(index + 1)...])) { edges.insert(Edge(from: owner, to: name)) }
                return
            } else {
                let start = index
                while index < line.count, line[index].isLetter || line[index].isNumber || "_-".contains(line[index]) { index += 1 }
                guard index > start else { throw HarnessError("line \(number): unexpected '\(character)' at column \(index)") }
                let name = String(line[start..<index])
                if let from = arrowFrom { edges.insert(Edge(from: from, to: name)) }
                arrowFrom = nil
                first = first ?? name
                previous = name
            }
        }
    }

    /// The index after the parenthesis that closes the one at `start` (nested ones included).
    private static func skipComment(_ line: [Character], from start: Int) -> Int {
        var depth = 0
        var index = start
        while index < line.count {
            if line[index] == "(" { depth += 1 }
            if line[index] == ")" { depth -= 1 }
            index += 1
            if depth == 0 { break }
        }
        return index
    }

    /// The names of a `+` list: its comma-separated entries, comments left out.
    private static func entries(_ text: String) -> [String] {
        var names: [String] = []
        var depth = 0
        var current = ""
        for character in text + "," {
            if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
            if depth == 0 && character == "," {
                if let name = current.split(separator: " ").first { names.append(String(name)) }
                current = ""
            } else if depth == 0 && character != ")" {
                current.append(character)
            }
        }
        return names
    }
}
