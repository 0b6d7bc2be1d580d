/// libFuzzer target: ``HTTPMessageScanner``, the one HTTP/1.1 cutter, fed a fuzzer-chosen byte
/// stream in fuzzer-chosen pieces, the way `FrameDecoder(framing: .http)` feeds it.
///
/// Input layout:
///
/// ```
/// b0: bits 0–1 side (0 requests, 1 responses, 2–3 either), bit 2 a small head limit (256 bytes),
///     bit 3 everything in one piece
/// b1: seed of the piece sizes (1–64 bytes, SplitMix64)
/// b2: the first 8 responses answer HEAD requests (bit i for response i), pushed up front
/// b3…: the stream
/// ```
///
/// The caller keeps the unconsumed front of the stream and calls `scan` on it as the pieces
/// arrive, looping while a call completes a message or consumes something, then once more with
/// `atEOF: true` after the last piece. The target traps on: `consumed` beyond the bytes given;
/// a completed message whose `wireBytes` differ from the bytes consumed since the previous one
/// ended (less the empty lines skipped before it), or that are below `headBytes + bodyBytes`, or differ from them when the body is not
/// chunked; a `.contentLength(n)` body of other than `n` bytes, a `.none` body that is not
/// empty; `wireBytes` of 0; a request with a status or a response without one in 100–999;
/// no progress (more calls than bytes and messages could need); a stream not wholly consumed at
/// EOF without an error; and the messages (or the error's kind) differing between the stream
/// fed in pieces and fed whole. Any Swift trap in the scanner (overflow, index out of range)
/// is a crash libFuzzer reports.
///
/// Built by fuzz/run.sh with the files of Sources/HTTPScanning alone
/// (one module; they import only the standard library and Glibc).
enum HTTPFuzzer {
    struct Outcome: Equatable {
        var messages: [HTTPMessageInfo] = []
        var error: String?
        var consumed = 0
    }

    static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        guard size >= 3 else { return }
        let control = data[0], seed = data[1], heads = data[2]
        let stream = UnsafeRawBufferPointer(start: data + 3, count: size - 3)
        let side: HTTPMessageScanner.Side
        switch control & 3 {
        case 0: side = .requests
        case 1: side = .responses
        default: side = .either
        }
        let headLimit = control & 4 != 0 ? 256 : 64 * 1024
        let whole = feed(stream, side: side, headLimit: headLimit, heads: heads, pieces: nil)
        guard control & 8 == 0 else { return }
        let pieced = feed(stream, side: side, headLimit: headLimit, heads: heads, pieces: UInt64(seed) &+ 1)
        guard pieced == whole else {
            fatalError("fed in pieces: \(pieced.messages.count) messages, error \(pieced.error ?? "none"), consumed \(pieced.consumed); "
                + "fed whole: \(whole.messages.count) messages, error \(whole.error ?? "none"), consumed \(whole.consumed)")
        }
    }

    /// Feeds `stream` to a new scanner: whole (`pieces` nil) or in pieces of 1–64 bytes drawn from the seed.
    static func feed(_ stream: UnsafeRawBufferPointer, side: HTTPMessageScanner.Side, headLimit: Int, heads: UInt8, pieces: UInt64?) -> Outcome {
        var scanner = HTTPMessageScanner(side: side, maximumHeadSize: headLimit)
        for bit in 0..<8 { scanner.expectResponse(toHEAD: heads & (1 << bit) != 0) }
        var outcome = Outcome()
        var available = 0
        var sinceLastMessage = 0
        var random = pieces ?? 0
        var calls = 0
        let callLimit = 4 * (stream.count + 8)
        while true {
            let atEOF = available == stream.count
            if !atEOF {
                if pieces == nil {
                    available = stream.count
                } else {
                    random = random &+ 0x9E37_79B9_7F4A_7C15
                    var mixed = random
                    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
                    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
                    mixed ^= mixed >> 31
                    available = min(stream.count, available + Int(mixed % 64) + 1)
                }
            }
            let eof = available == stream.count
            while true {
                calls += 1
                guard calls <= callLimit else { fatalError("no progress: \(calls) calls for \(stream.count) bytes") }
                let front = UnsafeRawBufferPointer(rebasing: stream[outcome.consumed..<available])
                let result: (consumed: Int, completed: HTTPMessageInfo?)
                do {
                    result = try scanner.scan(front, atEOF: eof)
                } catch {
                    // What an erring call consumed is not said: the count is left out.
                    outcome.error = "\(error.kind)"
                    outcome.consumed = -1
                    return outcome
                }
                guard result.consumed >= 0, result.consumed <= front.count else {
                    fatalError("consumed \(result.consumed) of \(front.count) bytes")
                }
                outcome.consumed += result.consumed
                sinceLastMessage += result.consumed
                if let message = result.completed {
                    check(message, wire: sinceLastMessage)
                    // Empty lines before a message are consumed with it, not counted in it.
                    let start = outcome.consumed - sinceLastMessage
                    for index in start..<(outcome.consumed - message.wireBytes) where stream[index] != 0x0D && stream[index] != 0x0A {
                        fatalError("byte \(stream[index]) before a message's start consumed with it")
                    }
                    outcome.messages.append(message)
                    sinceLastMessage = 0
                    continue
                }
                if result.consumed == 0 { break }
            }
            if eof {
                guard outcome.consumed == stream.count else {
                    fatalError("stalled at EOF: \(outcome.consumed) of \(stream.count) bytes consumed, no error")
                }
                return outcome
            }
        }
    }

    static func check(_ message: HTTPMessageInfo, wire: Int) {
        guard message.wireBytes > 0 else { fatalError("a message of 0 wire bytes") }
        guard message.wireBytes <= wire else { fatalError("wireBytes \(message.wireBytes), but \(wire) bytes consumed for it") }
        guard message.headBytes > 0, message.bodyBytes >= 0, message.headBytes + message.bodyBytes <= message.wireBytes else {
            fatalError("head \(message.headBytes) + body \(message.bodyBytes) over wire \(message.wireBytes)")
        }
        switch message.bodyLength {
        case .chunked:
            break
        case .contentLength(let length):
            guard message.bodyBytes == length else { fatalError("Content-Length \(length), body \(message.bodyBytes)") }
            fallthrough
        default:
            guard message.headBytes + message.bodyBytes == message.wireBytes else {
                fatalError("unchunked: head \(message.headBytes) + body \(message.bodyBytes) != wire \(message.wireBytes)")
            }
        }
        if case .none = message.bodyLength, message.bodyBytes != 0 { fatalError("no body, yet \(message.bodyBytes) body bytes") }
        if message.isResponse {
            guard (100...999).contains(message.status) else { fatalError("response status \(message.status)") }
        } else {
            guard message.status == 0, !message.isInterim else { fatalError("request with status \(message.status)") }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    HTTPFuzzer.run(data, size)
    return 0
}
