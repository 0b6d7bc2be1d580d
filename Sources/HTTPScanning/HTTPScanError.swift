/// Why bytes cannot be the HTTP/1.1 message ``HTTPMessageScanner`` expected, and where.
package struct HTTPScanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    package enum Kind: Sendable, Equatable {
        /// The request line or status line is not `METHOD TARGET HTTP/1.x` / `HTTP/1.x NNN …`.
        case badStartLine
        /// A header line is not `name: value` with a token name (or is an obsolete folded line).
        case badHeader
        /// Content-Length is not a decimal number.
        case badContentLength
        /// Two Content-Length values differ.
        case conflictingContentLength
        /// A request's Transfer-Encoding does not end in chunked.
        case badTransferEncoding
        /// A chunk-size line is not hexadecimal, or a chunk is not followed by CRLF.
        case badChunk
        /// The head (or a chunk line, or the trailers) is longer than the limit.
        case headTooLarge
        /// The stream ended inside a message.
        case truncated
        /// More bytes came after a 101 response: they are not HTTP.
        case switchedProtocols
    }

    /// What is wrong.
    package var kind: Kind
    /// Where, in bytes from the start of the scanner's input at that call.
    package var offset: Int
    /// One line saying what is wrong, without the offset.
    package var description: String

    /// An error of `kind` at `offset`.
    package init(_ kind: Kind, at offset: Int, _ description: String) {
        self.kind = kind
        self.offset = offset
        self.description = description
    }
}
