import Glibc

/// What `listen http://` puts around every answer it gives: the status of its answers, headers
/// of its own, and the wall clock its `Date` header reads.
public struct HTTPResponseTemplate: Sendable {
    /// The status of every answer to a well-formed request (100–599); 200 by default.
    public var status = 200
    /// Headers added to every answer, in order, as given (`Name`, `value`). A `Date`,
    /// `Content-Length` or `Connection` given here replaces the one the server would write.
    public var headers: [(name: String, value: String)] = []
    /// Seconds since the Unix epoch, read once per answer for its `Date` header: the system's
    /// wall clock by default; tests pass a fixed one.
    public var wallClock: @Sendable () -> Int64 = { Int64(time(nil)) }

    /// Status 200, no headers of its own, the system's wall clock.
    public init() {}
}
