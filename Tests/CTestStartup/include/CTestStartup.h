#ifndef C_TEST_STARTUP_H
#define C_TEST_STARTUP_H

/// The soft descriptor limit the test process raised itself to at start (its hard limit), or
/// -1 if it could not be read.
long ctest_startup_descriptor_limit(void);

/// pipe2(fds, O_CLOEXEC): a pipe whose ends no concurrently spawned child inherits.
int ctest_pipe_cloexec(int fds[2]);

#endif
