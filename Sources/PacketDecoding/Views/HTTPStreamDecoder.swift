import HTTPScanning

/// The `--decode http` view of one direction of a connection: its HTTP/1.1 messages, cut by
/// ``HTTPMessageScanner`` (the engine's own cutter: Content-Length, chunked, until close,
/// HEAD/1xx/204/304), one ``ViewItem/httpMessage(_:)`` when each message ends.
///
/// Only what the scanner has not consumed is held: a head (64 KiB at most, the scanner's
/// limit) or a chunk-size line; body bytes pass through. Bytes that are not HTTP/1.1 (or a gap)
/// end the view of the direction with one ``ViewItem/lostSync(_:)``; after a 101 answer the
/// direction is no longer HTTP/1.1 and is left alone.
struct HTTPStreamDecoder {
    private var scanner = HTTPMessageScanner(side: .either)
    /// Bytes not yet consumed by the scanner.
    private var pending: [UInt8] = []
    /// The head of the message in progress, kept once the scanner accepted it.
    private var head: [UInt8]?
    private(set) var isLost = false
    /// A 101 answer went by: what follows is another protocol.
    private(set) var switched = false

    /// Whether `bytes` start like an HTTP/1.1 message: a status line (`HTTP/1.`), or a request
    /// line — a token, a space, a target and ` HTTP/1.x` at the end of the first line, which
    /// must be in these bytes.
    static func looksLikeMessage(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let status = Array("HTTP/1.".utf8)
        if bytes.count >= status.count && bytes.starts(with: status) { return true }
        guard let newline = bytes.prefix(8192).firstIndex(of: 0x0A) else { return false }
        var line = bytes[..<newline]
        if line.last == 0x0D { line = line.dropLast() }
        guard let space = line.firstIndex(of: 0x20), space > line.startIndex,
              line[..<space].allSatisfy(HTTPMessageScanner.isTokenByte) else { return false }
        let version = line.suffix(9)
        return version.count == 9 && version.starts(with: Array(" HTTP/1.".utf8)) && space < version.startIndex
    }

    /// The next in-order bytes; `requestEnded` is told of each request (whether it was a HEAD),
    /// for the scanner of the other direction.
    mutating func consume(_ bytes: UnsafeRawBufferPointer, atEOF: Bool = false, emit: (ViewItem) -> Void, requestEnded: (Bool) -> Void) {
        guard !isLost && !switched else { return }
        pending.append(contentsOf: bytes)
        var start = 0
        while true {
            let atHead = head == nil
            let result: Result<(consumed: Int, completed: HTTPMessageInfo?), HTTPScanError> = pending.withUnsafeBytes { raw in
                do throws(HTTPScanError) {
                    return .success(try scanner.scan(UnsafeRawBufferPointer(rebasing: raw[start...]), atEOF: atEOF))
                } catch {
                    return .failure(error)
                }
            }
            guard case .success(let (consumed, completed)) = result else {
                lose(emit)
                return
            }
            let info = completed ?? scanner.inProgress
            if atHead && info.headBytes > 0 {
                // Empty lines before a message are skipped by the scanner: the head follows them.
                var headStart = start
                while headStart < pending.count, pending[headStart] == 0x0D || pending[headStart] == 0x0A { headStart += 1 }
                head = Array(pending[headStart..<min(pending.count, headStart + info.headBytes)])
            }
            start += consumed
            guard let completed else { break }
            let framing: HTTPMessageSummary.Framing = switch completed.bodyLength {
            case .none: .none
            case .contentLength: .contentLength
            case .chunked: .chunked
            case .untilClose: .untilClose
            }
            emit(.httpMessage(HTTPMessageSummary(head: (head ?? [])[...], framing: framing, bodyLength: completed.bodyBytes)))
            head = nil
            if !completed.isResponse { requestEnded(completed.isHEADRequest) }
            if completed.switchesProtocols {
                switched = true
                pending = []
                return
            }
            if consumed == 0 { break }
        }
        pending.removeFirst(start)
    }

    /// The direction ended (FIN): a body that runs until close ends here.
    mutating func end(emit: (ViewItem) -> Void) {
        guard !isLost && !switched, head != nil || !pending.isEmpty else { return }
        consume(UnsafeRawBufferPointer(start: nil, count: 0), atEOF: true, emit: emit, requestEnded: { _ in })
    }

    /// A request on the other direction was a HEAD (or not): its response has no body.
    mutating func expectResponse(toHEAD: Bool) {
        scanner.expectResponse(toHEAD: toHEAD)
    }

    /// Bytes are missing: the messages cannot be followed any more.
    mutating func lose(_ emit: (ViewItem) -> Void) {
        guard !isLost else { return }
        isLost = true
        pending = []
        head = nil
        emit(.lostSync(.http))
    }
}
