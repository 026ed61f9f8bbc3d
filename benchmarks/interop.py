"""What the LangChain bridge (``ragline.interop.langchain``) adds to a call.

    .venv/bin/python benchmarks/interop.py [--chunks 10000] [--minilm-chunks 200]
        [--no-minilm] [--delay-ms 10] [--case-seconds 60] [--quick] [--repo PATH]
        [--full-path]

Each case calls an object directly and the same object through the bridge, in the same
process. Rounds alternate which side goes first (direct-bridged, then bridged-direct,
...), each side making ``calls`` calls; a case stops after its time limit
(``--case-seconds``, at least 3 rounds), so a loaded machine makes it noisier, never
endless. The overhead is given two ways, in percent: "fastest" compares each side's
fastest round, "paired" is the median over rounds of their ratio; the larger is held to
the target (at most 5%).

1. ``retriever.invoke`` (k=4) on a FAISS store (one search thread):
   - hashing embedding (dimension 384), ``--chunks`` chunks;
   - the packaged MiniLM (all-MiniLM-L6-v2, one torch thread), ``--minilm-chunks``
     chunks: each query is embedded by the local model, as in a real retriever.
   Each with ragline's retriever and ``to_langchain(retriever)``, and langchain-community's
   FAISS retriever over the same vectors and ``from_langchain(retriever)``. Clock: this
   process's CPU time (``time.process_time``): on a shared machine, waiting for a core
   is not the bridge's cost.
2. chat-model ``invoke`` of a local model: the OpenAI-protocol server the tests use
   (``tests/_openai_server.py``), run in a child process that answers each request after
   ``--delay-ms`` (default 10 ms), standing in for a model served on this machine (a
   local model takes at least that to answer; the server is not this process, so its
   time is the model's). Clock: wall time (``time.perf_counter``), since the answer's
   time is spent in the other process; the client's CPU time per call is printed too.
   langchain-openai's ``ChatOpenAI`` and ``from_langchain(model)``; ragline's
   ``ChatOpenAI`` and ``to_langchain(model)``.
3. the same chat models against the server answering at once (in this process; CPU
   time): the shortest call there is, where the bridge's fixed cost weighs most. Printed
   as a bound, not held to the target.

``--repo PATH`` benchmarks the ragline of another checkout (for before/after figures in
one session). ``--full-path`` also times ``to_langchain(retriever)`` through LangChain's
own ``BaseRetriever.invoke`` (the run bookkeeping the bridge skips when nobody listens),
printed as a bound. The load average is printed before and after each case, and whether
the ``to_langchain`` retriever shortcut is on.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")

TARGET = 5.0
MIN_ROUNDS = 3

Figures = tuple[float, float, float, int]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def paired(
    pairs: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]],
    *,
    calls: int,
    rounds: int,
    seconds: float,
    clock: Callable[[], float] = time.process_time,
) -> dict[str, Figures]:
    """Per pair (direct, bridged): the fastest round of each (seconds per call), the
    median over rounds of bridged / direct timed back to back in one round, and the
    number of rounds. Rounds alternate which side goes first; the pairs take turns, and
    rounds stop after ``seconds`` (wall time) once every pair has ``MIN_ROUNDS``."""
    for direct, bridged in pairs.values():
        for i in range(min(calls, 5)):
            direct(i)
            bridged(i)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in pairs}
    deadline = time.monotonic() + seconds
    for number in range(rounds):
        if number >= MIN_ROUNDS and time.monotonic() > deadline:
            break
        for name, (direct, bridged) in pairs.items():
            order = (0, 1) if number % 2 == 0 else (1, 0)
            spent = [0.0, 0.0]
            for side in order:
                function = (direct, bridged)[side]
                start = clock()
                for i in range(calls):
                    function(number * calls + i)
                spent[side] = (clock() - start) / calls
            times[name].append((spent[0], spent[1]))
    return {
        name: (
            min(d for d, _ in found),
            min(b for _, b in found),
            statistics.median(b / d for d, b in found),
            len(found),
        )
        for name, found in times.items()
    }


def _report(title: str, figures: Figures, *, judged: bool = True) -> float:
    """Print one line; the overhead judged is the larger of the two estimates."""
    direct, bridged, ratio, rounds = figures
    fastest, paired_median = (bridged / direct - 1) * 100, (ratio - 1) * 100
    overhead = max(fastest, paired_median)
    verdict = ("ok" if overhead <= TARGET else "OVER") if judged else "(bound)"
    print(
        f"  {title:<48} {direct * 1e3:8.3f} ms {bridged * 1e3:8.3f} ms"
        f"  {fastest:+6.1f}%  {paired_median:+6.1f}%  {rounds:3d}  {verdict}",
        flush=True,
    )
    return overhead if judged else float("-inf")


def _header(title: str) -> None:
    print(f"{title}  [load {load()}]", flush=True)
    print(f"  {'':<48} {'direct':>11} {'bridged':>11}  fastest  paired  rounds")


def retrievers(
    chunks: int, minilm: bool, calls: int, rounds: int, seconds: float, full_path: bool
) -> list[float]:
    import faiss
    from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

    from ragline.interop.langchain import from_langchain, to_langchain
    from ragline.vectorstores import FAISS

    faiss.omp_set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # langchain-community's notice
        from langchain_community.vectorstores import FAISS as LCFAISS

    if minilm:
        import torch

        from ragline.embeddings import HuggingFaceEmbeddings

        torch.set_num_threads(1)  # one thread: steadier on a shared machine
        embeddings: Any = HuggingFaceEmbeddings()
    else:
        from ragline.embeddings import HashingEmbeddings

        embeddings = HashingEmbeddings(dimension=384)
    texts = [
        f"note {i} on topic {i % 97}, filed under {i % 13} with {i * 7}" for i in range(chunks)
    ]
    vectors = embeddings.embed_documents(texts)
    store = FAISS.from_embeddings(list(zip(texts, vectors, strict=True)), embeddings)
    ours = store.as_retriever(search_kwargs={"k": 4})
    lc_embeddings = to_langchain(embeddings)  # both LangChain sides embed through it
    theirs = LCFAISS.from_embeddings(list(zip(texts, vectors, strict=True)), lc_embeddings)
    theirs_retriever = theirs.as_retriever(search_kwargs={"k": 4})
    queries = [f"topic {i} filed under {i % 13}" for i in range(100)]
    bridged_ours, bridged_theirs = to_langchain(ours), from_langchain(theirs_retriever)
    assert [d.page_content for d in bridged_ours.invoke(queries[0])] == [
        d.page_content for d in ours.invoke(queries[0])
    ]
    assert [d.page_content for d in bridged_theirs.invoke(queries[0])] == [
        d.page_content for d in theirs_retriever.invoke(queries[0])
    ]
    kind = "MiniLM (1 torch thread)" if minilm else "hashing-384"
    _header(f"retriever.invoke, {chunks:,} chunks, {kind}, CPU time")
    pairs = {
        "to": (
            lambda i: ours.invoke(queries[i % 100]),
            lambda i: bridged_ours.invoke(queries[i % 100]),
        ),
        "from": (
            lambda i: theirs_retriever.invoke(queries[i % 100]),
            lambda i: bridged_theirs.invoke(queries[i % 100]),
        ),
    }
    if full_path:
        # the to_langchain wrapper through LangChain's own BaseRetriever.invoke (its run
        # bookkeeping, no shortcut): what the shortcut saves, in the same run
        pairs["full"] = (
            lambda i: ours.invoke(queries[i % 100]),
            lambda i: LCBaseRetriever.invoke(bridged_ours, queries[i % 100]),
        )
    figures = paired(pairs, calls=calls, rounds=rounds, seconds=seconds)
    found = [
        _report("ragline retriever -> to_langchain", figures["to"]),
        _report("LangChain FAISS retriever -> from_langchain", figures["from"]),
    ]
    if full_path:
        _report("  to_langchain via LangChain's own invoke", figures["full"], judged=False)
    print(f"  [load {load()}]")
    return found


_SERVER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from tests._openai_server import CHAT_PATH, OpenAITestServer, _default_chat

delay = float(sys.argv[2])

def answer(request):
    reply = _default_chat(request)
    reply.delay = delay
    return reply

server = OpenAITestServer()
server.add_route(CHAT_PATH, answer)
# the reply's headers and body go out in two writes: without this, Nagle's algorithm
# holds the body until the client's delayed ACK (40 ms on Linux), not the model's time
server._server.RequestHandlerClass.disable_nagle_algorithm = True
server.requests = type("Nothing", (list,), {"append": lambda self, item: None})()
server.start()
print(server.base_url, flush=True)
sys.stdin.read()  # until the parent closes it
server.stop()
"""


def _chat_pairs(base_url: str) -> dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]]:
    from langchain_openai import ChatOpenAI as LCChatOpenAI

    from ragline.chat_models import ChatOpenAI
    from ragline.interop.langchain import from_langchain, to_langchain

    options: dict[str, Any] = {"base_url": base_url, "api_key": "local", "model": "local-model"}
    theirs, ours = LCChatOpenAI(**options), ChatOpenAI(**options)
    bridged_theirs, bridged_ours = from_langchain(theirs), to_langchain(ours)
    assert bridged_theirs.invoke("hi").content == theirs.invoke("hi").content == "echo: hi"
    assert bridged_ours.invoke("hi").content == ours.invoke("hi").content == "echo: hi"
    return {
        "from": (
            lambda i: theirs.invoke(f"question {i}"),
            lambda i: bridged_theirs.invoke(f"question {i}"),
        ),
        "to": (
            lambda i: ours.invoke(f"question {i}"),
            lambda i: bridged_ours.invoke(f"question {i}"),
        ),
    }


def chat_models(
    repo: Path, delay_ms: float, calls: int, rounds: int, seconds: float
) -> list[float]:
    # a local model: the server in a child process, answering after delay_ms
    child = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(repo), str(delay_ms / 1000)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        base_url = child.stdout.readline().strip()
        pairs = _chat_pairs(base_url)
        _header(f"chat-model invoke, local model (server answering after {delay_ms:g} ms)")
        wall = paired(pairs, calls=calls, rounds=rounds, seconds=seconds, clock=time.perf_counter)
        found = [
            _report("langchain-openai ChatOpenAI -> from_langchain (wall)", wall["from"]),
            _report("ragline ChatOpenAI -> to_langchain (wall)", wall["to"]),
        ]
        cpu = paired(pairs, calls=calls, rounds=MIN_ROUNDS, seconds=0)
        for name, title in (("from", "from_langchain"), ("to", "to_langchain")):
            direct, bridged = cpu[name][0], cpu[name][1]
            print(
                f"    client CPU per call, {title}: {direct * 1e3:.3f} -> "
                f"{bridged * 1e3:.3f} ms ({(bridged - direct) * 1e6:+.0f} us, "
                f"{(bridged - direct) / wall[name][0] * 100:+.1f}% of the direct call's time)"
            )
        print(f"  [load {load()}]")
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)

    # the bound: the server in this process, answering at once
    from tests._openai_server import OpenAITestServer

    with OpenAITestServer() as server:
        pairs = _chat_pairs(server.base_url)
        _header("chat-model invoke, loopback server answering at once, CPU time")
        figures = paired(pairs, calls=calls, rounds=rounds, seconds=seconds)
        server.requests.clear()
    _report("langchain-openai ChatOpenAI -> from_langchain", figures["from"], judged=False)
    _report("ragline ChatOpenAI -> to_langchain", figures["to"], judged=False)
    print(f"  [load {load()}]")
    return found


def shortcut() -> None:
    """Say whether to_langchain(retriever) may skip LangChain's run bookkeeping here (a
    tracing variable in the environment, or another langchain-core, turns it off)."""
    try:
        from ragline.interop.langchain import _unheard
    except ImportError:  # a checkout from before the shortcut
        print("to_langchain(retriever) shortcut: (not in this checkout)")
        return
    if _unheard.surely_unheard(None, {}, False):
        print("to_langchain(retriever) shortcut: on (no LangChain listener, sources as mirrored)")
    elif _unheard.mirrored_digest() != _unheard._MIRRORED_DIGEST:
        print("to_langchain(retriever) shortcut: OFF (langchain-core/langsmith sources differ)")
    else:
        print("to_langchain(retriever) shortcut: OFF (a listener or tracing is set up)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--minilm-chunks", type=int, default=200)
    parser.add_argument("--no-minilm", action="store_true", help="skip the MiniLM case")
    parser.add_argument("--delay-ms", type=float, default=10.0, help="the local model's time")
    parser.add_argument("--case-seconds", type=float, default=60.0, help="time limit per case")
    parser.add_argument("--quick", action="store_true", help="fewer calls and rounds")
    parser.add_argument("--repo", type=Path, help="the checkout to benchmark (this one)")
    parser.add_argument(
        "--full-path",
        action="store_true",
        help="also time to_langchain(retriever) through LangChain's own invoke (no shortcut)",
    )
    args = parser.parse_args()
    repo = (args.repo or HERE).resolve()
    sys.path.insert(0, str(repo))
    import ragline

    print(f"ragline from {Path(ragline.__file__).parent}")
    shortcut()
    calls, rounds = (20, 5) if args.quick else (40, 31)
    full = args.full_path
    overheads = retrievers(args.chunks, False, calls, rounds, args.case_seconds, full)
    if not args.no_minilm:
        overheads += retrievers(
            args.minilm_chunks, True, calls // 4, rounds, args.case_seconds, full
        )
    overheads += chat_models(repo, args.delay_ms, calls // 2, rounds, args.case_seconds)
    print(f"largest judged overhead: {max(overheads):+.1f}% (target: at most {TARGET:.0f}%)")


if __name__ == "__main__":
    main()
