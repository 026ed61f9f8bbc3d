"""index_paths' split workers answering out of order (issue 25): several worker
processes, an early group the slowest, and the store is still the one the main thread
alone writes (results handed on in file order, not in the order they come)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragline.core import Document
from ragline.store_folder import _index as index_module

from .test_split_workers import _corpus, _indexed, _stored, _wait_for_workers

# where _slow_first_split_group notes the process and the file of each group it split
RECORD = "RAGLINE_TEST_SPLIT_ORDER_RECORD"
_original_split_group = index_module._split_group
_original_read_files = index_module.read_files


def _slow_first_split_group(documents: list[Document], *args: Any) -> Any:
    """index_module._split_group, doc1.txt's group held back until the other four groups
    are done, so the workers of later groups answer first, while files are still read;
    notes where and in which order the groups were done (module level: the pool pickles
    it by name). A wait on the others, not a fixed delay: on a loaded machine a worker
    can take longer than any fixed delay to answer (CI saw doc5 done after doc1's 1.5 s)."""
    number = int(Path(documents[0].metadata["source"]).stem.removeprefix("doc"))
    if number == 1:
        _wait_for_the_others(Path(os.environ[RECORD]), count=4, timeout=60.0)
    result = _original_split_group(documents, *args)
    with open(os.environ[RECORD], "a", encoding="utf-8") as record:
        record.write(f"{os.getpid()} {number}\n")
    return result


def _wait_for_the_others(record: Path, *, count: int, timeout: float) -> None:
    """Return once ``record`` has ``count`` lines, or after ``timeout`` seconds (then the
    test's order assertion says what went wrong)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if record.exists() and len(record.read_text(encoding="utf-8").splitlines()) >= count:
            return
        time.sleep(0.02)


def _slow_reading(*args: Any, **kwargs: Any) -> Iterator[list[Document]]:
    """index_module.read_files, 0.15 s a file: the results of later groups come in
    between the files, before doc1.txt's."""
    for loaded in _original_read_files(*args, **kwargs):
        time.sleep(0.15)
        yield loaded


def test_workers_answering_out_of_order_store_what_the_main_thread_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    alone = _indexed(corpus, tmp_path / "alone")
    record = tmp_path / "record.txt"
    monkeypatch.setenv(RECORD, str(record))
    monkeypatch.setattr(index_module, "_cpu_count", lambda: 8)  # 4 workers, as on 8 cores
    monkeypatch.setattr(index_module, "_split_group", _slow_first_split_group)
    monkeypatch.setattr(index_module, "read_files", _slow_reading)
    _wait_for_workers(monkeypatch)
    result = _indexed(corpus, tmp_path / "workers")
    done = [line.split() for line in record.read_text(encoding="utf-8").splitlines()]
    # doc0 is split on the main thread; the others in several workers, doc1 last of all
    assert sorted(int(number) for _, number in done) == [1, 2, 3, 4, 5]
    assert done[-1][1] == "1" and len({pid for pid, _ in done}) >= 2
    assert str(os.getpid()) not in {pid for pid, _ in done}
    assert result == alone and result["num_added"] == 3_600
    assert _stored(tmp_path / "workers") == _stored(tmp_path / "alone")
