import SocketEngine

/// `send http://`: the request settings, and the heads `-v` shows.
extension Send {
    /// Makes `configuration` an HTTP exchange: the method, the headers, the User-Agent, and
    /// HTTP framing (another --framing, --responses or --correlate is refused).
    func makeHTTP(_ configuration: inout ExchangeConfiguration) throws {
        let scheme = endpoint.transport.rawValue
        guard client.framing.framing == .raw || client.framing.framing == .http else {
            throw UsageError("--framing \(client.framing.framing) does not apply to \(scheme)://: responses are cut as HTTP/1.1")
        }
        if responses != 1 { throw UsageError("--responses does not apply to \(scheme)://: each request gets one response") }
        if correlate != nil { throw UsageError("--correlate does not apply to \(scheme)://: each request gets its own response in order") }
        var spec = HTTPRequestSpec()
        spec.userAgent = "sockctl/\(Version.number)"
        spec.method = request.method
        spec.headers = try client.transport.httpRequestHeaders(for: endpoint)
        configuration.framing = .http
        configuration.http = spec
    }

    /// The request heads (`> `) and response heads (`< `) on stderr, as `curl -v` prints them.
    static func printHeads(_ lines: [HTTPExchangeLine]) {
        var text = ""
        for line in lines {
            for requestLine in line.request.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast() {
                text += "> " + Diagnostics.escapingControlCharacters(String(requestLine)) + "\n"
            }
            for head in line.responses {
                text += "< " + Diagnostics.escapingControlCharacters(head.statusLine) + "\n"
                for header in head.headers {
                    text += "< " + Diagnostics.escapingControlCharacters("\(header.name): \(header.value)") + "\n"
                }
                text += "<\n"
            }
        }
        if !text.isEmpty { FileDescriptorWriter.standardError.write(text) }
    }
}
