"""Serving figures: what a request through ``ragline serve`` adds to a search, what a
shell query saves by asking a running server, a load test, and LangServe side by side.

    .venv/bin/python benchmarks/serve.py [--chunks 10000] [--quick] [--no-minilm]

1. retrieve latency: the same similarity search (k=4) on the same 10,000-chunk store
   folder (hashing embedding), called in-process (``FolderSearch.invoke``) and through
   ``POST /retrieve/invoke`` on a server in another process (one client, the standard
   library's ``http.client`` on one keep-alive connection);
   medians and the added milliseconds (target: at most 1 ms added). Both sides search
   with one FAISS thread, as ``ragline serve`` does.
2. ``ragline query --server`` against a cold ``ragline query --store`` (each a new
   process, as from a shell), on the hashing store and on a small MiniLM store (the
   default embedding: the model load a server saves); target: at least 20x faster.
3. load: 32 concurrent clients send 2,000 ``/retrieve`` requests and 200 streamed
   ``/ask`` requests (a scripted model writing a 120-character answer, 2 ms per
   character) to the 10,000-chunk server; errors (must be 0), p50 / p99 per kind.
   Then one hostile client among 32: 31 clients send /retrieve requests alone, then
   while the 32nd sends the largest allowed batch (100 MMR searches at k=100,
   fetch_k=1,000) over and over; the 31's p50 / p99 in both runs and their ratio.
4. LangServe, if installed: ``prompt | fake chat model | parser`` served by LangServe
   (langchain-core's classes) and by ragline (ragline's), 8 concurrent clients,
   ``/invoke`` and ``/stream`` requests per second.

Servers run in their own processes on 127.0.0.1 and stop at the end; every loop is
bounded in count and time. The machine's load average is printed with the figures: on
a shared machine they move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))  # also when a test loads this file by path

from _timing import best_of, process_env  # noqa: E402

WORDS = [
    "volcano",
    "lava",
    "crater",
    "magma",
    "eruption",
    "glacier",
    "river",
    "delta",
    "canyon",
    "plateau",
    "desert",
    "dune",
    "oasis",
    "forest",
    "canopy",
    "fern",
    "moss",
    "lichen",
    "tide",
    "current",
    "reef",
    "coral",
    "harbour",
    "lighthouse",
    "beacon",
    "storm",
    "thunder",
    "breeze",
    "monsoon",
    "drought",
    "harvest",
    "orchard",
    "vineyard",
    "meadow",
    "prairie",
    "tundra",
    "summit",
    "ridge",
    "valley",
    "basin",
    "marsh",
    "swamp",
    "estuary",
    "lagoon",
    "island",
    "peninsula",
    "archipelago",
    "comet",
    "orbit",
]
ANSWER = "Olympus Mons on Mars is the largest volcano in the solar system, about 22 km high; " + (
    "it is a shield volcano."
)


def build_store(folder: Path, chunks: int, *, seed: int = 7) -> None:
    """A store folder of ``chunks`` synthetic chunks (ten per source file), hashing
    embedding: built in seconds, searched like any store."""
    from ragline.core import Document
    from ragline.store_folder import StoreFolder

    rng = random.Random(seed)
    documents = [
        Document(
            " ".join(rng.choice(WORDS) for _ in range(60)),
            metadata={"source": f"notes/file{i // 10:04d}.txt", "start_index": 400 * (i % 10)},
        )
        for i in range(chunks)
    ]
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(documents)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


SERVER_SCRIPT = """
import sys
from ragline.core import FakeListChatModel
from ragline.serve import create_store_app, run_server
model = FakeListChatModel(responses=[{answer!r}], sleep={sleep})
app = create_store_app({folder!r}, model=model)
run_server(app, port={port}, log_level="error")
"""


def wait_until_up(url: str, process: subprocess.Popen[str], timeout: float = 180) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {process.communicate()}")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up in {timeout} s")


@contextmanager
def python_server(script: str, health: str) -> Iterator[str]:
    """Run ``script`` (which serves on the port it is formatted with) in a subprocess;
    yields the base URL; stops the process at the end."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", script.replace("{port}", str(port))],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        text=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url + health, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def store_server(folder: Path, *, sleep: float = 0.002) -> Any:
    script = SERVER_SCRIPT.format(answer=ANSWER, sleep=sleep, folder=str(folder), port="{port}")
    return python_server(script, "/healthz")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


# the largest request ragline serve allows by default: a full batch (max_batch_size 100)
# of MMR searches at max_k 100 and max_fetch_k 1,000
HOSTILE_BATCH = {"inputs": [{"query": "volcano lava crater", "search_type": "mmr", "k": 100,
                             "fetch_k": 1_000}] * 100}  # fmt: skip


async def _load(
    url: str,
    *,
    clients: int,
    retrieves: int,
    asks: int,
    deadline: float,
    seed: int = 11,
    hostile: bool = False,
) -> dict[str, Any]:
    """``clients`` workers share the requests; with ``hostile``, one more client sends
    the largest allowed batch again and again until the others are done."""
    import httpx

    rng = random.Random(seed)
    jobs = ["retrieve"] * retrieves + ["ask"] * asks
    rng.shuffle(jobs)
    queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    for kind in jobs:
        queue.put_nowait((kind, " ".join(rng.sample(WORDS, 3))))
    latencies: dict[str, list[float]] = {"retrieve": [], "ask": [], "ask_first": []}
    errors: list[str] = []

    async def one(client: httpx.AsyncClient, kind: str, query: str) -> None:
        start = time.perf_counter()
        if kind == "retrieve":
            body = {"input": {"query": query, "k": 4}}
            response = await client.post(url + "/retrieve/invoke", json=body)
            if response.status_code != 200 or len(response.json()["output"]) != 4:
                errors.append(f"retrieve {response.status_code}: {response.text[:80]}")
            latencies["retrieve"].append(time.perf_counter() - start)
            return
        first, text, ended = None, "", False
        body = {"input": {"input": query}}
        async with client.stream("POST", url + "/ask/stream", json=body) as response:
            event = ""
            async for line in response.aiter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                    ended = ended or event == "end"
                    if event == "error":
                        errors.append("ask error event")
                elif line.startswith("data: ") and event == "data":
                    chunk = json.loads(line[6:])
                    if "answer" in chunk:
                        first = first or time.perf_counter() - start
                        text += chunk["answer"]
        if response.status_code != 200 or not ended or text != ANSWER:
            errors.append(f"ask {response.status_code}: ended={ended} answer={text[:40]!r}")
        latencies["ask"].append(time.perf_counter() - start)
        latencies["ask_first"].append(first if first is not None else float("nan"))

    async def worker() -> None:
        async with httpx.AsyncClient(timeout=60) as client:
            while not queue.empty() and time.monotonic() < deadline:
                kind, query = queue.get_nowait()
                try:
                    await one(client, kind, query)
                except Exception as err:  # counted, never hidden
                    errors.append(f"{kind}: {type(err).__name__}: {err}")

    hostile_seconds: list[float] = []
    finished = asyncio.Event()

    async def attacker() -> None:
        async with httpx.AsyncClient(timeout=120) as client:
            while not finished.is_set() and time.monotonic() < deadline:
                start = time.perf_counter()
                response = await client.post(url + "/retrieve/batch", json=HOSTILE_BATCH)
                if response.status_code != 200 or len(response.json()["output"]) != 100:
                    errors.append(f"hostile batch {response.status_code}: {response.text[:80]}")
                hostile_seconds.append(time.perf_counter() - start)

    async def everyone() -> None:
        await asyncio.gather(*(worker() for _ in range(clients)))
        finished.set()

    started = time.perf_counter()
    await asyncio.gather(everyone(), *([attacker()] if hostile else []))
    unfinished = queue.qsize()
    if unfinished:
        errors.append(f"{unfinished} requests not sent before the time limit")
    return {"seconds": time.perf_counter() - started, "errors": errors,
            "hostile": hostile_seconds, **latencies}  # fmt: skip


def run_load(
    url: str,
    *,
    clients: int = 32,
    retrieves: int = 2000,
    asks: int = 200,
    limit: float = 600,
    hostile: bool = False,
) -> dict[str, Any]:
    """32 concurrent clients (one process, asyncio), bounded by count and ``limit`` s."""
    deadline = time.monotonic() + limit
    load = _load(url, clients=clients, retrieves=retrieves, asks=asks, deadline=deadline,
                 hostile=hostile)  # fmt: skip
    return asyncio.run(load)


def run_hostile(url: str, *, retrieves: int, limit: float = 300) -> dict[str, Any]:
    """One hostile client among 32: 31 clients send ``retrieves`` /retrieve requests,
    first alone, then while the 32nd sends the largest allowed MMR batch over and
    over; both runs' results."""
    calm = run_load(url, clients=31, retrieves=retrieves, asks=0, limit=limit)
    stormy = run_load(url, clients=31, retrieves=retrieves, asks=0, limit=limit, hostile=True)
    return {"calm": calm, "hostile": stormy}


def format_hostile(result: dict[str, Any]) -> str:
    calm, stormy = result["calm"], result["hostile"]
    p99 = [1000 * percentile(run["retrieve"], 0.99) for run in (calm, stormy)]
    p50 = [1000 * percentile(run["retrieve"], 0.5) for run in (calm, stormy)]
    batches = stormy["hostile"]
    return "\n".join([
        f"  31 clients alone:            retrieve p50 {p50[0]:7.1f} ms   p99 {p99[0]:7.1f} ms",
        f"  with one hostile client:     retrieve p50 {p50[1]:7.1f} ms   p99 {p99[1]:7.1f} ms"
        f"   (p99 x{p99[1] / p99[0]:.2f})",
        f"  hostile: {len(batches)} batches of 100 MMR (k=100, fetch_k=1000), median "
        f"{statistics.median(batches) if batches else float('nan'):.2f} s each; errors: "
        f"{len(calm['errors']) + len(stormy['errors'])}",
        *[f"    error: {e}" for e in (calm["errors"] + stormy["errors"])[:5]],
    ])  # fmt: skip


def format_load(result: dict[str, Any]) -> str:
    ms = lambda values, q: 1000 * percentile(values, q)  # noqa: E731
    lines = [
        f"  {len(result['retrieve'])} retrieve + {len(result['ask'])} streamed ask in "
        f"{result['seconds']:.1f} s, errors: {len(result['errors'])}",
        f"  retrieve  p50 {ms(result['retrieve'], 0.5):7.1f} ms   p99 "
        f"{ms(result['retrieve'], 0.99):7.1f} ms",
        f"  ask       p50 {ms(result['ask'], 0.5):7.1f} ms   p99 {ms(result['ask'], 0.99):7.1f} ms"
        f"   (first answer chunk p50 {ms(result['ask_first'], 0.5):.1f} ms)",
    ]
    lines += [f"    error: {e}" for e in result["errors"][:5]]
    return "\n".join(lines)


# ---------------------------------------------------------------- the parts


def retrieve_latency(folder: Path, url: str, requests: int) -> None:
    import http.client

    import faiss

    from ragline.serve import FolderSearch
    from ragline.store_folder import open_store

    faiss.omp_set_num_threads(1)  # as create_store_app does: the same search on both sides
    search = FolderSearch(open_store(folder))
    queries = [" ".join(random.Random(i).sample(WORDS, 3)) for i in range(requests)]
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)  # keep-alive

    def post(query: str) -> None:
        body = json.dumps({"input": {"query": query, "k": 4}})
        connection.request("POST", "/retrieve/invoke", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == 200 and len(json.loads(response.read())["output"]) == 4

    local, remote = [], []
    for query in queries[:20]:  # warm both
        search.invoke({"query": query, "k": 4})
        post(query)
    for query in queries:  # interleaved: load bursts hit both alike
        start = time.perf_counter()
        search.invoke({"query": query, "k": 4})
        local.append(time.perf_counter() - start)
        start = time.perf_counter()
        post(query)
        remote.append(time.perf_counter() - start)
    connection.close()
    in_process, served = statistics.median(local), statistics.median(remote)
    print(f"retrieve, {requests} requests, k=4, one keep-alive client (http.client)")
    print(f"  in-process   median {1000 * in_process:6.2f} ms")
    p99 = 1000 * percentile(remote, 0.99)
    print(f"  via server   median {1000 * served:6.2f} ms   (p99 {p99:.2f} ms)")
    print(f"  added        median {1000 * (served - in_process):6.2f} ms   (target <= 1 ms)")


def cli_seconds(*args: str, repeat: int) -> float:
    def run() -> None:
        subprocess.run(
            [sys.executable, "-m", "ragline.cli", "query", "volcano lava", *args],
            cwd=REPO,
            env=process_env(),
            capture_output=True,
            check=True,
        )

    run()  # untimed: writes the bytecode the timed runs read
    return best_of(repeat, run)[0]


def cli_comparison(name: str, folder: Path, url: str, repeat: int, *, torch: bool = False) -> None:
    """``--server`` against a cold ``--store`` query (and, ``torch``: against the cold
    query on the torch backend, what ``ragline query`` was before the ONNX backend)."""
    cold = cli_seconds("--store", str(folder), repeat=repeat)
    served = cli_seconds("--server", url, repeat=repeat)
    start = python_start_seconds(repeat)
    print(f"ragline query, {name} store (best of {repeat} processes)")
    print(f"  cold --store  {cold:6.3f} s")
    if torch:
        slow = cli_seconds("--store", str(folder), "--embedding", "minilm-torch", repeat=repeat)
        print(f"  cold --store --embedding minilm-torch  {slow:6.3f} s")
    print(f"  --server      {served:6.3f} s   {cold / served:5.1f}x faster   (target >= 20x)")
    if torch:
        print(f"                          {slow / served:5.1f}x faster than the torch cold query")
    print(
        f"  (python -c pass: {start:.3f} s; --server is {served / start:.1f}x Python's own start)"
    )


def python_start_seconds(repeat: int) -> float:
    """An interpreter that starts and exits: the floor of any command in Python."""

    def run() -> None:
        subprocess.run([sys.executable, "-c", "pass"], check=True)

    run()  # untimed, as for the commands
    return best_of(repeat, run)[0]


def minilm_store(root: Path) -> Path:
    from ragline.store_folder import index_paths

    corpus = root / "minilm-corpus"
    corpus.mkdir()
    for i in range(20):
        words = random.Random(i).sample(WORDS, 30)
        (corpus / f"note{i}.txt").write_text(" ".join(words), encoding="utf-8")
    folder = root / "minilm-store"
    index_paths([corpus], folder)  # the default embedding (MiniLM; ONNX when installed)
    return folder


LANGSERVE_SCRIPT = """
from fastapi import FastAPI
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langserve import add_routes
import uvicorn
chain = (ChatPromptTemplate.from_messages([("human", "{question}")])
         | FakeListChatModel(responses=[ANSWER]) | StrOutputParser())
app = FastAPI()
add_routes(app, chain, path="/chain")
uvicorn.run(app, host="127.0.0.1", port={port}, log_level="error")
"""
RAGLINE_SCRIPT = """
from ragline.core import ChatPromptTemplate, FakeListChatModel, StrOutputParser
from ragline.serve import add_routes, create_app, run_server
chain = (ChatPromptTemplate.from_messages([("human", "{question}")])
         | FakeListChatModel(responses=[ANSWER]) | StrOutputParser())
app = create_app()
add_routes(app, chain, path="/chain")
run_server(app, port={port}, log_level="error")
"""


async def _throughput(url: str, endpoint: str, requests: int, clients: int) -> float:
    import httpx

    body = {"input": {"question": "How high is Olympus Mons?"}}
    left = list(range(requests))

    async def worker() -> None:
        async with httpx.AsyncClient(timeout=60) as client:
            while left:
                left.pop()
                response = await client.post(f"{url}/chain/{endpoint}", json=body)
                assert response.status_code == 200, response.text[:200]

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return requests / (time.perf_counter() - start)


def langserve_comparison(requests: int) -> None:
    try:
        import langserve  # noqa: F401
    except ImportError:
        print("LangServe: not installed (pip install langserve sse-starlette); skipped")
        return
    answer = f"ANSWER = {ANSWER!r}\n"
    figures: dict[str, dict[str, float]] = {}
    for name, script in (("LangServe", LANGSERVE_SCRIPT), ("ragline", RAGLINE_SCRIPT)):
        code = answer + textwrap.dedent(script)
        with python_server(code, "/chain/input_schema") as url:
            asyncio.run(_throughput(url, "invoke", 20, 4))  # warm up
            figures[name] = {
                endpoint: asyncio.run(_throughput(url, endpoint, requests, 8))
                for endpoint in ("invoke", "stream")
            }
    print(f"prompt | fake chat model | parser, {requests} requests, 8 concurrent clients")
    for endpoint in ("invoke", "stream"):
        theirs, ours = figures["LangServe"][endpoint], figures["ragline"][endpoint]
        print(f"  /{endpoint:<7} LangServe {theirs:7.1f} req/s   ragline {ours:7.1f} req/s   "
              f"({ours / theirs:.2f}x)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--no-minilm", action="store_true", help="skip the MiniLM store")
    args = parser.parse_args()
    chunks = 1_000 if args.quick else args.chunks
    retrieves, asks = (200, 20) if args.quick else (2_000, 200)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    root = Path(tempfile.mkdtemp(prefix="ragline-serve-bench-"))
    try:
        started = time.perf_counter()
        build_store(root / "store", chunks)
        print(f"store: {chunks} chunks (hashing) built in {time.perf_counter() - started:.1f} s")
        with store_server(root / "store") as url:
            retrieve_latency(root / "store", url, 100 if args.quick else 500)
            cli_comparison(f"{chunks}-chunk hashing", root / "store", url, 3)
            print(f"load: 32 clients (load average {os.getloadavg()[0]:.1f})")
            print(format_load(run_load(url, retrieves=retrieves, asks=asks)))
            print(f"one hostile client among 32 (load average {os.getloadavg()[0]:.1f})")
            print(format_hostile(run_hostile(url, retrieves=retrieves)))
        if not args.no_minilm:
            folder = minilm_store(root)
            with store_server(folder) as url:
                cli_comparison("20-file MiniLM", folder, url, 3, torch=True)
        langserve_comparison(100 if args.quick else 500)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
