"""Parity: differences found by the thirteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

from typing import Any

import langchain_core.messages as lc_messages
from pydantic import BaseModel, Field

import ragline.core.messages as rl_messages


def _history_model(mod: Any) -> type[BaseModel]:
    class History(BaseModel):
        messages: list[mod.BaseMessage] = Field(default_factory=list)  # type: ignore[name-defined]
        last_ai: mod.AIMessage | None = None  # type: ignore[name-defined]

    return History


def _dumps(mod: Any) -> list[Any]:
    history = _history_model(mod)(
        messages=[
            mod.HumanMessage(content="hi", id="h1"),
            mod.AIMessage(content="yo", tool_calls=[{"name": "f", "args": {}, "id": "c"}]),
            mod.SystemMessage(content="be brief"),
        ],
        last_ai=mod.AIMessage(content="last", name="bot"),
    )
    return [
        history.model_dump(),
        history.model_dump(mode="json"),
        history.model_dump_json(),
        [m["type"] for m in history.model_dump()["messages"]],
    ]


def test_messages_inside_a_user_pydantic_model_dump_with_their_type() -> None:
    # rbchat_inmemory_history_output_key: a pydantic history class holding
    # list[BaseMessage]; store["x"].model_dump()["messages"][0]["type"]
    assert _dumps(rl_messages) == _dumps(lc_messages)


def _base_list_dump(mod: Any) -> Any:
    class Store(BaseModel):
        messages: list[mod.BaseMessage] = Field(default_factory=list)  # type: ignore[name-defined]

    store = Store()
    store.messages.append(mod.HumanMessage(content="hi"))
    store.messages.append(mod.AIMessage(content="seen 1"))
    return store.model_dump()


def test_base_message_list_field_dumps_the_base_keys_with_type() -> None:
    # the exact shape of rbchat's InMemoryHistory(BaseChatMessageHistory, BaseModel)
    assert _base_list_dump(rl_messages) == _base_list_dump(lc_messages)
