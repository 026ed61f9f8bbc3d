"""Timing helpers the benchmark scripts share (imported as ``_timing``: a script's own
folder is first on ``sys.path``)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def stdlib_files(count: int) -> list[Path]:
    """The first ``count`` Python files of this interpreter's standard library (sorted
    paths, test folders and site-packages left out): the indexing benchmarks' corpus."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = [
        path
        for path in sorted(root.rglob("*.py"))
        if not {"test", "tests", "idle_test", "site-packages"} & set(path.relative_to(root).parts)
    ]
    return files[:count]


def copy_stdlib_files(count: int, folder: Path) -> list[Path]:
    """A private copy of ``stdlib_files(count)`` under ``folder`` (their relative paths
    kept); returns the original paths."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = stdlib_files(count)
    for path in files:
        target = folder / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    return files


def process_env(repo: Path = REPO) -> dict[str, str]:
    """The environment of timed ``ragline`` processes: ``repo`` (this checkout unless
    told) first on the path, bytecode caching on as in an installed package (some shells
    here set PYTHONDONTWRITEBYTECODE, which makes every process compile ragline's
    sources again: tenths of a second that no user pays)."""
    env = {**os.environ, "PYTHONPATH": str(repo)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def checkouts_parser(description: str, *, rounds: int, per_case: str) -> argparse.ArgumentParser:
    """The options of a script that times checkouts against each other in child
    processes (:func:`child_runs`): ``--checkout`` (repeatable), ``--rounds``,
    ``--per-case`` (``per_case`` is its help), ``--minilm`` and the hidden ``--child``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--checkout", action="append", default=[], help="a ragline checkout")
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--per-case", type=int, default=200, help=per_case)
    parser.add_argument("--minilm", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return parser


def child_runs(
    script: str | Path, checkouts: Sequence[Path], arguments: Sequence[str], *, rounds: int
) -> list[list[Any]]:
    """Run ``script --child *arguments`` ``rounds`` times in each checkout, alternately.

    Each run is a fresh process whose path starts with its checkout (``process_env``);
    the order of the checkouts is reversed every other round (ABBA), so a drift in the
    machine's load weighs on every checkout alike. A checkout given twice is run twice:
    a control pair. Prints the load average before and after.

    Returns:
        For each checkout, in the order given, the JSON each of its runs printed on its
        last line of stdout, in the order run.
    """
    slots = range(len(checkouts))
    runs: list[list[Any]] = [[] for _ in slots]
    print(f"load average at start: {os.getloadavg()}")
    for round_ in range(rounds):
        for slot in slots if round_ % 2 == 0 else reversed(slots):
            out = subprocess.run(
                [sys.executable, str(script), "--child", *arguments],
                env=process_env(checkouts[slot]),
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            runs[slot].append(json.loads(out.splitlines()[-1]))
    print(f"load average at end: {os.getloadavg()}")
    return runs


def fastest(runs: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each case's least figure over ``runs`` (dicts from case to a time)."""
    best: dict[str, float] = {}
    for run in runs:
        for case, figure in run.items():
            best[case] = min(best.get(case, float("inf")), figure)
    return best


def best_of(repeat: int, function: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of ``repeat`` calls of ``function`` (seconds) and its last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def import_time(statement: str, *, repeat: int = 3) -> float:
    """The fastest of ``repeat`` runs of ``statement`` in a fresh interpreter (seconds)."""
    code = f"import time; s = time.perf_counter(); {statement}; print(time.perf_counter() - s)"
    best = float("inf")
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-W", "ignore", "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        )
        best = min(best, float(out.stdout.strip().splitlines()[-1]))
    return best


def interleaved(
    functions: dict[str, Callable[[int], Any]],
    *,
    calls: int,
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Seconds per call of each function, measured round-robin on a shared machine.

    Each round times ``calls`` calls of every function in turn (``function(i)`` with the
    call's index, to vary the input); a function's figure is its fastest round, so a
    burst of load from other processes hurts every competitor's figure alike or none.
    ``clock=time.process_time`` counts this process's CPU time instead of wall time
    (steadier when other processes compete for the cores).
    """
    for function in functions.values():
        for i in range(min(calls, 20)):  # warm up
            function(i)
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(rounds):
        for name, function in functions.items():
            start = clock()
            for i in range(calls):
                function(i)
            best[name] = min(best[name], (clock() - start) / calls)
    return best


async def ainterleaved(
    functions: dict[str, Callable[[int], Any]],
    *,
    calls: int,
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """:func:`interleaved` for coroutine functions (each call awaited in turn)."""
    for function in functions.values():
        for i in range(min(calls, 5)):
            await function(i)
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(rounds):
        for name, function in functions.items():
            start = clock()
            for i in range(calls):
                await function(i)
            best[name] = min(best[name], (clock() - start) / calls)
    return best
