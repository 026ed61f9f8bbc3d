"""Parity: the ``invocation_params`` a model's start callback carries, against langchain_core.

LangChain's LLMs report their own settings, ``_type`` and ``stop`` there, and leave out
the options bound to the call (``llm.invoke(p, top_k=3)``, ``llm.bind(top_k=3)``); its
chat models include them. The options still reach the model's hook, and (ragline) they
are part of the cache key, so two calls that differ only in a bound option never share
a cached answer. Each scenario runs through both libraries with a handler that records
the start callbacks, and compares the records.
"""

from __future__ import annotations

import asyncio
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.language_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.outputs as lc_outputs

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
from ragline.core.caches import InMemoryCache

COVERS = {"core.LLM", "core.BaseChatModel"}


def _recorder(base: type, log: list[Any]) -> Any:
    class Recorder(base):  # type: ignore[misc, valid-type]
        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            log.append(("llm", list(prompts), kwargs.get("invocation_params")))

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            log.append(("chat", len(messages), kwargs.get("invocation_params")))

    return Recorder()


def _llm(base: type) -> Any:
    class EchoOptionsLLM(base):  # type: ignore[misc, valid-type]
        """Answers with the options its hook received, so both sides show they arrive."""

        @property
        def _llm_type(self) -> str:
            return "echo-options"

        @property
        def _identifying_params(self) -> dict[str, Any]:
            return {"model_name": "echo-1"}

        def _call(
            self, prompt: str, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> str:
            return f"{prompt}|{sorted(kwargs.items())}"

    return EchoOptionsLLM()


def _chat(base: type, ai_message: type, generation: type, result: type) -> Any:
    class EchoOptionsChat(base):  # type: ignore[misc, valid-type]
        @property
        def _llm_type(self) -> str:
            return "echo-options-chat"

        @property
        def _identifying_params(self) -> dict[str, Any]:
            return {"model_name": "echo-1"}

        def _generate(
            self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> Any:
            text = f"{len(messages)}|{sorted(kwargs.items())}"
            return result(generations=[generation(message=ai_message(content=text))])

    return EchoOptionsChat()


def _program(model: Any, handler: Any) -> list[Any]:
    config = {"callbacks": [handler]}
    return [
        model.invoke("hi", config, stop=["!"], top_k=3),
        model.bind(top_k=4, mode="x").invoke("hi", config),
        model.batch(["a", "b"], config, top_k=5),
        asyncio.run(model.ainvoke("hi", config, top_k=6)),
        "".join(str(getattr(c, "content", c)) for c in model.stream("hi", config, top_k=7)),
    ]


def _observe(outputs: list[Any]) -> list[Any]:
    def one(value: Any) -> Any:
        if isinstance(value, list):
            return [one(v) for v in value]
        return getattr(value, "content", value)

    return [one(value) for value in outputs]


def test_an_llms_invocation_params_leave_bound_options_out() -> None:
    lc_log: list[Any] = []
    rl_log: list[Any] = []
    lc_out = _program(_llm(lc_models.LLM), _recorder(lc_callbacks.BaseCallbackHandler, lc_log))
    rl_out = _program(_llm(rl.LLM), _recorder(rl_callbacks.BaseCallbackHandler, rl_log))
    assert _observe(rl_out) == _observe(lc_out)  # the options reached the hook in both
    assert rl_log == lc_log
    assert lc_log[0] == (
        "llm",
        ["hi"],
        {"model_name": "echo-1", "_type": "echo-options", "stop": ["!"]},
    )


def test_a_chat_models_invocation_params_keep_bound_options() -> None:
    lc_log: list[Any] = []
    rl_log: list[Any] = []
    lc_model = _chat(
        lc_models.BaseChatModel,
        lc_messages.AIMessage,
        lc_outputs.ChatGeneration,
        lc_outputs.ChatResult,
    )
    rl_model = _chat(rl.BaseChatModel, rl.AIMessage, rl.ChatGeneration, rl.ChatResult)
    lc_out = _program(lc_model, _recorder(lc_callbacks.BaseCallbackHandler, lc_log))
    rl_out = _program(rl_model, _recorder(rl_callbacks.BaseCallbackHandler, rl_log))
    assert _observe(rl_out) == _observe(lc_out)
    assert rl_log == lc_log
    assert lc_log[0][2] == {
        "model_name": "echo-1",
        "_type": "echo-options-chat",
        "stop": ["!"],
        "top_k": 3,
    }


def test_a_bound_option_still_keys_an_llms_cache() -> None:
    """ragline's own rule (see "Caches and histories" in the differences doc): the
    option left out of invocation_params still separates cached answers."""
    model = _llm(rl.LLM)
    model.cache = InMemoryCache()
    assert model.invoke("hi", top_k=1) == "hi|[('top_k', 1)]"
    assert model.invoke("hi", top_k=2) == "hi|[('top_k', 2)]"
    assert model.invoke("hi", top_k=1) == "hi|[('top_k', 1)]"
