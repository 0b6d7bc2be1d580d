import NIOCore

/// How a server closes after its last words to a request it could not read (an HTTP 400 or
/// 413), as nginx's `lingering_close`: the answer is written, the sending side is shut down,
/// and what the client still sends is read and dropped for a while, so that the client reads
/// the answer instead of a reset (closing with unread bytes would send one). Bounded by bytes
/// and by a loop timer; the connection closes at the first of the two, or when the client
/// finishes.
package enum LingeringClose {
    /// At most this many bytes are dropped after the last words.
    package static let maximumBytes = 16 * 1024 * 1024
    /// At most this long (event-loop time) after the last words are written.
    package static let maximumTime = TimeAmount.seconds(5)
}
