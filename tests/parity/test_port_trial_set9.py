"""Parity: differences found by the ninth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

import datetime
from typing import Any

import langchain_core.messages as lc_messages
import langchain_core.prompts as lc_prompts
import pytest
from langchain_core.documents import Document as LCDocument

import ragline.core.messages as rl_messages
import ragline.core.prompts as rl_prompts
from ragline.core.documents import Document


def _chat_prompt(mod: Any, **kwargs: Any) -> Any:
    human = mod.HumanMessagePromptTemplate(
        prompt=mod.PromptTemplate(input_variables=["q", "r"], template="{q} and {r}")
    )
    return mod.ChatPromptTemplate(messages=[human], **kwargs)


def _prompt_view(prompt: Any) -> tuple[Any, ...]:
    return (
        repr(prompt),
        str(prompt),
        prompt.input_variables,
        prompt.optional_variables,
        prompt.partial_variables,
        prompt.invoke({"q": "a", "r": "b"}).to_messages()[0].content,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input_variables": ["q", "r"]},
        {"input_variables": ["r", "q"], "metadata": {"owner": "me"}},
        {"input_variables": ["unused"]},  # ignored without validate_template
        {"input_variables": []},
        {"input_variables": ["r", "q"], "validate_template": True},  # order kept
        {"validate_template": True},
        {"optional_variables": ["z", "a"]},
        {"input_variables": ["q", "r"], "partial_variables": {"q": "a"}},
        {"input_variables": ["r"], "partial_variables": {"q": "a"}, "validate_template": True},
    ],
)
def test_chat_prompt_takes_langchains_constructor_keywords(kwargs: dict[str, Any]) -> None:
    """b403_rag_prompt_repr: ChatPromptTemplate(input_variables=..., messages=[...])."""
    ours = _chat_prompt(rl_prompts, **kwargs)
    theirs = _chat_prompt(lc_prompts, **kwargs)
    assert _prompt_view(ours) == _prompt_view(theirs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input_variables": ["q"], "validate_template": True},
        {"input_variables": ["q", "r", "s"], "validate_template": True},
        {"input_variables": ["q", "r"], "partial_variables": {"q": 1}, "validate_template": True},
    ],
)
def test_chat_prompt_validate_template_rejects_other_variables(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        _chat_prompt(lc_prompts, **kwargs)
    with pytest.raises(ValueError, match="do not match the messages' variables"):
        _chat_prompt(rl_prompts, **kwargs)


def test_partial_of_a_validated_chat_prompt_as_langchains() -> None:
    kwargs = {"input_variables": ["r", "q"], "validate_template": True}
    ours = _chat_prompt(rl_prompts, **kwargs).partial(q="a")
    theirs = _chat_prompt(lc_prompts, **kwargs).partial(q="a")
    assert repr(ours) == repr(theirs)
    assert ours.invoke({"r": "b"}).to_string() == theirs.invoke({"r": "b"}).to_string()


def _messages(mod: Any) -> list[Any]:
    return [
        mod.AIMessage(
            content="x",
            id="1",
            tool_calls=[{"name": "f", "args": {"a": 1.5e-5}, "id": "c"}],
            usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
            response_metadata={"when": datetime.date(2020, 1, 2), "nan": float("nan")},
        ),
        mod.HumanMessage(content=[{"type": "text", "text": 'caf\u00e9 "q" \\'}], name="n"),
        mod.SystemMessage("s", additional_kwargs={"k": {1.5: [], True: {}, None: 1e-6}}),
        mod.ToolMessage("t", tool_call_id="c"),
        mod.AIMessageChunk(content="c"),
        mod.ChatMessage(content="c", role="r"),
    ]


@pytest.mark.parametrize("options", [{}, {"indent": 2}, {"exclude_none": True}])
def test_messages_model_dump_json_as_langchains(options: dict[str, Any]) -> None:
    """hiteshwankhede_chathistory_notes: AIMessage(...).model_dump_json()."""
    ours = [m.model_dump_json(**options) for m in _messages(rl_messages)]
    theirs = [m.model_dump_json(**options) for m in _messages(lc_messages)]
    assert ours == theirs


@pytest.mark.parametrize("options", [{}, {"indent": 3}, {"exclude": {"id"}}])
def test_document_model_dump_json_as_langchains(options: dict[str, Any]) -> None:
    metadata = {
        "score": 0.1,
        "small": 1e-5,
        "tiny": -1.25e-7,
        "big": 1e20,
        "huge": 2**70,
        "text": "\u00e9\u2028\x01",
        "nested": [(), {}, [1, {"a": None}]],
        "inf": float("inf"),
    }
    ours = Document("p", metadata=metadata, id="i").model_dump_json(**options)
    theirs = LCDocument("p", metadata=metadata, id="i").model_dump_json(**options)
    assert ours == theirs
