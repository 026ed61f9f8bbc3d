"""Parity: a model with an LLM cache, against langchain_core's.

LangChain's ``BaseLLM.generate`` looks every prompt up first: a cached prompt makes no
run and no model call, the others make one run each and ONE ``_generate`` call
together; the result's ``llm_output`` and ``run`` are that call's (``{}`` and ``None``
when every prompt was cached). ``invoke`` and ``batch`` go through it. A chat model
looks up inside each prompt's run instead. Each scenario runs the same model class on
each library's base with each library's ``InMemoryCache``.
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import langchain_core.caches as lc_caches
import langchain_core.callbacks as lc_callbacks
import langchain_core.language_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.outputs as lc_outputs
import pytest

import ragline.core as rl
import ragline.core.caches as rl_caches

COVERS = {"core.InMemoryCache"}

LC = types.SimpleNamespace(
    BaseLLM=lc_models.BaseLLM,
    LLM=lc_models.LLM,
    BaseChatModel=lc_models.BaseChatModel,
    InMemoryCache=lc_caches.InMemoryCache,
    LLMResult=lc_outputs.LLMResult,
    Generation=lc_outputs.Generation,
    ChatResult=lc_outputs.ChatResult,
    ChatGeneration=lc_outputs.ChatGeneration,
    AIMessage=lc_messages.AIMessage,
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
)
OURS = types.SimpleNamespace(
    BaseLLM=rl.BaseLLM,
    LLM=rl.LLM,
    BaseChatModel=rl.BaseChatModel,
    InMemoryCache=rl_caches.InMemoryCache,
    LLMResult=rl.LLMResult,
    Generation=rl.Generation,
    ChatResult=rl.ChatResult,
    ChatGeneration=rl.ChatGeneration,
    AIMessage=rl.AIMessage,
    BaseCallbackHandler=rl.BaseCallbackHandler,
)


def _recorder(ns: Any) -> Any:
    class Recorder(ns.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            self.seen.append(("start", prompts))

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            self.seen.append(("chat_start", [m.content for m in messages[0]]))

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            rows = [[g.text for g in row] for row in response.generations]
            self.seen.append(("end", rows, response.llm_output))

        def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
            self.seen.append(("error", str(error)))

    return Recorder()


def _upper_llm(ns: Any) -> Any:
    """A program's BaseLLM over a list of prompts, writing down each call's prompts."""

    class Upper(ns.BaseLLM):  # type: ignore[misc, name-defined]
        calls: list = []  # noqa: RUF012 (a pydantic field in LangChain)

        @property
        def _llm_type(self) -> str:
            return "upper"

        def _generate(self, prompts, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            self.calls.append(list(prompts))
            rows = [[ns.Generation(text=p.upper())] for p in prompts]
            return ns.LLMResult(generations=rows, llm_output={"n": len(prompts)})

    return Upper(calls=[], cache=ns.InMemoryCache())


def _outcome(result: Any) -> Any:
    rows = [[g.text for g in row] for row in result.generations]
    return rows, result.llm_output, None if result.run is None else len(result.run)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["generate", "agenerate"])
def test_generate_calls_the_model_once_for_the_prompts_the_cache_lacks(asynchronous: bool):
    def run(ns: Any) -> Any:
        model, handler = _upper_llm(ns), _recorder(ns)

        def generate(prompts: list[str]) -> Any:
            if asynchronous:
                return asyncio.run(model.agenerate(prompts, callbacks=[handler]))
            return model.generate(prompts, callbacks=[handler])

        outcomes = [
            _outcome(generate(["a", "b"])),
            _outcome(generate(["a", "c", "b", "d"])),
            _outcome(generate(["c", "a"])),
            _outcome(generate(["e"])),
        ]
        return outcomes, model.calls, handler.seen

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[0] == [
        ([["A"], ["B"]], {"n": 2}, 2),
        ([["A"], ["C"], ["B"], ["D"]], {"n": 2}, 2),  # only c and d ran
        ([["C"], ["A"]], {}, None),  # every prompt cached: no run, no call
        ([["E"]], {"n": 1}, 1),
    ]
    assert lc[1] == [["a", "b"], ["c", "d"], ["e"]]
    assert lc[2][4:8] == [
        ("start", ["c"]),
        ("start", ["d"]),
        ("end", [["C"]], {"n": 2}),
        ("end", [["D"]], {"n": 2, "token_usage": {}}),
    ]


def test_invoke_and_batch_of_a_cached_llm_make_no_run():
    def run(ns: Any) -> Any:
        model = _upper_llm(ns)
        model.invoke("a")
        handler = _recorder(ns)
        answer = model.invoke("a", config={"callbacks": [handler]})
        answers = model.batch(["a", "b", "c"], config={"callbacks": [handler]})
        again = asyncio.run(model.ainvoke("b", config={"callbacks": [handler]}))
        return answer, answers, again, model.calls, handler.seen

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[:4] == ("A", ["A", "B", "C"], "B", [["a"], ["b", "c"]])
    assert [event[0] for event in lc[4]] == ["start", "start", "end", "end"]


def test_an_llm_with_call_runs_each_prompt_the_cache_lacks():
    def run(ns: Any) -> Any:
        class Echo(ns.LLM):  # type: ignore[misc, name-defined]
            calls: list = []  # noqa: RUF012 (a pydantic field in LangChain)

            @property
            def _llm_type(self) -> str:
                return "echo"

            def _call(self, prompt, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                self.calls.append(prompt)
                return prompt * 2

        model, handler = Echo(calls=[], cache=ns.InMemoryCache()), _recorder(ns)
        first = _outcome(model.generate(["x", "y"], callbacks=[handler]))[0]
        second = _outcome(model.generate(["y", "z"], callbacks=[handler]))[0]
        return first, second, model.calls, [event[:2] for event in handler.seen]

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[:3] == ([["xx"], ["yy"]], [["yy"], ["zz"]], ["x", "y", "z"])
    # every missing prompt's run starts, _call runs for each, then every run ends
    assert [event[0] for event in lc[3]] == ["start", "start", "end", "end", "start", "end"]


def test_a_cached_chat_model_still_reports_a_run_per_prompt():
    def run(ns: Any) -> Any:
        class Echo(ns.BaseChatModel):  # type: ignore[misc, name-defined]
            calls: int = 0

            @property
            def _llm_type(self) -> str:
                return "echo-chat"

            def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                self.calls += 1
                reply = ns.AIMessage(content=str(messages[-1].content).upper())
                return ns.ChatResult(generations=[ns.ChatGeneration(message=reply)])

        model, handler = Echo(cache=ns.InMemoryCache()), _recorder(ns)
        answers = [model.invoke(text, config={"callbacks": [handler]}).content
                   for text in ("hi", "hi", "yo")]  # fmt: skip
        return answers, model.calls, [event[0] for event in handler.seen]

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc == (["HI", "HI", "YO"], 2, ["chat_start", "end"] * 3)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["generate", "agenerate"])
def test_an_llm_with_call_starts_every_run_then_calls_for_each_prompt(asynchronous: bool):
    """Without a cache too: LangChain's ``LLM._generate`` loops over ``_call`` inside one
    call, so every run starts first, and an error ends every run."""

    def run(ns: Any) -> Any:
        class Picky(ns.LLM):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "picky"

            def _call(self, prompt, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                if prompt == "bad":
                    raise ValueError("bad prompt")
                return prompt.upper()

        def generate(prompts: list[str], handler: Any) -> Any:
            if asynchronous:
                return asyncio.run(Picky().agenerate(prompts, callbacks=[handler]))
            return Picky().generate(prompts, callbacks=[handler])

        handler = _recorder(ns)
        result = generate(["x", "y"], handler)
        good = (_outcome(result), [event[:2] for event in handler.seen])
        handler = _recorder(ns)
        with pytest.raises(ValueError, match="bad prompt"):
            generate(["x", "bad"], handler)
        return good, [event[:2] for event in handler.seen]

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[0] == (
        ([["X"], ["Y"]], None, 2),
        [("start", ["x"]), ("start", ["y"]), ("end", [["X"]]), ("end", [["Y"]])],
    )
    assert lc[1] == [
        ("start", ["x"]),
        ("start", ["bad"]),
        ("error", "bad prompt"),  # the error ends both runs
        ("error", "bad prompt"),
    ]
