"""Timing helpers the benchmark scripts share (imported as ``_timing``: a script's own
folder is first on ``sys.path``)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


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
