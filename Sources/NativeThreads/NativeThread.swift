import CEpoll

import Glibc

/// A POSIX thread of its own, for work that blocks in system calls and so belongs on neither the
/// event loops nor the cooperative pool: a child's waiter (`waitpid`), the epoll relay loop,
/// libpcap's packet loop.
package enum NativeThread {
    /// Starts `body` on a new thread named `name` (as `top -H` and `/proc/PID/task` show it,
    /// 15 bytes at most), with `stackSize` bytes of stack (nil: the default). Joinable unless
    /// `detached`. Returns its handle, or nil if no thread could be made (`body` then never runs).
    package static func start(named name: String, detached: Bool, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box {
            name.withCString { sockctl_name_thread($0) }
            body()
        }).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { argument in
            guard let argument else { return nil }
            Unmanaged<Box>.fromOpaque(argument).takeRetainedValue().body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        return thread
    }
}
