"""Runnable core overhead: ragline against langchain-core, measured in the same run.

    .venv/bin/python benchmarks/runnables.py

Prints, for each measurement, ragline's figure, langchain-core's, and the ratio:

- import: a fresh interpreter importing RunnableLambda (best of 3), modules loaded;
- invoke: a three-step sequence of trivial lambdas, microseconds per call;
- invoke with a handler: the same with a run-recording callback handler attached;
- batch: 200 inputs through the same sequence, milliseconds per batch;
- stream: 2,000 chunks from a generator through a chunk-by-chunk step, microseconds
  per chunk.

The lambdas do no work, so the figures are the frameworks' own cost per call.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

IMPORTS = {
    "ragline": "from ragline.core import RunnableLambda",
    "langchain-core": "from langchain_core.runnables import RunnableLambda",
}


def import_cost(statement: str) -> tuple[float, int]:
    code = (
        "import sys, time\n"
        "start = time.perf_counter()\n"
        f"{statement}\n"
        "RunnableLambda(lambda x: x).invoke(1)\n"
        "print(time.perf_counter() - start, len(sys.modules))\n"
    )
    best, modules = float("inf"), 0
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        seconds, count = out.split()
        best, modules = min(best, float(seconds)), int(count)
    return best, modules


def per_call(func: Callable[[], Any], repeat: int) -> float:
    func()  # warm up
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeat):
            func()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


def build(framework: str) -> dict[str, Any]:
    if framework == "ragline":
        from ragline.core import RunCollectorCallbackHandler, RunnableLambda

        def handler() -> Any:
            return RunCollectorCallbackHandler()
    else:
        from langchain_core.runnables import RunnableLambda
        from langchain_core.tracers.run_collector import RunCollectorCallbackHandler as LCCollector

        def handler() -> Any:
            return LCCollector()

    sequence = (
        RunnableLambda(lambda x: x + 1)
        | RunnableLambda(lambda x: x * 2)
        | RunnableLambda(lambda x: x - 1)
    )

    def source(chunks: Any) -> Any:
        for _ in chunks:
            yield from ("tok" for _ in range(2000))

    def shout(chunks: Any) -> Any:
        for chunk in chunks:
            yield chunk.upper()

    streaming = RunnableLambda(lambda x: x) | source | shout
    return {"sequence": sequence, "handler": handler, "streaming": streaming}


def main() -> None:
    rows: list[tuple[str, float, float, str]] = []
    (r_time, r_mods), (l_time, l_mods) = (
        import_cost(IMPORTS[k]) for k in ("ragline", "langchain-core")
    )
    rows.append(("import + first invoke (ms)", r_time * 1e3, l_time * 1e3, ""))
    rows.append(("modules loaded", r_mods, l_mods, ""))

    ours, theirs = build("ragline"), build("langchain-core")
    for label, repeat, make in [
        ("invoke, 3-step sequence (us/call)", 2000, lambda b: lambda: b["sequence"].invoke(1)),
        (
            "invoke with a run collector (us/call)",
            1000,
            lambda b: lambda: b["sequence"].invoke(1, {"callbacks": [b["handler"]()]}),
        ),
    ]:
        rows.append(
            (label, per_call(make(ours), repeat) * 1e6, per_call(make(theirs), repeat) * 1e6, "")
        )

    inputs = list(range(200))
    rows.append(
        (
            "batch of 200 (ms/batch)",
            per_call(lambda: ours["sequence"].batch(inputs), 5) * 1e3,
            per_call(lambda: theirs["sequence"].batch(inputs), 5) * 1e3,
            "",
        )
    )
    for bundle in (ours, theirs):
        assert sum(1 for _ in bundle["streaming"].stream("go")) == 2000
    rows.append(
        (
            "stream 2,000 chunks (us/chunk)",
            per_call(lambda: sum(1 for _ in ours["streaming"].stream("go")), 5) / 2000 * 1e6,
            per_call(lambda: sum(1 for _ in theirs["streaming"].stream("go")), 5) / 2000 * 1e6,
            "",
        )
    )

    import langchain_core

    print(f"python {sys.version.split()[0]}, langchain-core {langchain_core.__version__}")
    print(f"{'measure':40} {'ragline':>10} {'lc-core':>10} {'lc/ragline':>11}")
    for label, mine, other, _ in rows:
        print(f"{label:40} {mine:10.1f} {other:10.1f} {other / mine:10.2f}x")


if __name__ == "__main__":
    main()
