"""Parity: known gaps left open by earlier port trials and reviews (issue 24, session 23).

Each scenario runs one program through LangChain and, after ``ragline port``, through
ragline, and compares what the two print.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# Port trial set 70, p29: ``as_retriever(search_type="similarity_score_threshold", k=3,
# score_threshold=0.3)`` (the threshold outside search_kwargs) is refused by both; the
# program printed the error's class, pydantic's ValidationError in LangChain.
_RETRIEVER_REFUSALS = """
import warnings
import pydantic
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.runnables import ConfigurableField
from langchain_core.vectorstores import InMemoryVectorStore

warnings.simplefilter("ignore")
store = InMemoryVectorStore(DeterministicFakeEmbedding(size=4))
for options in [
    {"search_type": "similarity_score_threshold", "k": 3, "score_threshold": 0.3},
    {"search_type": "similarity_score_threshold"},
    {"search_type": "simlarity"},
]:
    try:
        store.as_retriever(**options)
    except ValueError as e:
        print(type(e).__name__, isinstance(e, pydantic.ValidationError), e.title,
              e.error_count(), [(d["type"], d["loc"]) for d in e.errors()])
chosen = store.as_retriever().configurable_fields(search_type=ConfigurableField(id="type"))
try:
    chosen.invoke("x", config={"configurable": {"type": "similarity_score_threshold"}})
except pydantic.ValidationError as e:
    print(type(e).__name__, e.title)
"""


def test_a_retrievers_refused_options_raise_pydantics_validation_error() -> None:
    langchain_printed = _printed(_RETRIEVER_REFUSALS)
    line = "ValidationError True VectorStoreRetriever 1 [('value_error', ())]\n"
    assert langchain_printed == 3 * line + "ValidationError VectorStoreRetriever\n"
    assert _printed(_ported(_RETRIEVER_REFUSALS)) == langchain_printed


def test_a_refused_retriever_keeps_raglines_error_class_and_text() -> None:
    from ragline.core import ConfigurationError, InvalidInputError
    from ragline.embeddings import FakeEmbeddings
    from ragline.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(FakeEmbeddings(size=4))
    with pytest.raises(ConfigurationError, match="'simlarity' is not one of"):
        store.as_retriever(search_type="simlarity")
    with pytest.raises(InvalidInputError, match=r"^search_type 'similarity_score_threshold' needs"):
        store.as_retriever(search_type="similarity_score_threshold")
    with pytest.raises(TypeError) as raised:
        store.as_retriever(search_kwargs={"k": "3"})
    assert type(raised.value).__name__ == "TypeError"


# Adding reply chunks that both carry an id: LangChain keeps a provider's id (one not
# starting "lc_") over a run's "lc_run-" id over another "lc_" id, the first of equals;
# a chunk plus a list of chunks is their sum.
_CHUNK_IDS = """
from langchain_core.messages import AIMessageChunk as A, HumanMessageChunk, ToolMessageChunk

pairs = [("run-1", "chatcmpl-2"), ("chatcmpl-1", "lc_run-2"), ("lc_1", "msg_2"), ("p1", "p2"),
         ("lc_run-1", "lc_run-2"), ("lc_1", "lc_run-2"), ("lc_run-1", "lc_2"), (None, "x"),
         ("x", None), ("", "lc_2")]
for left, right in pairs:
    print((A(content="a", id=left) + A(content="b", id=right)).id)
print((A(content="a", id="lc_1") + A(content="b", id="lc_run-2") + A(content="c", id="p")).id)
listed = A(content="a", id="lc_1") + [A(content="b", id="lc_run-2"), A(content="c")]
print(type(listed).__name__, listed.content, listed.id)
print((HumanMessageChunk(content="a", id="lc_1") + HumanMessageChunk(content="b", id="2")).id)
for left, right in [([1], [2]), ("a", "b"), ({"k": "a"}, {"k": "b", "n": 1}), (None, [3]),
                    (7, 7), ([{"index": 0, "t": "a"}], [{"index": 0, "t": "b"}])]:
    print((ToolMessageChunk(content="a", tool_call_id="1", artifact=left)
           + ToolMessageChunk(content="b", tool_call_id="1", artifact=right)).artifact)
for left, right, error in [([1], "b", TypeError), (1, 2, ValueError)]:
    try:
        ToolMessageChunk(content="a", tool_call_id="1", artifact=left) + ToolMessageChunk(
            content="b", tool_call_id="1", artifact=right)
    except error as e:
        print(type(e).__name__ if error is TypeError else "refused")
"""


def test_the_id_of_added_reply_chunks_is_langchains_choice() -> None:
    langchain_printed = _printed(_CHUNK_IDS)
    assert langchain_printed.split("\n") == [
        "run-1", "chatcmpl-1", "msg_2", "p1", "lc_run-1", "lc_run-2", "lc_run-1", "x", "x",
        "lc_2", "p", "AIMessageChunk abc lc_run-2", "lc_1", "[1, 2]", "ab",
        "{'k': 'ab', 'n': 1}", "[3]", "7", "[{'index': 0, 't': 'ab'}]", "TypeError",
        "refused", "",
    ]  # fmt: skip
    assert _printed(_ported(_CHUNK_IDS)) == langchain_printed


# with_structured_output on a chat model whose class overrides bind_tools: LangChain's
# base model calls bind_tools([schema], tool_choice="any", ls_structured_output_format=
# {"kwargs": {"method": "function_calling"}, "schema": schema}) for a pydantic class, a
# TypedDict and a JSON Schema dict alike (include_raw too); callbacks see the format
# in their options, the model's _generate never does.
_CUSTOM_BIND_TOOLS = """
from typing_extensions import TypedDict
from pydantic import BaseModel, Field
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool


class Person(BaseModel):
    '''A person.'''
    name: str = Field(description="the name")
    age: int


class PersonDict(TypedDict):
    '''A person.'''
    name: str
    age: int


SCHEMA = {"title": "PersonSchema", "description": "A person.", "type": "object",
          "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"]}


class ToolModel(BaseChatModel):
    tool_name: str = "Person"

    @property
    def _llm_type(self):
        return "tool-model"

    def bind_tools(self, tools, **kwargs):
        fmt = kwargs["ls_structured_output_format"]
        print("bind_tools", tools[0] is SCHEMA or tools[0].__name__, sorted(kwargs),
              kwargs["tool_choice"], fmt["kwargs"], fmt["schema"] is tools[0])
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        print("_generate", sorted(kwargs))
        call = {"name": self.tool_name, "args": {"name": "Ann", "age": 3}, "id": "c1"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=[call]))])


class Handler(BaseCallbackHandler):
    def on_chat_model_start(self, serialized, messages, **kwargs):
        options = kwargs["options"]
        fmt = options["ls_structured_output_format"]
        print("options", sorted(options), fmt["kwargs"], sorted(fmt["schema"].items()))
        print("invocation_params", sorted(kwargs["invocation_params"]))


for schema, name in [(Person, "Person"), (PersonDict, "PersonDict"), (SCHEMA, "PersonSchema")]:
    for include_raw in (False, True):
        runnable = ToolModel(tool_name=name).with_structured_output(schema, include_raw=include_raw)
        out = runnable.invoke("hi", config={"callbacks": [Handler()]})
        print(out["parsed"] if include_raw else out)
"""


def test_a_custom_bind_tools_gets_the_schema_and_langchains_arguments() -> None:
    langchain_printed = _printed(_CUSTOM_BIND_TOOLS)
    lines = langchain_printed.splitlines()
    assert lines[0] == (
        "bind_tools Person ['ls_structured_output_format', 'tool_choice'] any "
        "{'method': 'function_calling'} True"
    )
    assert lines[1].startswith(
        "options ['ls_structured_output_format', 'stop'] {'method': 'function_calling'} "
        "[('description', 'A person.'), ('properties', "
    )
    assert lines[3] == "_generate ['tool_choice', 'tools']"
    assert lines[4] == "name='Ann' age=3"
    assert lines[-1] == "{'name': 'Ann', 'age': 3}"
    assert len(lines) == 30
    assert _printed(_ported(_CUSTOM_BIND_TOOLS)) == langchain_printed


# ChatPromptTemplate.append with each form LangChain takes: the formatted messages are the
# same (ragline keeps input_variables in step and adds another chat prompt as its parts:
# documented).
_APPEND_FORMS = """
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import (
    ChatPromptTemplate, HumanMessagePromptTemplate, MessagesPlaceholder,
)

forms = [HumanMessage("Hello {q}"), ("human", "Ask {q}"), ("ai", "Said {q}"),
         ("placeholder", "{history}"), "Plain {q}",
         ChatPromptTemplate.from_messages([("human", "Q: {q}"), ("ai", "A: {q}")]),
         MessagesPlaceholder("history"), HumanMessagePromptTemplate.from_template("T {q}"),
         {"role": "user", "content": "D {q}"}]
for form in forms:
    prompt = ChatPromptTemplate.from_messages([("system", "Be {mood}.")])
    prompt.append(form)
    value = prompt.invoke({"mood": "kind", "q": "hi", "history": [AIMessage("old")]})
    print([(m.type, m.content) for m in value.to_messages()])
prompt = ChatPromptTemplate.from_messages([("system", "Be {mood}.")])
prompt.extend([("human", "{q}"), "tail {q}"])
print(prompt.format_messages(mood="x", q="y"))
for part in [3, [("human", "x")], ("human", "x", "y")]:
    try:
        prompt.append(part)
    except (NotImplementedError, ValueError) as e:
        print(type(e).__name__)
"""


def test_chat_prompt_append_formats_every_form_as_langchains() -> None:
    langchain_printed = _printed(_APPEND_FORMS)
    lines = langchain_printed.splitlines()
    assert lines[0] == "[('system', 'Be kind.'), ('human', 'Hello {q}')]"
    assert lines[5] == "[('system', 'Be kind.'), ('human', 'Q: hi'), ('ai', 'A: hi')]"
    assert lines[3] == "[('system', 'Be kind.'), ('ai', 'old')]"
    assert lines[10:] == ["NotImplementedError", "NotImplementedError", "ValueError"]
    assert _printed(_ported(_APPEND_FORMS)) == langchain_printed


def test_chat_prompt_append_keeps_input_variables_in_step() -> None:
    from ragline.core import ChatPromptTemplate

    prompt = ChatPromptTemplate.from_messages([("system", "Be {mood}.")])
    prompt.append(ChatPromptTemplate.from_messages([("human", "Q: {q}"), ("ai", "A")]))
    assert prompt.input_variables == ["mood", "q"]
    assert [type(part).__name__ for part in prompt.messages] == [
        "SystemMessagePromptTemplate", "HumanMessagePromptTemplate", "AIMessagePromptTemplate",
    ]  # fmt: skip


# CSVLoader on ragged rows: LangChain's loads them (csv.DictReader: extra cells under the
# key None, missing ones None) and, with content_columns, drops the extra cells unsaid;
# ragline refuses the file (documented).
def test_a_ragged_csv_row_is_refused_where_langchain_invents_or_drops_cells(tmp_path) -> None:
    from langchain_community.document_loaders import CSVLoader as LCCSVLoader

    from ragline.core import LoaderError
    from ragline.loaders import CSVLoader

    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n1,2\n3,4,5,6\n7\n")
    loaded = [d.page_content for d in LCCSVLoader(str(path)).load()]
    assert loaded == ["a: 1\nb: 2", "a: 3\nb: 4\nNone: 5,6", "a: 7\nb: None"]
    chosen = LCCSVLoader(str(path), content_columns=["a", "b"]).load()
    assert [d.page_content for d in chosen][1] == "a: 3\nb: 4"  # 5 and 6 are gone
    with pytest.raises(LoaderError, match=r"row 1 \(line 3\) has 4 cells, the header has 2"):
        CSVLoader(path).load()


# LocalFileStore.yield_keys(prefix=...): LangChain's prefix names a folder under the root
# (any path that stays inside it), not the start of a key's string.
_FILE_STORE_PREFIX = """
import tempfile
from langchain_classic.storage import LocalFileStore

store = LocalFileStore(tempfile.mkdtemp())
store.mset([("a1", b"1"), ("ab", b"2"), ("a/x", b"3"), ("a/y/z", b"4"), ("abc/d", b"5"),
            ("b/a", b"6")])
for prefix in [None, "", "a", "a/", "ab", "a/y", "abc", "c", "a/x", "./a", "a/../b"]:
    print(repr(prefix), sorted(store.yield_keys(prefix=prefix)))
try:
    list(store.yield_keys(prefix="../x"))
except Exception:  # LangChain's InvalidKeyException; ragline's InvalidInputError
    print("refused")
"""


def test_local_file_store_prefix_is_a_folder_as_langchains() -> None:
    langchain_printed = _printed(_FILE_STORE_PREFIX)
    lines = langchain_printed.splitlines()
    assert lines[2:5] == ["'a' ['a/x', 'a/y/z']", "'a/' ['a/x', 'a/y/z']", "'ab' []"]
    assert lines[8:] == ["'a/x' []", "'./a' ['a/x', 'a/y/z']", "'a/../b' ['b/a']", "refused"]
    assert _printed(_ported(_FILE_STORE_PREFIX)) == langchain_printed
