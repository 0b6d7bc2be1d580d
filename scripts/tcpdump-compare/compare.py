#!/usr/bin/env python3
"""Compares sockctl's packet printer with the real tcpdump 4.99.3, packet by packet.

Usage: scripts/tcpdump-compare/compare.py [--flags="-n -v"] [--show N] [--quiet] CAPTURE...

For each capture, runs `TZ=UTC tcpdump -r CAPTURE FLAGS` and pcapprint (main.swift: the
PacketDecoding library alone, built here with swiftc into .build/tcpdump-compare/) with the same
flags, splits both outputs into packets (a packet starts at a line that does not begin with
whitespace) and counts the packets printed identically. Prints one line per capture and the
totals; --show N prints the first N differing packets of each capture. A development tool: the
goldens in Tests/Goldens are what the test suite checks.
"""
import argparse
import hashlib
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, ".build", "tcpdump-compare")
BIN = os.path.join(OUT, "pcapprint")


def sources():
    files = []
    for base, _, names in os.walk(os.path.join(ROOT, "Sources", "PacketDecoding")):
        files += [os.path.join(base, n) for n in names if n.endswith(".swift")]
    return sorted(files) + [os.path.join(ROOT, "scripts", "tcpdump-compare", "main.swift")]


def build():
    files = sources()
    digest = hashlib.sha256()
    for name in files:
        with open(name, "rb") as handle:
            digest.update(name.encode() + handle.read())
    stamp = os.path.join(OUT, "pcapprint.sources")
    if os.path.exists(BIN) and os.path.exists(stamp) and open(stamp).read() == digest.hexdigest():
        return
    os.makedirs(OUT, exist_ok=True)
    optimize = os.environ.get("PCAPPRINT_OPT", "-Onone")
    print(f"==> building pcapprint ({optimize})", file=sys.stderr)
    subprocess.run(["swiftc", optimize, "-warnings-as-errors", "-parse-as-library", "-module-name", "PacketDecoding",
                    "-package-name", "sockctl", *files, "-o", BIN], check=True)
    with open(stamp, "w") as handle:
        handle.write(digest.hexdigest())


def packets(text):
    result = []
    for line in text.split(b"\n"):
        if result and (line[:1] in (b" ", b"\t") or line == b""):
            result[-1] += b"\n" + line
        else:
            result.append(line)
    while result and result[-1] == b"":
        result.pop()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-f", "--flags", default="-n")
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="only the totals")
    parser.add_argument("captures", nargs="+")
    args = parser.parse_args()
    build()
    flags = args.flags.split()
    env = dict(os.environ, TZ="UTC")
    same_files = same_packets = all_packets = 0
    for capture in args.captures:
        expected = subprocess.run(["tcpdump", "-r", capture, *flags], capture_output=True, env=env).stdout
        run = subprocess.run([BIN, capture, *flags], capture_output=True, env=env)
        actual = run.stdout
        if run.returncode < 0:
            actual += f"\n<pcapprint killed by signal {-run.returncode}: {run.stderr.decode(errors='replace')[-300:]}>".encode()
        want, got = packets(expected), packets(actual)
        same = sum(1 for a, b in zip(want, got) if a == b)
        identical = expected == actual
        same_files += identical
        same_packets += same
        all_packets += len(want)
        if not args.quiet:
            mark = "same" if identical else "DIFF"
            print(f"{mark} {same:6d}/{len(want):<6d} {os.path.basename(capture)}")
        shown = 0
        for index, (a, b) in enumerate(zip(want + [b"<end>"] * max(0, len(got) - len(want)),
                                           got + [b"<end>"] * max(0, len(want) - len(got)))):
            if a != b and shown < args.show:
                print(f"  packet {index + 1}:\n    tcpdump: {a.decode(errors='replace')}\n    sockctl: {b.decode(errors='replace')}")
                shown += 1
    print(f"files identical: {same_files}/{len(args.captures)}; packets identical: {same_packets}/{all_packets}"
          f" ({100.0 * same_packets / max(all_packets, 1):.1f} %) with {args.flags}")


if __name__ == "__main__":
    main()
