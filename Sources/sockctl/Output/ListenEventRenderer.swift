import SocketEngine

/// The client log of `listen`.
enum ListenEventRenderer {
    static func render(_ event: ListenEvent, diagnostics: Diagnostics, printMode: Bool) {
        switch event {
        case .clientConnected(let client):
            let handshake = client.webSocket.map { " (\($0.summary))" } ?? ""
            diagnostics.note("client \(client.id) connected from \(client.peer)\(handshake)")
        case .clientDisconnected(let client, let bytesIn, let bytesOut, let duration, let error):
            let reason = error.map { ": \($0.message)" } ?? ""
            diagnostics.note(
                "client \(client.id) from \(client.peer) disconnected after \(duration.formatted)"
                    + " (\(bytesIn) bytes in, \(bytesOut) bytes out)\(reason)"
            )
        case .rejected(let peer, let reason):
            diagnostics.note("refused \(peer): \(reason)")
        case .datagram(let peer, let bytes):
            if printMode {
                diagnostics.note("datagram from \(peer), \(bytes) bytes")
            } else {
                diagnostics.event("datagram from \(peer), \(bytes) bytes")
            }
        case .inputRejected(let error):
            diagnostics.warning(error.message)
        case .clientSecured(let client, let report):
            diagnostics.event("client \(client.id) TLS: \(report.summary)")
        case .messagesDropped(let client, let count):
            diagnostics.warning("client \(client.id) (\(client.peer)) is not keeping up: \(count) broadcast message\(count == 1 ? "" : "s") dropped")
        }
    }
}
