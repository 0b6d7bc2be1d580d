import NIOCore

import Glibc

/// Who is at the other end of a Unix-domain stream socket, from the kernel (`SO_PEERCRED`):
/// what a listener can say about a client whose end has no name.
enum UnixPeer {
    /// The peer process's id and user id; nil when asked off the channel's event loop
    /// (the answer would come later), or when the kernel does not say.
    static func credentials(of channel: any Channel) -> (pid: Int32, uid: UInt32)? {
        guard channel.eventLoop.inEventLoop, let provider = channel as? any SocketOptionProvider else { return nil }
        var found: (pid: Int32, uid: UInt32)?
        // On the event loop the option is read at once: the future is already complete.
        let future: EventLoopFuture<Credentials> = provider.unsafeGetSocketOption(level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        future.assumeIsolated().whenSuccess { credentials in
            if credentials.pid > 0 { found = (credentials.pid, credentials.uid) }
        }
        return found
    }

    /// Linux's `struct ucred` (which Glibc's module map leaves out without `_GNU_SOURCE`).
    private struct Credentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }
}
