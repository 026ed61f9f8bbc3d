"""What MCP adds to a search: the ``search`` tool called through the official SDK's
client over stdio (``ragline mcp``) and over Streamable HTTP (``ragline serve --mcp``),
against the same search in process.

    .venv/bin/python benchmarks/mcp.py [--chunks 10000] [--calls 300] [--rounds 3]

The store folder is ``benchmarks/serve.py``'s synthetic one (hashing embedding). Each
server runs in its own process (as a client would start it) with one FAISS thread; the
client sends one call at a time on one session. Baselines, in this process:

- ``tool in process``: ``StoreMCP.call("search", ...)``: the search plus building the
  tool's result, everything the servers do but the protocol;
- ``FolderSearch.invoke``: the search alone (what ``/retrieve`` runs);

and, on the HTTP server, ``POST /retrieve/invoke`` with httpx (the same search over
plain HTTP, no MCP): what HTTP itself costs on this machine in this run.

The figures are medians over ``rounds`` rounds of ``calls`` calls, the rounds
interleaved over the three paths so that a busy machine weighs on each alike; "added"
is a transport's median minus the tool's in process (target: at most 2 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from _timing import process_env  # noqa: E402
from serve import WORDS, build_store  # noqa: E402

# this file's name is the SDK's package name: with the helpers imported, its folder
# leaves the path (serve.py put it first too), so that `import mcp` finds the SDK
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != BENCHMARKS]

TARGET_MS = 2.0


def queries(count: int) -> list[str]:
    return [f"{WORDS[i % len(WORDS)]} {WORDS[(7 * i + 3) % len(WORDS)]}" for i in range(count)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds the processes ``pids`` have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def children() -> list[int]:
    """This process's child processes (the stdio server)."""
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


async def timed_calls(call: Any, texts: list[str]) -> list[float]:
    times = []
    for text in texts:
        start = time.perf_counter()
        await call(text)
        times.append(time.perf_counter() - start)
    return times


cpu: dict[str, float] = {}  # CPU seconds of this process (the client), per path
server_cpu: dict[str, float] = {}  # and of the server process


async def run_rounds(store: Path, calls: int, rounds: int) -> dict[str, list[float]]:
    import httpx
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from ragline.serve._mcp import open_store_mcp

    tools = open_store_mcp(store, search_threads=1)
    arguments = {"k": 4}

    async def in_process(text: str) -> None:
        await tools.call("search", {"query": text, **arguments})

    async def folder_search(text: str) -> None:
        tools.search.invoke({"query": text, **arguments})

    env = {**process_env(), "OMP_NUM_THREADS": "1"}
    command = ["-m", "ragline.cli", "mcp", "--store", str(store), "-q"]
    stdio = StdioServerParameters(command=sys.executable, args=command, env=env)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "ragline.cli", "serve", "--store", str(store), "--mcp",
         "--port", str(port), "-q"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"ragline serve did not start: {server.stderr.read()!r}")  # type: ignore[union-attr]
            time.sleep(0.2)
        async with Client(stdio) as over_stdio, Client(f"http://127.0.0.1:{port}/mcp") as over_http:

            async def via_stdio(text: str) -> None:
                result = await over_stdio.call_tool("search", {"query": text, **arguments})
                assert not result.is_error, result

            async def via_http(text: str) -> None:
                result = await over_http.call_tool("search", {"query": text, **arguments})
                assert not result.is_error, result

            plain = httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}")

            async def via_retrieve(text: str) -> None:
                body = {"input": {"query": text, **arguments}}
                response = await plain.post("/retrieve/invoke", json=body)
                assert response.status_code == 200, response.text

            paths: dict[str, Any] = {
                "FolderSearch.invoke": folder_search,
                "tool in process": in_process,
                "stdio": via_stdio,
                "HTTP": via_http,
                "HTTP /retrieve, no MCP": via_retrieve,
            }
            warm = queries(30)
            for call in paths.values():
                await timed_calls(call, warm)
            stdio_pids = [pid for pid in children() if pid != server.pid]
            servers = {"stdio": stdio_pids, "HTTP": [server.pid],
                       "HTTP /retrieve, no MCP": [server.pid]}  # fmt: skip
            times: dict[str, list[float]] = {name: [] for name in paths}
            cpu.update(dict.fromkeys(paths, 0.0))
            server_cpu.update(dict.fromkeys(paths, 0.0))
            for round_ in range(rounds):
                texts = queries(calls + round_)[round_:]
                for name, call in paths.items():
                    mine, theirs = time.process_time(), cpu_seconds(servers.get(name, []))
                    times[name] += await timed_calls(call, texts)
                    cpu[name] += time.process_time() - mine
                    server_cpu[name] += cpu_seconds(servers.get(name, [])) - theirs
        await plain.aclose()
        return times
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        build_store(store, args.chunks)
        times = asyncio.run(run_rounds(store, args.calls, args.rounds))
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    base = medians["tool in process"]
    load = os.getloadavg()[0]
    print(f"search tool, k=4, {args.chunks:,}-chunk store (hashing), "
          f"{args.rounds} x {args.calls} calls per path, load average {load:.2f}")  # fmt: skip
    print(f"{'path':<22}{'median ms':>10}{'p90 ms':>9}{'added ms':>10}{'x tool':>8}"
          f"{'client CPU ms':>15}{'server CPU ms':>15}")  # fmt: skip
    for name, values in times.items():
        p90 = statistics.quantiles(values, n=10)[-1] * 1000
        added = medians[name] - base
        mine, theirs = (cpu[name] / len(values) * 1000, server_cpu[name] / len(values) * 1000)
        print(f"{name:<22}{medians[name]:>10.3f}{p90:>9.3f}{added:>+10.3f}"
              f"{medians[name] / base:>8.2f}{mine:>15.3f}{theirs:>15.3f}")  # fmt: skip
    print(
        "(CPU ms per call: this process's (the SDK client's) and the server process's; "
        "on a loaded machine they move less than the wall-clock figures)"
    )
    for name in ("stdio", "HTTP"):
        added = medians[name] - base
        verdict = "met" if added <= TARGET_MS else "NOT met"
        print(
            f"{name}: {added:.3f} ms added per search call (target <= {TARGET_MS:g} ms: {verdict})"
        )


if __name__ == "__main__":
    main()
