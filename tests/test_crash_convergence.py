"""Indexing converges after a SIGKILL at any write: Redis, in-memory, FAISS on disk, the CLI.

Each test kills a real child process (SIGKILL, sent by the child to itself at its N-th
write point; see ``tests/_crash.py``) for EVERY write point of one re-index, then runs the
same command again and checks that the store equals a fresh index of the corpus: same
ids, same texts, nothing extra, nothing missing, every chunk recorded, nothing pending.
After odd kills the corpus also changes before the next run (a chunk the killed run
deleted comes back, one it added goes away), which is where recorded-but-missing and
stored-but-unrecorded chunks would show. ``benchmarks/crash_convergence.py`` runs the
same at scale with random kill points.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests._crash import (
    SCENARIOS,
    Setup,
    converge,
    drop,
    exec_cli,
    new_setup,
    trial,
    write_corpus,
)

FILES = 5  # a small corpus: every write point of a re-index is a trial
SEED = 11


def make_setup(scenario: str, tmp_path: Path, request: pytest.FixtureRequest) -> Setup:
    url = request.getfixturevalue("redis_url") if scenario.startswith("redis") else None
    return new_setup(tmp_path / scenario, url, SEED)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_kill_at_every_write_converges_on_the_next_run(
    scenario: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    setup = make_setup(scenario, tmp_path, request)
    try:
        write_corpus(setup.corpus, 0, seed=SEED, files=FILES)
        assert converge(scenario, setup) == []
        write_corpus(setup.corpus, 1, seed=SEED, files=FILES)
        points = trial(scenario, setup, 0).points  # the writes of the re-index v0 -> v1
        assert points >= 8
        killed = 0
        for kill_at in range(1, points + 1):
            write_corpus(setup.corpus, 0, seed=SEED, files=FILES)
            assert converge(scenario, setup) == [], f"resetting before kill point {kill_at}"
            write_corpus(setup.corpus, 1, seed=SEED, files=FILES)
            killed += trial(scenario, setup, kill_at).killed
            if kill_at % 2:
                write_corpus(setup.corpus, 2, seed=SEED, files=FILES)
            assert converge(scenario, setup) == [], f"after a kill at write point {kill_at}"
        assert killed == points
    finally:
        drop(setup)


@pytest.mark.parametrize("scenario", ["redis", "memory", "folder", "cli"])
def test_repeated_kills_while_the_corpus_changes(
    scenario: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two or three kills in a row at random points, the corpus changing before each run."""
    setup = make_setup(scenario, tmp_path, request)
    rng = random.Random(SEED)
    try:
        write_corpus(setup.corpus, 0, seed=SEED, files=FILES)
        points = trial(scenario, setup, 0).points
        version = 0
        for _ in range(4):
            for _ in range(rng.choice((2, 3))):
                version += 1
                write_corpus(setup.corpus, version, seed=SEED, files=FILES)
                trial(scenario, setup, rng.randint(1, points))
            version += 1
            write_corpus(setup.corpus, version, seed=SEED, files=FILES)
            assert converge(scenario, setup) == [], f"version {version}"
    finally:
        drop(setup)


def test_ragline_index_killed_at_random_times_converges(tmp_path: Path) -> None:
    """`python -m ragline.cli index` itself, killed by the parent after a random delay."""
    setup = new_setup(tmp_path / "cli-exec", None, SEED)
    rng = random.Random(SEED)
    write_corpus(setup.corpus, 0, seed=SEED, files=12)
    exec_cli(setup, kill_after=None)
    for version in range(1, 4):
        write_corpus(setup.corpus, version, seed=SEED, files=12)
        exec_cli(setup, kill_after=rng.uniform(0.2, 1.5))
        assert converge("cli", setup) == [], f"version {version}"
