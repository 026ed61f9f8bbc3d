"""Parity: the id a chat model's reply gets from its run (port trial, issue 24).

Each scenario runs through LangChain's class and ragline's class of the same name. A
handler notes which run each prompt started; every ``lc_run--<uuid>`` in the observed
ids is then written with the prompt of the run it names, so the comparison pins the
id's exact form, its suffix, and which run it names, while the uuids themselves differ.
"""

from __future__ import annotations

import asyncio
import re
import types
from typing import Any

from langchain_core import caches as lc_caches
from langchain_core import callbacks as lc_callbacks
from langchain_core import messages as lc_messages
from langchain_core.language_models import fake_chat_models as lc_models

import ragline.core as rl

COVERS = {"core.FakeListChatModel", "core.GenericFakeChatModel", "core.FakeMessagesListChatModel"}

LC = types.SimpleNamespace(
    FakeListChatModel=lc_models.FakeListChatModel,
    GenericFakeChatModel=lc_models.GenericFakeChatModel,
    FakeMessagesListChatModel=lc_models.FakeMessagesListChatModel,
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
    AIMessage=lc_messages.AIMessage,
    HumanMessage=lc_messages.HumanMessage,
    InMemoryCache=lc_caches.InMemoryCache,
)
RL = types.SimpleNamespace(
    FakeListChatModel=rl.FakeListChatModel,
    GenericFakeChatModel=rl.GenericFakeChatModel,
    FakeMessagesListChatModel=rl.FakeMessagesListChatModel,
    BaseCallbackHandler=rl.BaseCallbackHandler,
    AIMessage=rl.AIMessage,
    HumanMessage=rl.HumanMessage,
    InMemoryCache=rl.InMemoryCache,
)
_RUN_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _recorder(lib: Any) -> Any:
    class Recorder(lib.BaseCallbackHandler):  # type: ignore[misc]
        def __init__(self) -> None:
            self.prompt_of: dict[str, str] = {}
            self.token_ids: list[str | None] = []

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            self.prompt_of[str(kwargs["run_id"])] = messages[0][-1].content

        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            self.token_ids.append(kwargs["chunk"].message.id)

    return Recorder()


def _named(value: Any, recorder: Any) -> Any:
    """``value`` with each run id replaced by ``<run of PROMPT>``."""
    if isinstance(value, list | tuple):
        return [_named(item, recorder) for item in value]
    if value is None:
        return None
    return _RUN_ID.sub(lambda m: f"<run of {recorder.prompt_of.get(m.group(), '?')}>", value)


def _scenarios(lib: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def run(name: str, action: Any) -> None:
        recorder = _recorder(lib)
        ids = action({"callbacks": [recorder]}, recorder)
        seen[name] = (_named(ids, recorder), _named(recorder.token_ids, recorder))

    def model() -> Any:
        return lib.FakeListChatModel(responses=["ab", "cd", "ef"])

    run("invoke", lambda cfg, r: model().invoke("one", config=cfg).id)
    run("batch", lambda cfg, r: [m.id for m in model().batch(["one", "two"], config=cfg)])
    run(
        "generate",
        lambda cfg, r: [
            [g.message.id for g in gens]
            for gens in model()
            .generate(
                [[lib.HumanMessage("one")], [lib.HumanMessage("two")]], callbacks=cfg["callbacks"]
            )
            .generations
        ],
    )
    run("stream", lambda cfg, r: [c.id for c in model().stream("one", config=cfg)])

    async def astream(cfg: Any) -> list[Any]:
        return [c.id async for c in model().astream("one", config=cfg)]

    async def ainvoke(cfg: Any) -> Any:
        return (await model().ainvoke("one", config=cfg)).id

    async def abatch(cfg: Any) -> list[Any]:
        return [m.id for m in await model().abatch(["one", "two"], config=cfg)]

    run("astream", lambda cfg, r: asyncio.run(astream(cfg)))
    run("ainvoke", lambda cfg, r: asyncio.run(ainvoke(cfg)))
    run("abatch", lambda cfg, r: asyncio.run(abatch(cfg)))

    def own_ids() -> Any:
        return lib.FakeMessagesListChatModel(
            responses=[lib.AIMessage("m1", id="given"), lib.AIMessage("m2")]
        )

    run("given id kept", lambda cfg, r: own_ids().invoke("one", config=cfg).id)

    def given_then_none(cfg: Any, r: Any) -> list[Any]:
        chat = own_ids()
        return [chat.invoke("one", config=cfg).id, chat.invoke("two", config=cfg).id]

    run("given, then none", given_then_none)

    def generic(messages: list[Any]) -> Any:
        return lib.GenericFakeChatModel(messages=iter(messages))

    run(
        "generic stream",
        lambda cfg, r: [
            c.id for c in generic([lib.AIMessage("hi there")]).stream("one", config=cfg)
        ],
    )
    run(
        "generic stream, given id",
        lambda cfg, r: [
            c.id for c in generic([lib.AIMessage("hi there", id="own")]).stream("one", config=cfg)
        ],
    )
    run(
        "generic invoke, given id",
        lambda cfg, r: generic([lib.AIMessage("hi there", id="own")]).invoke("one", config=cfg).id,
    )

    def cached(cfg: Any, r: Any) -> list[Any]:
        chat = lib.FakeListChatModel(responses=["ab", "cd"], cache=lib.InMemoryCache())
        return [chat.invoke("one", config=cfg).id, chat.invoke("one", config=cfg).id]

    run("cache hit keeps the first run's id", cached)

    async def events(cfg: Any) -> list[Any]:
        # invoke streams inside astream_events: the reply is the pieces added up
        out = []
        async for event in model().astream_events("one", config=cfg, version="v2"):
            if event["event"] == "on_chat_model_stream":
                out.append(event["data"]["chunk"].id)
            elif event["event"] == "on_chat_model_end":
                out.append(event["data"]["output"].id)
        return out

    run("astream_events", lambda cfg, r: asyncio.run(events(cfg)))
    return seen


def test_reply_ids_name_the_run_as_langchain() -> None:
    lc, ours = _scenarios(LC), _scenarios(RL)
    assert lc["invoke"] == ("lc_run--<run of one>-0", [])  # the oracle itself, as observed
    assert lc["stream"] == (["lc_run--<run of one>"] * 2, ["lc_run--<run of one>"] * 2)
    for name in lc:
        assert ours[name] == lc[name], name


def _interleaved_stream_ids(lib: Any) -> tuple[dict[str, str], dict[str, list[Any]]]:
    """Two runs streaming at once, a chunk of each in turn: each run's id, by prompt,
    and the ids its chunks carried."""
    run_of: dict[str, str] = {}

    class Starts(lib.BaseCallbackHandler):  # type: ignore[misc]
        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            run_of[messages[0][-1].content] = str(kwargs["run_id"])

    handler = Starts()
    streams = {
        prompt: lib.GenericFakeChatModel(messages=iter([lib.AIMessage(text)])).stream(
            prompt, config={"callbacks": [handler]}
        )
        for prompt, text in [("a", "one two three"), ("b", "four five six")]
    }
    seen: dict[str, list[Any]] = {"a": [], "b": []}
    for chunk_a, chunk_b in zip(streams["a"], streams["b"], strict=True):
        seen["a"].append(chunk_a.id)
        seen["b"].append(chunk_b.id)
    return run_of, seen


def test_interleaved_streams_keep_their_own_chunk_ids() -> None:
    counts = []
    for lib in (LC, RL):
        run_of, seen = _interleaved_stream_ids(lib)
        assert run_of["a"] != run_of["b"]
        for prompt in ("a", "b"):
            assert set(seen[prompt]) == {f"lc_run--{run_of[prompt]}"}, lib
        counts.append([len(seen["a"]), len(seen["b"])])
    assert counts[0] == counts[1] == [5, 5]
    # ragline makes a run's id text once (str of a UUID per chunk cost ~4% of a streamed
    # run's astream_events): every chunk of a run streamed alone holds the same string
    model = RL.GenericFakeChatModel(messages=iter([RL.AIMessage("one two three")]))
    texts = [chunk.id for chunk in model.stream("a")]
    assert len(texts) == 5 and len({id(text) for text in texts}) == 1
