"""Parity: small gaps issue 24 lists (session 20), LangChain as the oracle.

Each scenario runs the same calls through LangChain and ragline and compares what comes
back (a value, or the name of the error raised).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.utils.json import parse_partial_json as lc_parse_partial_json

from ragline.core.output_parsers import parse_partial_json


def outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return ("value", call(*args, **kwargs))
    except Exception as err:
        return ("raised", type(err).__name__)


# A raw tab, carriage return or other control character inside a string, in complete
# and cut-off texts; a raw newline is read in both modes.
_CONTROL_TEXTS = [
    '{"a": "x\ny"}',
    '{"a": "x\ty"}',
    '{"a": "x\ty',
    '{"a": "x\ny", "b": "z\tw"',
    '{"a": "x\r',
    '[1, "a\tb"]',
    '"ab\tc',
    '  {"k": "v\x01"}  ',
    '{"a": "x\ny\t',
    '{"n": [1, 2',
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("text", _CONTROL_TEXTS)
def test_parse_partial_json_strict(text: str, strict: bool) -> None:
    assert outcome(parse_partial_json, text, strict=strict) == outcome(
        lc_parse_partial_json, text, strict=strict
    )


def test_parse_partial_json_strict_every_prefix() -> None:
    doc = '{"a": "x\ty\r", "b": [1, 2.5, true, null], "c": {"d": "e\nf\\\\g\\"h\\u00e9"}}\n'
    for end in range(1, len(doc) + 1):
        for strict in (False, True):
            text = doc[:end]
            assert outcome(parse_partial_json, text, strict=strict) == outcome(
                lc_parse_partial_json, text, strict=strict
            ), (text, strict)
