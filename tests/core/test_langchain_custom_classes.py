"""Custom classes written the LangChain way run with only their imports changed.

The classes below are seed 003's examples (custom LLM, retrievers, runnables, binding,
configurable fields) and LangChain's documented hook shapes (``_call`` with
``run_manager``, ``_generate`` returning a ``ChatResult``, ``_stream`` yielding
generation chunks, retrievers taking ``run_manager`` and ``k``); the expectations are
what LangChain's documentation and the seed say they return.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

import pytest
from _run_ids import no_run_ids

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    BaseOutputParser,
    BaseRetriever,
    ConfigurableField,
    Document,
    HumanMessage,
    PromptTemplate,
    RunCollectorCallbackHandler,
    RunnableConfig,
    RunnableLambda,
    RunnableSequence,
    StrOutputParser,
)
from ragline.core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    AsyncCallbackManagerForRetrieverRun,
    BaseCallbackHandler,
    CallbackManagerForChainRun,
    CallbackManagerForLLMRun,
    CallbackManagerForRetrieverRun,
)
from ragline.core.language_models import (
    LLM,
    BaseChatModel,
    BaseLLM,
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    Generation,
    GenerationChunk,
    LLMResult,
    SimpleChatModel,
)
from ragline.core.runnables import Input, Output, RunnableSerializable

# --------------------------------------------------------------------------- seed 003: LLM


class CustomLLM(LLM):
    n: int

    @property
    def _llm_type(self) -> str:
        return "custom"

    def _call(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> str:
        if stop is not None:
            raise ValueError("stop kwargs are not permitted.")
        return prompt[: self.n]

    @property
    def _identifying_params(self) -> Mapping[str, Any]:
        """Get the identifying parameters."""
        return {"n": self.n}


class CustomOutputParser(BaseOutputParser[str]):
    """Parse the output of an LLM call to a comma-separated list."""

    def parse(self, text: str) -> str:
        """Parse the output of an LLM call."""
        return text


def test_seed_003_example_2_custom_llm_in_a_chain():
    prompt_template = PromptTemplate.from_template("instruction: {instruction}\nquestion{q}")
    llm = CustomLLM(n=30)
    parser = CustomOutputParser()
    chain = prompt_template | llm | parser
    assert chain.invoke({"instruction": "1234567890123", "q": "qa"}) == (
        "instruction: 1234567890123\nque"
    )
    assert llm.n == 30 and repr(llm) == "CustomLLM(n=30)"
    with pytest.raises(ValueError, match="stop kwargs are not permitted"):
        llm.invoke("x", stop=["\n"])  # the hook's own error comes through
    with pytest.raises(TypeError, match=r"CustomLLM\(\) missing required field 'n'"):
        CustomLLM()


def test_custom_llm_reports_its_identifying_params_and_type():
    collector = RunCollectorCallbackHandler()
    CustomLLM(n=3).invoke("abcdef", {"callbacks": [collector]})
    (run,) = collector.traced_runs
    assert (run.run_type, run.inputs, run.outputs["generations"][0][0]["text"]) == (
        "llm",
        {"prompts": ["abcdef"]},
        "abc",
    )
    assert run.extra["invocation_params"] == {"n": 3, "_type": "custom", "stop": None}


class FixedReturnLLM(LLM):
    fixed_return_string: str

    @property
    def _llm_type(self) -> str:
        return "custom"

    def _call(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> str:
        return self.fixed_return_string

    def _stream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[GenerationChunk]:
        for s in self.fixed_return_string:
            yield GenerationChunk(text=s)

    @property
    def _identifying_params(self) -> Mapping[str, Any]:
        return {"fixed_return_string": self.fixed_return_string}


def test_seed_003_fixed_return_llm_invokes_and_streams():
    fake_llm = FixedReturnLLM(fixed_return_string="Final Answer: yyy")
    assert fake_llm.invoke("x") == "Final Answer: yyy"
    assert list(fake_llm.stream("x")) == list("Final Answer: yyy")


class Texts(BaseCallbackHandler):
    """Keeps the text runs report with ``on_text`` (a run record keeps none, as LangChain's)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def on_text(self, text, **kwargs):
        self.texts.append(text)


class TokenReportingLLM(LLM):
    """An LLM whose _stream reports its tokens itself, as LangChain's contract says."""

    def _call(self, prompt, stop=None, run_manager=None, **kwargs):
        return "ab"

    def _stream(self, prompt, stop=None, run_manager=None, **kwargs):
        for piece in ("a", "b"):
            chunk = GenerationChunk(text=piece)
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk

    async def _acall(self, prompt, stop=None, run_manager=None, **kwargs):
        assert isinstance(run_manager, AsyncCallbackManagerForLLMRun)
        await run_manager.on_text("async call")  # a coroutine on the async run manager
        return "async " + prompt


def test_an_llm_stream_with_run_manager_reports_its_own_tokens_once():
    collector = RunCollectorCallbackHandler()
    assert list(TokenReportingLLM().stream("q", {"callbacks": [collector]})) == ["a", "b"]
    (run,) = collector.traced_runs
    assert [e["name"] for e in run.events] == ["start", "new_token", "new_token", "end"]
    assert run.outputs["generations"][0][0]["text"] == "ab"


def test_an_llm_acall_gets_the_async_run_manager():
    texts = Texts()
    answer = asyncio.run(TokenReportingLLM().ainvoke("q", {"callbacks": [texts]}))
    assert answer == "async q"
    assert texts.texts == ["async call"]


class ListPromptLLM(BaseLLM):
    """LangChain's BaseLLM shape: _generate over a list of prompts, returning an LLMResult."""

    def _generate(self, prompts, stop=None, run_manager=None, **kwargs):
        assert isinstance(run_manager, CallbackManagerForLLMRun)
        return LLMResult(
            [[Generation(text=prompt.upper())] for prompt in prompts],
            {"token_usage": {"total_tokens": 2}},
        )

    @property
    def _llm_type(self) -> str:
        return "list"


def test_a_base_llm_generating_over_a_list_of_prompts():
    collector = RunCollectorCallbackHandler()
    assert ListPromptLLM().invoke("hi", {"callbacks": [collector]}) == "HI"
    assert collector.traced_runs[0].outputs["llm_output"] == {"token_usage": {"total_tokens": 2}}
    result = ListPromptLLM().generate(["a", "b"])
    assert [g[0].text for g in result.generations] == ["A", "B"]
    # one _generate call with both prompts, as LangChain's: that call's llm_output
    assert result.llm_output == {"token_usage": {"total_tokens": 2}}


# --------------------------------------------------------------------------- chat models


class ParrotChat(BaseChatModel):
    """LangChain's custom chat model shape (its docs' example model, echoing the input)."""

    parrot_buffer_length: int = 3

    def _generate(
        self,
        messages: list[Any],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        assert run_manager is not None
        text = messages[-1].text[: self.parrot_buffer_length]
        message = AIMessage(
            text,
            usage_metadata={"input_tokens": 5, "output_tokens": 1, "total_tokens": 6},
            response_metadata={"model_name": "parrot"},
        )
        return ChatResult(
            [ChatGeneration(message=message, generation_info={"finish_reason": "stop"})],
            llm_output={"token_usage": {"total_tokens": 6}, "model_name": "parrot"},
        )

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        assert run_manager is None  # LangChain 1.x: the base class reports the tokens
        for char in messages[-1].text[: self.parrot_buffer_length]:
            yield ChatGenerationChunk(message=AIMessageChunk(char))

    @property
    def _llm_type(self) -> str:
        return "echoing-chat-model-advanced"


def test_a_chat_model_returning_a_chat_result():
    collector = RunCollectorCallbackHandler()
    reply = ParrotChat(parrot_buffer_length=2).invoke("hello", {"callbacks": [collector]})
    assert reply.content == "he"
    # LangChain's order: the one answer's llm_output, then generation info, then its own
    assert list(reply.response_metadata.items()) == [
        ("token_usage", {"total_tokens": 6}),
        ("model_name", "parrot"),
        ("finish_reason", "stop"),
    ]
    (run,) = collector.traced_runs
    assert run.outputs["llm_output"] == {
        "token_usage": {"total_tokens": 6},
        "model_name": "parrot",
    }
    assert run.outputs["generations"][0][0]["generation_info"] == {"finish_reason": "stop"}


def test_a_chat_model_streaming_generation_chunks():
    collector = RunCollectorCallbackHandler()
    chunks = list(ParrotChat().stream("hello", {"callbacks": [collector]}))
    # then the closing empty chunk marked "last", reported as a token (LangChain 1.x)
    assert [c.content for c in chunks] == ["h", "e", "l", ""]
    assert [c.chunk_position for c in chunks] == [None, None, None, "last"]
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    (run,) = collector.traced_runs
    assert [e["name"] for e in run.events] == ["start"] + ["new_token"] * 4 + ["end"]
    assert asyncio.run(ParrotChat().ainvoke("hello")).content == "hel"  # _generate in a thread


def test_simple_chat_model_and_predict_methods():
    class Reverse(SimpleChatModel):
        def _call(self, messages, stop=None, run_manager=None, **kwargs):
            return messages[-1].text[::-1]

        @property
        def _llm_type(self) -> str:
            return "reverse"

    model = Reverse()
    assert no_run_ids(model.invoke("abc")) == AIMessage("cba")
    assert model.predict("xyz") == "zyx"
    assert no_run_ids(model.predict_messages([HumanMessage("12")])) == AIMessage("21")
    assert asyncio.run(model.apredict("ab")) == "ba"
    prompt = PromptTemplate.from_template("{w}!").invoke({"w": "hi"})
    assert model.generate_prompt([prompt]).generations[0][0].text == "!ih"
    assert CustomLLM(n=2).predict_messages([HumanMessage("hello")]) == AIMessage("Hu")


def test_llm_result_flatten_keeps_token_usage_once():
    result = LLMResult(
        [[Generation("a")], [Generation("b")]], {"token_usage": {"total_tokens": 9}, "m": 1}
    )
    flat = result.flatten()
    assert [(r.generations, r.llm_output) for r in flat] == [
        ([[Generation("a")]], {"token_usage": {"total_tokens": 9}, "m": 1}),
        ([[Generation("b")]], {"token_usage": {}, "m": 1}),
    ]
    assert result.llm_output == {"token_usage": {"total_tokens": 9}, "m": 1}  # not changed


def test_seed_000_performance_handler_sees_chat_runs_and_token_usage():
    """Seed 000's PerformanceCallbackHandler implements on_llm_start/on_llm_end only."""

    class PerformanceCallbackHandler(BaseCallbackHandler):
        def __init__(self) -> None:
            self.total = 0
            self.tokens: dict[str, list[int]] = {}

        def on_llm_start(self, serialized, prompts, *, run_id, **kwargs):
            self.total += 1

        def on_llm_end(self, response, *, run_id, **kwargs):
            if response.llm_output and "token_usage" in response.llm_output:
                for key, value in response.llm_output["token_usage"].items():
                    self.tokens.setdefault(f"tokens_{key}", []).append(value)

    handler = PerformanceCallbackHandler()
    ParrotChat().invoke("hello", {"callbacks": [handler]})
    assert handler.total == 1
    assert handler.tokens == {"tokens_total_tokens": [6]}


# --------------------------------------------------------------------------- retrievers


class FixedReturnRetriever(BaseRetriever):
    fixed_return_documents: list[str]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        assert isinstance(run_manager, CallbackManagerForRetrieverRun)
        return [Document(page_content=doc) for doc in self.fixed_return_documents]


def test_seed_003_fixed_return_retriever_and_its_deprecated_alias():
    fake_retriever = FixedReturnRetriever(fixed_return_documents=["foobar"])
    with pytest.warns(DeprecationWarning, match="get_relevant_documents is deprecated"):
        assert fake_retriever.get_relevant_documents("bar") == [Document(page_content="foobar")]
    assert fake_retriever.invoke("bar") == [Document("foobar")]
    with pytest.warns(DeprecationWarning, match="aget_relevant_documents is deprecated"):
        found = asyncio.run(fake_retriever.aget_relevant_documents("bar"))
    assert found == [Document("foobar")]  # the sync hook in a thread, with a sync run manager


class CustomRetriever(BaseRetriever):
    prefix: str = "retriever"
    k: int = 4
    method: str = "L2"

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [
            Document(page_content=doc) for doc in [f"{self.prefix}: {query}-{self.k}-{self.method}"]
        ]


def test_seed_003_configurable_retriever_behind_a_configurable_prompt():
    fake_retriever = CustomRetriever()
    configurable_fake_retriever = fake_retriever.configurable_fields(
        prefix=ConfigurableField(id="retriever_prefix"),
        k=ConfigurableField(id="retriever_k"),
        method=ConfigurableField(id="retriever_method"),
    )
    assert configurable_fake_retriever.invoke(input="bar") == [Document("retriever: bar-4-L2")]
    prompt = PromptTemplate.from_template("This is history: {history}, This is content: {content}")
    configurable_prompt = prompt.configurable_alternatives(
        ConfigurableField(id="prompt_choice"),
        default_key="default",
        kv=PromptTemplate.from_template("{history}: {content}"),
    )
    chain = configurable_prompt | configurable_fake_retriever
    # the prompt's PromptValue reaches the retriever, which reads it as its string
    assert chain.invoke({"history": "h", "content": "c"}) == [
        Document("retriever: This is history: h, This is content: c-4-L2")
    ]
    configured = chain.invoke(
        {"history": "h", "content": "c"},
        config={
            "configurable": {
                "prompt_choice": "kv",
                "retriever_prefix": "this is retriever",
                "retriever_k": 20,
                "retriever_method": "COSINE",
            }
        },
    )
    assert configured == [Document("this is retriever: h: c-20-COSINE")]
    assert (fake_retriever.prefix, fake_retriever.k, fake_retriever.method) == (
        "retriever",
        4,
        "L2",
    )  # restored after the call (seed: "k 参数在 chain.invoke 之后会被复原")


class CountingRetriever(BaseRetriever):
    k: int = 4

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k=None
    ) -> list[Document]:
        k = self.k if k is None else k
        return [Document(page_content=f"{query}-result_{i}") for i in range(k)]


def test_seed_003_retriever_bind_k():
    found = CountingRetriever().bind(k=3).invoke("text")
    assert [d.page_content for d in found] == ["text-result_0", "text-result_1", "text-result_2"]
    assert len(CountingRetriever().batch(["a", "b"], k=2)[1]) == 2


class MyRetriever(BaseRetriever):
    k: int = 2

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k=None, **kwargs
    ):
        k = self.k if k is None else k
        return [f"{query} answer-{i}" for i in range(k)]


def test_seed_003_retriever_k_per_call_bound_and_configurable():
    retriever = MyRetriever(k=3)
    assert len(retriever.invoke("x", k=7)) == 7
    configurable_retriever = retriever.configurable_fields(k=ConfigurableField(id="default_k"))
    config: RunnableConfig = {"configurable": {"default_k": 1}}
    assert len(configurable_retriever.bind(k=9).invoke("123", config=config)) == 9
    assert len(configurable_retriever.invoke("123", config=config)) == 1
    assert len(asyncio.run(retriever.ainvoke("x", k=5))) == 5


def test_an_async_retriever_hook_gets_the_async_run_manager():
    class AsyncOnly(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager):
            raise AssertionError("the async hook is used")

        async def _aget_relevant_documents(self, query, *, run_manager):
            assert isinstance(run_manager, AsyncCallbackManagerForRetrieverRun)
            await run_manager.on_text("looked")
            return [Document(query)]

    collector = RunCollectorCallbackHandler()
    assert asyncio.run(AsyncOnly().ainvoke("q", {"callbacks": [collector]})) == [Document("q")]
    assert [event for event, _, _ in collector.timeline()] == [
        "retriever_start", "text", "retriever_end"
    ]  # fmt: skip


def test_options_to_a_hook_without_parameters_for_them_are_dropped_with_a_warning():
    with pytest.warns(UserWarning, match="CustomRetriever ignores the search options k"):
        assert CustomRetriever().invoke("q", k=2) == CustomRetriever().invoke("q")


def test_a_retriever_overriding_the_public_method_is_adapted_with_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        class OldStyle(BaseRetriever):
            def get_relevant_documents(self, query):  # type: ignore[override]
                return [Document(query.upper())]

    assert "OldStyle overrides get_relevant_documents" in str(caught[0].message)
    assert OldStyle().invoke("a") == [Document("A")]


# --------------------------------------------------------------------------- runnables


class CustomRunnable(RunnableSerializable[Input, Output]):
    def invoke(self, input, config=None, **kwargs):
        return {"input": input, **kwargs}


def test_seed_003_runnable_serializable_bind():
    assert CustomRunnable().bind(b=2).invoke(1, a=2) == {"input": 1, "a": 2, "b": 2}


def test_seed_003_runnable_lambda_with_config():
    def func1(x):
        return x

    def func2(x, config: RunnableConfig):
        return x["num"] + config["configurable"]["total"]

    assert RunnableLambda(func1).invoke({"num": 1}) == {"num": 1}
    assert RunnableLambda(func2).invoke({"num": 1}, config={"configurable": {"total": 100}}) == 101
    assert (
        RunnableLambda(func2).invoke({"num": 1}, config={"configurable": {"total": 100}, "foo": 2})
        == 101
    )


def test_runnable_lambda_gets_its_run_manager():
    collector = RunCollectorCallbackHandler()
    seen: list[Any] = []

    def step(x, run_manager: CallbackManagerForChainRun, config: RunnableConfig):
        seen.append(run_manager)
        run_manager.on_text("inside")
        inner = RunnableLambda(lambda y: y + 1, name="inner")
        return inner.invoke(x, {"callbacks": run_manager.get_child()})

    assert RunnableLambda(step, name="outer").invoke(1, {"callbacks": [collector]}) == 2
    (outer,) = collector.traced_runs
    assert isinstance(seen[0], CallbackManagerForChainRun) and seen[0].run_id == outer.id
    assert outer.tree() == ("outer", [("inner", [])])
    assert [event for event, name, _ in collector.timeline() if name == "outer"] == [
        "chain_start", "text", "chain_end"
    ]  # fmt: skip


async def test_async_runnable_lambda_gets_the_async_run_manager():
    async def step(x, run_manager):
        await run_manager.on_text("async inside")
        return x * 2

    collector = RunCollectorCallbackHandler()
    assert await RunnableLambda(step).ainvoke(4, {"callbacks": [collector]}) == 8
    assert [event for event, _, _ in collector.timeline()] == ["chain_start", "text", "chain_end"]


def test_runnable_sequence_by_first_middle_last_and_seed_example_1_attributes():
    prompt = PromptTemplate.from_template("{x}")
    upper = RunnableLambda(lambda v: v.to_string().upper())
    parser = StrOutputParser()
    chain = RunnableSequence(first=prompt, middle=[upper], last=parser)
    assert chain.invoke({"x": "ab"}) == "AB"
    assert (chain.first, chain.middle, chain.last, chain.steps) == (
        prompt,
        [upper],
        parser,
        [prompt, upper, parser],
    )
    with pytest.raises(ValueError, match="positionally, or as first= and last="):
        RunnableSequence(prompt, first=prompt, last=parser)


def test_async_chat_hook_shape_with_run_manager():
    class AsyncParrot(ParrotChat):
        async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
            assert isinstance(run_manager, AsyncCallbackManagerForLLMRun)
            return ChatResult([ChatGeneration(message=AIMessage("async"))])

        async def _astream(
            self, messages, stop=None, run_manager=None, **kwargs
        ) -> AsyncIterator[ChatGenerationChunk]:
            for piece in ("x", "y"):
                yield ChatGenerationChunk(message=AIMessageChunk(piece))

    model = AsyncParrot()
    assert asyncio.run(model.ainvoke("hi")).content == "async"

    async def collect() -> list[str]:
        return [chunk.content async for chunk in model.astream("hi")]

    assert asyncio.run(collect()) == ["x", "y", ""]  # and the closing empty piece
