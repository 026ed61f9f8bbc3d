"""The README's test command also checks lint and types: ruff and mypy must pass.

Each check runs the tool with this interpreter (``python -m ruff`` / ``python -m mypy``,
both in the ``dev`` extra) from the repository root, so it reads the settings in
pyproject.toml. A missing tool fails the test rather than skipping it: CI installs
``dev``, and a lint check that silently does not run cannot fail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.lint


def _run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *arguments],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_ruff_check_is_clean() -> None:
    """`ruff check ragline tests benchmarks` reports nothing.

    On failure, the output lists each rule and place; `ruff check --fix` repairs many.
    """
    result = _run("ruff", "check", "ragline", "tests", "benchmarks")
    assert result.returncode == 0, f"ruff check failed:\n{result.stdout}{result.stderr}"


def test_ruff_format_is_clean() -> None:
    """`ruff format --check ragline tests benchmarks` would change nothing.

    On failure, run `ruff format ragline tests benchmarks` and commit the result; lines
    the formatter cannot shorten (long strings, comments) are E501 in `ruff check`.
    """
    result = _run("ruff", "format", "--check", "ragline", "tests", "benchmarks")
    assert result.returncode == 0, f"ruff format --check failed:\n{result.stdout}{result.stderr}"


def test_mypy_is_clean() -> None:
    """`mypy ragline` reports no error (settings in pyproject.toml's [tool.mypy]).

    On failure, the output has one line per error with its file, line and error code.
    """
    result = _run("mypy", "ragline")
    assert result.returncode == 0, f"mypy ragline failed:\n{result.stdout}{result.stderr}"
