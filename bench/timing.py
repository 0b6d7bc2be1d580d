#!/usr/bin/env python3
"""Timing targets: the figures that depend on the machine's speed, measured here instead of
asserted by `make test` (where a loaded machine would make them fail). Each is printed next to
its target, with OK or MISSED; the suite keeps a functional check of each, and the exact rules
(the delays the code means to keep) are tested in virtual time.

Usage: bench/timing.py path/to/release/sockctl

  delayed echo      loadtest against `listen --echo --delay 10ms`: p50 within 10-12 ms
  open-loop rate    --rate 2000 for 5 s: 10,000 messages sent, within 1 %
  stall             the server stopped 500 ms mid-run: corrected p99 >= 200 ms and max >= 400 ms,
                    uncorrected p99 below half the corrected one (coordinated omission shown)
  delays not cumulative   20 pipelined requests to `listen --delay 100ms`: answered in < 300 ms
  replay gaps       a capture with 200 ms gaps replayed at x1 (200 +/- 10 ms), x2 (100 +/- 10 ms),
                    --topspeed (all four within 50 ms)
  heartbeat         a silent server, --heartbeat-interval 200ms --heartbeat-misses 3: declared
                    dead 600-700 ms after connecting
  Happy Eyeballs    IPv6 address black-holed (a network namespace of its own), IPv4 listening:
                    connected in 300-400 ms
  TLS close         a client leaving without close_notify: disconnected in < 100 ms (the TLS
                    layer alone would wait 500 ms)
  10,000 connections held for 20 s at 2,000 messages/s: all established, none lost, no error;
                    the peak RSS reported

Traffic: 127.0.0.1 and ::1, or a network namespace this script creates (root needed for the
Happy Eyeballs row; skipped with a note otherwise). Every run stops by itself.
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

SOCKCTL = os.path.realpath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(__doc__)
WORK = tempfile.mkdtemp(prefix="sockctl-timing-")
ROWS = []
CHILDREN = []


def row(name, target, measured, ok):
    ROWS.append((name, target, measured, "OK" if ok else "MISSED"))
    print(f"  {name}: {measured} (target {target}) {'OK' if ok else 'MISSED'}", flush=True)


def start(args, **kw):
    child = subprocess.Popen(args, stdout=kw.pop("stdout", subprocess.DEVNULL), stderr=subprocess.PIPE, text=True, **kw)
    CHILDREN.append(child)
    return child


def listening_port(child, drain=True):
    """The port in sockctl listen's `listening on ADDR:PORT` line. The rest of its stderr (a line
    per client) is drained by a thread of its own (a full pipe would stall the listener), unless
    the caller reads it (`drain=False`)."""
    for line in child.stderr:
        if "listening on" in line:
            if drain:
                threading.Thread(target=lambda: [None for _ in child.stderr], daemon=True).start()
            return int(re.search(r":(\d+)[, ]", line).group(1))
    raise SystemExit(f"no listening line from {child.args}")


def listen(*args):
    child = start([SOCKCTL, "listen", "127.0.0.1:0", "-k", *args])
    return child, listening_port(child)


def loadtest(*args, during=None):
    report = os.path.join(WORK, f"load-{len(ROWS)}-{time.monotonic_ns()}.json")
    child = subprocess.Popen([SOCKCTL, "loadtest", *args, "--json", report], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if during:
        during()
    _, err = child.communicate()
    if child.returncode != 0:
        print(f"    loadtest exited {child.returncode}: {err.strip()}", flush=True)
    with open(report) as f:
        return json.load(f)


def stop(child):
    if child.poll() is None:
        child.send_signal(signal.SIGCONT)
        child.kill()
    child.wait()


def delayed_echo():
    server, port = listen("--echo", "--framing", "line", "--delay", "10ms")
    report = loadtest(f"127.0.0.1:{port}", "-c", "10", "--duration", "3s", "--framing", "line", "--message", "ping {{seq}}")
    stop(server)
    p50 = report["latency"]["corrected"]["p50"] / 1000
    row("delayed echo p50", "10-12 ms", f"{p50:.3f} ms", 10 <= p50 <= 12)


def open_loop_rate():
    server, port = listen("--echo")
    report = loadtest(f"127.0.0.1:{port}", "-c", "10", "--rate", "2000", "--duration", "5s", "--framing", "line")
    stop(server)
    sent = report["messages"]["sent"]
    offered = report["throughput"].get("offered_per_second") or 0
    row("open-loop rate: messages sent", "10,000 +/- 1 %", f"{sent:,}", 9900 <= sent <= 10100)
    row("open-loop rate: offered", "2,000/s +/- 1 %", f"{offered:,.1f}/s", abs(offered - 2000) <= 20)


def stall():
    server, port = listen("--echo")

    def pause():
        time.sleep(2.5)
        server.send_signal(signal.SIGSTOP)
        time.sleep(0.5)
        server.send_signal(signal.SIGCONT)

    report = loadtest(f"127.0.0.1:{port}", "-c", "10", "--rate", "1000", "--pipeline", "1", "--duration", "5s", "--framing", "line", during=pause)
    stop(server)
    corrected = report["latency"]["corrected"]
    uncorrected = report["latency"]["uncorrected"]
    row("stall: corrected p99", ">= 200 ms", f"{corrected['p99'] / 1000:.1f} ms", corrected["p99"] >= 200_000)
    row("stall: corrected max", ">= 400 ms", f"{corrected['max'] / 1000:.1f} ms", corrected["max"] >= 400_000)
    row("stall: uncorrected p99", "< half the corrected", f"{uncorrected['p99'] / 1000:.1f} ms", uncorrected["p99"] < corrected["p99"] / 2)


def delays_not_cumulative():
    server, port = listen("--echo", "--framing", "line", "--delay", "100ms")
    messages = [f"request {n}" for n in range(1, 21)]
    result = subprocess.run([SOCKCTL, "send", f"127.0.0.1:{port}", "--framing", "line", "--responses", "20", "--json", *messages],
                            capture_output=True, text=True)
    stop(server)
    total = json.loads(result.stdout)["timings_ms"]["total"]
    row("20 answers delayed 100 ms each", "< 300 ms (2,000 if they added up)", f"{total:.1f} ms", total < 300)


def pcap_with_gaps(path, gaps_ms):
    """A client stream: SYN handshake, then 'one', 'two', ... separated by the given gaps."""
    def frame(seq, ack, flags, payload, src, dst):
        tcp = struct.pack("!HHIIBBHHH", src, dst, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1])) + tcp
        return bytes(6) + bytes(6) + b"\x08\x00" + ip
    records = []
    t = 1_700_000_000_000_000
    records.append((t, frame(1000, 0, 0x02, b"", 40000, 7000)))
    records.append((t, frame(5000, 1001, 0x12, b"", 7000, 40000)))
    records.append((t, frame(1001, 5001, 0x10, b"", 40000, 7000)))
    seq = 1001
    for index, gap in enumerate([1] + gaps_ms):
        t += gap * 1000
        payload = f"msg{index}\n".encode()
        records.append((t, frame(seq, 5001, 0x18, payload, 40000, 7000)))
        seq += len(payload)
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for micros, data in records:
            f.write(struct.pack("<IIII", micros // 1_000_000, micros % 1_000_000, len(data), len(data)))
            f.write(data)


def replay_gaps():
    capture = os.path.join(WORK, "gaps.pcap")
    pcap_with_gaps(capture, [200, 200, 200])
    for label, extra, expected in (("x1", [], 200), ("x2", ["--speed", "2"], 100), ("--topspeed", ["--topspeed"], None)):
        recording = os.path.join(WORK, f"target-{label}.pcap")
        target, port = listen("--discard", "--record", recording)
        subprocess.run([SOCKCTL, "replay", capture, f"127.0.0.1:{port}", *extra], capture_output=True, check=False)
        target.send_signal(signal.SIGINT)
        target.wait()
        out = subprocess.run(["tcpdump", "-n", "-tt", "-r", recording, "tcp and tcp[13] & 8 != 0"], capture_output=True, text=True).stdout
        times = [float(line.split()[0]) for line in out.splitlines() if line and ("length 5" in line)]
        gaps = [round((b - a) * 1000, 1) for a, b in zip(times, times[1:])]
        if expected is None:
            # At top speed the four 5-byte messages may arrive in fewer segments (one write can
            # carry several): every payload byte counts, from the first segment to the last.
            segments = [(float(line.split()[0]), int(re.search(r"length (\d+)", line).group(1)))
                        for line in out.splitlines() if re.search(r"length [1-9]", line)]
            spread = (segments[-1][0] - segments[0][0]) * 1000 if segments else float("inf")
            payload = sum(length for _, length in segments)
            row("replay --topspeed", "all 4 messages within 50 ms", f"{payload} bytes in {spread:.1f} ms", payload == 20 and spread < 50)
        else:
            ok = len(gaps) == 3 and all(abs(g - expected) <= 10 for g in gaps)
            row(f"replay gaps {label}", f"{expected} +/- 10 ms", f"{gaps} ms", ok)


def heartbeat():
    server, port = listen("--discard")
    started = time.monotonic()
    # stdin stays open (its end would half-close the connection, and the server would close it):
    # the session ends only when the heartbeat declares the silent peer dead.
    client = subprocess.Popen([SOCKCTL, "connect", f"127.0.0.1:{port}", "--framing", "line", "--heartbeat", "PING",
                               "--heartbeat-interval", "200ms", "--heartbeat-misses", "3"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    CHILDREN.append(client)
    try:
        client.wait(timeout=10)
    except subprocess.TimeoutExpired:
        client.kill()
        client.wait()
    elapsed = (time.monotonic() - started) * 1000
    client.stdin.close()
    stop(server)
    row("heartbeat: silent peer declared dead", "600-700 ms", f"{elapsed:.0f} ms", 600 <= elapsed <= 700)


def happy_eyeballs():
    if os.geteuid() != 0:
        print("  Happy Eyeballs: skipped (creating a network namespace needs root)", flush=True)
        return
    name = f"sockctl-he-bench-{os.getpid()}"
    ip = lambda *a: subprocess.run(["ip", *a], check=True, capture_output=True)
    ns = lambda *a: ["ip", "netns", "exec", name, *a]
    try:
        ip("netns", "add", name)
        for command in (["link", "set", "lo", "up"], ["link", "add", "veth0", "type", "veth", "peer", "name", "veth1"],
                        ["link", "set", "veth0", "up"], ["link", "set", "veth1", "up"],
                        ["-6", "addr", "add", "fd00:5c::2/64", "dev", "veth0", "nodad"],
                        ["-6", "neigh", "add", "fd00:5c::1", "lladdr", "02:00:00:00:00:01", "dev", "veth0"]):
            subprocess.run(ns("ip", *command), check=True, capture_output=True)
        server = start(ns(SOCKCTL, "listen", "127.0.0.1:0", "--echo", "-k"))
        port = listening_port(server)
        result = subprocess.run(ns(SOCKCTL, "send", f"he.test:{port}", "hi", "-v", "--resolve", "he.test:fd00:5c::1,127.0.0.1"),
                                capture_output=True, text=True)
        stop(server)
        match = re.search(r"connected to 127\.0\.0\.1:\d+ \(IPv4\) from \S+ in ([0-9.]+)ms", result.stderr)
        connect = float(match.group(1)) if match else float("inf")
        row("Happy Eyeballs: IPv4 after a silent IPv6", "300-400 ms", f"{connect:.1f} ms", 300 <= connect <= 400)
    finally:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)


def tls_close():
    certs = os.path.join(WORK, "certs")
    subprocess.run(["bash", os.path.join(os.path.dirname(__file__), "..", "scripts", "make-test-certs.sh"), certs], check=True, capture_output=True)
    listener = start([SOCKCTL, "listen", "tls://127.0.0.1:0", "--cert", f"{certs}/server.pem", "--key", f"{certs}/server.key", "--echo", "-v"])
    port = listening_port(listener, drain=False)
    script = (
        "import socket, ssl, sys\n"
        "c = ssl.create_default_context(cafile=sys.argv[2]); t = c.wrap_socket(socket.create_connection(('127.0.0.1', int(sys.argv[1]))), server_hostname='localhost')\n"
        "t.sendall(b'hello\\n'); t.recv(100); t.shutdown(socket.SHUT_WR)\n"
        "while t.recv(100): pass\n"
    )
    subprocess.run([sys.executable, "-c", script, str(port), f"{certs}/ca.pem"], capture_output=True)
    after = None
    for line in listener.stderr:
        match = re.search(r"disconnected after ([0-9.]+)(us|ms|s)", line)
        if match:
            value, unit = float(match.group(1)), match.group(2)
            after = value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
            break
    stop(listener)
    row("TLS: a client leaving without close_notify", "disconnected < 100 ms (not 500)", f"{after:.1f} ms" if after is not None else "?",
        after is not None and after < 100)


def ten_thousand():
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 10_300:
        print(f"  10,000 connections: skipped (the hard descriptor limit is {hard})", flush=True)
        return
    server, port = listen("--echo", "--framing", "line", "--max-clients", "10100")
    report = loadtest(f"127.0.0.1:{port}", "-c", "10000", "--connect-rate", "3000", "--duration", "20s", "--rate", "2000",
                      "--framing", "line", "--message", "c{{conn}} m{{seq}}", "--reply-timeout", "30s")
    stop(server)
    connections = report["connections"]
    errors = report.get("errors") or {}
    ok = connections["established"] == 10000 and connections["peak_open"] == 10000 and connections["lost"] == 0 and not errors
    row("10,000 connections held 20 s", "all established, none lost, no error",
        f"{connections['established']:,} established, peak {connections['peak_open']:,}, lost {connections['lost']}, errors {errors or 'none'}", ok)
    row("10,000 connections: loadtest peak RSS", "reported", f"{report.get('peak_rss_bytes', 0) / 1048576:.0f} MiB", "peak_rss_bytes" in report)


def main():
    print(f"Timing targets, release build {SOCKCTL}", flush=True)
    try:
        for measure in (delayed_echo, open_loop_rate, stall, delays_not_cumulative, replay_gaps, heartbeat, happy_eyeballs, tls_close, ten_thousand):
            measure()
    finally:
        for child in CHILDREN:
            if child.poll() is None:
                child.kill()
    width = max(len(r[0]) for r in ROWS)
    print(f"\n{'measurement'.ljust(width)}  {'target':<38} {'measured':<40} result")
    for name, target, measured, result in ROWS:
        print(f"{name.ljust(width)}  {target:<38} {measured:<40} {result}")
    missed = [r for r in ROWS if r[3] != "OK"]
    print(f"\n{len(ROWS) - len(missed)} of {len(ROWS)} targets met" + (f"; missed: {', '.join(r[0] for r in missed)}" if missed else ""))


if __name__ == "__main__":
    main()
