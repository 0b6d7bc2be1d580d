/// libFuzzer target: one direction of a WebSocket connection with permessage-deflate agreed, fed
/// to ``WebSocketStreamDecoder`` (frames inflated with the window kept or reset per message),
/// every item printed as text and JSON and checked.
///
/// Input layout: byte 0 picks the agreement and the feeding — bit 0 the sender resets its
/// context per message, bit 1 the sender is the client (frames masked), bits 2–4 the chunk size
/// (1, 2, 3, 7, 64, 1000, 4096, 65536), bits 5–7 the payload limit (0, 1, 4, 16, 64, 125, 256,
/// 4096); the rest is the stream. The target traps on printed text or JSON a terminal or a
/// JSON reader could not take, and on an inflated message whose kept payload is longer than the
/// limit or than its length.
///
/// Built by fuzz/run.sh together with every Swift file under Sources/PacketDecoding (one module)
/// over the WebSocketDeflate module (compiled first, instrumented, with the system's zlib).
import WebSocketDeflate

enum InflateFuzzer {
    static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        guard size >= 1 else { return }
        let control = data[0]
        var agreement = PerMessageDeflate()
        agreement.serverNoContextTakeover = control & 1 != 0
        agreement.clientNoContextTakeover = control & 1 != 0
        let sender: PerMessageDeflate.Role = control & 2 != 0 ? .client : .server
        let chunk = [1, 2, 3, 7, 64, 1000, 4096, 65536][Int(control >> 2) & 7]
        let limit = [0, 1, 4, 16, 64, 125, 256, 4096][Int(control >> 5) & 7]
        var decoder = WebSocketStreamDecoder(payloadLimit: limit, inflation: .agreed(agreement, sender: sender))
        let stream = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + chunk)
            decoder.consume(UnsafeRawBufferPointer(rebasing: stream[start..<end])) { item in check(item, limit: limit) }
            start = end
        }
    }

    static func check(_ item: ViewItem, limit: Int) {
        if case .webSocketMessage(let message) = item, message.problem == nil {
            guard message.payload.count <= limit, message.payload.count <= message.length else {
                fatalError("an inflated message keeps \(message.payload.count) bytes of \(message.length) with a limit of \(limit)")
            }
        }
        PrintedText.check(item)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInflate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    InflateFuzzer.run(data, size)
    return 0
}
