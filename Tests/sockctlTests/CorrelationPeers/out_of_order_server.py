"""An out-of-order JSON line server for the --correlate tests (Python standard library only).

Each connection's requests are lines `{"id":N,...}`. The server collects them in batches of
--batch; once a batch is complete it first pushes --push messages nobody asked for
(`{"push":K}`, no id), then answers the batch's requests in reverse order — the newest first —
each reply `{"id":N,"delay_ms":D}` written D ms after the batch was complete, where D grows by
--step-ms per reply: the newest request is answered at once, the oldest last. So a request's
own reply comes at least (its position from the end of the batch) x step-ms after it was sent.

With --gate the replies of each batch wait for a line on stdin (the pushes do not).

It prints `listening on 127.0.0.1:PORT` on stderr once bound (port 0: the kernel's choice), and
per batch `batch B: pushed P` and `batch B: replied R` on stderr.
"""

import argparse
import asyncio
import json
import sys


def log(text):
    print(text, file=sys.stderr, flush=True)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--push", type=int, default=1)
    parser.add_argument("--step-ms", type=int, default=0)
    parser.add_argument("--gate", action="store_true")
    options = parser.parse_args()

    gate = asyncio.Queue()
    batches = 0

    async def read_gate():
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return
            gate.put_nowait(line)

    if options.gate:
        asyncio.get_running_loop().create_task(read_gate())

    async def serve(reader, writer):
        nonlocal batches
        batch = []
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                batch.append(json.loads(line)["id"])
                if len(batch) < options.batch:
                    continue
                batches += 1
                number = batches
                for k in range(options.push):
                    writer.write(json.dumps({"push": k}).encode() + b"\n")
                await writer.drain()
                log(f"batch {number}: pushed {options.push}")
                if options.gate:
                    await gate.get()
                for position, request in enumerate(reversed(batch)):
                    delay = position * options.step_ms
                    if delay:
                        await asyncio.sleep(options.step_ms / 1000)
                    writer.write(json.dumps({"id": request, "delay_ms": delay}).encode() + b"\n")
                    await writer.drain()
                log(f"batch {number}: replied {len(batch)}")
                batch = []
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    log(f"listening on 127.0.0.1:{port}")
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
