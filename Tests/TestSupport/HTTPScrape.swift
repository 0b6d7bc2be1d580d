import Foundation
import NIOCore
import SocketEngine

import Glibc

/// One HTTP/1.1 request to a loopback server (the `/metrics` endpoint), answered and closed:
/// what a scraper does, on a real socket. No HTTP client library: the request is three lines,
/// and the answer is read to its end (`Connection: close`).
///
/// The exchange runs on a thread of its own with a blocking socket: the request leaves the moment
/// the connection is made, however busy the test's thread pool is (the endpoint closes a
/// connection that sends no request within its idle timeout, in real time).
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

    /// `METHOD URL` (`http://HOST:PORT/PATH`, HOST an IP address) over a connection of its own.
    public static func fetch(_ url: String, method: String = "GET") async throws -> HTTPResponse {
        guard url.hasPrefix("http://") else { throw HarnessError("not an http:// URL: \(url)") }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        let path = slash == rest.endIndex ? "/" : String(rest[slash...])
        let endpoint = try Endpoint(parsing: authority)
        let address = try SocketAddress(ipAddress: endpoint.host, port: endpoint.port)
        let request = "\(method) \(path) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n\r\n"
        let received = try await onOwnThread { try exchange(request, with: address) }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw HarnessError("no end of the header in: \(text)") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusWords = lines.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else { throw HarnessError("no status line in: \(text)") }
        return HTTPResponse(status: status, headers: Array(lines.dropFirst()), body: String(text[split.upperBound...]))
    }

    /// Sends `request` and reads the answer until the server closes (at most 64 MiB; waits are
    /// bounded by an hour, the hang guard's business long before).
    private static func exchange(_ request: String, with address: SocketAddress) throws -> [UInt8] {
        let socket = try BlockingSocket.connect(to: address, timeout: .seconds(3600))
        defer { socket.close() }
        let deadline = BlockingSocket.now() + Duration.seconds(3600).nanosecondsClamped
        var outgoing = ByteBuffer(string: request)
        while outgoing.readableBytes > 0 {
            if try socket.sendAvailable(&outgoing) == 0 {
                guard try socket.wait(for: Int16(POLLOUT), until: deadline) else { throw HarnessError("the request could not be sent") }
            }
        }
        var incoming = ByteBuffer()
        while incoming.readableBytes < 64 << 20 {
            switch try socket.receive(into: &incoming, spinUntil: 0, waitUntil: deadline) {
            case .bytes: continue
            case .end: return Array(incoming.readableBytesView)
            case .nothing: throw HarnessError("no answer within an hour")
            }
        }
        throw HarnessError("an answer of more than 64 MiB")
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
