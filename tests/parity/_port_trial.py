"""Helpers of the port-trial parity tests (tests/parity/test_port_trial_set*.py).

A scenario there is a program's shape written here: :func:`printed` runs its LangChain
source, and :func:`printed` of :func:`ported` runs it after ``ragline port``; the test
compares what the two print.
"""

from __future__ import annotations

import contextlib
import io
import warnings

from ragline.cli._port_rewrite import port_source


def printed(source: str) -> str:
    """What ``source`` prints, run in a fresh namespace (LangChain's warnings hushed)."""
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("ignore")
        # dont_inherit: the program runs with its own __future__ imports, not this module's
        code = compile(source, "<program>", "exec", dont_inherit=True)
        exec(code, {"__name__": "__program__"})
    return out.getvalue()


def ported(source: str) -> str:
    """``source`` after ``ragline port``, every LangChain name mapped."""
    result = port_source(source)
    assert result.unmapped == []
    assert "langchain" not in result.source
    return result.source
