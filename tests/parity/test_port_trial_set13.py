"""Parity: differences found by the thirteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.outputs as lc_outputs
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from pydantic import BaseModel, Field

import ragline.core as rl_models
import ragline.core.language_models as rl_outputs
import ragline.core.messages as rl_messages
from ragline.core.callbacks import BaseCallbackHandler


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


def _list_form_llm(models: Any, outputs: Any, handler_base: Any) -> list[Any]:
    seen: list[Any] = []

    class Usage(handler_base):  # type: ignore[misc,valid-type]
        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            seen.append((response.llm_output, len(response.generations)))

    class Counting(models.FakeListLLM):  # type: ignore[misc,name-defined]
        def _generate(
            self, prompts: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> Any:
            result = super()._generate(prompts, stop=stop, run_manager=run_manager, **kwargs)
            used = sum(len(p) for p in prompts)
            texts = [[g.text for g in row] for row in result.generations]
            seen.append(("inner", texts, type(result).__name__))
            return outputs.LLMResult(
                generations=result.generations, llm_output={"token_usage": {"prompt_tokens": used}}
            )

    llm = Counting(responses=["a", "b", "c"])
    out = [llm.batch(["xy", "zzz"], config={"callbacks": [Usage()]})]
    out.append(llm.invoke("q", config={"callbacks": [Usage()]}))
    return [out, seen]


def test_llm_subclass_calls_the_list_form_of_super_generate() -> None:
    # firmllm_token_usage_cost_file: a FakeListLLM subclass overriding LangChain's
    # _generate(prompts, stop, run_manager) and calling super()._generate(prompts, ...)
    assert _list_form_llm(rl_models, rl_outputs, BaseCallbackHandler) == _list_form_llm(
        lc_models, lc_outputs, LCBaseCallbackHandler
    )


def _plain_llm_list_form(models: Any, base: Any) -> Any:
    class Echo(base):  # type: ignore[misc,valid-type]
        @property
        def _llm_type(self) -> str:
            return "echo"

        def _call(self, prompt: str, stop: Any = None, run_manager: Any = None, **kw: Any) -> str:
            return prompt.upper()

        def _generate(
            self, prompts: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> Any:
            result = super()._generate(prompts, stop=stop, run_manager=run_manager, **kwargs)
            return result

    llm = Echo()
    return [llm.invoke("ab"), llm.batch(["c", "d"])]


def test_llm_base_class_list_form_of_generate() -> None:
    from langchain_core.language_models.llms import LLM as LCLLM

    from ragline.core.language_models import LLM

    assert _plain_llm_list_form(rl_models, LLM) == _plain_llm_list_form(lc_models, LCLLM)


def _bound_options_replies(mod: Any) -> list[Any]:
    """A fake chat model with tools (and a tool choice) bound, as a test of an agent's
    model step binds them: invoke, stream and ainvoke, the scripted replies in turn."""
    import asyncio

    model = mod.FakeListChatModel(responses=["first", "go", "third"])
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {}}}
    bound = model.bind(tools=[tool], tool_choice="auto")
    return [
        bound.invoke("q").content,
        [chunk.content for chunk in bound.stream("q")],
        asyncio.run(bound.ainvoke("q")).content,
    ]


def test_fake_list_chat_model_accepts_bound_options_as_langchains() -> None:
    """LangChain's FakeListChatModel takes options it does not use (tools=, tool_choice=)
    and answers its script; ragline's raised TypeError ('unexpected keyword argument')."""
    assert _bound_options_replies(rl_models) == _bound_options_replies(lc_models)
    assert _bound_options_replies(rl_models) == ["first", ["g", "o"], "third"]
