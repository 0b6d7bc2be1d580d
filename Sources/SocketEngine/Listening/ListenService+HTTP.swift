import NIOCore

extension ListenService {
    /// `listen http://`: every request gets one response, in order (``HTTPResponder``). Echo
    /// and respond answer on the event loop; print writes each request to the output first.
    func serveHTTP(_ connection: Connection, _ client: ClientInfo) async throws {
        let responder = HTTPResponder(mode: configuration.mode, template: configuration.httpResponse, client: client) { [self] event in
            if case .httpRequest(_, _, _, let status, _) = event, (1...5).contains(status / 100) {
                state.withLock { $0.summary.httpAnswers[status / 100] += 1 }
            }
            onEvent(event)
        }
        let maximum = configuration.maximumFrameSize
        guard configuration.mode == .print else {
            try await connection.answerEach(
                .http, maxFrameSize: maximum, delay: configuration.delay, lastWords: responder.lastWords(for:), interim: responder.interim(_:)
            ) { request in
                responder.answer(request)
            }
            return
        }
        try await printHTTP(connection, responder: responder)
    }

    /// Print mode: each request is written to the output, then answered (the template's empty
    /// 200). The stream is cut here, chunk by chunk, so that a head asking for `100 Continue`
    /// gets it before its body, and `--delay` counts from the arrival of the bytes that made a
    /// request whole (pipelined requests are not delayed one after another).
    private func printHTTP(_ connection: Connection, responder: HTTPResponder) async throws {
        let clock = configuration.options.clock
        var decoder = FrameDecoder(framing: .http, maximumFrameSize: configuration.maximumFrameSize)
        var buffer = ByteBuffer()
        var atEOF = false
        var interimSent = false
        var arrival = clock.now
        while true {
            let request: ByteBuffer?
            do {
                request = try decoder.decode(&buffer, atEOF: atEOF)
            } catch {
                if let words = responder.lastWords(for: error) {
                    try? await connection.send(words)
                    await connection.closeLingering()
                }
                throw error
            }
            guard let request else {
                if atEOF { return }
                if !interimSent, let early = responder.interim(buffer) {
                    interimSent = true
                    try await connection.send(early)
                }
                if let chunk = try await connection.read(.available) {
                    buffer.writeImmutableBuffer(chunk)
                    arrival = clock.now
                } else {
                    atEOF = true
                }
                continue
            }
            interimSent = false
            buffer.discardReadBytes()
            try await output.write(request)
            let answer = responder.answer(request)
            if let delay = configuration.delay { try await clock.sleep(until: arrival.advanced(by: delay)) }
            if let bytes = answer.bytes { try await connection.send(bytes) }
            if answer.closeAfter { return }
        }
    }
}
