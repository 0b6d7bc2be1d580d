#ifndef CSIGNALFORWARDING_H
#define CSIGNALFORWARDING_H

/// Installs, at once, a handler for `signo` that writes the signal's number (one byte) to
/// `write_fd` — a pipe's non-blocking write end, read by a thread of the caller's — in place of
/// the signal's default action. Returns 0, or -1 with errno set (an invalid signal number).
///
/// Why not a Dispatch signal source: on Linux it registers its handler later, on Dispatch's
/// manager thread, and a signal that comes before that (the process told to stop as soon as it
/// says where it listens) meets whatever disposition was set meanwhile — and is lost if that
/// was "ignore".
int sockctl_forward_signal(int signo, int write_fd);

/// Makes the pipe the signals go through: `ends[0]` to read, `ends[1]` to write (non-blocking,
/// so that a handler never waits), both closed on exec. Returns 0, or -1 with errno set.
int sockctl_signal_pipe(int ends[2]);

#endif
