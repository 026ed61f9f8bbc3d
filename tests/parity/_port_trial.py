"""Helpers of the port-trial parity tests (tests/parity/test_port_trial_set*.py).

A scenario there is a program's shape written here: :func:`printed` runs its LangChain
source, and :func:`printed` of :func:`ported` runs it after ``ragline port``; the test
compares what the two print.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

from ragline.cli._port_rewrite import port_source


def printed(source: str, path: Path | None = None) -> str:
    """What ``source`` prints, run in a fresh namespace (LangChain's warnings hushed).

    With ``path`` the source is written there and runs from that file, as a trial program
    does: both libraries read a function's source to find the runnables it uses.
    """
    if path is not None:
        path.write_text(source)
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("ignore")
        # dont_inherit: the program runs with its own __future__ imports, not this module's
        filename = "<program>" if path is None else str(path)
        code = compile(source, filename, "exec", dont_inherit=True)
        exec(code, {"__name__": "__program__"})
    return out.getvalue()


def ported(source: str) -> str:
    """``source`` after ``ragline port``, every LangChain name mapped."""
    result = port_source(source)
    assert result.unmapped == []
    assert "langchain" not in result.source
    return result.source
