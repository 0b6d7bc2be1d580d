// Runs when the test binary is loaded, before any test: the soft limit on open descriptors goes
// up to the hard limit, so tests that run side by side (each with sockets, pipes and child
// processes) never fail on EMFILE because of the default soft limit of 1024.
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include "CTestStartup.h"

static long raised_limit = -1;

__attribute__((constructor))
static void raise_descriptor_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    }
    raised_limit = (long)limit.rlim_cur;
}

long ctest_startup_descriptor_limit(void) {
    return raised_limit;
}

int ctest_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
