/// `send http://`: how each message goes out as an HTTP/1.1 request.
public struct HTTPRequestSpec: Sendable {
    /// The method; nil: GET without a body, POST with one.
    public var method: String?
    /// Headers of the request, in order, as given; a `Host` or `User-Agent` here replaces the
    /// one the request would carry.
    public var headers: [(name: String, value: String)] = []
    /// The `User-Agent` unless ``headers`` has one.
    public var userAgent = "sockctl"

    /// GET (POST with a body), no headers of its own.
    public init() {}

    /// The method a request with a body (or none, `hasBody` false) is sent with.
    package func method(hasBody: Bool) -> String {
        HTTPRequestLines.method(given: method, hasBody: hasBody)
    }

    /// The request head for `body` (nil: none) to `endpoint`: the request line with the
    /// endpoint's target, `Host` (the port only when not the scheme's own), `User-Agent`,
    /// `Accept: */*`, the headers, and `Content-Length` for a body (0 for a method that
    /// usually carries one).
    package func head(to endpoint: Endpoint, bodyLength: Int?) -> String {
        let method = self.method(hasBody: bodyLength != nil)
        let given = Set(headers.map { $0.name.lowercased() })
        var head = HTTPRequestLines.lines(
            method: method, target: endpoint.resource, to: endpoint, userAgent: userAgent,
            defaults: [(name: "Accept", value: "*/*")], headers: headers
        )
        if !given.contains("content-length") && !given.contains("transfer-encoding") {
            if let bodyLength {
                head += "Content-Length: \(bodyLength)\r\n"
            } else if ["POST", "PUT", "PATCH"].contains(method) {
                head += "Content-Length: 0\r\n"
            }
        }
        return head + "\r\n"
    }
}
