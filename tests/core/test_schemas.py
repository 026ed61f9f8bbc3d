"""input_schema / output_schema / config_schema as JSON Schema for every runnable, with
LangChain's titles and shapes; where ragline's schema should equal langchain-core's
exactly, the test compares them (langchain-core is installed with the dev extra)."""

from __future__ import annotations

from typing import Any, Literal, Optional, TypedDict

import pytest

from ragline.core import (
    ChatPromptTemplate,
    ConfigurableField,
    ConfigurationError,
    FakeListChatModel,
    FakeListLLM,
    MessagesPlaceholder,
    PromptTemplate,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    StrOutputParser,
)
from ragline.core._json_schema import json_schema_of
from ragline.embeddings import HashingEmbeddings
from ragline.vectorstores import InMemoryVectorStore

lc = pytest.importorskip("langchain_core")


def typed(x: int) -> str:
    return str(x)


def without_defs(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "$defs"}


def test_prompt_and_lambda_schemas_equal_langchains():
    from langchain_core.prompts import PromptTemplate as LCPrompt
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langchain_core.runnables import RunnableParallel as LCParallel
    from langchain_core.runnables import RunnablePassthrough as LCPassthrough

    ours = PromptTemplate.from_template("Tell me about {topic} in {n} words")
    theirs = LCPrompt.from_template("Tell me about {topic} in {n} words")
    assert (
        ours.get_input_jsonschema()
        == theirs.get_input_jsonschema()
        == {
            "title": "PromptInput",
            "type": "object",
            "properties": {
                "n": {"title": "N", "type": "string"},
                "topic": {"title": "Topic", "type": "string"},
            },
            "required": ["n", "topic"],
        }
    )
    for get in ("get_input_jsonschema", "get_output_jsonschema"):
        assert getattr(RunnableLambda(typed), get)() == getattr(LCLambda(typed), get)()
    assert RunnableLambda(lambda x: x).get_input_jsonschema() == {"title": "RunnableLambdaInput"}
    ours_parallel = RunnableParallel(a=RunnableLambda(typed), b=RunnablePassthrough())
    theirs_parallel = LCParallel(a=LCLambda(typed), b=LCPassthrough())
    assert ours_parallel.get_input_jsonschema() == theirs_parallel.get_input_jsonschema()
    assert ours_parallel.get_output_jsonschema() == theirs_parallel.get_output_jsonschema()


def test_model_parser_and_sequence_schemas():
    from langchain_core.language_models import FakeListLLM as LCLLM
    from langchain_core.output_parsers import StrOutputParser as LCParser

    assert StrOutputParser().get_output_jsonschema() == LCParser().get_output_jsonschema()
    llm = FakeListLLM(responses=["x"])
    assert llm.get_output_jsonschema() == LCLLM(responses=["x"]).get_output_jsonschema()
    chain = PromptTemplate.from_template("{q}") | llm | StrOutputParser()
    assert chain.get_input_jsonschema()["title"] == "PromptInput"  # the first step's
    assert chain.get_output_jsonschema() == {"title": "StrOutputParserOutput", "type": "string"}
    chat_in = FakeListChatModel(responses=["x"]).get_input_jsonschema()
    assert chat_in["title"] == "FakeListChatModelInput"
    assert chat_in["anyOf"][:3] == [
        {"type": "string"},
        {"$ref": "#/$defs/StringPromptValue"},
        {"$ref": "#/$defs/ChatPromptValueConcrete"},
    ]
    assert chat_in["anyOf"][3]["items"]["oneOf"][0] == {"$ref": "#/$defs/AIMessage"}
    chat_out = FakeListChatModel(responses=["x"]).get_output_jsonschema()
    assert len(chat_out["oneOf"]) == 12  # the twelve message types, as LangChain lists them
    assert chat_out["$defs"]["AIMessage"]["properties"]["type"]["const"] == "ai"


def test_chat_prompt_with_a_placeholder_lists_messages_as_optional():
    prompt = ChatPromptTemplate.from_messages(
        [("system", "s {a}"), MessagesPlaceholder("history", optional=True), ("human", "{q}")]
    )
    schema = prompt.get_input_jsonschema()
    assert schema["required"] == ["a", "q"]
    assert list(schema["properties"]) == ["a", "q", "history"]
    history = schema["properties"]["history"]
    assert (history["type"], history["default"], history["title"]) == ("array", None, "History")
    assert "HumanMessage" in schema["$defs"]


def test_retriever_schemas_equal_langchains_titles_and_types():
    store = InMemoryVectorStore.from_texts(["a"], HashingEmbeddings(dimension=8))
    retriever = store.as_retriever()
    assert retriever.get_input_jsonschema() == {
        "title": "VectorStoreRetrieverInput",
        "type": "string",
    }
    output = retriever.get_output_jsonschema()
    assert without_defs(output) == {
        "title": "VectorStoreRetrieverOutput",
        "type": "array",
        "items": {"$ref": "#/$defs/Document"},
    }
    assert output["$defs"]["Document"]["required"] == ["page_content"]


def test_config_schema_lists_configurable_fields_and_alternatives():
    from langchain_core.language_models import FakeListLLM as LCLLM
    from langchain_core.prompts import PromptTemplate as LCPrompt
    from langchain_core.runnables import ConfigurableField as LCField

    spec = {"id": "tpl", "name": "Template", "description": "the template"}
    ours = PromptTemplate.from_template("{x}").configurable_fields(
        template=ConfigurableField(**spec)
    ) | FakeListLLM(responses=["y"])
    theirs = LCPrompt.from_template("{x}").configurable_fields(template=LCField(**spec)) | LCLLM(
        responses=["y"]
    )
    assert ours.get_config_jsonschema(include=["tags"]) == theirs.get_config_jsonschema(
        include=["tags"]
    )
    chooser = PromptTemplate.from_template("{x}").configurable_alternatives(
        ConfigurableField(id="style"),
        default_key="plain",
        loud=PromptTemplate.from_template("{x}!"),
    )
    # a choice refers to its enum (the alternatives' keys, the default last), as
    # LangChain's pydantic schema does
    defs = chooser.get_config_jsonschema()["$defs"]
    assert defs["Configurable"]["properties"]["style"] == {
        "$ref": "#/$defs/style",
        "default": "plain",
    }
    assert defs["style"] == {"enum": ["loud", "plain"], "title": "style", "type": "string"}
    assert PromptTemplate.from_template("{x}").get_config_jsonschema() == {
        "title": "PromptTemplateConfig",
        "type": "object",
        "properties": {},
    }
    with pytest.raises(ConfigurationError, match="config_schema cannot include 'callback'"):
        chooser.config_schema(include=["callback"])
    title = chooser.config_schema().model_json_schema()["title"]
    assert title == "RunnableConfigurableAlternativesConfig"  # its own class, as LangChain's


def test_schema_objects_answer_pydantics_calls():
    prompt = PromptTemplate.from_template("{q}")
    schema = prompt.input_schema
    assert schema.__name__ == "PromptInput"
    assert schema.model_json_schema() == schema.schema() == prompt.get_input_jsonschema()
    schema.model_json_schema()["title"] = "changed"  # a copy each time
    assert prompt.input_schema.model_json_schema()["title"] == "PromptInput"
    assert prompt.output_schema.model_json_schema()["title"] == "PromptTemplateOutput"


def test_with_types_declares_the_types_and_keeps_the_calls():
    echo = RunnableLambda(lambda x: x).with_types(input_type=int, output_type=list[str])
    assert echo.get_input_jsonschema() == {"title": "RunnableLambdaInput", "type": "integer"}
    assert echo.get_output_jsonschema() == {
        "title": "RunnableLambdaOutput",
        "type": "array",
        "items": {"type": "string"},
    }
    assert echo.InputType is int
    assert echo.bind().get_input_jsonschema()["type"] == "integer"  # kept by bind
    assert echo.invoke(5) == 5


def test_with_types_takes_another_runnables_schema_class():
    # b3684e1 made input_schema a class; json_schema_of read it as an unknown class, so
    # with_types(input_type=prompt.input_schema) declared an empty schema. LangChain's is
    # the prompt's (its input_schema is a pydantic model).
    from langchain_core.prompts import PromptTemplate as LCPrompt
    from langchain_core.runnables import RunnableLambda as LCLambda

    prompt = PromptTemplate.from_template("hi {name}")
    typed = RunnableLambda(lambda d: d).with_types(input_type=prompt.input_schema)
    lc_prompt = LCPrompt.from_template("hi {name}")
    lc_typed = LCLambda(lambda d: d).with_types(input_type=lc_prompt.input_schema)
    assert typed.get_input_jsonschema() == lc_typed.get_input_jsonschema()
    assert typed.get_input_jsonschema() == {
        "title": "PromptInput",
        "type": "object",
        "properties": {"name": {"title": "Name", "type": "string"}},
        "required": ["name"],
    }
    assert json_schema_of(prompt.input_schema) == prompt.get_input_jsonschema()


def test_json_schema_of_typed_dicts_and_annotations():
    class Joke(TypedDict):
        """A joke to tell."""

        setup: str
        punchline: Any
        rating: Optional[int]  # noqa: UP045 - what users write
        kind: Literal["pun", "knock-knock"]

    assert json_schema_of(Joke) == {
        "title": "Joke",
        "type": "object",
        "description": "A joke to tell.",
        "properties": {
            "setup": {"type": "string", "title": "Setup"},
            "punchline": {"title": "Punchline"},
            "rating": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Rating"},
            "kind": {"enum": ["pun", "knock-knock"], "type": "string", "title": "Kind"},
        },
        "required": ["setup", "punchline", "rating", "kind"],
    }
