/// A gate that is open while something is present (a client, a UDP peer); ``wait()`` returns
/// once it is open. `listen` reads its input only while someone is there to receive it.
final class Presence: Sendable {
    private let open = AsyncMonitor(false)

    func set(_ isOpen: Bool) {
        open.update { $0 = isOpen }
    }

    /// Waits until open; throws `CancellationError` if cancelled first.
    func wait() async throws {
        try await open.wait { $0 ? () : nil }
    }
}
