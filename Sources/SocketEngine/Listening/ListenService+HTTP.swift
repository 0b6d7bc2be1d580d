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
        let clock = configuration.options.clock
        while true {
            let request: ByteBuffer?
            do {
                request = try await connection.readFrame(.http, maxFrameSize: maximum)
            } catch let error as SocketEngineError {
                if let words = responder.lastWords(for: error) { try? await connection.send(words) }
                throw error
            }
            guard let request else { return }
            try await output.write(request)
            let answer = responder.answer(request)
            if let delay = configuration.delay { try await clock.sleep(for: delay) }
            if let bytes = answer.bytes { try await connection.send(bytes) }
            if answer.closeAfter { return }
        }
    }
}
