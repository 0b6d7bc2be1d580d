// epoll and eventfd, which the Glibc module does not bring: the epoll relay loop
// (SocketEngine/Relay/EpollRelay) waits on them. Also its thread's kernel id and name, which
// Glibc declares only to GNU sources (gettid, pthread_setname_np).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The calling thread's kernel id (gettid(2)).
static inline int sockctl_thread_id(void) { return (int)syscall(SYS_gettid); }

/// Names the calling thread (at most 15 bytes are kept), as top and /proc show it.
static inline void sockctl_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }
