"""Parity: known gaps left open by earlier port trials and reviews (issue 24, session 22).

Each scenario runs one program through LangChain and, after ``ragline port``, through
ragline, and compares what the two print.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {
    "core.FormatOutputType",
    "tools.ArgsSchema",
    "tools.CopyFileTool",
    "tools.DeleteFileTool",
    "tools.FileManagementToolkit",
    "tools.FileSearchTool",
    "tools.ListDirectoryTool",
    "tools.ReadFileTool",
    "tools.WriteFileTool",
}

# Adding message chunks: LangChain's sum has no ``name``, whatever the two pieces had
# (only a function message's chunk keeps its function's name).
_CHUNK_NAMES = """
from langchain_core.messages import (
    AIMessageChunk, ChatMessageChunk, FunctionMessageChunk, HumanMessageChunk,
    SystemMessageChunk, ToolMessageChunk,
)
from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import RunnableLambda

sums = [
    AIMessageChunk(content="a", name="x", id="1") + AIMessageChunk(content="b", name="y", id="2"),
    AIMessageChunk(content="a") + AIMessageChunk(content="b", name="y"),
    AIMessageChunk(content="a", name="x") + AIMessageChunk(content="b", name="x"),
    AIMessageChunk(content="a", name="x")
    + AIMessageChunk(content="", tool_call_chunks=[{"name": "f", "args": "{}", "index": 0}]),
    HumanMessageChunk(content="a", name="x") + HumanMessageChunk(content="b", name="x"),
    SystemMessageChunk(content="a", name="x") + SystemMessageChunk(content="b"),
    ChatMessageChunk(content="a", role="r", name="x") + ChatMessageChunk(content="b", role="r"),
    ToolMessageChunk(content="a", tool_call_id="t", name="x")
    + ToolMessageChunk(content="b", tool_call_id="t", name="x"),
    FunctionMessageChunk(content="a", name="f") + FunctionMessageChunk(content="b", name="f"),
]
for total in sums:
    print(type(total).__name__, repr(total.content), total.name, total.id)

# a stream collected before a function: the pieces are added up
def stream(_):
    yield AIMessageChunk(content="a", name="bot", id="r")
    yield AIMessageChunk(content="b", name="bot")

seen = (RunnableLambda(stream) | RunnableLambda(lambda m: (m.content, m.name))).invoke(0)
print(seen)
"""


def test_a_sum_of_message_chunks_has_no_name_as_in_langchain() -> None:
    langchain_printed = _printed(_CHUNK_NAMES)
    assert langchain_printed.splitlines() == [
        "AIMessageChunk 'ab' None 1",
        "AIMessageChunk 'ab' None None",
        "AIMessageChunk 'ab' None None",
        "AIMessageChunk 'a' None None",
        "HumanMessageChunk 'ab' None None",
        "SystemMessageChunk 'ab' None None",
        "ChatMessageChunk 'ab' None None",
        "ToolMessageChunk 'ab' None None",
        "FunctionMessageChunk 'ab' f None",
        "('ab', None)",
    ]
    assert _printed(_ported(_CHUNK_NAMES)) == langchain_printed


# LangChain's fake embeddings are pydantic models that are not frozen: equal by their
# fields and unhashable (their fields can change), so neither goes in a set or a dict key.
_FAKE_EMBEDDINGS_HASHED = """
from langchain_core.embeddings import DeterministicFakeEmbedding, FakeEmbeddings

for embedding in (DeterministicFakeEmbedding(size=4), FakeEmbeddings(size=4)):
    for use in (hash, lambda e: {e}, lambda e: {e: 1}):
        try:
            use(embedding)
            print("hashed")
        except TypeError as e:
            print(type(e).__name__, e)
    print(embedding == type(embedding)(size=4), embedding in [type(embedding)(size=4)])
"""


def test_fake_embeddings_are_unhashable_as_in_langchain() -> None:
    langchain_printed = _printed(_FAKE_EMBEDDINGS_HASHED)
    assert langchain_printed.splitlines() == [
        *["TypeError unhashable type: 'DeterministicFakeEmbedding'"] * 3,
        "True True",
        *["TypeError unhashable type: 'FakeEmbeddings'"] * 3,
        "True True",
    ]
    assert _printed(_ported(_FAKE_EMBEDDINGS_HASHED)) == langchain_printed


# Two names a program writes only in annotations: ``ArgsSchema`` (LangChain's alias for a
# pydantic model class or a JSON Schema dict; ragline's class of a tool's argument schema
# reads alike there) and ``FormatOutputType`` (the type variable of a prompt's output).
_ANNOTATION_NAMES = """
from typing import Optional

from langchain_core.prompts.base import FormatOutputType
from langchain_core.tools import BaseTool
from langchain_core.tools.base import ArgsSchema
from pydantic import BaseModel, Field


class Input(BaseModel):
    city: str = Field(description="the city")


class Weather(BaseTool):
    name: str = "weather"
    description: str = "The weather in a city"
    args_schema: Optional[ArgsSchema] = Input

    def _run(self, city: str) -> str:
        return f"sunny in {city}"


def same(value: FormatOutputType) -> FormatOutputType:
    return value


tool = Weather()
print(tool.invoke({"city": "Oslo"}), tool.args, tool.args_schema.__name__)
print(same(3), Weather.__annotations__["args_schema"] is not None)
"""


def test_argsschema_and_formatoutputtype_port_as_annotations() -> None:
    langchain_printed = _printed(_ANNOTATION_NAMES)
    assert langchain_printed == (
        "sunny in Oslo {'city': {'description': 'the city', 'title': 'City', "
        "'type': 'string'}} Input\n3 True\n"
    )
    assert _printed(_ported(_ANNOTATION_NAMES)) == langchain_printed


# Mustache ``{{{b}}`` (three braces open, two close): LangChain's renderer takes it as a
# tag of no kind, which renders as nothing, takes its line with it when alone there and
# is no variable; ``{{{b}}}}`` is ``{{{b}}}`` then a brace. (ragline also warns.)
_UNBALANCED_TRIPLE = """
from langchain_core.prompts import PromptTemplate

for template in [
    "{{{b}}", "a {{{b}} c", "a\\n  {{{b}}  \\nc", "{{#s}}{{{b}}{{/s}}x", "{{{b}}}", "{{{b}}}}",
    "x{{{b}} y {{{c}}} z", "{{{#b}}",
]:
    prompt = PromptTemplate.from_template(template, template_format="mustache")
    print(repr(template), prompt.input_variables, repr(prompt.format(b="B", c="C", s=[1])))
"""


def test_an_unbalanced_triple_mustache_tag_renders_as_nothing_as_in_langchain() -> None:
    langchain_printed = _printed(_UNBALANCED_TRIPLE)
    assert langchain_printed.splitlines() == [
        "'{{{b}}' [] ''",
        "'a {{{b}} c' [] 'a  c'",
        "'a\\n  {{{b}}  \\nc' [] 'a\\nc'",
        "'{{#s}}{{{b}}{{/s}}x' ['s'] 'x'",
        "'{{{b}}}' ['b'] 'B'",
        "'{{{b}}}}' ['b'] 'B}'",
        "'x{{{b}} y {{{c}}} z' ['c'] 'x y C z'",
        "'{{{#b}}' [] ''",
    ]
    assert _printed(_ported(_UNBALANCED_TRIPLE)) == langchain_printed


def test_an_unbalanced_triple_mustache_tag_warns_in_ragline() -> None:
    import pytest

    from ragline.core import PromptTemplate

    with pytest.warns(UserWarning, match=r"'\{\{\{b\}\}' opens with three braces"):
        prompt = PromptTemplate.from_template("a {{{b}} c", template_format="mustache")
    assert prompt.format() == "a  c"


# A mustache value whose truth cannot be told (a numpy array of several items, or none:
# bool() raises ValueError; an object whose __bool__ raises): LangChain's lookup takes it
# as missing (a variable shows nothing, a section is skipped, an inverted one shows); an
# array of one item is true and one scope; a range or a generator is looped over.
_UNTELLABLE_TRUTH = """
import numpy as np
from langchain_core.prompts import PromptTemplate


class NoTruth:
    def __bool__(self):
        raise ValueError("no truth")


section = PromptTemplate.from_template(
    "{{#a}}[{{.}}]{{/a}}|{{^a}}none{{/a}}", template_format="mustache"
)
variable = PromptTemplate.from_template("<{{a}}>", template_format="mustache")
values = [
    np.array([1, 2]), np.array([]), np.array([5]), np.array(0), np.array([[1, 2]]),
    NoTruth(), range(1, 3), (n for n in "xy"), (1, 2), {"k": 1}, "",
]
for value in values:
    print(type(value).__name__, repr(section.format(a=value)))
for value in values[:6]:
    print(type(value).__name__, repr(variable.format(a=value)))
"""


def test_a_mustache_value_whose_truth_cannot_be_told_is_missing_as_in_langchain() -> None:
    langchain_printed = _printed(_UNTELLABLE_TRUTH)
    assert langchain_printed.splitlines() == [
        "ndarray '|none'",
        "ndarray '|none'",
        "ndarray '[[5]]|'",
        "ndarray '|none'",
        "ndarray '|none'",
        "NoTruth '|none'",
        "range '[1][2]|'",
        "generator '[x][y]|'",
        "tuple '[1][2]|'",
        "dict \"[{'k': 1}]|\"",
        "str '|none'",
        "ndarray '<>'",
        "ndarray '<>'",
        "ndarray '<[5]>'",
        "ndarray '<0>'",
        "ndarray '<>'",
        "NoTruth '<>'",
    ]
    assert _printed(_ported(_UNTELLABLE_TRUTH)) == langchain_printed


def test_a_false_item_of_a_mustache_list_still_renders_in_ragline() -> None:
    # LangChain's renderer skips a list item that is false (0, "", False, None, []):
    # "{{#a}}[{{.}}]{{/a}}" over [0, 1, ""] gives "[1]". The mustache specification, and
    # ragline, render each item (docs/differences-from-langchain.md)
    from ragline.core import PromptTemplate

    prompt = PromptTemplate.from_template("{{#a}}[{{.}}]{{/a}}", template_format="mustache")
    assert prompt.format(a=[0, 1, "", False, None]) == "[0][1][][False][]"


# A jinja2 or mustache prompt formatted without one of its variables (weather_agent):
# LangChain's format / format_prompt / format_messages render it as nothing (jinja2's
# undefined, mustache's missing name); invoke refuses it with KeyError, as for f-strings.
# With validate_template=True a jinja2 template that disagrees with input_variables is a
# warning (its variables are the template's); an f-string one is refused only when the
# template needs a variable not declared.
_MISSING_JINJA2_VARIABLE = """
import asyncio
import warnings

from langchain_core.prompts import (
    ChatPromptTemplate, HumanMessagePromptTemplate, PromptTemplate,
)

weather = PromptTemplate.from_template(
    "Weather in {{ city }}{% if day %} on {{ day }}{% endif %}.", template_format="jinja2"
)
chat = ChatPromptTemplate.from_messages(
    [("system", "You know {{ city }}"), ("human", "{{ city }} and {{ day }}?")],
    template_format="jinja2",
)
mixed = ChatPromptTemplate.from_messages(
    [("human", "{{ a }}"), HumanMessagePromptTemplate.from_template("{b}")],
    template_format="jinja2",
)
mustache = PromptTemplate.from_template("{{a}}, {{b}}.", template_format="mustache")
calls = [
    lambda: weather.input_variables,
    lambda: weather.format(city="Oslo"),
    lambda: weather.format_prompt().to_string(),
    lambda: weather.partial(day="Mon").format(),
    lambda: weather.invoke({"city": "Oslo"}),
    lambda: asyncio.run(weather.ainvoke({"city": "Oslo"})),
    lambda: [m.content for m in chat.format_messages(city="Oslo")],
    lambda: chat.format(day="Mon"),
    lambda: chat.invoke({"city": "Oslo"}),
    lambda: mixed.format_messages(b=1)[0].content,
    lambda: mixed.format_messages(a=1),
    lambda: mustache.format(b=2),
    lambda: mustache.invoke({"b": 2}),
]
for call in calls:
    try:
        print(repr(call()))
    except Exception as e:
        print(type(e).__name__, isinstance(e, KeyError))
for template_format, template in (("jinja2", "{{ a }} {{ b }}"), ("f-string", "{a} {b}")):
    for declared in (["a"], ["a", "b", "c"], ["b", "a"]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                prompt = PromptTemplate(
                    template=template, input_variables=declared,
                    template_format=template_format, validate_template=True,
                )
                print(prompt.input_variables, [type(w.message).__name__ for w in caught])
            except Exception as e:
                print(type(e).__name__, isinstance(e, ValueError))
"""


def test_a_missing_jinja2_or_mustache_variable_formats_blank_as_in_langchain() -> None:
    langchain_printed = _printed(_MISSING_JINJA2_VARIABLE)
    assert langchain_printed.splitlines() == [
        "['city', 'day']",
        "'Weather in Oslo.'",
        "'Weather in .'",
        "'Weather in  on Mon.'",
        "KeyError True",
        "KeyError True",
        "['You know Oslo', 'Oslo and ?']",
        "'System: You know \\nHuman:  and Mon?'",
        "KeyError True",
        "''",
        "KeyError True",
        "', 2.'",
        "KeyError True",
        "['a', 'b'] ['UserWarning']",
        "['a', 'b'] ['UserWarning']",
        "['a', 'b'] []",
        "ValidationError True",
        "['a', 'b'] []",
        "['a', 'b'] []",
    ]
    ragline_printed = _printed(_ported(_MISSING_JINJA2_VARIABLE))
    # LangChain's refusal of an f-string template is pydantic's ValidationError (a
    # ValueError), ragline's an InvalidInputError (a ValueError)
    assert ragline_printed == langchain_printed.replace(
        "ValidationError True", "InvalidInputError True"
    )


# FileManagementToolkit (langchain_community.agent_toolkits): its seven tools in its order
# (or selected_tools' order), their names and arguments, and what they do to the files
# of root_dir. The status lines a model reads are each library's own wording (ragline's
# docs); what a read, a listing or a search returns is the same, and a path outside
# root_dir is refused by both without touching anything.
_FILE_TOOLKIT = """
import os
import tempfile

from langchain_community.agent_toolkits import FileManagementToolkit

base = tempfile.mkdtemp()
root = os.path.join(base, "root")
os.mkdir(root)
with open(os.path.join(base, "outside.txt"), "w") as file:
    file.write("keep me")
tools = FileManagementToolkit(root_dir=root).get_tools()
for tool in tools:
    print(tool.name, type(tool).__name__, list(tool.args))
picked = FileManagementToolkit(root_dir=root, selected_tools=["write_file", "read_file"])
print([tool.name for tool in picked.get_tools()])
try:
    FileManagementToolkit(root_dir=root, selected_tools=["shell"])
except ValueError as e:
    print("ValueError")
by_name = {tool.name: tool for tool in tools}
steps = [
    ("write_file", {"file_path": "notes/a.txt", "text": "hello"}),
    ("write_file", {"file_path": "notes/a.txt", "text": " world", "append": True}),
    ("read_file", {"file_path": "notes/a.txt"}),
    ("copy_file", {"source_path": "notes/a.txt", "destination_path": "b.txt"}),
    ("move_file", {"source_path": "b.txt", "destination_path": "c.md"}),
    ("list_directory", {}),
    ("list_directory", {"dir_path": "notes"}),
    ("file_search", {"pattern": "*.txt"}),
    ("file_search", {"pattern": "*.csv"}),
    ("file_delete", {"file_path": "c.md"}),
    ("read_file", {"file_path": "c.md"}),
    ("read_file", {"file_path": "../outside.txt"}),
    ("write_file", {"file_path": "../outside.txt", "text": "gone"}),
    ("file_delete", {"file_path": "../outside.txt"}),
    ("copy_file", {"source_path": "../outside.txt", "destination_path": "in.txt"}),
    ("list_directory", {"dir_path": ".."}),
]
for name, arguments in steps:
    output = by_name[name].invoke(arguments)
    if name in ("read_file", "list_directory", "file_search") and not output.startswith(
        ("Error", "No file", "The folder")  # nothing found, in either library's words
    ):
        print(name, sorted(output.split("\\n")))  # a listing's order is the file system's
    else:
        print(name, output.startswith("Error"))
for folder, _, names in sorted(os.walk(base)):
    for file_name in sorted(names):
        with open(os.path.join(folder, file_name)) as file:
            print(os.path.relpath(os.path.join(folder, file_name), base), repr(file.read()))
"""


def test_the_file_management_toolkit_hands_out_langchains_tools() -> None:
    langchain_printed = _printed(_FILE_TOOLKIT)
    assert langchain_printed.splitlines() == [
        "copy_file CopyFileTool ['source_path', 'destination_path']",
        "file_delete DeleteFileTool ['file_path']",
        "file_search FileSearchTool ['dir_path', 'pattern']",
        "move_file MoveFileTool ['source_path', 'destination_path']",
        "read_file ReadFileTool ['file_path']",
        "write_file WriteFileTool ['file_path', 'text', 'append']",
        "list_directory ListDirectoryTool ['dir_path']",
        "['write_file', 'read_file']",
        "ValueError",
        "write_file False",
        "write_file False",
        "read_file ['hello world']",
        "copy_file False",
        "move_file False",
        "list_directory ['c.md', 'notes']",
        "list_directory ['a.txt']",
        "file_search ['notes/a.txt']",
        "file_search False",
        "file_delete False",
        "read_file True",
        "read_file True",
        "write_file True",
        "file_delete True",
        "copy_file True",
        "list_directory True",
        "outside.txt 'keep me'",
        "root/notes/a.txt 'hello world'",
    ]
    assert _printed(_ported(_FILE_TOOLKIT)) == langchain_printed
