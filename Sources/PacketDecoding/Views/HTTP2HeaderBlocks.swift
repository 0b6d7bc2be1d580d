import NIOCore
import NIOHPACK

/// The header blocks of one direction of an HTTP/2 connection (RFC 9113 §4.3): each HEADERS or
/// PUSH_PROMISE fragment and the CONTINUATION fragments after it put together, then decoded
/// with swift-nio-http2's HPACK decoder, whose dynamic table is this direction's (RFC 7541 §2.3)
/// — so every block of the direction goes through it, in order.
///
/// A block that cannot be decoded leaves the table in a state no later block can trust: the
/// direction's decoding stops there, said once (``HTTP2HeadersNotDecoded``) — an index beyond
/// the table when the capture started after the connection did (its table is unknown: a block
/// that decodes anyway names only entries seen, whose indices are right), an HPACK error, or a
/// block over ``maximumBlockBytes``.
struct HTTP2HeaderBlocks: Sendable {
    /// The largest block put together (a frame's fragment and its CONTINUATIONs).
    static let maximumBlockBytes = 64 * 1024
    /// The largest dynamic table a peer's SETTINGS_HEADER_TABLE_SIZE may allow here.
    static let maximumTableBytes = 64 * 1024

    private var decoder = HPACKDecoder(
        allocator: ByteBufferAllocator(), maxDynamicTableSize: HPACKDecoder.maxDynamicTableSize,
        maxHeaderListSize: 4 * maximumBlockBytes)
    private var block: [UInt8] = []
    private var stream: UInt32 = 0
    private var promised: UInt32?
    /// A block is open: CONTINUATION frames go on with it.
    private var isOpen = false
    /// The capture joined the connection late: this direction's table may hold entries not seen.
    let tableUnknown: Bool
    /// Decoding stopped (said once); frames are still shown.
    private(set) var stopped = false

    init(tableUnknown: Bool) {
        self.tableUnknown = tableUnknown
    }

    /// The other direction's SETTINGS_HEADER_TABLE_SIZE: the largest table this direction's
    /// encoder may signal (it still starts at 4,096 bytes until it says otherwise).
    mutating func allowTable(of size: UInt32) {
        decoder.maxDynamicTableLength = min(Int(size), Self.maximumTableBytes)
    }

    /// A HEADERS (`promised` nil) or PUSH_PROMISE fragment, starting a block. Returns the block's
    /// fields when it ends here (END_HEADERS).
    mutating func start(stream: UInt32, promised: UInt32?, fragment: ArraySlice<UInt8>, ends: Bool, emit: (ViewItem) -> Void) -> [HTTP2HeaderField]? {
        guard !stopped else { return nil }
        self.stream = stream
        self.promised = promised
        block.removeAll(keepingCapacity: true)
        isOpen = true
        return add(fragment, ends: ends, emit: emit)
    }

    /// A CONTINUATION fragment (ignored when no block is open, or it is another stream's).
    mutating func continueBlock(stream: UInt32, fragment: ArraySlice<UInt8>, ends: Bool, emit: (ViewItem) -> Void) -> [HTTP2HeaderField]? {
        guard !stopped, isOpen, stream == self.stream else { return nil }
        return add(fragment, ends: ends, emit: emit)
    }

    /// A header frame's payload was cut short (larger than the decoder keeps): the block is lost.
    mutating func lose(stream: UInt32, emit: (ViewItem) -> Void) {
        guard !stopped else { return }
        stop(.tooLarge, stream: stream, emit: emit)
    }

    private mutating func add(_ fragment: ArraySlice<UInt8>, ends: Bool, emit: (ViewItem) -> Void) -> [HTTP2HeaderField]? {
        guard block.count + fragment.count <= Self.maximumBlockBytes else {
            stop(.tooLarge, stream: stream, emit: emit)
            return nil
        }
        block.append(contentsOf: fragment)
        guard ends else { return nil }
        isOpen = false
        var buffer = ByteBuffer(bytes: block)
        block.removeAll(keepingCapacity: true)
        do {
            let headers = try decoder.decodeHeaders(from: &buffer)
            let fields = headers.map { HTTP2HeaderField(name: Array($0.name.utf8), value: Array($0.value.utf8)) }
            emit(.http2Headers(HTTP2HeaderList(stream: stream, promisedStream: promised, fields: fields)))
            return fields
        } catch {
            stop(tableUnknown ? .tableUnknown : .invalid, stream: stream, emit: emit)
            return nil
        }
    }

    private mutating func stop(_ reason: HTTP2HeadersNotDecoded.Reason, stream: UInt32, emit: (ViewItem) -> Void) {
        stopped = true
        isOpen = false
        block = []
        emit(.http2HeadersNotDecoded(HTTP2HeadersNotDecoded(stream: stream, reason: reason)))
    }
}
