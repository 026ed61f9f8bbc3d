"""Parity: what a configured copy (``configurable_fields``) carries over from the default,
against langchain_core's.

LangChain builds the copy as a new model from the default's current field values plus
the configured ones. So a fake model's reply cursor ``i`` goes on from the default's, the
copy's own calls do not move the default's cursor, and assigning ``responses`` keeps the
cursor (a shorter script then raises IndexError).
"""

from __future__ import annotations

import types
from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.runnables as lc_runnables
import pytest

import ragline.core as rl

COVERS = {"core.FakeListLLM", "core.FakeListChatModel"}

LC = types.SimpleNamespace(
    ConfigurableField=lc_runnables.ConfigurableField,
    FakeListLLM=lc_models.FakeListLLM,
    FakeListChatModel=lc_models.FakeListChatModel,
)
OURS = types.SimpleNamespace(
    ConfigurableField=rl.ConfigurableField,
    FakeListLLM=rl.FakeListLLM,
    FakeListChatModel=rl.FakeListChatModel,
)


def _text(reply: Any) -> str:
    return reply if isinstance(reply, str) else reply.content


@pytest.mark.parametrize("model", ["FakeListLLM", "FakeListChatModel"])
def test_a_configured_copy_goes_on_from_the_default_s_cursor(model: str) -> None:
    def run(ns: Any) -> list[str]:
        field = ns.ConfigurableField
        llm = getattr(ns, model)(responses=["a", "b", "c"]).configurable_fields(
            responses=field(id="replies"), sleep=field(id="pause")
        )
        replies = [llm.invoke("x")]
        replies.append(llm.invoke("x", {"configurable": {"replies": ["z", "y", "w"]}}))
        replies.append(llm.invoke("x"))
        # a copy that changes another field: same cursor, its call does not move the default
        replies.append(llm.invoke("x", {"configurable": {"pause": 0.0}}))
        replies.append(llm.invoke("x", {"configurable": {"pause": 0.0}}))
        replies.append(llm.invoke("x"))
        return [_text(reply) for reply in replies]

    assert run(OURS) == run(LC) == ["a", "y", "b", "c", "c", "c"]


@pytest.mark.parametrize("model", ["FakeListLLM", "FakeListChatModel"])
def test_assigning_responses_keeps_the_cursor(model: str) -> None:
    def run(ns: Any) -> tuple[str, str, str]:
        llm = getattr(ns, model)(responses=["a", "b", "c"])
        first = _text(llm.invoke("x"))
        llm.responses = ["p", "q"]
        return first, _text(llm.invoke("x")), _text(llm.invoke("x"))

    assert run(OURS) == run(LC) == ("a", "q", "p")


def test_a_shorter_configured_script_than_the_cursor_raises_index_error() -> None:
    def run(ns: Any) -> str:
        llm = ns.FakeListLLM(responses=["a", "b", "c"]).configurable_fields(
            responses=ns.ConfigurableField(id="replies")
        )
        llm.invoke("x")
        llm.invoke("x")
        with pytest.raises(IndexError) as caught:
            llm.invoke("x", {"configurable": {"replies": ["z"]}})
        return type(caught.value).__name__

    assert run(OURS) == run(LC) == "IndexError"
