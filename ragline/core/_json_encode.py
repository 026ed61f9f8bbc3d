"""``one_pass``: a ``json.JSONEncoder``'s C encoder, built once for many small values.

``JSONEncoder.encode`` builds json's C encoder on every call, which costs about as much as
encoding a chunk's small metadata dict (issue 25). The function built here gives the same
text for every value ``encode`` accepts, without that set-up and without the
circular-reference check (a cycle raises RecursionError instead of ValueError): callers
retry a failure of any kind with ``encode``, which raises its own error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["one_pass"]


def one_pass(encoder: json.JSONEncoder) -> Callable[[Any], str] | None:
    """``encoder.encode`` for a value that is not a bare ``str`` (a dict, a list ...),
    built once; None where Python has no C encoder or ``encoder`` indents."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None or encoder.indent is not None:  # pragma: no cover - CPython has it
        return None
    strings = (
        json.encoder.encode_basestring_ascii
        if encoder.ensure_ascii
        else json.encoder.encode_basestring
    )
    parts = make(
        None, encoder.default, strings, None, encoder.key_separator, encoder.item_separator,
        encoder.sort_keys, encoder.skipkeys, encoder.allow_nan,
    )  # fmt: skip
    return lambda value: "".join(parts(value, 0))
