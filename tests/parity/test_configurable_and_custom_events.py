"""Parity: configurable fields and alternatives, custom events and merge_configs, against
langchain_core's.
"""

from __future__ import annotations

import warnings
from typing import Any

import langchain_core.runnables as lc_runnables
import pytest
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.callbacks import adispatch_custom_event as lc_adispatch
from langchain_core.callbacks import dispatch_custom_event as lc_dispatch
from langchain_core.language_models import FakeListChatModel as LCFakeChat
from langchain_core.language_models import FakeListLLM as LCFakeLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.runnables.config import merge_configs as lc_merge_configs

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
import ragline.core.config as rl_config
import ragline.core.runnables as rl_runnables
from tests.parity._observe import observe

COVERS = {
    "core.ConfigurableField",
    "core.runnables.RunnableConfigurableFields",
    "core.runnables.RunnableConfigurableAlternatives",
    "core.callbacks.dispatch_custom_event",
    "core.callbacks.adispatch_custom_event",
    "core.config.merge_configs",
}

LC = {
    "Field": lc_runnables.ConfigurableField,
    "LLM": LCFakeLLM,
    "Chat": LCFakeChat,
    "Prompt": LCPromptTemplate,
    "Lambda": lc_runnables.RunnableLambda,
    "Handler": LCBaseCallbackHandler,
    "dispatch": lc_dispatch,
    "adispatch": lc_adispatch,
    "merge": lc_merge_configs,
    "Fields": lc_runnables.configurable.RunnableConfigurableFields,
    "Alternatives": lc_runnables.configurable.RunnableConfigurableAlternatives,
}
RL = {
    "Field": rl.ConfigurableField,
    "LLM": rl.FakeListLLM,
    "Chat": rl.FakeListChatModel,
    "Prompt": rl.PromptTemplate,
    "Lambda": rl.RunnableLambda,
    "Handler": rl.BaseCallbackHandler,
    "dispatch": rl_callbacks.dispatch_custom_event,
    "adispatch": rl_callbacks.adispatch_custom_event,
    "merge": rl_config.merge_configs,
    "Fields": rl_runnables.RunnableConfigurableFields,
    "Alternatives": rl_runnables.RunnableConfigurableAlternatives,
}


def both(run: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return observe(run(LC)), observe(run(RL))


def test_configurable_fields_of_a_prompt() -> None:
    def run(m: dict[str, Any]) -> Any:
        prompt = (
            m["Prompt"]
            .from_template("Tell {x}")
            .configurable_fields(
                template=m["Field"](id="tmpl", name="Template", description="the text")
            )
        )
        return [
            prompt.invoke({"x": 1}).to_string(),
            prompt.with_config(configurable={"tmpl": "Say {x}"}).invoke({"x": 2}).to_string(),
            (prompt | m["LLM"](responses=["ok"])).invoke(
                {"x": 3}, {"configurable": {"tmpl": "Ask {x}"}}
            ),
            isinstance(prompt, m["Fields"]),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1] == "Say 2"


def test_configurable_alternatives() -> None:
    def run(m: dict[str, Any]) -> Any:
        chosen = m["LLM"](responses=["default"]).configurable_alternatives(
            m["Field"](id="model"), default_key="fl", chat=m["Chat"](responses=["chatty"])
        )
        return [
            chosen.invoke("x"),
            chosen.with_config(configurable={"model": "chat"}).invoke("x"),
            chosen.invoke("x", {"configurable": {"model": "fl"}}),
            isinstance(chosen, m["Alternatives"]),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1] == ("AIMessage", "chatty", None)
    for m in (LC, RL):
        chosen = m["LLM"](responses=["d"]).configurable_alternatives(
            m["Field"](id="model"), default_key="fl", chat=m["Chat"](responses=["c"])
        )
        with pytest.raises(ValueError, match="nope"):
            chosen.with_config(configurable={"model": "nope"}).invoke("x")


def _recorder(m: dict[str, Any], events: list[Any]) -> Any:
    class Recorder(m["Handler"]):  # type: ignore[misc,name-defined]
        def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
            events.append((name, data, kwargs.get("tags")))

    return Recorder()


def test_custom_events_reach_handlers_and_astream_events() -> None:
    async def astep(x: int, m: dict[str, Any]) -> int:
        await m["adispatch"]("aprog", {"at": x})
        return x * 2

    def run(m: dict[str, Any]) -> Any:
        import asyncio

        events: list[Any] = []

        def step(x: int) -> int:
            m["dispatch"]("progress", {"at": x})
            return x + 1

        result = m["Lambda"](step).invoke(1, {"callbacks": [_recorder(m, events)], "tags": ["t"]})

        async def streamed() -> list[Any]:
            seen = []

            async def bound(x: int) -> int:
                return await astep(x, m)

            runnable = m["Lambda"](bound)
            async for event in runnable.astream_events(3, version="v2"):
                if event["event"] == "on_custom_event":
                    seen.append((event["name"], event["data"]))
            return seen

        return [result, events, asyncio.run(streamed())]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1] == [["progress", {"at": 1}, ["t"]]]
    assert ours[2] == [["aprog", {"at": 3}]]


def test_merge_configs() -> None:
    def run(m: dict[str, Any]) -> Any:
        return m["merge"](
            {"tags": ["a"], "metadata": {"x": 1}, "configurable": {"k": 1}},
            {"tags": ["b"], "metadata": {"y": 2}, "configurable": {"j": 2}, "recursion_limit": 5},
        )

    theirs, ours = both(run)
    assert ours == theirs
