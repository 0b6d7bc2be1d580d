import NIOCore

extension ConnectionHandler {
    /// The connection is the application's: record it from now on (when it is active).
    func startRecording() {
        guard recorder != nil, recording == .off else { return }
        recording = .waiting
        if let channel = context?.channel, channel.isActive { openRecording(channel) }
    }

    func openRecording(_ channel: any Channel) {
        guard recording == .waiting, let recorder else { return }
        recording = .open
        recordingNumber = ConnectionNumbers.take()
        let carried = Connection.carriedAddresses(of: channel)
        recorder(recordingNumber, .opened(
            local: carried?.destination ?? channel.localAddress, remote: carried?.source ?? channel.remoteAddress, transport: transportForRecording))
    }

    func record(_ event: ConnectionRecordEvent) {
        guard recording == .open, let recorder else { return }
        if case .closed = event { recording = .closed }
        recorder(recordingNumber, event)
    }

    /// A message answered below this handler (WebSocket --echo, --respond), for the recording.
    func recordAnswered(received: ByteBuffer, sent: ByteBuffer) {
        record(.received(received))
        record(.sent(sent))
    }

    /// This side is about to abort the connection (SO_LINGER 0).
    func recordReset() {
        record(.reset(.sent))
    }
}
