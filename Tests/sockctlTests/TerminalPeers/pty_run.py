#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, as a shell in a terminal runs it.

Usage: pty_run.py COMMAND [ARGUMENT...]

The command runs in a session of its own whose controlling terminal is the pty: stdin, stdout
and stderr are the terminal, and it is the terminal's foreground process group. SIGINT,
SIGTERM, SIGQUIT and SIGPIPE are at their default actions, as a shell in a terminal leaves
them, whatever this helper's parent ignores (a test runner started from a non-interactive
shell ignores SIGINT, and an ignored signal stays ignored across exec: a Ctrl-C test run that
way would prove nothing).

What the command writes to the terminal is copied to this helper's stdout; what arrives on this
helper's stdin is typed into the terminal. A test types "\\x03" (Ctrl-C): the terminal's line
discipline then sends SIGINT to the command, exactly as a key press would. When the command
has exited and closed the terminal, this helper prints "pty_run: exit N" (or "pty_run: signal
N") on stderr and exits with the command's status (128 + N when signal N ended it).
"""

import os
import pty
import select
import signal
import sys


def main() -> int:
    command = sys.argv[1:]
    if not command:
        print("usage: pty_run.py COMMAND [ARGUMENT...]", file=sys.stderr)
        return 2
    pid, master = pty.fork()
    if pid == 0:
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    typing = True
    while True:
        watched = [master, 0] if typing else [master]
        ready, _, _ = select.select(watched, [], [])
        if 0 in ready:
            keys = os.read(0, 4096)
            if keys:
                os.write(master, keys)
            else:
                typing = False
        if master in ready:
            try:
                output = os.read(master, 65536)
            except OSError:  # EIO: the command closed the terminal
                output = b""
            if not output:
                break
            sys.stdout.buffer.write(output)
            sys.stdout.buffer.flush()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        print(f"pty_run: signal {os.WTERMSIG(status)}", file=sys.stderr)
        return 128 + os.WTERMSIG(status)
    print(f"pty_run: exit {os.WEXITSTATUS(status)}", file=sys.stderr)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
