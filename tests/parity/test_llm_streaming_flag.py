"""Parity: an LLM with ``streaming=True`` (or called under ``astream_events``) against
langchain_core.

LangChain's LLMs stream only in ``stream`` / ``astream``: ``invoke``, ``generate`` and
``batch`` call the one-prompt hook (``_call``) whatever ``streaming`` says, a batch
starting every prompt's run first, and an ``ainvoke`` inside a chain watched by
``astream_events`` reports no tokens. Each scenario runs the same program through both
libraries and compares the order of runs, hook calls and tokens.
"""

from __future__ import annotations

import asyncio
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.language_models as lc_models
import langchain_core.outputs as lc_outputs
import langchain_core.runnables as lc_runnables
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks

COVERS = {"core.LLM"}


def _model(base: type, chunk: type, log: list[Any]) -> Any:
    class Upper(base):  # type: ignore[misc, valid-type]
        streaming: bool = True

        @property
        def _llm_type(self) -> str:
            return "upper"

        def _call(
            self, prompt: str, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> str:
            log.append(("call", prompt))
            return prompt.upper()

        def _stream(
            self, prompt: str, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> Any:
            log.append(("stream", prompt))
            for letter in prompt:
                piece = chunk(text=letter.upper())
                if run_manager is not None:
                    run_manager.on_llm_new_token(piece.text, chunk=piece)
                yield piece

    return Upper()


def _recorder(base: type, log: list[Any]) -> Any:
    class Recorder(base):  # type: ignore[misc, valid-type]
        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            log.append(("start", list(prompts)))

        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            log.append(("token", token))

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            log.append(("end", response.generations[0][0].text))

    return Recorder()


def _program(ns: Any, scenario: str) -> tuple[Any, list[Any]]:
    log: list[Any] = []
    model = _model(ns.LLM, ns.GenerationChunk, log)
    config = {"callbacks": [_recorder(ns.BaseCallbackHandler, log)]}
    if scenario == "invoke":
        return model.invoke("ab", config), log
    if scenario == "generate":
        result = model.generate(["ab", "cd"], callbacks=config["callbacks"])
        return [row[0].text for row in result.generations], log
    if scenario == "batch":
        return model.batch(["ab", "cd"], config), log
    if scenario == "abatch":
        return asyncio.run(model.abatch(["ab", "cd"], config)), log
    if scenario == "stream":
        return list(model.stream("ab", config)), log

    async def inner(text: str) -> str:
        return await model.ainvoke(text)  # type: ignore[no-any-return]

    async def events() -> list[Any]:
        chain = ns.RunnableLambda(inner)
        return [
            (event["event"], event["name"])
            async for event in chain.astream_events("ab", version="v2")
            if event["event"].startswith("on_llm")
        ]

    return asyncio.run(events()), log


LC = type(
    "LC",
    (),
    {
        "LLM": lc_models.LLM,
        "GenerationChunk": lc_outputs.GenerationChunk,
        "BaseCallbackHandler": lc_callbacks.BaseCallbackHandler,
        "RunnableLambda": lc_runnables.RunnableLambda,
    },
)
OURS = type(
    "OURS",
    (),
    {
        "LLM": rl.LLM,
        "GenerationChunk": rl.GenerationChunk,
        "BaseCallbackHandler": rl_callbacks.BaseCallbackHandler,
        "RunnableLambda": rl.RunnableLambda,
    },
)


@pytest.mark.parametrize(
    "scenario", ["invoke", "generate", "batch", "abatch", "stream", "ainvoke under events"]
)
def test_streaming_true_streams_only_in_stream(scenario: str) -> None:
    assert _program(OURS, scenario) == _program(LC, scenario)


def test_a_batch_starts_every_run_then_calls_each_prompt() -> None:
    _, log = _program(LC, "batch")
    assert log == [
        ("start", ["ab"]),
        ("start", ["cd"]),
        ("call", "ab"),
        ("call", "cd"),
        ("end", "AB"),
        ("end", "CD"),
    ]
    assert _program(OURS, "batch")[1] == log


def test_astream_events_chunks_of_an_outermost_and_an_inner_llm() -> None:
    """The outermost LLM's ``on_llm_stream`` chunks are its output texts (str); an LLM
    inside a chain reports ``GenerationChunk`` objects, in both libraries."""

    def run(ns: Any, inside_a_chain: bool) -> list[Any]:
        model = _model(ns.LLM, ns.GenerationChunk, [])
        runnable = (ns.RunnableLambda(lambda x: x) | model) if inside_a_chain else model

        async def events() -> list[Any]:
            return [
                (
                    type(event["data"]["chunk"]).__name__,
                    str(getattr(event["data"]["chunk"], "text", event["data"]["chunk"])),
                )
                async for event in runnable.astream_events("ab", version="v2")
                if event["event"] == "on_llm_stream"
            ]

        return asyncio.run(events())

    assert run(OURS, False) == run(LC, False) == [("str", "A"), ("str", "B")]
    assert run(OURS, True) == run(LC, True)
    assert run(LC, True) == [("GenerationChunk", "A"), ("GenerationChunk", "B")]
