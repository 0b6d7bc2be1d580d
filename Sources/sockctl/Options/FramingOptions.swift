import ArgumentParser
import SocketEngine

/// `--framing` and `--max-frame`: where messages begin and end, and the largest one accepted.
/// Shared by connect, send, listen and replay.
struct FramingOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("Message boundaries: raw (the default), line, crlf, null, length:N[:be|:le] (N = 1, 2, 4, 8) or fixed:N.", valueName: "framing"),
        completion: ArgumentValues.framingCompletion,
        transform: ArgumentValues.framing
    )
    var framing: Framing = .raw

    @Option(name: .long, help: ArgumentHelp("Largest message accepted; a longer one closes that connection with an error.", valueName: "size"))
    var maxFrame: ByteSize = .mebibytes(16)

    func validate() throws {
        let maximum = try maximumFrameSize()
        if case .fixed(let size) = framing, size > maximum {
            throw UsageError("fixed:\(size) is larger than --max-frame \(maxFrame)")
        }
    }

    func maximumFrameSize() throws -> Int {
        try maxFrame.checked("--max-frame", within: 1...(1 << 30))
    }
}
