/// How long an accepted client may hold its place under ``ListenOptions/maximumClients``: the
/// rules that keep a server's places from being held by peers that do nothing with them.
///
/// - A handshake (TLS on `tls://`, the HTTP upgrade and its TLS on `ws://` and `wss://`) must be
///   done within ``handshakeTimeout`` of the accept; otherwise the client is closed and counted
///   as refused, with the reason.
/// - A client that has received and sent nothing for ``idleTimeout`` is closed (off by default,
///   as in `ncat`: a quiet session is left alone while there is room).
/// - When every place is taken and another client arrives, the client that moved the fewest
///   bytes (either way) over its last ``rateWindow`` to twice that makes room for the newcomer,
///   if that is below ``minimumRate`` bytes a second (Apache's `mod_reqtimeout` judges a
///   minimum rate the same way; its default is 500 bytes a second). A client younger than
///   ``rateWindow`` is never judged: every client gets at least that long. With
///   ``minimumRate`` 0 the newcomer is refused instead.
///
/// What is not covered: UDP peers (a proxy's flows have their own idle timeout).
public struct SlotRules: Sendable, Equatable {
    /// The longest a handshake may take from the accept; 10 s by default.
    public var handshakeTimeout: Duration = .seconds(10)
    /// Close a client once nothing went either way for this long; nil (the default): never.
    public var idleTimeout: Duration?
    /// Below this many bytes a second (judged over ``rateWindow``), a client gives its place to
    /// a newcomer when the server is full; 0: never. 500 by default.
    public var minimumRate = 500
    /// How long a client's rate is judged over, and how long a new client is safe from being
    /// judged; 10 s by default.
    public var rateWindow: Duration = .seconds(10)

    /// The defaults: handshakes within 10 s, no idle timeout, a client below 500 bytes a second
    /// over 10 s gives its place to a newcomer when the server is full.
    public init() {}
}
