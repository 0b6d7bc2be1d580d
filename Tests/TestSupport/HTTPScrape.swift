import Foundation
import NIOCore
import SocketEngine

/// One HTTP/1.1 request to a loopback server (the `/metrics` endpoint), answered and closed:
/// what a scraper does, on a real socket. No HTTP client library: the request is three lines,
/// and the answer is read to its end (`Connection: close`).
public struct HTTPResponse: Sendable {
    /// The status code (200, 404 …).
    public let status: Int
    /// The header lines, as sent.
    public let headers: [String]
    /// The body as text.
    public let body: String

    /// The value of header `name` (case-insensitive), if sent.
    public func header(_ name: String) -> String? {
        for line in headers {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// `METHOD URL` (`http://HOST:PORT/PATH`) over a connection of its own.
    public static func fetch(_ url: String, method: String = "GET") async throws -> HTTPResponse {
        guard url.hasPrefix("http://") else { throw HarnessError("not an http:// URL: \(url)") }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        let path = slash == rest.endIndex ? "/" : String(rest[slash...])
        let connection = try await connect(authority)
        defer { Task { await connection.close() } }
        try await connection.write(ByteBuffer(string: "\(method) \(path) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n"))
        var received: [UInt8] = []
        while let buffer = try await connection.read(.available) { received += buffer.readableBytesView }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw HarnessError("no end of the header in: \(text)") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusWords = lines.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else { throw HarnessError("no status line in: \(text)") }
        return HTTPResponse(status: status, headers: Array(lines.dropFirst()), body: String(text[split.upperBound...]))
    }
}

/// A scrape in the Prometheus text exposition format, read back: the value of a sample by its
/// name and labels.
public struct PrometheusSamples: Sendable {
    /// Each sample: its name, its labels, its value.
    public let samples: [(name: String, labels: [String: String], value: Double)]

    /// Parses `text`; comment lines (`# HELP`, `# TYPE`) are skipped. Label values must not
    /// hold quotes (none of sockctl's do).
    public init(_ text: String) throws {
        var samples: [(String, [String: String], Double)] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            var name = Substring(line)
            var labels: [String: String] = [:]
            let valueText: Substring
            if let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") {
                name = line[..<open]
                for pair in line[line.index(after: open)..<close].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { throw HarnessError("bad label in: \(line)") }
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
                valueText = line[line.index(after: close)...].drop { $0 == " " }
            } else {
                guard let space = line.firstIndex(of: " ") else { throw HarnessError("no value in: \(line)") }
                name = line[..<space]
                valueText = line[line.index(after: space)...]
            }
            let number = valueText.split(separator: " ").first.map(String.init) ?? ""
            guard let value = Double(number) ?? (number == "+Inf" ? .infinity : nil) else { throw HarnessError("bad value in: \(line)") }
            samples.append((String(name), labels, value))
        }
        self.samples = samples
    }

    /// The value of the one sample named `name` whose labels include `labels`; nil if there is none.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }?.value
    }

    /// ``value(_:_:)`` as a whole number (-1 when absent), for counts.
    public func count(_ name: String, _ labels: [String: String] = [:]) -> Int {
        value(name, labels).map { Int($0) } ?? -1
    }
}
