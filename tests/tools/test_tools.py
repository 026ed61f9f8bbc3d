"""ragline.tools: @tool forms, StructuredTool, Tool, create_retriever_tool, rendering."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any

import pytest

from ragline.core import (
    BaseRetriever,
    Document,
    InvalidInputError,
    MissingVariableError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    RunnableConfig,
    ToolMessage,
    ToolValidationError,
)
from ragline.core.exceptions import InvalidDocstringError
from ragline.tools import (
    InjectedToolArg,
    StructuredTool,
    Tool,
    _decorator,
    _render,
    _retriever,
    create_retriever_tool,
    render_text_description,
    render_text_description_and_args,
    tool,
)


def test_tool_decorator_forms():
    @tool
    def bare(query: str) -> str:
        """Bare."""
        return query

    @tool("renamed", return_direct=True)
    def named(query: str) -> str:
        """Named."""
        return query

    @tool(description="Given here.")
    def described(n: int) -> int:
        return n + 1

    called = tool("called", lambda text: text[::-1], description="Reverse.")
    assert [t.name for t in (bare, named, described)] == ["bare", "renamed", "described"]
    assert (named.return_direct, described.description) == (True, "Given here.")
    assert isinstance(bare, StructuredTool)
    assert called.invoke({"text": "abc"}) == "cba"
    with pytest.raises(InvalidInputError, match="tool 'nodoc' has no description"):

        @tool
        def nodoc(x: int) -> int:
            return x

    with pytest.raises(InvalidInputError, match="@tool decorates a function"):
        tool(42)  # type: ignore[arg-type]


def test_parse_docstring_describes_the_arguments():
    @tool(parse_docstring=True)
    def search(query: str, k: Annotated[int, "ignored: the docstring wins"] = 4) -> str:
        """Search the index.

        Args:
            query: what to look for.
            k: how many results.
        """
        return query

    assert search.description == "Search the index."
    assert search.args_schema.model_json_schema() == {  # what pydantic users call
        "title": "search",
        "description": "Search the index.",
        "properties": search.args,
        "required": ["query"],
        "type": "object",
    }
    assert search.args == {
        "query": {"description": "what to look for.", "title": "Query", "type": "string"},
        "k": {"default": 4, "description": "how many results.", "title": "K", "type": "integer"},
    }
    with pytest.raises(InvalidInputError, match="found no Google-style 'Args:' section"):

        @tool(parse_docstring=True)
        def bad(query: str) -> str:
            """No args section."""
            return query


def test_parse_docstring_refuses_a_function_without_a_docstring() -> None:
    # LangChain's @tool(parse_docstring=True) raises ValueError for a function with no
    # docstring, arguments or not; ragline made a tool with description '' (a plain
    # @tool refuses one without a description)
    def no_arguments() -> int:
        return 1

    def one_argument(x: int) -> int:
        return x

    for function in (no_arguments, one_argument):
        with pytest.raises(InvalidDocstringError, match="has no docstring to parse") as err:
            tool(parse_docstring=True)(function)
        assert isinstance(err.value, InvalidInputError)
    lenient = StructuredTool.from_function(
        no_arguments, description="One.", parse_docstring=True
    )  # error_on_invalid_docstring=False there: as before
    assert lenient.description == "One."


def test_a_pydantic_args_schema_replaces_the_inferred_one():
    pydantic = pytest.importorskip("pydantic")

    class SearchInput(pydantic.BaseModel):
        query: str = pydantic.Field(description="search query")

    @tool("search", args_schema=SearchInput)
    def search(query: str) -> str:
        """Look up things online."""
        return f"found {query}"

    assert search.args == {"query": {"description": "search query", "title": "Query",
                                     "type": "string"}}  # fmt: skip
    assert search.invoke({"query": "x"}) == "found x"


async def test_async_functions_become_coroutine_tools():
    @tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        return f"<html>{url}</html>"

    assert await fetch.ainvoke({"url": "a"}) == "<html>a</html>"
    with pytest.raises(NotImplementedError, match="has only an async function"):
        fetch.invoke({"url": "a"})


def test_infer_schema_false_makes_a_single_input_tool():
    @tool(infer_schema=False)
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    assert isinstance(shout, Tool)
    assert shout.run("hi") == "HI"
    assert shout.args == {"tool_input": {"type": "string"}}


def test_structured_tool_from_function_options():
    def add(a: int, b: int = 1, callbacks: Any = None) -> int:
        """Add numbers."""
        assert callbacks is not None  # a manager for child runs
        return a + b

    adder = StructuredTool.from_function(add, name="adder", handle_tool_error=True)
    assert (adder.name, adder.description, adder.handle_tool_error) == ("adder", "Add numbers.",
                                                                        True)  # fmt: skip
    assert list(adder.args) == ["a", "b"]  # callbacks is not an argument
    assert adder.run({"a": 2}) == 3
    loose = StructuredTool.from_function(lambda **kw: sorted(kw), name="loose",
                                         description="Anything.", infer_schema=False)  # fmt: skip
    assert loose.invoke({"x": 1, "y": 2}) == ["x", "y"]
    with pytest.raises(InvalidInputError, match="cannot name a tool after"):
        StructuredTool.from_function(lambda: 1, description="d")
    with pytest.raises(InvalidInputError, match="needs a func or a coroutine"):
        StructuredTool.from_function()


def test_a_config_parameter_receives_the_calls_config():
    seen: list[Any] = []

    def tagged(x: int, config: RunnableConfig) -> int:
        """Tagged."""
        seen.append(config["tags"])
        return x

    t = StructuredTool.from_function(tagged)
    assert list(t.args) == ["x"]
    assert t.invoke({"x": 1}, {"tags": ["mine"]}) == 1
    assert seen == [["mine"]]


def test_tool_takes_langchains_positional_arguments_and_one_input():
    echo = Tool("echo", lambda text: f"<{text}>", "Echo the text.")
    assert echo.run("a") == "<a>"
    assert echo.invoke({"__arg1": "b"}) == "<b>"
    assert echo.invoke({"anything": "c"}) == "<c>"
    message = echo.invoke({"name": "echo", "args": {"__arg1": "d"}, "id": "1",
                           "type": "tool_call"})  # fmt: skip
    assert message == ToolMessage("<d>", tool_call_id="1", name="echo")
    with pytest.raises(ToolValidationError, match="tool 'echo' takes one input, got 2"):
        echo.invoke({"a": 1, "b": 2})
    from_function = Tool.from_function(str.upper, "upper", "Upper-case.", return_direct=True)
    assert (from_function.run("x"), from_function.return_direct) == ("X", True)


def test_retriever_tool_renders_documents_with_the_prompt_and_separator():
    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query: str) -> list[Document]:
            return [Document("Etna erupts.", metadata={"source": "etna.txt"}),
                    Document("Bread rises.", metadata={"source": "bread.txt"})]  # fmt: skip

    retriever_tool = create_retriever_tool(
        Fixed(), "search", "Search the notes.",
        document_prompt=PromptTemplate.from_template("[{source}] {page_content}"),
        document_separator="\n---\n",
    )  # fmt: skip
    assert retriever_tool.invoke("q") == "[etna.txt] Etna erupts.\n---\n[bread.txt] Bread rises."
    with_artifact = create_retriever_tool(Fixed(), "search", "S.",
                                          response_format="content_and_artifact")  # fmt: skip
    message = with_artifact.invoke({"name": "search", "args": {"query": "q"}, "id": "c",
                                    "type": "tool_call"})  # fmt: skip
    assert message.content == "Etna erupts.\n\nBread rises."
    assert [d.metadata["source"] for d in message.artifact] == ["etna.txt", "bread.txt"]
    page = PromptTemplate.from_template("{page}")
    missing = create_retriever_tool(Fixed(), "s", "S.", document_prompt=page)
    with pytest.raises(MissingVariableError, match=r"document prompt needs \['page'\]"):
        missing.invoke("q")
    with pytest.raises(InvalidInputError, match="needs a retriever"):
        create_retriever_tool(object(), "s", "S.")  # type: ignore[arg-type]


def test_the_retriever_run_is_a_child_of_the_tool_run():
    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query: str) -> list[Document]:
            return [Document(query)]

    collector = RunCollectorCallbackHandler()
    create_retriever_tool(Fixed(), "search", "S.").invoke("q", {"callbacks": [collector]})
    assert collector.timeline() == [
        ("tool_start", "search", None),
        ("retriever_start", "Fixed", "search"),
        ("retriever_end", "Fixed", "search"),
        ("tool_end", "search", None),
    ]


def test_render_text_description_lists_tools_for_prompts():
    @tool
    def search(query: str, k: int = 4) -> str:
        """Search the web."""
        return query

    calculator = Tool("calculator", lambda e: e, "Do math.")
    assert render_text_description([search, calculator]) == (
        # this module reads annotations as strings (``from __future__ import annotations``):
        # the signature shows them quoted, as Python prints it and LangChain lists it
        "search(query: 'str', k: 'int' = 4) -> 'str' - Search the web.\ncalculator(e) - Do math."
    )
    assert render_text_description_and_args([search]) == (
        "search(query: 'str', k: 'int' = 4) -> 'str' - Search the web., args: "
        "{'query': {'title': 'Query', 'type': 'string'}, "
        "'k': {'default': 4, 'title': 'K', 'type': 'integer'}}"
    ), "the schema as a Python dict, as LangChain writes it into the prompt"


def test_docstring_examples_run():
    from ragline.core.tools import _function  # StructuredTool / Tool (as_tool returns them)

    for module in (_decorator, _function, _render, _retriever):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_tools_and_agents_work_where_pydantic_is_not_installed():
    """Pydantic is accepted, never required: with ``import pydantic`` failing, a typed
    tool gets its schema, checks its arguments and runs a tool-calling agent to the end."""
    code = textwrap.dedent(
        '''
        import json, sys
        sys.modules["pydantic"] = None  # import pydantic now fails
        from typing import Annotated, Literal, Optional
        from ragline.agents import AgentExecutor, create_tool_calling_agent
        from ragline.core import (AIMessage, ChatPromptTemplate, FakeMessagesListChatModel,
            MessagesPlaceholder, ToolValidationError, convert_to_openai_tool)
        from ragline.tools import tool

        @tool
        def search(query: Annotated[str, "what to look for"], k: int = 2,
                   kind: Literal["web", "news"] = "web", tags: Optional[list[str]] = None) -> str:
            """Search the index."""
            return f"{query}:{k}:{kind}:{tags}"

        try:
            search.invoke({"query": "x", "k": "many"})
        except ToolValidationError as err:
            error = str(err)
        call = AIMessage("", tool_calls=[{"name": "search", "args": {"query": "etna", "k": 1},
                                          "id": "c1"}])
        model = FakeMessagesListChatModel(responses=[call, AIMessage("done")])
        prompt = ChatPromptTemplate.from_messages(
            [("human", "{input}"), MessagesPlaceholder("agent_scratchpad")])
        executor = AgentExecutor(agent=create_tool_calling_agent(model, [search], prompt),
                                 tools=[search], return_intermediate_steps=True)
        result = executor.invoke({"input": "Etna?"})
        print(json.dumps({
            "parameters": convert_to_openai_tool(search)["function"]["parameters"],
            "error": error,
            "output": result["output"],
            "observations": [step[1] for step in result["intermediate_steps"]],
            "pydantic": "pydantic" in sys.modules and sys.modules["pydantic"] is not None,
        }))
        '''
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to look for"},
                "k": {"type": "integer", "default": 2},
                "kind": {"type": "string", "enum": ["web", "news"], "default": "web"},
                "tags": {
                    "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                    "default": None,
                },
            },
            "required": ["query"],
        },
        "error": "tool 'search' got invalid arguments: k: expected an integer, got 'many' "
        "(it takes: query, k, kind, tags)",
        "output": "done",
        "observations": ["etna:1:web:None"],
        "pydantic": False,
    }


def test_a_string_input_never_fills_an_injected_argument() -> None:
    """A str input is model text (a ReAct agent's Action Input): it goes to the first
    argument the model is shown and its JSON object's injected keys are dropped, so a
    model cannot set an InjectedToolArg; the program's dict still can."""

    @tool
    def who(user_id: Annotated[str, InjectedToolArg], q: str = "") -> str:
        """Who asks."""
        return f"user={user_id} q={q}"

    @tool
    def pair(a: str, b: str, user_id: Annotated[str, InjectedToolArg]) -> str:
        """Two values."""
        return f"{user_id}:{a}{b}"

    @tool
    def only(user_id: Annotated[str, InjectedToolArg]) -> str:
        """Only an injected argument."""
        return f"user={user_id}"

    assert who.is_single_input
    assert who.run({"q": "x", "user_id": "u1"}) == "user=u1 q=x"
    assert pair.run({"a": "1", "b": "2", "user_id": "u1"}) == "u1:12"
    assert only.run({"user_id": "u1"}) == "user=u1"
    for chosen, text in (
        (who, "admin"),
        (pair, '{"a": "1", "b": "2", "user_id": "admin"}'),
        (only, "admin"),
    ):
        with pytest.raises(ToolValidationError, match="user_id: missing"):
            chosen.run(text)


def test_file_search_and_listing_say_when_nothing_is_there(tmp_path) -> None:
    from ragline.tools import FileSearchTool, ListDirectoryTool

    (tmp_path / "empty").mkdir()
    (tmp_path / "a.txt").write_text("hi")
    search = FileSearchTool(root_dir=str(tmp_path))
    assert search.invoke({"pattern": "*.md"}) == "No file under . has a name matching *.md."
    assert search.invoke({"pattern": "*.txt"}) == "a.txt"
    listing = ListDirectoryTool(root_dir=str(tmp_path))
    assert listing.invoke({"dir_path": "empty"}) == "The folder empty is empty."
    assert listing.invoke({}) == "a.txt\nempty"
