import NIOCore
import Synchronization

/// The listening half of a service (``ListenService``, ``RelayService``): bind a stream or a
/// datagram listener, serve it, and stop — before, during or after the bind.
///
/// Lock order: this type's lock is taken first; the closures of ``register(_:)`` and
/// ``stop(closing:)`` run under it and may take the service's own lock, never the other way.
final class ServiceListeners: Sendable {
    private struct State {
        var listener: Listener?
        var datagramListener: DatagramListener?
        var stopped = false
    }

    private let state = Mutex(State())

    /// Listeners not yet bound, not stopped.
    init() {}

    /// The stream listener, once bound.
    var listener: Listener? { state.withLock { $0.listener } }

    /// The datagram listener, once bound.
    var datagramListener: DatagramListener? { state.withLock { $0.datagramListener } }

    /// Binds `endpoint` (a datagram listener for UDP, a stream listener otherwise); returns the
    /// bound addresses. Stopped meanwhile: the listener is kept for ``serve(stream:datagram:)``
    /// to close.
    func bind(_ endpoint: Endpoint, options: ListenOptions) async throws -> [SocketAddress] {
        if endpoint.transport == .udp {
            let listener = try await DatagramListener.bind(endpoint, options: options)
            state.withLock { $0.datagramListener = listener }
            return listener.localAddresses
        }
        let listener = try await Listener.bind(endpoint, options: options)
        state.withLock { $0.listener = listener }
        return listener.localAddresses
    }

    /// Serves the bound listener with `stream` or `datagram` until it is done. Returns false when
    /// stopped before it began (a signal while binding): the listeners are closed, nothing served.
    @discardableResult
    func serve(
        stream: (Listener) async -> Void,
        datagram: (DatagramListener) async -> Void
    ) async -> Bool {
        let (listener, datagramListener, stopped) = state.withLock { ($0.listener, $0.datagramListener, $0.stopped) }
        if stopped {
            await listener?.close()
            await datagramListener?.close()
            return false
        }
        if let listener {
            await stream(listener)
        } else if let datagramListener {
            await datagram(datagramListener)
        }
        return true
    }

    /// Runs `body` (which registers a client with the service) unless stopped; nil once stopped.
    /// A client registered here is in the list a later ``stop(closing:)`` closes.
    func register<T: Sendable>(_ body: () -> T) -> T? {
        state.withLock { state in
            state.stopped ? nil : body()
        }
    }

    /// True once ``stop(closing:)`` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Stops: marks the service stopped, asks it (under the lock, so no client is registered in
    /// between) for what to close, then closes the listeners and those clients, in that order.
    /// Safe to call more than once, and before or during ``bind(_:options:)``.
    func stop(closing: () -> [any RelayClosable]) {
        let (listener, datagramListener, clients) = state.withLock { state in
            state.stopped = true
            return (state.listener, state.datagramListener, closing())
        }
        Task {
            await listener?.close()
            await datagramListener?.close()
            for client in clients { await client.close() }
        }
    }
}
