// epoll and eventfd, which the Glibc module does not bring: the relay's splice loop
// (SocketEngine/Relay/Splice) waits on them.
#include <sys/epoll.h>
#include <sys/eventfd.h>
