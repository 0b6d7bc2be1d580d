// epoll and eventfd, which the Glibc module does not bring: the epoll relay loop
// (SocketEngine/Relay/EpollRelay) waits on them.
#include <sys/epoll.h>
#include <sys/eventfd.h>
