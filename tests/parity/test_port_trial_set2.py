"""Parity: differences found by the second port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program prints or reads.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_community.vectorstores import FAISS as LCFAISS
from langchain_core.embeddings import DeterministicFakeEmbedding as LCFakeEmbedding
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.messages import AIMessageChunk as LCAIMessageChunk
from langchain_core.output_parsers import PydanticOutputParser as LCPydanticOutputParser
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.output_parsers import XMLOutputParser
from langchain_core.outputs import ChatGeneration as LCChatGeneration
from langchain_core.outputs import ChatGenerationChunk as LCChatGenerationChunk
from langchain_core.outputs import ChatResult as LCChatResult
from langchain_core.outputs import Generation as LCGeneration
from langchain_core.outputs import GenerationChunk as LCGenerationChunk
from langchain_core.outputs import LLMResult as LCLLMResult
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.runnables import ConfigurableField as LCConfigurableField
from langchain_core.runnables import ConfigurableFieldSpec as LCConfigurableFieldSpec
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables.history import (
    RunnableWithMessageHistory as LCRunnableWithMessageHistory,
)
from pydantic import BaseModel

import ragline.interop.langchain.compose  # noqa: F401  (LangChain runnables join chains)
from ragline.core import (
    AIMessage,
    AIMessageChunk,
    ChatPromptTemplate,
    ConfigurableField,
    ConfigurableFieldSpec,
    FakeListChatModel,
    FakeListLLM,
    PromptTemplate,
    RunnableLambda,
    RunnableWithMessageHistory,
    StrOutputParser,
)
from ragline.core.language_models import (
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    Generation,
    GenerationChunk,
    LLMResult,
)
from ragline.core.output_parsers import PydanticOutputParser
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.vectorstores import FAISS

COVERS = {
    "core.Generation",
    "core.GenerationChunk",
    "core.ChatGeneration",
    "core.ChatGenerationChunk",
    "core.ChatResult",
    "core.LLMResult",
    "chains.load_summarize_chain",
}


def _results(lc: bool) -> list[Any]:
    gen, gen_chunk = (LCGeneration, LCGenerationChunk) if lc else (Generation, GenerationChunk)
    chat_gen = LCChatGeneration if lc else ChatGeneration
    chat_chunk = LCChatGenerationChunk if lc else ChatGenerationChunk
    ai, ai_chunk = (LCAIMessage, LCAIMessageChunk) if lc else (AIMessage, AIMessageChunk)
    chat_result, llm_result = (LCChatResult, LCLLMResult) if lc else (ChatResult, LLMResult)
    return [
        gen(text="a"),
        gen(text=""),
        gen(text="a", generation_info={"finish_reason": "stop"}),
        gen_chunk(text="a", generation_info={}),
        chat_gen(message=ai("hi")),
        chat_gen(message=ai("")),
        chat_gen(message=ai("hi"), generation_info={"f": 1}),
        chat_chunk(message=ai_chunk("x")),
        llm_result(generations=[[gen(text="a")], [gen(text="b")]], llm_output={"n": 1}),
        chat_result(generations=[chat_gen(message=ai("hi"))]),
    ]


def test_generations_and_results_print_as_langchain_s() -> None:
    # A program printing llm.generate(...).generations saw generation_info=None.
    theirs, ours = _results(lc=True), _results(lc=False)
    assert [repr(one) for one in ours] == [repr(one) for one in theirs]
    assert [str(one) for one in ours] == [str(one) for one in theirs]


def test_a_generate_result_prints_as_langchain_s() -> None:
    theirs = LCFakeListLLM(responses=["x", "y"]).generate(["p", "q"])
    ours = FakeListLLM(responses=["x", "y"]).generate(["p", "q"])
    assert repr(ours.generations) == repr(theirs.generations)
    assert str(ours.generations[0][0]) == str(theirs.generations[0][0])


def _chunks(cls: Any) -> list[Any]:
    # keys given in another order, and some missing: LangChain rebuilds each piece
    left = cls("He", tool_call_chunks=[{"name": "f", "args": '{"a":', "index": 0, "id": "c1"}])
    right = cls("llo", tool_call_chunks=[{"args": " 1}", "index": 0}])
    other = cls("", tool_call_chunks=[{"index": 1, "id": "c2", "args": "{}", "name": "g"}])
    return [left, right, left + right, left + right + other]


def test_tool_call_chunks_keep_langchain_s_key_order() -> None:
    theirs, ours = _chunks(LCAIMessageChunk), _chunks(AIMessageChunk)
    assert [repr(one.tool_call_chunks) for one in ours] == [
        repr(one.tool_call_chunks) for one in theirs
    ]
    assert repr(ours[-1]) == repr(theirs[-1])


def _chain(lc: bool) -> Any:
    chat, llm = (LCFakeListChatModel, LCFakeListLLM) if lc else (FakeListChatModel, FakeListLLM)
    field = LCConfigurableField if lc else ConfigurableField
    prompt = (LCPromptTemplate if lc else PromptTemplate).from_template("Joke about {topic}")
    model = chat(responses=["a"]).configurable_alternatives(
        field(id="llm"), default_key="anthropic", openai=chat(responses=["b"])
    )
    chooser = prompt.configurable_alternatives(field(id="prompt"), default_key="joke", poem=prompt)
    fields = llm(responses=["c"]).configurable_fields(
        responses=field(id="zz_canned", name="Canned"), cache=field(id="aa_cache")
    )
    return chooser | model | fields


def test_config_specs_are_listed_by_id() -> None:
    theirs, ours = _chain(lc=True), _chain(lc=False)
    assert [spec.id for spec in ours.config_specs] == [spec.id for spec in theirs.config_specs]
    assert [spec.id for spec in ours.config_specs] == ["aa_cache", "llm", "prompt", "zz_canned"]
    # an alternative's annotation: a str Enum named after the choice, one member per key
    lc_llm = next(spec for spec in theirs.config_specs if spec.id == "llm")
    our_llm = next(spec for spec in ours.config_specs if spec.id == "llm")
    assert our_llm.annotation.__name__ == lc_llm.annotation.__name__ == "llm"
    assert [m.value for m in our_llm.annotation] == [m.value for m in lc_llm.annotation]
    assert our_llm.default == lc_llm.default == "anthropic"


def test_message_history_lists_its_keys_by_id() -> None:
    def specs(spec_cls: Any) -> list[Any]:
        return [
            spec_cls(id="user_id", annotation=str, default="", is_shared=True),
            spec_cls(id="conversation_id", annotation=str, default="", is_shared=True),
        ]

    theirs = LCRunnableWithMessageHistory(
        LCRunnableLambda(lambda x: x),
        lambda user_id, conversation_id: None,
        history_factory_config=specs(LCConfigurableFieldSpec),
    )
    ours = RunnableWithMessageHistory(
        RunnableLambda(lambda x: x),
        lambda user_id, conversation_id: None,
        history_factory_config=specs(ConfigurableFieldSpec),
    )
    assert [s.id for s in ours.config_specs] == [s.id for s in theirs.config_specs]


def test_faiss_delete_returns_true() -> None:
    theirs = LCFAISS.from_texts(["a", "b"], LCFakeEmbedding(size=8), ids=["x", "y"])
    ours = FAISS.from_texts(["a", "b"], DeterministicFakeEmbedding(size=8), ids=["x", "y"])
    assert ours.delete(["x"]) is theirs.delete(["x"]) is True
    assert [d.id for d in ours.get_by_ids(["x", "y"])] == ["y"]


def _schemas(lc: bool) -> list[Any]:
    prompt = (LCPromptTemplate if lc else PromptTemplate).from_template("{topic} in {lang}")
    chat = (LCChatPromptTemplate if lc else ChatPromptTemplate).from_messages(
        [("system", "{sys}"), ("human", "{q}")]
    )
    parser = LCStrOutputParser() if lc else StrOutputParser()
    chain = prompt | (LCFakeListChatModel if lc else FakeListChatModel)(responses=["x"]) | parser

    def add_one(x: int) -> int:
        return x + 1

    lam = (LCRunnableLambda if lc else RunnableLambda)(add_one)
    return [
        prompt.input_schema.model_json_schema(),
        chain.input_schema.model_json_schema(),
        chain.get_input_jsonschema(),
        chain.get_output_jsonschema(),
        chat.get_input_jsonschema(),
        lam.get_input_jsonschema(),
        lam.get_output_jsonschema(),
    ]


def test_json_schemas_print_with_pydantic_s_key_order() -> None:
    # dict equality ignores order; a printed schema does not
    theirs, ours = _schemas(lc=True), _schemas(lc=False)
    assert [json.dumps(one) for one in ours] == [json.dumps(one) for one in theirs]


def test_input_and_output_types() -> None:
    class Joke(BaseModel):
        setup: str

    lc_prompt = LCPromptTemplate.from_template("{a}")
    prompt = PromptTemplate.from_template("{a}")
    assert prompt.InputType == lc_prompt.InputType == dict[str, Any]
    lc_chain = lc_prompt | LCRunnableLambda(lambda x: x)
    chain = prompt | RunnableLambda(lambda x: x)
    assert chain.InputType == lc_chain.InputType
    assert PydanticOutputParser(pydantic_object=Joke).OutputType is Joke
    assert LCPydanticOutputParser(pydantic_object=Joke).OutputType is Joke


def test_a_langchain_parser_ragline_lacks_runs_inside_a_ragline_chain() -> None:
    # `ragline port` leaves XMLOutputParser imported from LangChain and adds the
    # compose import: the chain then prints what LangChain's chain prints.
    reply = "<movies><actor>Tom</actor><film><name>Big</name></film></movies>"

    def chain(lc: bool) -> Any:
        prompt = (LCPromptTemplate if lc else PromptTemplate).from_template("{q}")
        model = (LCFakeListChatModel if lc else FakeListChatModel)(responses=[reply] * 2)
        return prompt | model | XMLOutputParser(parser="xml")

    theirs, ours = chain(lc=True), chain(lc=False)
    assert ours.invoke({"q": "films"}) == theirs.invoke({"q": "films"})
    assert list(ours.stream({"q": "films"})) == list(theirs.stream({"q": "films"}))


def _described(tool_decorator: Any, structured: Any) -> list[str]:
    def weather(city: str, unit: str = "celsius") -> str:
        """Get the weather in a city.

        Args:
            city: The city name.
            unit: Temperature unit.
        """
        return city

    def spaced(x: int) -> int:
        """
        Docstring that starts on its own line.
          An indented line.
        """
        return x

    def bare(x: int) -> int:
        return x

    return [
        tool_decorator(weather).description,
        tool_decorator(spaced).description,
        tool_decorator(weather, parse_docstring=True).description,
        structured.from_function(weather).description,
        structured.from_function(bare, description="given").description,
    ]


def test_tool_descriptions_are_the_docstring_dedented_as_a_whole() -> None:
    # a summary on the quotes' line keeps the Args block's indentation, as in LangChain
    from langchain_core.tools import StructuredTool as LCStructuredTool
    from langchain_core.tools import tool as lc_tool

    from ragline.tools import StructuredTool, tool

    theirs = _described(lc_tool, LCStructuredTool)
    assert _described(tool, StructuredTool) == theirs
    assert theirs[0].startswith("Get the weather in a city.\n\n        Args:\n")  # kept


def _summaries(lc: bool) -> list[Any]:
    from langchain_classic.chains.summarize import load_summarize_chain as lc_load
    from langchain_core.documents import Document as LCDocument
    from langchain_core.language_models.llms import LLM as LCLLM

    from ragline.chains import load_summarize_chain
    from ragline.core import LLM, Document

    class Echo(LCLLM if lc else LLM):  # type: ignore[misc,valid-type]
        """Answers with the prompt it was given, so the prompts can be compared."""

        @property
        def _llm_type(self) -> str:
            return "echo"

        def _call(self, prompt: str, stop: Any = None, **kwargs: Any) -> str:
            return f"<{prompt}>"

    load = lc_load if lc else load_summarize_chain
    doc = LCDocument if lc else Document
    docs = [doc(page_content="apples are red"), doc(page_content="pears are green")]
    prompt = (LCPromptTemplate if lc else PromptTemplate).from_template("Sum up: {body}")
    refine = (LCPromptTemplate if lc else PromptTemplate).from_template("{prior} + {body}")
    stuff = load(Echo(), chain_type="stuff", prompt=prompt, document_variable_name="body")
    refined = load(
        Echo(),
        chain_type="refine",
        question_prompt=prompt,
        refine_prompt=refine,
        document_variable_name="body",
        initial_response_name="prior",
        return_intermediate_steps=True,
    )
    return [
        stuff.invoke({"input_documents": docs}),
        stuff.run(docs),
        (stuff.input_keys, stuff.output_keys),
        refined.invoke({"input_documents": docs}),
        load(Echo(), chain_type="stuff").invoke({"input_documents": []})["output_text"] != "",
    ]


def test_load_summarize_chain_takes_langchain_s_arguments_and_shapes() -> None:
    theirs, ours = _summaries(lc=True), _summaries(lc=False)
    assert repr(ours) == repr(theirs)
    assert ours[3]["output_text"] == "<<Sum up: apples are red> + pears are green>"


def test_in_memory_cache_entries_are_readable_as_cache_underscore_cache() -> None:
    # programs print len(cache._cache) to show what was cached
    from langchain_core.caches import InMemoryCache as LCInMemoryCache

    from ragline.core import InMemoryCache

    def counts(cache_cls: Any, llm_cls: Any) -> list[Any]:
        cache = cache_cls()
        llm = llm_cls(responses=["a", "b", "c"], cache=cache)
        seen = [len(cache._cache)]
        for prompt in ("x", "x", "y"):
            llm.invoke(prompt)
            seen.append(len(cache._cache))
        seen.append(type(cache._cache).__name__)
        cache.clear()
        return [*seen, len(cache._cache)]

    assert counts(InMemoryCache, FakeListLLM) == counts(LCInMemoryCache, LCFakeListLLM)


def test_prompt_template_model_dump_and_dict() -> None:
    def dumps(cls: Any) -> list[Any]:
        plain = cls.from_template("Say {foo} and {bar}")
        partial = cls.from_template("Say {foo} and {bar}", partial_variables={"foo": "x"})
        jinja = cls.from_template("{{ a }}", template_format="jinja2")
        checked = cls(template="{a}", input_variables=["a"], validate_template=True)
        return [
            plain.model_dump(),
            partial.model_dump(exclude_none=True),
            jinja.model_dump(),
            checked.model_dump(),
            plain.dict(),
            plain.model_dump(include={"template", "input_variables"}),
        ]

    theirs, ours = dumps(LCPromptTemplate), dumps(PromptTemplate)
    assert repr(ours) == repr(theirs)


def test_tool_arguments_that_do_not_validate_raise_pydantic_s_error() -> None:
    # include_raw=True reports it in parsing_error; programs print its class and text
    import pydantic
    from langchain_core.language_models import (
        FakeMessagesListChatModel as LCFakeMessagesListChatModel,
    )
    from langchain_core.output_parsers.openai_tools import (
        PydanticToolsParser as LCPydanticToolsParser,
    )

    from ragline.core import FakeMessagesListChatModel
    from ragline.core.exceptions import OutputParserException
    from ragline.core.output_parsers import PydanticToolsParser

    class Joke(BaseModel):
        setup: str
        punchline: str

    def failure(message_cls: Any, parser_cls: Any, model_cls: Any) -> list[Any]:
        reply = message_cls(
            "", tool_calls=[{"name": "Joke", "args": {"setup": "s", "rating": 1}, "id": "1"}]
        )
        try:
            parser_cls(tools=[Joke]).invoke(reply)
        except Exception as err:  # the error is what is compared
            error = err

        class Binding(model_cls):  # type: ignore[misc,valid-type]
            def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
                return self

        raw = Binding(responses=[reply]).with_structured_output(Joke, include_raw=True)
        parsing_error = raw.invoke("joke")["parsing_error"]
        return [
            type(error).__name__,
            str(error),
            error.errors(),  # type: ignore[attr-defined]
            isinstance(error, pydantic.ValidationError),
            type(parsing_error).__name__,
            str(parsing_error),
        ]

    theirs = failure(LCAIMessage, LCPydanticToolsParser, LCFakeMessagesListChatModel)
    ours = failure(AIMessage, PydanticToolsParser, FakeMessagesListChatModel)
    assert ours == theirs
    assert ours[0] == "ValidationError" and ours[3] is True
    reply = AIMessage("", tool_calls=[{"name": "Joke", "args": {"setup": "s"}, "id": "1"}])
    with pytest.raises(OutputParserException) as caught:  # still ragline's class too
        PydanticToolsParser(tools=[Joke]).invoke(reply)
    assert caught.value.llm_output == '{"setup": "s"}'
