import Glibc

/// True for the errno of a non-blocking socket call that did nothing this time and may simply
/// be tried again (`EAGAIN`, `EWOULDBLOCK`, `EINTR`), as opposed to a real failure.
func isRetryable(errno code: Int32) -> Bool {
    code == EAGAIN || code == EWOULDBLOCK || code == EINTR
}
