"""RouterOutputParser's errors for a router reply it cannot use: ragline's own words,
naming the reply and what is wrong with it."""

from __future__ import annotations

import pytest

from ragline.chains import RouterOutputParser
from ragline.core import OutputParserException


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("no json here", "cannot read the router's reply 'no json here': no JSON in it"),
        ('["a"]', "cannot read the router's reply '[\"a\"]': a JSON object is needed, got ['a']"),
        (
            '{"destination": "x"}',
            'cannot read the router\'s reply \'{"destination": "x"}\': the object lacks '
            "'next_inputs' (it has ['destination'])",
        ),
        (
            '{"destination": 3, "next_inputs": "q"}',
            'cannot read the router\'s reply \'{"destination": 3, "next_inputs": "q"}\': '
            "'destination' must be a string, got int",
        ),
        (
            '{"destination": "x", "next_inputs": 4}',
            'cannot read the router\'s reply \'{"destination": "x", "next_inputs": 4}\': '
            "'next_inputs' must be str, got int",
        ),
    ],
)
def test_a_reply_the_router_cannot_use_is_named_with_what_is_wrong(reply, message):
    with pytest.raises(OutputParserException) as caught:
        RouterOutputParser().parse(reply)
    assert str(caught.value).startswith(message)


def test_a_usable_reply_still_routes():
    parsed = RouterOutputParser().parse(
        '```json\n{"destination": "DEFAULT", "next_inputs": "q"}\n```'
    )
    assert parsed == {"destination": None, "next_inputs": {"input": "q"}}
