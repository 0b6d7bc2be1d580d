import ArgumentParser
import SocketEngine

/// What `listen http://` answers with besides the body: `--status` (the response headers are
/// the shared `-H/--header`).
struct HTTPResponseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("http:// and https://: the status of every answer, 100-599 (default 200).", valueName: "code"),
        transform: HTTPResponseOptions.status(parsing:)
    )
    var status: Int?

    @Sendable static func status(parsing text: String) throws -> Int {
        guard let code = Int(text), (100...599).contains(code) else {
            throw UsageError("'\(text)' is not an HTTP status (expected 100-599, e.g. 200 or 503)")
        }
        return code
    }

    /// Puts the status into `template`; refused for an endpoint that is not http(s).
    func apply(to template: inout HTTPResponseTemplate, endpoint: Endpoint) throws {
        guard let status else { return }
        guard endpoint.transport.isHTTP else {
            throw UsageError("--status needs an http:// or https:// endpoint")
        }
        template.status = status
    }
}
