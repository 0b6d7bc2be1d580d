import NIOCore
import Synchronization

/// The listening half of a service (``ListenService``, ``RelayService``): bind a stream or a
/// datagram listener, serve it, and stop — before, during or after the bind.
///
/// Time is the caller's: how long a service served (its summary's duration) is measured on the
/// clock it was made with, the service's own ``EngineClock``, so a test can check it exactly in
/// virtual time.
///
/// Lock order: this type's lock is taken first; the closures of ``register(_:)`` and
/// ``stop(closing:)`` run under it and may take the service's own lock, never the other way.
final class ServiceListeners: Sendable {
    /// How a ``ServiceListeners/serve(stream:datagram:)`` went.
    struct Served: Sendable, Equatable {
        /// False when stopped before it began (nothing was served).
        let began: Bool
        /// From the moment the serve was called to its end, on the listeners' clock.
        let duration: Duration
    }

    private struct State {
        var listener: Listener?
        var datagramListener: DatagramListener?
        var stopped = false
    }

    private let state = Mutex(State())
    private let clock: EngineClock

    /// Listeners not yet bound, not stopped, that time their serving on `clock`.
    init(clock: EngineClock) {
        self.clock = clock
    }

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

    /// Serves the bound listener with `stream` or `datagram` until it is done; returns for how
    /// long, and whether it began at all: not when stopped before (a signal while binding), the
    /// listeners then closed, nothing served.
    @discardableResult
    func serve(
        stream: (Listener) async -> Void,
        datagram: (DatagramListener) async -> Void
    ) async -> Served {
        let started = clock.now
        let (listener, datagramListener, stopped) = state.withLock { ($0.listener, $0.datagramListener, $0.stopped) }
        if stopped {
            await listener?.close()
            await datagramListener?.close()
            return Served(began: false, duration: clock.elapsed(since: started))
        }
        if let listener {
            await stream(listener)
        } else if let datagramListener {
            await datagram(datagramListener)
        }
        return Served(began: true, duration: clock.elapsed(since: started))
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
