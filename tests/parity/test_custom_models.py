"""Parity: a program's own models and the output records, against langchain_core's.

A program writes its own chat model by subclassing BaseChatModel (``_generate``, perhaps
``_stream``), SimpleChatModel (``_call``) or LLM (``_call``), and reads Generation,
ChatGeneration, ChatResult and LLMResult back from ``generate``. Each scenario defines
the same model on each library's base and compares outputs, streamed chunks, the
results ``generate`` returns and the callbacks a handler records.
"""

from __future__ import annotations

import asyncio
import types
import typing
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.language_models as lc_models
import langchain_core.messages as lc_messages
import langchain_core.outputs as lc_outputs
import pytest

import ragline.core as rl
import ragline.core.language_models as rl_models
import ragline.core.messages as rl_messages
from tests.parity._observe import observe

COVERS = {
    "core.BaseChatModel",
    "core.SimpleChatModel",
    "core.BaseLLM",
    "core.LLM",
    "core.BaseLanguageModel",
    "core.language_models.LanguageModelInput",
    "core.Generation",
    "core.GenerationChunk",
    "core.ChatGeneration",
    "core.ChatGenerationChunk",
    "core.ChatResult",
    "core.LLMResult",
    "core.FakeMessagesListChatModel",
    "core.messages.AnyMessage",
    "core.messages.MessageLike",
}

LC = types.SimpleNamespace(
    BaseChatModel=lc_models.BaseChatModel,
    SimpleChatModel=lc_models.SimpleChatModel,
    BaseLLM=lc_models.BaseLLM,
    LLM=lc_models.LLM,
    BaseLanguageModel=lc_models.BaseLanguageModel,
    FakeMessagesListChatModel=lc_models.FakeMessagesListChatModel,
    LanguageModelInput=lc_models.LanguageModelInput,
    Generation=lc_outputs.Generation,
    GenerationChunk=lc_outputs.GenerationChunk,
    ChatGeneration=lc_outputs.ChatGeneration,
    ChatGenerationChunk=lc_outputs.ChatGenerationChunk,
    ChatResult=lc_outputs.ChatResult,
    LLMResult=lc_outputs.LLMResult,
    AIMessage=lc_messages.AIMessage,
    AIMessageChunk=lc_messages.AIMessageChunk,
    HumanMessage=lc_messages.HumanMessage,
    AnyMessage=lc_messages.AnyMessage,
    MessageLike=__import__("langchain_core.prompts.chat", fromlist=["MessageLike"]).MessageLike,
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
)
OURS = types.SimpleNamespace(
    BaseChatModel=rl.BaseChatModel,
    SimpleChatModel=rl.SimpleChatModel,
    BaseLLM=rl.BaseLLM,
    LLM=rl.LLM,
    BaseLanguageModel=rl.BaseLanguageModel,
    FakeMessagesListChatModel=rl.FakeMessagesListChatModel,
    LanguageModelInput=rl_models.LanguageModelInput,
    Generation=rl.Generation,
    GenerationChunk=rl.GenerationChunk,
    ChatGeneration=rl.ChatGeneration,
    ChatGenerationChunk=rl.ChatGenerationChunk,
    ChatResult=rl.ChatResult,
    LLMResult=rl.LLMResult,
    AIMessage=rl_messages.AIMessage,
    AIMessageChunk=rl_messages.AIMessageChunk,
    HumanMessage=rl_messages.HumanMessage,
    AnyMessage=rl_messages.AnyMessage,
    MessageLike=rl_messages.MessageLike,
    BaseCallbackHandler=rl.BaseCallbackHandler,
)
BOTH = pytest.mark.parametrize("ns", [LC, OURS], ids=["langchain", "ragline"])


def _both(run: Any) -> tuple[Any, Any]:
    return run(LC), run(OURS)


def _recorder(ns: Any) -> Any:
    class Recorder(ns.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            self.seen.append(
                ("llm_start", prompts, kwargs.get("invocation_params", {}).get("stop"))
            )

        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            self.seen.append(("chat_start", observe(messages)))

        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            self.seen.append(("token", token))

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            gens = [[(type(g).__name__, g.text) for g in row] for row in response.generations]
            self.seen.append(("llm_end", gens, response.llm_output))

        def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
            self.seen.append(("llm_error", type(error).__name__, str(error)))

    return Recorder()


# ---- a program's own BaseChatModel ----------------------------------------------------
def _echo_chat(ns: Any) -> type:
    """A chat model that answers with the last message's text upper-cased, streaming one
    character a chunk, as the how-to guide's custom chat model does."""

    class EchoChat(ns.BaseChatModel):  # type: ignore[misc, name-defined]
        prefix: str = ""

        @property
        def _llm_type(self) -> str:
            return "echo-chat"

        @property
        def _identifying_params(self) -> dict[str, Any]:
            return {"prefix": self.prefix}

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            text = self.prefix + str(messages[-1].content).upper()
            if stop:
                text = text.split(stop[0])[0]
            message = ns.AIMessage(content=text, response_metadata={"n": len(messages)})
            return ns.ChatResult(
                generations=[ns.ChatGeneration(message=message)],
                llm_output={"model": "echo"},
            )

        def _stream(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            for char in self.prefix + str(messages[-1].content).upper():
                chunk = ns.ChatGenerationChunk(message=ns.AIMessageChunk(content=char))
                if run_manager:
                    run_manager.on_llm_new_token(char, chunk=chunk)
                yield chunk

    return EchoChat


def test_a_custom_chat_model_invoke_batch_and_stream():
    def run(ns: Any) -> Any:
        model = _echo_chat(ns)(prefix="> ")
        return (
            observe(model.invoke("hi there")),
            model.invoke([ns.HumanMessage(content="a"), ("human", "bcd")]).response_metadata,
            [observe(m) for m in model.batch(["x", "y"])],
            [chunk.content for chunk in model.stream("ok")],
            type(model.invoke("z", stop=["Z"])).__name__,
            model.invoke("wxyz", stop=["Y"]).content,
            model._llm_type,
            isinstance(model, ns.BaseLanguageModel),
        )

    lc, ours = _both(run)
    assert ours == lc
    assert lc[0] == ("AIMessage", "> HI THERE", None)
    assert lc[1] == {"model": "echo", "n": 2}  # a one-answer llm_output joins the metadata
    assert lc[3] == [">", " ", "O", "K", ""]  # then the closing empty piece


def test_a_custom_chat_model_generate_gives_a_result_per_prompt():
    def run(ns: Any) -> Any:
        model = _echo_chat(ns)()
        result = model.generate([[ns.HumanMessage(content="ab")], [ns.HumanMessage(content="c")]])
        return (
            type(result).__name__,
            [
                [(type(g).__name__, g.text, observe(g.message)) for g in row]
                for row in result.generations
            ],
            len(result.run or []),
        ), result.llm_output

    (lc, lc_output), (ours, our_output) = _both(run)
    assert ours == lc
    # the base chat model joins the runs' llm_output as {} (ChatOpenAI sums the usage)
    assert our_output == lc_output == {}
    assert lc[1][0] == [("ChatGeneration", "AB", ("AIMessage", "AB", None))]


def test_a_custom_chat_models_callbacks_in_order():
    def run(ns: Any) -> Any:
        handler = _recorder(ns)
        model = _echo_chat(ns)()
        model.invoke("ab", config={"callbacks": [handler]})
        list(model.stream("cd", config={"callbacks": [handler]}))
        return handler.seen

    lc, ours = _both(run)
    assert ours == lc
    assert lc[-5:] == [
        ("chat_start", [[("HumanMessage", "cd", None)]]),
        ("token", "C"),
        ("token", "D"),
        ("token", ""),
        ("llm_end", [[("ChatGenerationChunk", "CD")]], None),
    ]


async def test_a_custom_chat_model_async_falls_back_to_the_sync_hooks():
    async def run(ns: Any) -> Any:
        model = _echo_chat(ns)()
        answer = await model.ainvoke("ab")
        chunks = [chunk.content async for chunk in model.astream("cd")]
        return observe(answer), chunks

    lc, ours = await run(LC), await run(OURS)
    assert ours == lc == (("AIMessage", "AB", None), ["C", "D", ""])


def test_a_chat_model_without_stream_streams_its_whole_answer_once():
    def run(ns: Any) -> Any:
        class Whole(ns.BaseChatModel):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "whole"

            def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                message = ns.AIMessage(content="all at once")
                return ns.ChatResult(generations=[ns.ChatGeneration(message=message)])

        return [(type(c).__name__, c.content) for c in Whole().stream("q")]

    lc, ours = _both(run)
    assert ours == lc == [("AIMessage", "all at once")]  # the AIMessage itself, in both


def test_an_error_in_generate_reaches_the_handler_and_the_caller():
    def run(ns: Any) -> Any:
        class Broken(ns.BaseChatModel):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "broken"

            def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                raise RuntimeError("backend down")

        handler = _recorder(ns)
        with pytest.raises(RuntimeError, match="backend down"):
            Broken().invoke("q", config={"callbacks": [handler]})
        return handler.seen

    lc, ours = _both(run)
    assert ours == lc
    assert lc[-1] == ("llm_error", "RuntimeError", "backend down")


# ---- SimpleChatModel ------------------------------------------------------------------
def test_a_simple_chat_model_with_call():
    def run(ns: Any) -> Any:
        class Counter(ns.SimpleChatModel):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "counter"

            def _call(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                return f"{len(messages)} messages, last: {messages[-1].content}"

        model = Counter()
        return (
            observe(model.invoke([("system", "s"), ("human", "h")])),
            [c.content for c in model.stream("x")],
            [
                [g.text for g in row]
                for row in model.generate([[ns.HumanMessage(content="q")]]).generations
            ],
        )

    lc, ours = _both(run)
    assert ours == lc
    assert lc[0] == ("AIMessage", "2 messages, last: h", None)


# ---- LLM ------------------------------------------------------------------------------
def _reverse_llm(ns: Any) -> type:
    class Reverse(ns.LLM):  # type: ignore[misc, name-defined]
        n: int = 0

        @property
        def _llm_type(self) -> str:
            return "reverse"

        @property
        def _identifying_params(self) -> dict[str, Any]:
            return {"n": self.n}

        def _call(self, prompt, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            text = prompt[::-1]
            if stop:
                text = text.split(stop[0])[0]
            return text

    return Reverse


def test_a_custom_llm_invoke_stream_batch_and_generate():
    def run(ns: Any) -> Any:
        model = _reverse_llm(ns)(n=2)
        result = model.generate(["abc", "de"])
        return (
            model.invoke("hello"),
            model.invoke([("human", "hi")]),
            list(model.stream("xyz")),
            model.batch(["ab", "cd"]),
            model.invoke("abcdef", stop=["c"]),
            type(result).__name__,
            [
                [(type(g).__name__, g.text, g.generation_info) for g in row]
                for row in result.generations
            ],
            result.llm_output,
            isinstance(model, ns.BaseLLM),
            isinstance(model, ns.BaseLanguageModel),
        )

    lc, ours = _both(run)
    assert ours == lc
    assert lc[:4] == ("olleh", "ih :namuH", ["zyx"], ["ba", "dc"])


def test_a_custom_llms_callbacks_in_order():
    def run(ns: Any) -> Any:
        handler = _recorder(ns)
        model = _reverse_llm(ns)()
        model.invoke("ab", config={"callbacks": [handler]})
        model.invoke("abcd", stop=["b"], config={"callbacks": [handler]})
        return handler.seen

    lc, ours = _both(run)
    assert ours == lc
    assert lc == [
        ("llm_start", ["ab"], None),
        ("llm_end", [[("Generation", "ba")]], None),
        ("llm_start", ["abcd"], ["b"]),
        ("llm_end", [[("Generation", "dc")]], None),
    ]


def test_a_base_llm_with_generate_and_stream():
    def run(ns: Any) -> Any:
        class Words(ns.BaseLLM):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "words"

            def _generate(self, prompts, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                rows = [
                    [ns.Generation(text=p.upper(), generation_info={"len": len(p)})]
                    for p in prompts
                ]
                return ns.LLMResult(generations=rows, llm_output={"calls": len(prompts)})

            def _stream(self, prompt, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                for word in prompt.split():
                    yield ns.GenerationChunk(text=word + " ")

        model = Words()
        result = model.generate(["a b", "c"])
        return (
            model.invoke("one two"),
            list(model.stream("one two")),
            [[(g.text, g.generation_info) for g in row] for row in result.generations],
        ), result.llm_output

    (lc, lc_output), (ours, our_output) = _both(run)
    assert ours == lc
    assert lc[:2] == ("ONE TWO", ["one ", "two "])
    # generate calls _generate once with both prompts, in both
    assert our_output == lc_output == {"calls": 2}


def _batching_llm(ns: Any) -> Any:
    """A program's own BaseLLM that writes down each ``_generate`` call's prompts and
    reports token usage for the whole call."""

    class Batching(ns.BaseLLM):  # type: ignore[misc, name-defined]
        calls: list = []  # noqa: RUF012 (a pydantic field in LangChain)

        @property
        def _llm_type(self) -> str:
            return "batching"

        def _generate(self, prompts, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            self.calls.append((list(prompts), stop))
            rows = [[ns.Generation(text=p[::-1])] for p in prompts]
            usage = {"total_tokens": sum(len(p) for p in prompts)}
            return ns.LLMResult(generations=rows, llm_output={"token_usage": usage, "n": 3})

    return Batching(calls=[])


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_base_llm_generate_calls_generate_once_with_every_prompt(asynchronous: bool):
    def run(ns: Any) -> Any:
        model, handler = _batching_llm(ns), _recorder(ns)
        if asynchronous:
            result = asyncio.run(model.agenerate(["ab", "cde", "f"], stop=["x"],
                                                 callbacks=[handler]))  # fmt: skip
        else:
            result = model.generate(["ab", "cde", "f"], stop=["x"], callbacks=[handler])
        rows = [[g.text for g in row] for row in result.generations]
        return model.calls, rows, result.llm_output, len(result.run or []), handler.seen

    lc, ours = _both(run)
    assert ours == lc
    usage = {"token_usage": {"total_tokens": 6}, "n": 3}
    assert lc[:4] == ([(["ab", "cde", "f"], ["x"])], [["ba"], ["edc"], ["f"]], usage, 3)
    # one run per prompt: every start, then every end; the first run's llm_output is
    # the call's, the others' keep its keys with no token usage
    assert lc[4] == [
        ("llm_start", ["ab"], ["x"]),
        ("llm_start", ["cde"], ["x"]),
        ("llm_start", ["f"], ["x"]),
        ("llm_end", [[("Generation", "ba")]], usage),
        ("llm_end", [[("Generation", "edc")]], {"token_usage": {}, "n": 3}),
        ("llm_end", [[("Generation", "f")]], {"token_usage": {}, "n": 3}),
    ]


@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize("max_concurrency", [None, 2, 1])
def test_a_base_llm_batch_calls_generate_with_the_inputs_together(
    max_concurrency: Any, asynchronous: bool
):
    def run(ns: Any) -> Any:
        model, handler = _batching_llm(ns), _recorder(ns)
        config = {"callbacks": [handler], "max_concurrency": max_concurrency}
        if asynchronous:
            outputs = asyncio.run(model.abatch(["ab", "cde", "f"], config, stop=["x"]))
        else:
            outputs = model.batch(["ab", "cde", "f"], config, stop=["x"])
        return outputs, model.calls, len(handler.seen)

    lc, ours = _both(run)
    assert ours == lc
    calls = {
        None: [(["ab", "cde", "f"], ["x"])],
        2: [(["ab", "cde"], ["x"]), (["f"], ["x"])],
        1: [(["ab"], ["x"]), (["cde"], ["x"]), (["f"], ["x"])],
    }
    assert lc == (["ba", "edc", "f"], calls[max_concurrency], 6)


def test_a_base_llm_batch_error_is_every_inputs():
    def run(ns: Any) -> Any:
        class Broken(ns.BaseLLM):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "broken"

            def _generate(self, prompts, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                raise RuntimeError(f"{len(prompts)} prompts")

        outputs = Broken().batch(["a", "b"], return_exceptions=True)
        return [(type(error).__name__, str(error)) for error in outputs]

    lc, ours = _both(run)
    assert ours == lc == [("RuntimeError", "2 prompts")] * 2


def test_a_base_llm_generate_error_reaches_every_run():
    def run(ns: Any) -> Any:
        class Broken(ns.BaseLLM):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "broken"

            def _generate(self, prompts, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
                raise RuntimeError(f"{len(prompts)} prompts")

        handler = _recorder(ns)
        with pytest.raises(RuntimeError, match="2 prompts"):
            Broken().generate(["a", "b"], callbacks=[handler])
        return handler.seen

    lc, ours = _both(run)
    assert ours == lc
    assert lc[2:] == [("llm_error", "RuntimeError", "2 prompts")] * 2


# ---- FakeMessagesListChatModel --------------------------------------------------------
def test_fake_messages_list_chat_model_cycles_its_messages():
    def run(ns: Any) -> Any:
        model = ns.FakeMessagesListChatModel(
            responses=[ns.AIMessage(content="first", id="a"), ns.AIMessage(content="second")]
        )
        answers = [observe(model.invoke("q")) for _ in range(3)]
        return answers, model.i, [observe(c) for c in model.stream("q")]

    lc, ours = _both(run)
    assert ours == lc
    assert lc[2] == [("AIMessage", "second", None)]  # the whole reply, once
    assert lc[0] == [
        ("AIMessage", "first", None),
        ("AIMessage", "second", None),
        ("AIMessage", "first", None),
    ]


# ---- output records -------------------------------------------------------------------
def test_generation_chunks_add_up():
    def run(ns: Any) -> Any:
        text = ns.GenerationChunk(text="a", generation_info={"x": 1}) + ns.GenerationChunk(
            text="b", generation_info={"y": 2}
        )
        chat = ns.ChatGenerationChunk(
            message=ns.AIMessageChunk(content="c")
        ) + ns.ChatGenerationChunk(
            message=ns.AIMessageChunk(content="d"), generation_info={"finish_reason": "stop"}
        )
        return (
            (type(text).__name__, text.text, text.generation_info),
            (type(chat).__name__, chat.text, observe(chat.message), chat.generation_info),
            ns.Generation(text="t").text,
            ns.Generation(text="t").generation_info,
            ns.ChatGeneration(message=ns.AIMessage(content="m")).text,
            ns.Generation(text="t") == ns.Generation(text="t"),
        )

    lc, ours = _both(run)
    assert ours == lc
    assert lc[1] == (
        "ChatGenerationChunk",
        "cd",
        ("AIMessageChunk", "cd", None),
        {"finish_reason": "stop"},
    )


def test_llm_result_flatten():
    def run(ns: Any) -> Any:
        result = ns.LLMResult(
            generations=[[ns.Generation(text="a")], [ns.Generation(text="b")]],
            llm_output={"token_usage": {"total_tokens": 4}},
        )
        flat = result.flatten()
        return [([[g.text for g in row] for row in r.generations], r.llm_output) for r in flat]

    lc, ours = _both(run)
    assert ours == lc
    assert lc == [([["a"]], {"token_usage": {"total_tokens": 4}}), ([["b"]], {"token_usage": {}})]


# ---- type aliases ---------------------------------------------------------------------
def test_the_input_and_message_aliases_name_the_same_forms():
    """``LanguageModelInput``, ``AnyMessage`` and ``MessageLike`` are typing aliases a
    program puts in annotations; a model takes each form LanguageModelInput names."""

    def run(ns: Any) -> Any:
        model = _reverse_llm(ns)()
        from_prompt_value = model.invoke(
            __import__(
                "langchain_core.prompt_values" if ns is LC else "ragline.core.prompts",
                fromlist=["StringPromptValue"],
            ).StringPromptValue(text="pv")
        )
        return (
            from_prompt_value,
            model.invoke([ns.HumanMessage(content="m")]),
            model.invoke([("ai", "t")]),
            typing.get_origin(ns.LanguageModelInput) is typing.Union,
            len(typing.get_args(ns.LanguageModelInput)),
        )

    lc, ours = _both(run)
    assert ours == lc
    assert lc[:3] == ("vp", "m :namuH", "t :IA")


def test_a_chat_models_own_combine_llm_outputs_joins_generate():
    def run(ns: Any) -> Any:
        class Counted(_echo_chat(ns)):  # type: ignore[misc, valid-type]
            def _combine_llm_outputs(self, llm_outputs: list[Any]) -> dict[str, Any]:
                return {"runs": len(llm_outputs), "first": llm_outputs[0]}

        result = Counted().generate(
            [[ns.HumanMessage(content="a")], [ns.HumanMessage(content="b")]]
        )
        return result.llm_output

    assert _both(run)[1] == _both(run)[0] == {"runs": 2, "first": {"model": "echo"}}
