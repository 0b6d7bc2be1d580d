import HTTPScanning

/// The head of an HTTP/1.1 request sockctl writes (`send http://`, `loadtest http://`): the one
/// place its lines, its `Host` and its default method are decided.
///
/// ```
/// GET /item/1 HTTP/1.1          the method and the endpoint's target
/// Host: 127.0.0.1:8080          the host, and the port unless the scheme's own (80, 443)
/// User-Agent: sockctl/1.2.0     unless a header gives one
/// Accept: */*                   each default the caller asks for, unless a header gives it
/// X-Trace: 7                    the headers, in order
/// ```
///
/// `Content-Length` and the empty line are the caller's: a load test computes the length per
/// message.
package enum HTTPRequestLines {
    /// curl's rule: the method `given`, else POST when there is a body, GET when there is none.
    package static func method(given: String?, hasBody: Bool) -> String {
        given ?? (hasBody ? "POST" : "GET")
    }

    /// `Host`'s value for `endpoint`: the host (an IPv6 address in brackets) and the port unless
    /// it is the scheme's default.
    package static func authority(of endpoint: Endpoint) -> String {
        let defaultPort = endpoint.transport.isSecured ? 443 : 80
        return endpoint.port == defaultPort ? endpoint.hostForDisplay : "\(endpoint.hostForDisplay):\(endpoint.port)"
    }

    /// The request line and header lines, each ending in CRLF, without `Content-Length` and the
    /// empty line. `Host`, `User-Agent` and each of `defaults` are left out when `headers` has one
    /// of that name (names compared without case); a header of `headers` with an empty value is
    /// not sent, so that one leaves a default out (curl's `-H 'User-Agent:'`).
    package static func lines(
        method: String, target: String, to endpoint: Endpoint, userAgent: String,
        defaults: [(name: String, value: String)] = [], headers: [(name: String, value: String)]
    ) -> String {
        let given = Set(headers.map { $0.name.lowercased() })
        var head = "\(method) \(target.isEmpty ? "/" : target) HTTP/1.1\r\n"
        if !given.contains("host") { head += "Host: \(authority(of: endpoint))\r\n" }
        if !given.contains("user-agent") { head += "User-Agent: \(userAgent)\r\n" }
        for (name, value) in defaults where !given.contains(name.lowercased()) { head += "\(name): \(value)\r\n" }
        for (name, value) in headers where !value.isEmpty { head += "\(name): \(value)\r\n" }
        return head
    }

    /// True when `text` is an HTTP token (RFC 9110 `tchar`s: a method, a header name).
    package static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(HTTPMessageScanner.isTokenByte)
    }
}
