import PacketDecoding

/// `-w` with `-C`, `-G` and `-W`: packets written through a ``CaptureFileOutput`` that is
/// switched for a new one as a ``CaptureFileSchedule`` decides, each file complete on its own
/// (its own pcap header, or pcapng section and interface blocks), with a
/// ``FinishedFileCommand`` run on each file once it is closed. Without a size or a time it is
/// one plain output.
///
/// The caller opens files (`open`, given each name; sockctl's one opening path, never through a
/// symbolic link) and gives the time (`now`, seconds since the epoch; tcpdump reads `time(NULL)`
/// as each packet arrives), so the decisions are tested in virtual time.
///
/// TLS key log text written with ``writeDecryptionSecrets(_:)`` is kept (up to
/// ``maximumSecretsLength`` bytes) and written again at the start of each new pcapng file, so
/// every file decrypts on its own.
public final class CaptureFileRotation {
    /// The most key log bytes kept for the next files.
    public static let maximumSecretsLength = 16 * 1024 * 1024

    /// The schedule as it stands (its ``CaptureFileSchedule/currentName`` is the open file).
    public private(set) var schedule: CaptureFileSchedule
    /// The limit of files was reached: the last one is closed and nothing more is written.
    public private(set) var stopped = false
    private var output: CaptureFileOutput
    private let open: (String) throws(CaptureError) -> CaptureFileOutput
    private let command: FinishedFileCommand?
    private let now: () -> Int64
    private var secrets: [UInt8] = []

    /// Opens the schedule's first file.
    public init(
        schedule: CaptureFileSchedule, command: FinishedFileCommand?, now: @escaping () -> Int64,
        open: @escaping (String) throws(CaptureError) -> CaptureFileOutput
    ) throws(CaptureError) {
        self.schedule = schedule
        self.command = command
        self.now = now
        self.open = open
        output = try open(schedule.currentName)
    }

    /// The file packets go to now.
    public var currentName: String { schedule.currentName }

    /// Writes one packet, first switching files if the schedule says so. False when the file
    /// limit is reached (`-G` with `-W`): the packet is not written and the capture should stop.
    /// A command that cannot be started on a finished file is reported through `warning` and
    /// the capture goes on.
    public func write(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, warning: (CaptureError) -> Void = { _ in }) throws(CaptureError) -> Bool {
        if stopped { return false }
        if schedule.rotates {
            switch schedule.beforePacket(now: now(), fileBytes: output.byteCount) {
            case .write:
                break
            case .rotate(let finished, let next):
                try output.finish()
                runCommand(on: finished, warning: warning)
                output = try open(next)
                if !secrets.isEmpty { try output.writeDecryptionSecrets(secrets) }
            case .stop(let finished):
                stopped = true
                try output.finish()
                runCommand(on: finished, warning: warning)
                return false
            }
        }
        try output.write(header, bytes)
        return true
    }

    /// Writes TLS key log lines as a Decryption Secrets Block (pcapng files; nothing for pcap)
    /// and keeps them for the next files.
    public func writeDecryptionSecrets(_ keyLogText: [UInt8]) throws(CaptureError) {
        guard !stopped, output.isPcapng, !keyLogText.isEmpty else { return }
        try output.writeDecryptionSecrets(keyLogText)
        if secrets.count + keyLogText.count <= Self.maximumSecretsLength { secrets += keyLogText }
    }

    /// Completes the current file and waits for the commands still running. The command is not
    /// run on this last file, as tcpdump does not run it on the file open when it exits.
    public func finish() throws(CaptureError) {
        defer { command?.waitForAll() }
        if !stopped { try output.finish() }
    }

    private func runCommand(on file: String, warning: (CaptureError) -> Void) {
        do {
            try command?.run(on: file)
        } catch {
            warning(error)
        }
    }
}
