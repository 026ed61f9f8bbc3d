"""Crash convergence at scale: random SIGKILLs against every store and the CLI.

For each scenario (``tests/_crash.py``: ``redis`` = ``index()`` into Redis with a SQLite
record file, ``redis-async`` = the same with ``aindex()``, ``memory`` = ``index()`` into an
``InMemoryVectorStore`` with a SQLite record file (the store dies with each process, the
records stay), ``folder`` = a store folder
(FAISS on disk and its records) through ``StoreFolder.writer()``, ``cli`` =
``ragline index`` run in a child process, ``cli-exec`` = ``python -m ragline.cli index``
as a fresh interpreter) it repeats rounds of:

1. one to three runs, each on a new version of the corpus (paragraphs edited, files
   removed and added, old texts coming back), each killed with SIGKILL: at a random
   write point (the child kills itself there; the points are every write it makes, see
   ``tests/_crash.py``), or for ``cli-exec`` by the parent after a random delay;
2. one more run on the corpus as it is now, not killed (for ``memory`` in this process,
   where the check can see its store);
3. a check that the store equals a fresh index of that corpus (same ids and texts,
   nothing extra or missing, every chunk recorded, nothing pending, no leftover files).

It prints, per scenario, the runs, the kills that landed, and how many checks converged
(all of them, or the script exits with status 1 and prints what differed).

Usage:
    .venv/bin/python benchmarks/crash_convergence.py [--kills 50] [--files 12] [--seed 1]
                                                     [--scenarios redis,folder,cli,...]
                                                     [--redis-url URL]

Without ``--redis-url`` (or ``$RAGLINE_REDIS_URL``) it starts a Redis Stack server with
``scripts/redis-stack.sh`` on a free port and stops it at the end.

Figures (``--kills 60``, 12-file corpus of ~25 chunks, hashing embedding; the shared
2-core machine at load average 1.0 at the start and 2.9 at the end; 3 min 31 s in all)::

    scenario      runs  kills  checks  converged    time
    redis          113     62      40         40      9s
    redis-async    109     60      39         39     17s
    memory         110     62      41         41      6s
    folder          98     61      34         34     19s
    cli            106     62      39         39     12s
    cli-exec       225     61      79         79    144s

``cli-exec`` kills land anywhere in the process's life, interpreter start-up included
(about half of a run's wall time there), so its kills are less searching than the
write-point kills of ``cli``; both converge every time.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# this folder holds benchmarks/redis.py, which would shadow the redis package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO_ROOT / "benchmarks"]
sys.path.insert(0, str(REPO_ROOT))

from tests._crash import (  # noqa: E402
    SCENARIOS,
    Setup,
    Tally,
    check,
    converge,
    drop,
    exec_cli,
    new_setup,
    trial,
    write_corpus,
)

ALL_SCENARIOS = (*SCENARIOS, "cli-exec")


def kill_one(scenario: str, setup: Setup, rng: random.Random, points: int) -> bool:
    """One run on the corpus as it is, SIGKILLed at a random point; whether it died."""
    if scenario == "cli-exec":
        return exec_cli(setup, kill_after=rng.uniform(0.05, 1.6))
    return trial(scenario, setup, rng.randint(1, max(points, 1))).killed


def finish(scenario: str, setup: Setup) -> int:
    """The run that is not killed; returns the write points it passed (0 for cli-exec)."""
    if scenario == "cli-exec":
        exec_cli(setup, kill_after=None)
        return 0
    return trial(scenario, setup, 0).points


def finish_and_check(scenario: str, setup: Setup, points: int) -> tuple[int, list[str]]:
    """The run that is not killed, then the check; the write points to draw kills from."""
    if scenario == "memory":  # its store lives in the process that ran it: run it here
        return points, converge(scenario, setup)
    points = finish(scenario, setup) or points
    return points, check("cli" if scenario == "cli-exec" else scenario, setup)


def run_scenario(
    scenario: str, workdir: Path, redis_url: str | None, args: argparse.Namespace
) -> Tally:
    rng = random.Random(f"{args.seed}-{scenario}")
    setup = new_setup(
        workdir / scenario, redis_url if scenario.startswith("redis") else None, args.seed
    )
    tally = Tally()
    version = 0
    try:
        write_corpus(setup.corpus, version, seed=args.seed, files=args.files)
        points = finish(scenario, setup)
        tally.runs += 1
        while tally.kills < args.kills:
            for _ in range(rng.choice((1, 1, 2, 3))):
                version += 1
                write_corpus(setup.corpus, version, seed=args.seed, files=args.files)
                tally.runs += 1
                tally.kills += kill_one(scenario, setup, rng, points)
            version += 1
            write_corpus(setup.corpus, version, seed=args.seed, files=args.files)
            points, problems = finish_and_check(scenario, setup, points)
            tally.runs += 1
            tally.checks += 1
            if problems:
                tally.failures.append(f"version {version}: {'; '.join(problems)}")
            else:
                tally.converged += 1
    finally:
        drop(setup)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=50, help="SIGKILLs per scenario")
    parser.add_argument("--files", type=int, default=12, help="files in the corpus")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenarios", default=",".join(ALL_SCENARIOS))
    parser.add_argument("--redis-url", default=os.environ.get("RAGLINE_REDIS_URL"))
    args = parser.parse_args()
    scenarios = [name for name in args.scenarios.split(",") if name]
    unknown = sorted(set(scenarios) - set(ALL_SCENARIOS))
    if unknown:
        parser.error(f"unknown scenarios {unknown}; choose from {', '.join(ALL_SCENARIOS)}")
    server = None
    redis_url = args.redis_url
    with tempfile.TemporaryDirectory(prefix="ragline-crash-") as temporary:
        workdir = Path(temporary)
        if redis_url is None and any(name.startswith("redis") for name in scenarios):
            from tests.conftest import RedisServer

            server = RedisServer(workdir / "redis").start()
            redis_url = server.url
        try:
            header = ("scenario", "runs", "kills", "checks", "converged", "time")
            print("{:<12} {:>5} {:>6} {:>7} {:>10} {:>7}".format(*header))
            failed = False
            for scenario in scenarios:
                started = time.monotonic()
                tally = run_scenario(scenario, workdir, redis_url, args)
                seconds = time.monotonic() - started
                print(
                    f"{scenario:<12} {tally.runs:>5} {tally.kills:>6} {tally.checks:>7} "
                    f"{tally.converged:>10} {seconds:>6.0f}s",
                    flush=True,
                )
                for failure in tally.failures:
                    failed = True
                    print(f"    NOT CONVERGED: {failure}")
        finally:
            if server is not None:
                server.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
