import ArgumentParser
import SocketEngine

/// How a client's HTTP request is made beyond its headers (``HeaderOptions``) and its body (the
/// command's message): the method, as curl's `-X`. For the commands that send HTTP requests of
/// their own making (send, loadtest).
struct HTTPRequestOptions: ParsableArguments {
    @Option(
        name: [.customShort("X"), .customLong("method")],
        help: ArgumentHelp("HTTP request method, as curl's -X (default: GET, or POST when a body is given).", valueName: "method"),
        transform: HTTPRequestOptions.method(parsing:)
    )
    var method: String?

    /// The method to send: the one given, else POST for a request with a body and GET without.
    func method(hasBody: Bool) -> String {
        Self.method(given: method, hasBody: hasBody)
    }

    /// curl's rule: `given`, else POST when there is a body, GET when there is none.
    static func method(given: String?, hasBody: Bool) -> String {
        HTTPRequestLines.method(given: given, hasBody: hasBody)
    }

    /// A method as given (methods are case-sensitive: sent as written): an HTTP token.
    @Sendable static func method(parsing text: String) throws -> String {
        guard HTTPRequestLines.isToken(text) else {
            throw UsageError("not an HTTP method (expected a token: letters, digits and !#$%&'*+-.^_`|~, e.g. GET, POST, DELETE)")
        }
        return text
    }
}
