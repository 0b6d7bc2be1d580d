import Glibc

/// Writes all of `raw` to `descriptor`: short writes continued, EINTR retried, EAGAIN (a
/// non-blocking descriptor) waited out. Returns the errno of a failure, nil once all is written.
package func writeFully(_ raw: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
    guard var base = raw.baseAddress else { return nil }
    var remaining = raw.count
    while remaining > 0 {
        let written = Syscall.write(descriptor, base, remaining)
        if written > 0 {
            remaining -= written
            base += written
        } else if written < 0 && errno == EAGAIN {
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = Syscall.poll(&poller, 1, 100)
        } else {
            return written < 0 ? errno : EIO
        }
    }
    return nil
}
