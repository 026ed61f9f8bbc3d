"""Parity: tools (``@tool``, ``StructuredTool``, ``Tool``, a ``BaseTool`` subclass,
``ToolException`` handling, ``create_retriever_tool``, ``render_text_description``)
against LangChain's: names, descriptions, argument schemas, results and tool messages.
"""

from __future__ import annotations

import warnings
from types import SimpleNamespace
from typing import Any

import langchain_core.tools as lc_tools
import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from pydantic import BaseModel, Field

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.tools.retriever import create_retriever_tool as lc_retriever_tool

import ragline.tools as rl_tools
from ragline.core import BaseRetriever, Document
from tests.parity._observe import observe

COVERS = {
    "tools.BaseTool",
    "tools.StructuredTool",
    "tools.Tool",
    "tools.ToolException",
    "tools.tool",
    "tools.create_retriever_tool",
    "tools.render_text_description",
}

LC = SimpleNamespace(**{n: getattr(lc_tools, n) for n in dir(lc_tools) if not n.startswith("_")})
LC.create_retriever_tool = lc_retriever_tool
RL = SimpleNamespace(**{n: getattr(rl_tools, n) for n in rl_tools.__all__})


def both(run: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return observe(run(LC)), observe(run(RL))


def _tools(m: Any) -> dict[str, Any]:
    @m.tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    @m.tool("search-tool", return_direct=True)
    def search(query: str) -> str:
        """Look things up."""
        return f"found {query}"

    class Find(BaseModel):
        q: str = Field(description="the query")
        n: int = 1

    @m.tool(args_schema=Find)
    def find(q: str, n: int = 1) -> str:
        """Find n things."""
        return q * n

    @m.tool(parse_docstring=True)
    def repeat(a: int, b: str) -> str:
        """Repeat a text.

        Args:
            a: how many times
            b: the text
        """
        return b * a

    return {"add": add, "search": search, "find": find, "repeat": repeat}


@pytest.mark.parametrize("name", ["add", "search", "find", "repeat"])
def test_tool_decorator(name: str) -> None:
    def run(m: Any) -> Any:
        made = _tools(m)[name]
        example = {"add": {"a": 1}, "search": "cats", "find": {"q": "ab", "n": 2},
                   "repeat": {"a": 2, "b": "x"}}[name]  # fmt: skip
        return [
            made.name,
            made.description,
            made.args,
            made.return_direct,
            made.invoke(example),
            made.run(example),
            type(made).__name__,
        ]

    theirs, ours = both(run)
    assert ours == theirs


def test_a_tool_call_gives_a_tool_message() -> None:
    call = {"name": "add", "args": {"a": 1, "b": 4}, "id": "c1", "type": "tool_call"}

    def run(m: Any) -> Any:
        message = _tools(m)["add"].invoke(call)
        return [type(message).__name__, message.content, message.tool_call_id, message.name]

    theirs, ours = both(run)
    assert ours == theirs == ["ToolMessage", "5", "c1", "add"]


def test_structured_tool_and_tool() -> None:
    def multiply(x: int, y: int) -> int:
        """Multiply x by y."""
        return x * y

    def run(m: Any) -> Any:
        given = m.StructuredTool.from_function(
            func=lambda x, y: x * y, name="mul", description="Multiply."
        )
        read = m.StructuredTool.from_function(multiply)
        echo = m.Tool(name="echo", func=lambda s: s[::-1], description="Reverse text.")
        bang = m.Tool.from_function(func=lambda s: s + "!", name="bang", description="d")
        return [
            [given.name, given.description, given.args, given.invoke({"x": 2, "y": 3})],
            [read.name, read.description, read.args, read.invoke({"x": 2, "y": 3})],
            [echo.name, echo.args, echo.invoke("abc"), echo.run("xy")],
            echo.invoke({"__arg1": "ab"}),
            [bang.name, bang.invoke("q")],
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1][1] == "Multiply x by y."


def _raiser(m: Any, **options: Any) -> Any:
    def raiser(x: str) -> str:
        """Raise."""
        raise m.ToolException("nope")

    return m.StructuredTool.from_function(raiser, **options)


@pytest.mark.parametrize(
    "handle", [True, "custom msg", lambda err: f"E:{err}"], ids=["true", "text", "function"]
)
def test_tool_exception_handling(handle: Any) -> None:
    call = {"name": "raiser", "args": {"x": "a"}, "id": "c9", "type": "tool_call"}

    def run(m: Any) -> Any:
        made = _raiser(m, handle_tool_error=handle)
        message = made.invoke(call)
        return [
            made.invoke({"x": "a"}),
            [type(message).__name__, message.content, message.tool_call_id, message.status],
        ]

    theirs, ours = both(run)
    assert ours == theirs


def _greeter(m: Any, **options: Any) -> Any:
    def greet(name: str, times: int, mark: str = "!") -> str:
        """Greet someone."""
        return f"hi {name}" * times + mark

    return m.StructuredTool.from_function(greet, **options)


def test_handle_validation_error_true_answers_a_fixed_text() -> None:
    call = {"name": "greet", "args": {"name": "Ann"}, "id": "c3", "type": "tool_call"}

    def run(m: Any) -> Any:
        made = _greeter(m, handle_validation_error=True)
        message = made.invoke(call)
        return [
            made.invoke({"name": "Ann", "times": "many"}),
            made.invoke("Ann"),  # the string is "name"; "times" is missing
            [type(message).__name__, message.content, message.tool_call_id, message.status],
            _greeter(m, handle_validation_error="check the call").invoke({"times": 1}),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0] == ours[1] == "Tool input validation error"
    assert ours[2] == ["ToolMessage", "Tool input validation error", "c3", "error"]


def test_a_plain_string_is_the_first_of_several_arguments() -> None:
    def run(m: Any) -> Any:
        def shout(text: str, mark: str = "!", times: int = 1) -> str:
            """Shout."""
            return text.upper() * times + mark

        made = m.StructuredTool.from_function(shout)
        found = [made.invoke("hey"), made.run("a b"), made.invoke('{"not": "json args"')]
        try:
            _greeter(m).invoke("Ann")
        except Exception as err:
            found.append([type(err).__name__, isinstance(err, ValueError)])
        return found

    theirs, ours = both(run)
    assert ours == theirs
    assert ours == ["HEY!", "A B!", '{"NOT": "JSON ARGS"!', ["ValidationError", True]]


def test_an_unhandled_tool_exception_propagates() -> None:
    for m in (LC, RL):
        with pytest.raises(m.ToolException, match="nope"):
            _raiser(m).invoke({"x": "a"})


def test_render_text_description_and_a_base_tool_subclass() -> None:
    def run(m: Any) -> Any:
        class Length(m.BaseTool):  # type: ignore[name-defined,misc]
            name: str = "len"
            description: str = "Length of text."

            def _run(self, text: str) -> int:
                return len(text)

        made = _tools(m)
        echo = m.Tool(name="echo", func=lambda s: s, description="Echo text.")
        return [
            m.render_text_description([made["add"], made["search"], echo, Length()]),
            Length().invoke("abcd"),
            Length().run("ab"),
            Length().args,
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0].splitlines()[0] == "add(a: 'int', b: 'int' = 2) -> 'int' - Add two numbers."


class LCKnowledge(LCBaseRetriever):
    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[LCDocument]:
        return [LCDocument(page_content=f"about {query}", metadata={"s": 1}),
                LCDocument(page_content="two")]  # fmt: skip


class RLKnowledge(BaseRetriever):
    def _get_relevant_documents(self, query: str) -> list[Document]:
        return [Document(f"about {query}", metadata={"s": 1}), Document("two")]


def test_create_retriever_tool() -> None:
    def run(m: Any) -> Any:
        retriever = LCKnowledge() if m is LC else RLKnowledge()
        made = m.create_retriever_tool(retriever, "kb", "Search the KB.")
        joined = m.create_retriever_tool(retriever, "kb", "d", document_separator=" | ")
        return [
            made.name,
            made.description,
            made.args,
            made.invoke({"query": "cats"}),
            made.invoke("dogs"),
            joined.invoke("x"),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[3] == "about cats\n\ntwo"
