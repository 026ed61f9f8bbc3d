"""What MCP adds to a search: the ``search`` tool over stdio (``ragline mcp``) and
Streamable HTTP (``ragline serve --mcp``), against the same search in process.

    .venv/bin/python benchmarks/mcp.py [--chunks 10000] [--rounds 20] [--calls 25]

The target (issue 27): at most 2 ms median added per ``search`` call, where *added* is
a transport's median minus the median of the same search in process
(``FolderSearch.invoke``, what ``/retrieve`` and the tool run), in the same run.

Each transport is called by two clients, so that the server's part shows apart from the
client's:

- the official SDK's ``Client`` (``call_tool``), as an assistant built on it calls;
- a minimal client written here that speaks the protocol exactly and nothing else: on
  stdio, JSON-RPC lines written to the server's stdin and read from its stdout
  (blocking pipe I/O); over HTTP, the standard library's ``http.client`` on one
  keep-alive connection, each call one ``POST /mcp`` with the ``Mcp-Session-Id`` and
  ``MCP-Protocol-Version`` headers that ``initialize`` set up. Each reply is parsed and
  checked (a result, not an error).

Other rows, same run: ``tool in process`` (``StoreMCP.call("search", ...)``: the search
and the tool's result, everything a server does but the protocol), and
``POST /retrieve/invoke`` with the minimal HTTP client on the same server (the same
search over plain HTTP, no MCP: what HTTP itself costs here).

The store folder is ``benchmarks/serve.py``'s synthetic one (hashing embedding). Each
server runs in its own process, as a client starts it, with one FAISS thread; one call
at a time. Timing: ``rounds`` rounds of ``calls`` calls per path, the paths' order
rotated from round to round, so that load from other processes weighs on every path
alike. Per path: the median and p90 of all its calls; *added* = its median minus the
in-process search's; the spread is the 25th-75th percentile of the per-round added
figures (each round's median minus the same round's in-process median). CPU per call:
this process's (the client's) and the server process's, counted over the same calls;
*server CPU added* is the server's CPU per call minus the in-process search's CPU per
call: what the protocol costs the server, the least load-dependent figure here.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from _timing import process_env  # noqa: E402
from serve import WORDS, build_store, free_port  # noqa: E402

# this file's name is the SDK's package name: with the helpers imported, its folder
# leaves the path (serve.py put it first too), so that `import mcp` finds the SDK
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != BENCHMARKS]

TARGET_MS = 2.0
BASELINE = "search in process"
ARGUMENTS = {"k": 4}


def queries(count: int, offset: int = 0) -> list[str]:
    return [
        f"{WORDS[i % len(WORDS)]} {WORDS[(7 * i + 3) % len(WORDS)]}"
        for i in range(offset, offset + count)
    ]


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds the processes ``pids`` have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def children() -> list[int]:
    """This process's child processes."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == os.getpid():
                found.append(int(entry.name))
    return found


def handshake_version() -> str:
    """The newest protocol version with the ``initialize`` handshake the SDK knows."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    return max(HANDSHAKE_PROTOCOL_VERSIONS)


def _initialize(request_id: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": handshake_version(),
            "capabilities": {},
            "clientInfo": {"name": "benchmarks/mcp.py", "version": "0"},
        },
    }


_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _search_request(request_id: int, text: str) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": text, **ARGUMENTS}},
        }
    ).encode()


def _check_reply(data: bytes, request_id: int) -> None:
    reply = json.loads(data)
    if reply.get("id") != request_id or "result" not in reply or reply["result"].get("isError"):
        raise RuntimeError(f"unexpected reply: {data[:300]!r}")


class RawStdio:
    """The minimal stdio client: ``ragline mcp`` in a child process, one JSON-RPC
    message per line each way, blocking pipe I/O."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)  # fmt: skip
        self._stdin, self._stdout = self.process.stdin, self.process.stdout
        self._next = 1
        self._send(json.dumps(_initialize(0)).encode())
        _check_initialized(self._stdout.readline())  # type: ignore[union-attr]
        self._send(json.dumps(_INITIALIZED).encode())

    def _send(self, line: bytes) -> None:
        self._stdin.write(line + b"\n")  # type: ignore[union-attr]
        self._stdin.flush()  # type: ignore[union-attr]

    def search(self, text: str) -> None:
        request_id, self._next = self._next, self._next + 1
        self._send(_search_request(request_id, text))
        _check_reply(self._stdout.readline(), request_id)  # type: ignore[union-attr]

    def close(self) -> None:
        self._stdin.close()  # type: ignore[union-attr]
        self.process.wait(30)


def _check_initialized(data: bytes) -> dict[str, Any]:
    reply = json.loads(data)
    if "result" not in reply:
        raise RuntimeError(f"initialize failed: {data[:300]!r}")
    return reply  # type: ignore[no-any-return]


class RawHTTP:
    """The minimal Streamable HTTP client: ``http.client`` on one keep-alive connection
    (Nagle off, as the SDK's client has it), each message one POST to ``/mcp``."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.reconnect()
        self.headers = {"Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream"}  # fmt: skip
        response, data = self._post("/mcp", json.dumps(_initialize(0)).encode())
        _check_initialized(data)
        self.headers["Mcp-Session-Id"] = response.getheader("mcp-session-id") or ""
        self.headers["MCP-Protocol-Version"] = handshake_version()
        response, _ = self._post("/mcp", json.dumps(_INITIALIZED).encode())
        if response.status != 202:
            raise RuntimeError(f"notifications/initialized answered {response.status}")
        self._next = 1

    def reconnect(self) -> None:
        """A new connection (the server closes one idle for 5 s: between rounds)."""
        self.connection.close()
        self.connection.connect()
        self.connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _post(self, path: str, body: bytes) -> tuple[http.client.HTTPResponse, bytes]:
        self.connection.request("POST", path, body=body, headers=self.headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status >= 300:
            raise RuntimeError(f"POST {path} answered {response.status}: {data[:300]!r}")
        return response, data

    def search(self, text: str) -> None:
        request_id, self._next = self._next, self._next + 1
        _, data = self._post("/mcp", _search_request(request_id, text))
        _check_reply(data, request_id)

    def retrieve(self, text: str) -> None:
        body = json.dumps({"input": {"query": text, **ARGUMENTS}}).encode()
        _, data = self._post("/retrieve/invoke", body)
        if len(json.loads(data)["output"]) != ARGUMENTS["k"]:
            raise RuntimeError(f"unexpected /retrieve reply: {data[:300]!r}")


def start_http_server(store: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "ragline.cli", "serve", "--store", str(store), "--mcp",
         "--port", str(port), "-q"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server, port
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            raise RuntimeError(f"ragline serve did not start: {server.stderr.read()!r}")  # type: ignore[union-attr]
        time.sleep(0.2)


class Measured:
    """Per path: every call's seconds, per-round medians, client and server CPU."""

    def __init__(self, names: list[str]) -> None:
        self.times: dict[str, list[float]] = {name: [] for name in names}
        self.rounds: dict[str, list[float]] = {name: [] for name in names}
        self.client_cpu = dict.fromkeys(names, 0.0)
        self.server_cpu = dict.fromkeys(names, 0.0)


async def run_rounds(store: Path, calls: int, rounds: int) -> tuple[Measured, str]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from ragline.serve._mcp import open_store_mcp

    tools = open_store_mcp(store, search_threads=1)
    env = {**process_env(), "OMP_NUM_THREADS": "1"}
    stdio_command = [sys.executable, "-m", "ragline.cli", "mcp", "--store", str(store), "-q"]
    server, port = start_http_server(store, env)
    raw_stdio = RawStdio(stdio_command, env)
    raw_http = RawHTTP(port)
    stdio = StdioServerParameters(command=stdio_command[0], args=stdio_command[1:], env=env)
    try:
        async with Client(stdio) as sdk_stdio, Client(f"http://127.0.0.1:{port}/mcp") as sdk_http:
            negotiated = f"SDK client: {sdk_stdio.protocol_version}; minimal client: " + (
                handshake_version()
            )

            async def sdk(client: Any, text: str) -> None:
                result = await client.call_tool("search", {"query": text, **ARGUMENTS})
                if result.is_error:
                    raise RuntimeError(f"search failed: {result}")

            async def in_process_tool(text: str) -> None:
                await tools.call("search", {"query": text, **ARGUMENTS})

            async def in_process_search(text: str) -> None:
                tools.search.invoke({"query": text, **ARGUMENTS})

            def blocking(call: Callable[[str], None]) -> Callable[[str], Awaitable[None]]:
                async def run(text: str) -> None:
                    call(text)

                return run

            paths: dict[str, Callable[[str], Awaitable[None]]] = {
                BASELINE: in_process_search,
                "tool in process": in_process_tool,
                "stdio, minimal client": blocking(raw_stdio.search),
                "stdio, SDK client": lambda text: sdk(sdk_stdio, text),
                "HTTP, minimal client": blocking(raw_http.search),
                "HTTP, SDK client": lambda text: sdk(sdk_http, text),
                "/retrieve, no MCP": blocking(raw_http.retrieve),
            }
            sdk_stdio_pids = [pid for pid in children()
                              if pid not in (server.pid, raw_stdio.process.pid)]  # fmt: skip
            servers = {
                "stdio, minimal client": [raw_stdio.process.pid],
                "stdio, SDK client": sdk_stdio_pids,
                "HTTP, minimal client": [server.pid],
                "HTTP, SDK client": [server.pid],
                "/retrieve, no MCP": [server.pid],
            }
            for name, call in paths.items():  # warm up: every code path, the passage table
                if name in ("HTTP, minimal client", "/retrieve, no MCP"):
                    raw_http.reconnect()
                for text in queries(20, 10_000):
                    await call(text)
            measured = Measured(list(paths))
            names = list(paths)
            for round_ in range(rounds):
                texts = queries(calls, round_ * calls)
                shift = round_ % len(names)
                for name in names[shift:] + names[:shift]:
                    call, pids = paths[name], servers.get(name, [])
                    if name in ("HTTP, minimal client", "/retrieve, no MCP"):
                        raw_http.reconnect()  # untimed, as a client keeps one open
                    mine, theirs = time.process_time(), cpu_seconds(pids)
                    times = []
                    for text in texts:
                        start = time.perf_counter()
                        await call(text)
                        times.append(time.perf_counter() - start)
                    measured.client_cpu[name] += time.process_time() - mine
                    measured.server_cpu[name] += cpu_seconds(pids) - theirs
                    measured.times[name] += times
                    measured.rounds[name].append(statistics.median(times))
        return measured, negotiated
    finally:
        raw_stdio.close()
        raw_http.connection.close()
        server.terminate()
        server.wait(10)


def report(
    measured: Measured, chunks: int, rounds: int, calls: int, load: tuple[float, float]
) -> None:
    times = measured.times
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    base = medians[BASELINE]
    count = rounds * calls
    base_cpu = measured.client_cpu[BASELINE] / count * 1000  # the search runs here
    print(f"search tool, k={ARGUMENTS['k']}, {chunks:,}-chunk store (hashing), {rounds} rounds "
          f"x {calls} calls per path; load average {load[0]:.2f} before, {load[1]:.2f} after "
          f"(1 min), {os.cpu_count()} cores")  # fmt: skip
    print(f"{'path':<24}{'median':>8}{'p90':>8}{'added':>8}{'spread':>15}"
          f"{'client CPU':>12}{'server CPU':>12}{'srv added':>11}")  # fmt: skip
    print(f"{'':<24}{'ms':>8}{'ms':>8}{'ms':>8}{'ms (p25-p75)':>15}"
          f"{'ms/call':>12}{'ms/call':>12}{'ms/call':>11}")  # fmt: skip
    for name, values in times.items():
        p90 = statistics.quantiles(values, n=10)[-1] * 1000
        per_round = [
            (mine - theirs) * 1000
            for mine, theirs in zip(measured.rounds[name], measured.rounds[BASELINE], strict=True)
        ]
        low, _, high = statistics.quantiles(per_round, n=4)
        client = measured.client_cpu[name] / count * 1000
        server = measured.server_cpu[name] / count * 1000
        in_process = name in (BASELINE, "tool in process")
        server_text = "-" if in_process else f"{server:.3f}"
        added_cpu = "-" if in_process else f"{server - base_cpu:+.3f}"
        print(f"{name:<24}{medians[name]:>8.3f}{p90:>8.3f}{medians[name] - base:>+8.3f}"
              f"{f'{low:+.2f}..{high:+.2f}':>15}{client:>12.3f}{server_text:>12}"
              f"{added_cpu:>11}")  # fmt: skip
    print(
        "(in process the search's CPU is the client column; server CPU is counted in "
        "clock ticks of 10 ms, summed over all the calls)"
    )
    for name in ("stdio, minimal client", "stdio, SDK client",
                 "HTTP, minimal client", "HTTP, SDK client"):  # fmt: skip
        added = medians[name] - base
        verdict = "met" if added <= TARGET_MS else "NOT met"
        print(f"{name}: {added:.3f} ms added per search call (target <= {TARGET_MS:g} ms: "
              f"{verdict})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--calls", type=int, default=25)
    args = parser.parse_args()
    if args.rounds < 2:
        parser.error("--rounds must be at least 2 (the spread needs two rounds)")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        build_store(store, args.chunks)
        before = os.getloadavg()[0]
        measured, negotiated = asyncio.run(run_rounds(store, args.calls, args.rounds))
        after = os.getloadavg()[0]
    report(measured, args.chunks, args.rounds, args.calls, (before, after))
    print(f"protocol versions: {negotiated}")


if __name__ == "__main__":
    main()
