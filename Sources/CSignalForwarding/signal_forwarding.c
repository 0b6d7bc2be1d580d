#define _GNU_SOURCE
#include "CSignalForwarding.h"

#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/// The write end each forwarded signal goes to, plus one (0: none, so that the zeroed array
/// means none and descriptor 0 stays usable); written before the handler is installed.
static volatile sig_atomic_t forward_fd[NSIG];

static void forward(int signo) {
    int saved = errno;
    if (signo > 0 && signo < NSIG && forward_fd[signo] > 0) {
        unsigned char number = (unsigned char)signo;
        ssize_t ignored = write(forward_fd[signo] - 1, &number, 1);  // a full pipe: signals already waiting
        (void)ignored;
    }
    errno = saved;
}

int sockctl_forward_signal(int signo, int write_fd) {
    if (signo <= 0 || signo >= NSIG) {
        errno = EINVAL;
        return -1;
    }
    forward_fd[signo] = write_fd + 1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    return sigaction(signo, &action, NULL);
}

int sockctl_signal_pipe(int ends[2]) {
    if (pipe2(ends, O_CLOEXEC) != 0) {
        return -1;
    }
    return fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK) == 0 ? 0 : -1;
}
