"""Parity: differences found by the eighth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

from typing import Annotated, Any

import langchain_core.tools as lc_tools
import pytest
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables.retry import RunnableRetry as LCRunnableRetry
from pydantic import BaseModel, Field

import ragline.tools as rl_tools
from ragline.core.runnables import RunnableLambda
from ragline.core.runnables.retry import RunnableRetry

COVERS = {
    "core.ConfigurableFieldMultiOption",
    "core.ConfigurableFieldSingleOption",
    "core.count_tokens_approximately",
    "tools.InjectedToolArg",
    "tools.InjectedToolCallId",
}


def _retry_view(retry: Any) -> tuple[Any, ...]:
    return (
        type(retry).__name__,
        retry.retry_exception_types,
        retry.max_attempt_number,
        retry.wait_exponential_jitter,
        retry.exponential_jitter_params,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"retry_if_exception_type": (ConnectionError,), "stop_after_attempt": 4},
        {"wait_exponential_jitter": False, "exponential_jitter_params": {"initial": 2}},
    ],
)
def test_with_retry_has_langchains_attributes(kwargs: dict[str, Any]) -> None:
    theirs = LCRunnableLambda(lambda x: x).with_retry(**kwargs)
    ours = RunnableLambda(lambda x: x).with_retry(**kwargs)
    assert _retry_view(ours) == _retry_view(theirs)


def test_runnable_retry_takes_langchains_constructor_names() -> None:
    """LangChain's documented construction: RunnableRetry(bound=..., retry_exception_types=...,
    max_attempt_number=...): the attempts follow max_attempt_number."""

    def run(retry_cls: Any, lambda_cls: Any) -> tuple[Any, ...]:
        calls: list[int] = []

        def flaky(x: int) -> int:
            calls.append(x)
            raise ValueError("down")

        retry = retry_cls(
            bound=lambda_cls(flaky),
            retry_exception_types=(ValueError,),
            max_attempt_number=2,
            wait_exponential_jitter=False,
        )
        with pytest.raises(ValueError, match="down"):
            retry.invoke(1)
        return (*_retry_view(retry), len(calls))

    assert run(RunnableRetry, RunnableLambda) == run(LCRunnableRetry, LCRunnableLambda)


# trim_messages / count_tokens_approximately (trim_messages_runnable_chain,
# trim_messages_words_allow_partial)


def _history(messages_mod: Any) -> list[Any]:
    m = messages_mod
    return [
        m.SystemMessage("This is a 4 token text."),
        m.HumanMessage("This is a 4 token text. The full message is 10 tokens.", id="h1"),
        m.AIMessage(
            "First part of a long answer.\nSecond part of a long answer.\nThird part.", id="a1"
        ),
        m.HumanMessage("ok thanks", name="bob", id="h2"),
        m.AIMessage(
            [{"type": "text", "text": "block one"}, {"type": "text", "text": "block two two"}],
            id="a2",
        ),
        m.HumanMessage("and\nmore\nlines here", id="h3"),
        m.AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": "call_1"}]),
        m.ToolMessage("result text", tool_call_id="call_1"),
    ]


def _words(messages: list[Any]) -> int:
    return sum(len(str(m.content).split()) for m in messages)


def _view(messages: list[Any]) -> list[tuple[str, Any, Any]]:
    return [(m.type, m.content, m.id) for m in messages]


TRIMS: list[dict[str, Any]] = (
    [
        {"max_tokens": n, "strategy": "last", "include_system": True, "start_on": "human"}
        for n in range(0, 9)
    ]
    + [
        {"max_tokens": n, "strategy": strategy, "allow_partial": True}
        for n in (0, 3, 6, 9, 12, 14, 17, 20, 25, 31, 40)
        for strategy in ("first", "last")
    ]
    + [
        {"max_tokens": 14, "strategy": "last", "allow_partial": True, "include_system": True},
        {"max_tokens": 20, "strategy": "first", "allow_partial": True, "end_on": "human"},
        {"max_tokens": 12, "strategy": "last", "allow_partial": True, "start_on": "human"},
    ]
)


@pytest.mark.parametrize("counter", ["len", "words", "per_message", "approximate"])
@pytest.mark.parametrize("options", TRIMS)
def test_trim_messages_keeps_what_langchains_keeps(options: dict[str, Any], counter: str) -> None:
    import langchain_core.messages as lc_messages
    from langchain_core.messages import BaseMessage as LCBaseMessage
    from langchain_core.messages import trim_messages as lc_trim

    import ragline.core as rl_messages
    from ragline.core import BaseMessage as RLBaseMessage
    from ragline.core import trim_messages as rl_trim

    def lc_one(message: LCBaseMessage) -> int:
        return len(str(message.content))

    def rl_one(message: RLBaseMessage) -> int:
        return len(str(message.content))

    # the class itself, not its name (this module's annotations are strings): both
    # libraries then count one message and sum
    lc_one.__annotations__["message"] = LCBaseMessage
    rl_one.__annotations__["message"] = RLBaseMessage

    counters = {
        "len": (len, len),
        "words": (_words, _words),
        "per_message": (lc_one, rl_one),
        "approximate": ("approximate", "approximate"),
    }
    lc_counter, rl_counter = counters[counter]
    if counter == "approximate":
        options = {**options, "max_tokens": options["max_tokens"] * 4}
    if counter == "per_message":
        options = {**options, "max_tokens": options["max_tokens"] * 6}
    theirs = lc_trim(_history(lc_messages), token_counter=lc_counter, **options)
    ours = rl_trim(_history(rl_messages), token_counter=rl_counter, **options)
    assert _view(ours) == _view(theirs)


def test_trim_messages_text_splitter_and_runnable_form() -> None:
    import langchain_core.messages as lc_messages
    from langchain_core.messages import trim_messages as lc_trim
    from langchain_text_splitters import CharacterTextSplitter as LCCharacterTextSplitter

    import ragline.core as rl_messages
    from ragline.core import trim_messages as rl_trim
    from ragline.splitters import CharacterTextSplitter

    def by_words(text: str) -> list[str]:
        return [w + " " for w in text.split(" ")]

    for first in ("first", "last"):
        lc = lc_trim(
            _history(lc_messages),
            max_tokens=17,
            token_counter=_words,
            strategy=first,
            allow_partial=True,
            text_splitter=by_words,
        )
        rl = rl_trim(
            _history(rl_messages),
            max_tokens=17,
            token_counter=_words,
            strategy=first,
            allow_partial=True,
            text_splitter=by_words,
        )
        assert _view(rl) == _view(lc)
    lc_split = LCCharacterTextSplitter(separator=" ", chunk_size=8, chunk_overlap=0).split_text
    rl_split = CharacterTextSplitter(separator=" ", chunk_size=8, chunk_overlap=0).split_text
    lc = lc_trim(
        _history(lc_messages),
        max_tokens=15,
        token_counter=_words,
        strategy="first",
        allow_partial=True,
        text_splitter=lc_split,
    )
    rl = rl_trim(
        _history(rl_messages),
        max_tokens=15,
        token_counter=_words,
        strategy="first",
        allow_partial=True,
        text_splitter=rl_split,
    )
    assert _view(rl) == _view(lc)
    lc_runnable = lc_trim(max_tokens=1, token_counter=len, include_system=True, start_on="human")
    rl_runnable = rl_trim(max_tokens=1, token_counter=len, include_system=True, start_on="human")
    assert _view(rl_runnable.invoke(_history(rl_messages))) == _view(
        lc_runnable.invoke(_history(lc_messages))
    )


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"chars_per_token": 2.0},
        {"extra_tokens_per_message": 1.5, "count_name": False},
        {"tokens_per_image": 10},
    ],
)
def test_count_tokens_approximately_is_langchains(options: dict[str, Any]) -> None:
    import langchain_core.messages as lc_messages
    from langchain_core.messages.utils import count_tokens_approximately as lc_count

    import ragline.core as rl_messages
    from ragline.core import count_tokens_approximately as rl_count

    def more(m: Any) -> list[Any]:
        return [
            *_history(m),
            m.HumanMessage(
                [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    {"type": "other", "x": 1},
                ]
            ),
            m.SystemMessage("dev", additional_kwargs={"__openai_role__": "developer"}),
            m.ChatMessage("chat", role="critic"),
        ]

    assert rl_count(more(rl_messages), **options) == lc_count(more(lc_messages), **options)
    for part in range(1, 6):
        assert rl_count(_history(rl_messages)[:part]) == lc_count(_history(lc_messages)[:part])
    dict_tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    assert rl_count([], tools=[dict_tool]) == lc_count([], tools=[dict_tool])


def test_count_tokens_approximately_scales_by_reported_usage() -> None:
    import langchain_core.messages as lc_messages
    from langchain_core.messages.utils import count_tokens_approximately as lc_count

    import ragline.core as rl_messages
    from ragline.core import count_tokens_approximately as rl_count

    def chat(m: Any, providers: list[Any], total: int) -> list[Any]:
        out: list[Any] = [m.HumanMessage("hello there, how are things going today?")]
        for i, provider in enumerate(providers):
            meta = {"model_provider": provider} if provider is not None else {}
            usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": total + i}
            out.append(
                m.AIMessage("fine thanks " * 3, response_metadata=meta, usage_metadata=usage)
            )
            out.append(m.HumanMessage("and then?"))
        return out

    for providers in (
        ["openai"],
        ["openai", "openai"],
        ["openai", "anthropic"],
        [None, "x"],
        [None],
    ):
        for total in (5, 20, 40, 200):
            lc = lc_count(chat(lc_messages, providers, total), use_usage_metadata_scaling=True)
            rl = rl_count(chat(rl_messages, providers, total), use_usage_metadata_scaling=True)
            assert (providers, total, rl) == (providers, total, lc)


# InjectedToolArg / InjectedToolCallId (injected_tool_arg_user_id). The tools are built at
# module level: this module's annotations are strings, resolved in its globals.

PETS = {"user_0": "Spike", "user_1": "Rex"}


def _pet(user_id: str, greeting: str = "Hi") -> str:
    return f"{greeting}, {PETS[user_id]}"


@lc_tools.tool
def lc_get_user_pet_name(
    user_id: Annotated[str, lc_tools.InjectedToolArg], greeting: str = "Hi"
) -> str:
    """Returns the user's pet name."""
    return _pet(user_id, greeting)


@rl_tools.tool
def rl_get_user_pet_name(
    user_id: Annotated[str, rl_tools.InjectedToolArg], greeting: str = "Hi"
) -> str:
    """Returns the user's pet name."""
    return _pet(user_id, greeting)


@lc_tools.tool
def lc_note(
    text: str,
    owner: Annotated[str, lc_tools.InjectedToolArg()],
    call: Annotated[str, lc_tools.InjectedToolCallId],
) -> str:
    """Store a note."""
    return f"{owner}:{text}@{call}"


@rl_tools.tool
def rl_note(
    text: str,
    owner: Annotated[str, rl_tools.InjectedToolArg()],
    call: Annotated[str, rl_tools.InjectedToolCallId],
) -> str:
    """Store a note."""
    return f"{owner}:{text}@{call}"


class LCLookup(BaseModel):
    q: str = Field(description="query")
    uid: Annotated[str, lc_tools.InjectedToolArg]


class RLLookup(BaseModel):
    q: str = Field(description="query")
    uid: Annotated[str, rl_tools.InjectedToolArg]


def _lookup(q: str, uid: str) -> str:
    return q + uid


def _injected_tools(tools_mod: Any, prefix: str, schema: Any) -> dict[str, Any]:
    lookup = tools_mod.StructuredTool.from_function(
        _lookup, name="lookup", description="look up", args_schema=schema
    )
    pet, note = globals()[f"{prefix}_get_user_pet_name"], globals()[f"{prefix}_note"]
    return {"pet": pet, "note": note, "lookup": lookup}


def test_injected_tool_args_are_hidden_from_the_model_as_langchains() -> None:
    from langchain_core.utils.function_calling import convert_to_openai_tool as lc_convert

    from ragline.tools import convert_to_openai_tool as rl_convert

    theirs = _injected_tools(lc_tools, "lc", LCLookup)
    ours = _injected_tools(rl_tools, "rl", RLLookup)
    for key in theirs:
        lc, rl = theirs[key], ours[key]
        lc_shown = lc.tool_call_schema.model_json_schema()
        rl_shown = rl.tool_call_schema.model_json_schema()
        lc_shown["title"] = rl_shown["title"] = "-"  # the function names differ (lc_/rl_)
        assert rl_shown == lc_shown, key
        assert rl.args == lc.args, key
        assert (
            rl.get_input_schema().model_json_schema()["required"]
            == (lc.get_input_schema().model_json_schema()["required"])
        ), key
        assert rl.is_single_input == lc.is_single_input, key
        lc_spec, rl_spec = lc_convert(lc), rl_convert(rl)
        lc_spec["function"]["name"] = rl_spec["function"]["name"] = "-"
        assert rl_spec == lc_spec, key
    assert ours["pet"].invoke({"user_id": "user_0"}) == theirs["pet"].invoke({"user_id": "user_0"})
    assert ours["lookup"].invoke({"q": "a", "uid": "b"}) == "ab"
    args = {"text": "hi", "owner": "ann"}
    lc_message = theirs["note"].invoke(
        {"name": "lc_note", "args": dict(args), "id": "c7", "type": "tool_call"}
    )
    rl_message = ours["note"].invoke(
        {"name": "rl_note", "args": dict(args), "id": "c7", "type": "tool_call"}
    )
    assert (rl_message.content, rl_message.tool_call_id) == (
        lc_message.content,
        lc_message.tool_call_id,
    )
    for bare in ({"text": "hi", "owner": "ann"}, {"text": "hi", "owner": "ann", "call": "x"}):
        with pytest.raises(ValueError):
            theirs["note"].invoke(bare)
        with pytest.raises(ValueError):
            ours["note"].invoke(bare)
    with pytest.raises(ValueError):  # the injected argument is still required
        theirs["pet"].invoke({"greeting": "Yo"})
    with pytest.raises(ValueError):
        ours["pet"].invoke({"greeting": "Yo"})


def test_injected_tool_call_id_never_comes_from_the_arguments_as_langchains() -> None:
    """run / arun (an agent executor's way in, with the model's arguments) take the
    InjectedToolCallId argument from tool_call_id only, as LangChain's: a value the
    arguments give there is replaced, and without tool_call_id the run is refused."""
    import asyncio

    forged = {"text": "hi", "owner": "ann", "call": "forged"}
    for tool in (lc_note, rl_note):
        message = tool.run(dict(forged), tool_call_id="real")
        assert (message.content, message.tool_call_id) == ("ann:hi@real", "real")
        message = asyncio.run(tool.arun(dict(forged), tool_call_id="real"))
        assert (message.content, message.tool_call_id) == ("ann:hi@real", "real")
        with pytest.raises(ValueError):
            tool.run(dict(forged))
        with pytest.raises(ValueError):
            asyncio.run(tool.arun(dict(forged)))


# JsonOutputParser(diff=True) (json_parser_diff_stream)

JSON_STREAMS = [
    ['{"setup": "Why did the cat', ' sit?", "punchline": "To', ' watch the mouse"}'],
    [
        '{"a": [1, ',
        "2], ",
        '"b": {"c": "x',
        'y"}, "d": [{"e": 1}, {"e": ',
        "2, ",
        '"f": [tr',
        "ue]}]}",
    ],
    ["```json\n", '{"items": ["ab', 'c", "de"], "n": 1', ".5, ", '"k/~": null}', "\n```"],
    ['{"x": "1"', ', "y": {"z": []', ', "w": [[1], [2, 3]]}}'],
]


@pytest.mark.parametrize("chunks", JSON_STREAMS)
def test_json_parser_diff_streams_langchains_patches(chunks: list[str]) -> None:
    from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser

    from ragline.core import JsonOutputParser

    theirs = LCJsonOutputParser(diff=True)
    ours = JsonOutputParser(diff=True)
    assert list(ours.transform(iter(chunks))) == list(theirs.transform(iter(chunks)))
    whole = "".join(chunks)
    assert ours.invoke(whole) == theirs.invoke(whole)
    assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
    # one character at a time, as a fake model streams
    assert list(ours.transform(iter(whole))) == list(theirs.transform(iter(whole)))


def test_json_parser_diff_run_output_is_every_patch() -> None:
    import asyncio

    from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
    from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser

    from ragline.core import FakeListChatModel, JsonOutputParser

    text = '{"a": 1, "b": [true]}'

    async def parser_end(chain: Any) -> Any:
        async for event in chain.astream_events("x", version="v2"):
            if event["event"] == "on_parser_end":
                return event["data"]["output"]
        return None

    lc_chain = LCFakeListChatModel(responses=[text]) | LCJsonOutputParser(diff=True)
    rl_chain = FakeListChatModel(responses=[text]) | JsonOutputParser(diff=True)
    assert asyncio.run(parser_end(rl_chain)) == asyncio.run(parser_end(lc_chain))


def test_json_parser_diff_lists_keys_that_arrive_together_in_document_order() -> None:
    # Several keys in one chunk: LangChain's patches (jsonpatch) add them in the order the
    # object holds them; ragline took set order (one per process: PYTHONHASHSEED).
    from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser

    from ragline.core import JsonOutputParser

    chunks = ["{", '"title": "Ada", "born": 1815, "field": "maths", "languages": ["en"', ', "fr"]}']
    expected = [
        [{"op": "replace", "path": "", "value": {}}],
        [
            {"op": "add", "path": "/title", "value": "Ada"},
            {"op": "add", "path": "/born", "value": 1815},
            {"op": "add", "path": "/field", "value": "maths"},
            {"op": "add", "path": "/languages", "value": ["en"]},
        ],
        [{"op": "add", "path": "/languages/1", "value": "fr"}],
    ]
    assert list(LCJsonOutputParser(diff=True).transform(iter(chunks))) == expected
    assert list(JsonOutputParser(diff=True).transform(iter(chunks))) == expected


# with_fallbacks(exception_key=...) on an input that is not a dict (fallbacks_exception_key)


@pytest.mark.parametrize("call", ["invoke", "stream", "batch"])
def test_exception_key_refuses_a_non_dict_input_with_langchains_class(call: str) -> None:
    def fails(x: Any) -> Any:
        raise KeyError("never reached")

    def errors(lambda_cls: Any) -> type[BaseException]:
        chain = lambda_cls(fails).with_fallbacks([lambda_cls(lambda x: 2)], exception_key="e")
        run = {
            "invoke": lambda: chain.invoke("text"),
            "stream": lambda: list(chain.stream("text")),
            "batch": lambda: chain.batch(["text"]),
        }[call]
        with pytest.raises(Exception) as caught:
            run()
        return type(caught.value)

    assert errors(RunnableLambda) is errors(LCRunnableLambda)


# configurable_fields: the spec's annotation (configurable_fields_prompt_template)


def test_configurable_field_specs_carry_the_fields_type() -> None:
    from langchain_core.language_models import FakeListLLM as LCFakeListLLM
    from langchain_core.prompts import PromptTemplate as LCPromptTemplate
    from langchain_core.runnables import ConfigurableField as LCConfigurableField

    from ragline.core import ConfigurableField, FakeListLLM, PromptTemplate

    def specs(prompt_cls: Any, llm_cls: Any, field_cls: Any) -> list[tuple[str, Any, Any]]:
        prompt = prompt_cls.from_template("Write about {topic}").configurable_fields(
            template=field_cls(id="template", name="Template", description="the text")
        )
        llm = llm_cls(responses=["a"]).configurable_fields(
            sleep=field_cls(id="sleep"), verbose=field_cls(id="verbose"), tags=field_cls(id="tags")
        )
        return [(s.id, s.default, s.annotation) for s in (prompt | llm).config_specs]

    ours = specs(PromptTemplate, FakeListLLM, ConfigurableField)
    theirs = specs(LCPromptTemplate, LCFakeListLLM, LCConfigurableField)
    assert ours == theirs


# ChatOpenAI.model_name, configurable at run time (noticed while checking the specs above)


def test_chat_openai_model_name_is_a_configurable_field_as_langchains() -> None:
    from langchain_core.runnables import ConfigurableField as LCConfigurableField
    from langchain_openai import ChatOpenAI as LCChatOpenAI

    from ragline.chat_models import ChatOpenAI
    from ragline.core import ConfigurableField
    from tests._openai_server import OpenAITestServer

    def run(model_cls: Any, field_cls: Any, base_url: str) -> tuple[Any, ...]:
        model = model_cls(model="gpt-4o-mini", base_url=base_url, api_key="test")
        chooser = model.configurable_fields(
            model_name=field_cls(id="model_name", name="Model", description="which model")
        )
        chooser.invoke("hi")
        chooser.with_config(configurable={"model_name": "gpt-4o"}).invoke("hi")
        spec = chooser.config_specs[0]
        return model.model_name, spec.id, spec.name, spec.default

    with OpenAITestServer() as server:
        ours = run(ChatOpenAI, ConfigurableField, server.base_url)
        sent_by_us = [r.body["model"] for r in server.requests]
    with OpenAITestServer() as server:
        theirs = run(LCChatOpenAI, LCConfigurableField, server.base_url)
        sent_by_them = [r.body["model"] for r in server.requests]
    assert (ours, sent_by_us) == (theirs, sent_by_them)


# ConfigurableFieldSingleOption / ConfigurableFieldMultiOption (configurable_fields area)


def _option_runs(core: Any, prompt_cls: Any, llm_cls: Any) -> tuple[Any, ...]:
    single = core.ConfigurableFieldSingleOption(
        id="tpl",
        options={"joke": "joke about {topic}", "poem": "poem about {topic}"},
        default="joke",
        name="Template",
        description="which prompt",
    )
    prompt = prompt_cls.from_template("plain {topic}").configurable_fields(template=single)
    multi = core.ConfigurableFieldMultiOption(
        id="answers", options={"a": "alpha", "b": "beta", "c": "gamma"}, default=["a", "b"]
    )
    llm = llm_cls(responses=["unused"]).configurable_fields(responses=multi)
    texts = [
        prompt.invoke({"topic": "cats"}).to_string(),
        prompt.with_config(configurable={"tpl": "poem"}).invoke({"topic": "cats"}).to_string(),
        llm.invoke("q"),
        llm.with_config(configurable={"answers": ["c", "a"]}).invoke("q"),
    ]
    # the Enum's module is each library's own
    module = prompt.config_specs[0].annotation.__module__
    specs = [
        (
            s.id,
            s.name,
            s.description,
            s.default,
            s.is_shared,
            str(s.annotation).replace(module, "M"),
        )
        for s in (prompt | llm).config_specs
    ]
    members = [[m.value for m in prompt.config_specs[0].annotation]]
    with pytest.raises(KeyError):
        prompt.with_config(configurable={"tpl": "limerick"}).invoke({"topic": "cats"})
    return texts, specs, members


def test_option_fields_choose_named_values_as_langchains() -> None:
    import langchain_core.runnables as lc_core
    from langchain_core.language_models import FakeListLLM as LCFakeListLLM
    from langchain_core.prompts import PromptTemplate as LCPromptTemplate

    import ragline.core as rl_core
    from ragline.core import FakeListLLM, PromptTemplate

    ours = _option_runs(rl_core, PromptTemplate, FakeListLLM)
    theirs = _option_runs(lc_core, LCPromptTemplate, LCFakeListLLM)
    assert ours == theirs


# configurable_fields in batch: each configured input gets its own configured copy (only
# fields: a chosen alternative is one shared object that LangChain calls from threads, so
# a stateful fake's order there is not fixed)


def test_configured_batch_runs_each_input_on_its_own_as_langchains() -> None:
    import asyncio

    from langchain_core.language_models import FakeListLLM as LCFakeListLLM
    from langchain_core.runnables import ConfigurableField as LCConfigurableField

    from ragline.core import ConfigurableField, FakeListLLM

    def run(llm_cls: Any, field_cls: Any) -> list[Any]:
        llm = llm_cls(responses=["a", "b", "c"]).configurable_fields(sleep=field_cls(id="s"))
        chosen = {"configurable": {"s": 0.0}}
        return [
            llm.batch(["q", "q", "q"]),
            llm.batch(["q", "q", "q"], config=chosen),
            llm.invoke("q"),
            asyncio.run(llm.abatch(["q", "q"], config=chosen)),
            llm.batch(["q", "q"], config=[chosen, chosen]),
        ]

    assert run(FakeListLLM, ConfigurableField) == run(LCFakeListLLM, LCConfigurableField)
