"""Parity: what a model's start callback carries besides its input, against langchain_core.

A handler's ``on_llm_start`` / ``on_chat_model_start`` receives ``metadata`` with the
model's ``ls_*`` keys (provider, model type, stop, model name, temperature, token limit,
and for chat models the integration), ``options`` and ``batch_size``; the Run records of
``collect_runs`` keep them in ``extra``. A one-prompt-hook LLM's batch starts every
prompt's run, then calls the hook for each prompt, then ends the runs. Each scenario runs
the same program through both libraries; ``lc_versions`` (LangChain's package versions)
is left out, as ragline has no such versions to report.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.language_models as lc_models
import langchain_core.language_models.fake as lc_fake
import langchain_core.language_models.fake_chat_models as lc_fake_chat
import langchain_core.messages as lc_messages
import langchain_core.outputs as lc_outputs
import langchain_core.tracers.context as lc_tracer_context
import pytest
from langchain_openai import ChatOpenAI as LCChatOpenAI

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
from ragline.chat_models import ChatOpenAI
from ragline.core.language_models import _outputs as rl_outputs
from tests._openai_server import OpenAITestServer

COVERS = {"core.FakeListLLM", "core.FakeListChatModel", "chat_models.ChatOpenAI"}

_START_KEYS = ("metadata", "options", "batch_size")


def _recorder(base: type, log: list[Any]) -> Any:
    class Recorder(base):  # type: ignore[misc, valid-type]
        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            log.append(("start", list(prompts), _seen(kwargs)))

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            log.append(("start", len(messages), _seen(kwargs)))

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            log.append(("end", response.generations[0][0].text))

    return Recorder()


def _seen(kwargs: dict[str, Any]) -> dict[str, Any]:
    seen = {key: kwargs.get(key, "<missing>") for key in _START_KEYS}
    if isinstance(seen["metadata"], dict):
        seen["metadata"] = {k: v for k, v in seen["metadata"].items() if k != "lc_versions"}
        seen["metadata_order"] = list(seen["metadata"])
    return seen


def _chat_classes(lib: Any, outputs: Any) -> dict[str, type]:
    """Program-written chat models: their names and fields decide the ``ls_*`` keys."""

    def hook(self: Any, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        reply = lib.AIMessage(content="x")
        return outputs.ChatResult(generations=[outputs.ChatGeneration(message=reply)])

    def build(name: str, **fields: Any) -> type:
        body = {"__annotations__": dict.fromkeys(fields, Any), **fields, "_generate": hook}
        body["_llm_type"] = property(lambda self: "written-here")
        return type(name, (lib.BaseChatModel,), body)

    return {
        "ChatWords": build("ChatWords"),
        "WordsChat": build("WordsChat", temperature=0.3, max_tokens=5),
        "Named": build("Named", model="m-1", model_name="m-2", temperature=None),
        "ByModelName": build("ByModelName", model=3, model_name="m-3", max_tokens=2.0),
    }


def _llm_classes(lib: Any) -> dict[str, type]:
    def call(self: Any, prompt: str, stop: Any = None, run_manager: Any = None, **kw: Any) -> str:
        return "y" + prompt

    def build(name: str, **fields: Any) -> type:
        body = {"__annotations__": dict.fromkeys(fields, Any), **fields, "_call": call}
        body["_llm_type"] = property(lambda self: "written-here")
        return type(name, (lib.LLM,), body)

    return {
        "WordsLLM": build("WordsLLM", temperature=1),
        "LLMWords": build("LLMWords", model="m-4", max_tokens=7),
    }


LC = {
    "lib": lc_models,
    "messages": lc_messages,
    "outputs": lc_outputs,
    "handler": lc_callbacks.BaseCallbackHandler,
}
RL = {"lib": rl, "messages": rl, "outputs": rl_outputs, "handler": rl_callbacks.BaseCallbackHandler}


class _Lib:
    def __init__(self, parts: dict[str, Any]) -> None:
        self.handler = parts["handler"]
        lib = parts["lib"]
        self.models: dict[str, Any] = {
            "FakeListLLM": lambda: lib.FakeListLLM(responses=["a", "b"]),
            "FakeListChatModel": lambda: lib.FakeListChatModel(responses=["a", "b"]),
            "GenericFakeChatModel": lambda: lib.GenericFakeChatModel(
                messages=iter([parts["messages"].AIMessage(content="a")] * 4)
            ),
        }
        if lib is lc_models:
            self.models["FakeStreamingListLLM"] = lambda: lc_fake.FakeStreamingListLLM(
                responses=["a"]
            )
            self.models["ParrotFakeChatModel"] = lc_fake_chat.ParrotFakeChatModel
        else:
            self.models["FakeStreamingListLLM"] = lambda: rl.FakeStreamingListLLM(responses=["a"])
            self.models["ParrotFakeChatModel"] = rl.ParrotFakeChatModel
        chat = _chat_classes(_Names(lib, parts["messages"]), parts["outputs"])
        for name, cls in {**chat, **_llm_classes(lib)}.items():
            self.models[name] = cls


class _Names:
    """``BaseChatModel`` from the library, ``AIMessage`` from its messages."""

    def __init__(self, lib: Any, messages: Any) -> None:
        self.BaseChatModel = lib.BaseChatModel
        self.AIMessage = messages.AIMessage


_WRITTEN_HERE = {"ChatWords", "WordsChat", "Named", "ByModelName", "WordsLLM", "LLMWords"}


def _run_invokes(parts: dict[str, Any]) -> dict[str, list[Any]]:
    lib = _Lib(parts)
    seen: dict[str, list[Any]] = {}
    for name, make in lib.models.items():
        log: list[Any] = []
        handler = _recorder(lib.handler, log)
        make().invoke("hi", config={"callbacks": [handler], "metadata": {"user": 1}})
        make().invoke("hi", config={"callbacks": [handler]}, stop=["s"])
        if name not in _WRITTEN_HERE:  # ragline's fakes refuse options they do not know
            seen[name] = log
            continue
        made = make(metadata={"own": 2, "ls_provider": "mine"})
        made.bind(temperature=0.9, max_tokens=4, model="bound").invoke(
            "hi", config={"callbacks": [handler], "metadata": {"ls_model_type": "cfg"}}
        )
        seen[name] = log
    return seen


def test_start_callbacks_carry_langchains_ls_metadata_options_and_batch_size() -> None:
    theirs = _run_invokes(LC)
    ours = _run_invokes(RL)
    assert ours == theirs
    # spot checks of what LangChain gives, so a change on either side shows
    assert theirs["WordsChat"][0][2]["metadata"] == {
        "user": 1,
        "ls_provider": "words",
        "ls_model_type": "chat",
        "ls_temperature": 0.3,
        "ls_max_tokens": 5,
        "ls_integration": "langchain_chat_model",
    }
    assert theirs["WordsLLM"][4][2]["metadata"]["ls_provider"] == "mine"  # the bound call
    assert theirs["FakeListLLM"][2][2]["options"] == {"stop": ["s"]}
    assert theirs["FakeListLLM"][2][2]["batch_size"] == 1


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        yield running


def test_chat_openai_start_metadata(server: OpenAITestServer) -> None:
    def seen(cls: type, handler_base: type) -> list[Any]:
        log: list[Any] = []
        handler = _recorder(handler_base, log)
        common = {"base_url": server.base_url, "api_key": "test"}
        cls(model="gpt-4o-mini", stop=["d"], **common).invoke("hi", config={"callbacks": [handler]})
        cls(model="gpt-4o-mini", temperature=0.5, **common).invoke(
            "hi", config={"callbacks": [handler]}, temperature=0.1, max_tokens=3
        )
        cls(model="gpt-4o-mini", max_tokens=9, **common).invoke(
            "hi", config={"callbacks": [handler]}, stop="zz"
        )
        return log

    theirs = seen(LCChatOpenAI, lc_callbacks.BaseCallbackHandler)
    assert seen(ChatOpenAI, rl_callbacks.BaseCallbackHandler) == theirs
    assert theirs[0][2]["metadata"] == {
        "ls_provider": "openai",
        "ls_model_name": "gpt-4o-mini",
        "ls_model_type": "chat",
        "ls_temperature": None,
        "ls_stop": ["d"],
        "ls_integration": "langchain_chat_model",
    }


def _batch_order(lib: Any, handler_base: type, *, run_async: bool = False) -> list[Any]:
    log: list[Any] = []

    class Counted(lib.LLM):  # type: ignore[misc, name-defined]
        @property
        def _llm_type(self) -> str:
            return "counted"

        def _call(self, prompt: str, stop: Any = None, run_manager: Any = None, **kw: Any) -> str:
            log.append(("call", prompt, kw))
            return "y" + prompt

    handler = _recorder(handler_base, log)
    model = Counted()
    if run_async:
        asyncio.run(model.abatch(["a", "b"], config={"callbacks": [handler]}))
    else:
        model.batch(["a", "b", "c"], config={"callbacks": [handler]}, foo=4)
        model.batch(["d", "e", "f"], config={"callbacks": [handler], "max_concurrency": 2})
    entries = [
        (entry[0], entry[1], entry[2].get("batch_size")) if entry[0] == "start" else entry
        for entry in log
    ]
    return _same_kind_runs_sorted(entries) if run_async else entries


def _same_kind_runs_sorted(entries: list[Any]) -> list[Any]:
    """``entries`` with each run of consecutive starts (or ends) sorted: async callback
    managers call sync handlers of one batch's runs concurrently in worker threads (in
    both libraries), so their order within such a run is the threads' order."""
    out: list[Any] = []
    for entry in entries:
        start = len(out)
        while start and out[start - 1][0] == entry[0] and entry[0] in ("start", "end"):
            start -= 1
        out[start:] = sorted([*out[start:], entry], key=repr)
    return out


@pytest.mark.parametrize("run_async", [False, True])
def test_a_one_prompt_hook_llm_batch_starts_every_run_first(run_async: bool) -> None:
    theirs = _batch_order(lc_models, lc_callbacks.BaseCallbackHandler, run_async=run_async)
    ours = _batch_order(rl, rl_callbacks.BaseCallbackHandler, run_async=run_async)
    assert ours == theirs
    if not run_async:
        assert theirs[:6] == [
            ("start", ["a"], 3),
            ("start", ["b"], 3),
            ("start", ["c"], 3),
            ("call", "a", {"foo": 4}),
            ("call", "b", {"foo": 4}),
            ("call", "c", {"foo": 4}),
        ]


def test_collected_model_runs_keep_options_and_batch_size_in_extra() -> None:
    def extra(model: Any, collect: Any) -> list[dict[str, Any]]:
        with collect() as runs:
            model.batch(["p", "q"], stop=["z"])
        keys = ("options", "batch_size", "invocation_params")
        found = [{key: run.extra.get(key) for key in keys} for run in runs.traced_runs]
        return sorted(found, key=repr)

    theirs = extra(lc_models.FakeListLLM(responses=["a", "b"]), lc_tracer_context.collect_runs)
    ours = extra(rl.FakeListLLM(responses=["a", "b"]), rl_callbacks.collect_runs)
    assert ours == theirs
    assert theirs[0]["options"] == {"stop": ["z"]} and theirs[0]["batch_size"] == 2
