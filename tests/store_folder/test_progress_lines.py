"""Progress where there is no terminal: ``ragline index`` with stderr to a pipe."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
EMBEDDED = re.compile(
    r"embedded (\d+) of 450 chunks \((\d+)%\), \d+ chunks/s, \d+ (s|min \d+ s) left"
)


def index(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    for number in range(3):  # 3 files of 150 chunks (one line each, nothing merges)
        lines = (f"file {number} line {line} " + "word " * 30 for line in range(150))
        (corpus / f"doc{number}.txt").write_text("\n\n".join(lines), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "RAGLINE_PROGRESS_SECONDS": "0"}
    return subprocess.run(
        [sys.executable, "-m", "ragline.cli", "index", str(corpus), "--store",
         str(tmp_path / "store"), "--embedding", "hashing", "--chunk-size", "200",
         "--chunk-overlap", "0", *options],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip


def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    done = index(tmp_path)
    lines = done.stderr.splitlines()
    assert [line for line in lines if line.startswith("loaded ") and " files" in line] == [
        "loaded 1 of 3 files",
        "loaded 2 of 3 files",
        "loaded 3 of 3 files",
    ]
    embedded = [EMBEDDED.fullmatch(line) for line in lines if line.startswith("embedded ")]
    progress = [match for match in embedded if match is not None]
    # the model embeds batches of 100 from the first file on, while the others are read:
    # one line for what it did by the time all files are split (the total is known from
    # then on), then one per batch (the interval is 0 here)
    counts = [int(match.group(1)) for match in progress]
    assert counts[-1] == 450 and all(count % 100 == 0 for count in counts[:-1])
    assert [later - earlier for earlier, later in itertools.pairwise(counts)] == [100] * (
        len(counts) - 2
    ) + [50] * (len(counts) > 1)
    assert [int(match.group(2)) for match in progress] == [round(c / 4.5) for c in counts]
    split = lines.index("loaded 3 documents, split into 450 chunks")
    assert lines.index(progress[0].group(0)) > split
    assert done.stdout.startswith("added 450, updated 0, skipped 0, deleted 0")


def test_quiet_silences_the_progress_lines(tmp_path: Path) -> None:
    assert index(tmp_path, "--quiet").stderr == ""
