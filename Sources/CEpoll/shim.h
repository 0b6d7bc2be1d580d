// epoll and eventfd, which the Glibc module does not bring: the epoll relay loop
// (SocketEngine/Relay/EpollRelay) waits on them. Also its thread's kernel id and name, which
// Glibc declares only to GNU sources (gettid, pthread_setname_np), and for the same reason
// splice(2), pipe2(2) and the pipe-size fcntl commands the loop moves bytes with (called through
// syscall(2): the Glibc module is built without _GNU_SOURCE, so its declarations are hidden).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

/// The calling thread's kernel id (gettid(2)).
static inline int sockctl_thread_id(void) { return (int)syscall(SYS_gettid); }

/// Names the calling thread (at most 15 bytes are kept), as top and /proc show it.
static inline void sockctl_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/// splice(2) flags (linux/splice.h): move pages rather than copy; do not block on the pipe.
enum { SOCKCTL_SPLICE_F_MOVE = 1, SOCKCTL_SPLICE_F_NONBLOCK = 2 };

/// fcntl(2) commands for a pipe's capacity (linux/fcntl.h: F_LINUX_SPECIFIC_BASE + 7, + 8).
enum { SOCKCTL_F_SETPIPE_SZ = 1031, SOCKCTL_F_GETPIPE_SZ = 1032 };

/// Moves up to `length` bytes from `from` to `to`, one of them a pipe, without offsets:
/// splice(2). The count moved, 0 at the end of the input, -1 with errno set.
static inline long sockctl_splice(int from, int to, size_t length, unsigned int flags) {
    return syscall(SYS_splice, from, NULL, to, NULL, length, flags);
}

/// A pipe with both ends close-on-exec and non-blocking: pipe2(2). 0, or -1 with errno set.
static inline int sockctl_pipe(int ends[2]) { return (int)syscall(SYS_pipe2, ends, O_CLOEXEC | O_NONBLOCK); }

/// Sets a pipe's capacity (rounded up by the kernel): the capacity now, or -1 with errno set.
static inline int sockctl_set_pipe_size(int descriptor, int size) { return fcntl(descriptor, SOCKCTL_F_SETPIPE_SZ, size); }
