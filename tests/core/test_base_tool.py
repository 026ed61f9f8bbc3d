"""BaseTool (ragline.core.tools): the run flow, callbacks, errors, tool calls, async.

The contract every kind of tool keeps (function, structured, subclass, retriever tool)
is in tests/tools/contract.py; this file covers the base class's own machinery.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from ragline.core import (
    AsyncCallbackHandler,
    BaseCallbackHandler,
    BaseTool,
    InvalidInputError,
    RunCollectorCallbackHandler,
    RunnableLambda,
    ToolException,
    ToolMessage,
    ToolValidationError,
)
from ragline.core.callbacks import CallbackManagerForToolRun


class Add(BaseTool):
    name = "add"
    description = "Add two integers."

    def _run(self, a: int, b: int = 1) -> int:
        return a + b


class Echo(BaseTool):
    """Runs a nested runnable and reports text through its run manager."""

    name = "echo"
    description = "Echo the text."

    def _run(self, text: str, run_manager: CallbackManagerForToolRun | None = None) -> str:
        assert run_manager is not None
        run_manager.on_text(f"echoing {text}")
        return RunnableLambda(lambda x: x.upper(), name="upper").invoke(text)


class Failing(BaseTool):
    name = "failing"
    description = "Always fails."
    error: Exception = ToolException("the service is down")

    def _run(self, query: str) -> str:
        raise self.error


def tool_call(name: str, args: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def test_a_subclass_with_class_attributes_runs_on_str_dict_and_tool_calls():
    add = Add()
    assert add.run({"a": 2, "b": "3"}) == 5
    assert add.invoke({"a": 2}) == 3
    assert add.run("4") == 5  # a string is the first argument (b has a default)
    # a JSON object the first argument cannot take is the arguments (LangChain refuses it)
    assert add.run('{"a": 1, "b": 2}') == 3
    message = add.invoke(tool_call("add", {"a": 4, "b": 5}))
    assert message == ToolMessage("9", tool_call_id="call_1", name="add")
    assert add.batch([{"a": 1}, {"a": 2}]) == [2, 3]
    assert (add | RunnableLambda(lambda n: n * 10)).invoke({"a": 1}) == 20
    assert add("{}" if False else {"a": 0}) == 1


def test_schema_comes_from_the_run_hook():
    add = Add()
    assert add.args == {
        "a": {"title": "A", "type": "integer"},
        "b": {"default": 1, "title": "B", "type": "integer"},
    }
    assert add.tool_call_schema.required == ["a"]
    assert not add.is_single_input
    assert Echo().is_single_input  # run_manager is not an argument


def test_callbacks_report_one_tool_run_with_its_children():
    collector, texts = RunCollectorCallbackHandler(), []

    class Texts(BaseCallbackHandler):
        def on_text(self, text: str, **kwargs: Any) -> None:
            texts.append(text)

    config = {"callbacks": [collector, Texts()], "tags": ["t"]}
    assert Echo().invoke({"text": "hi"}, config) == "HI"
    assert texts == ["echoing hi"]
    assert collector.timeline() == [
        ("tool_start", "echo", None),
        ("text", "echo", None),
        ("chain_start", "upper", "echo"),
        ("chain_end", "upper", "echo"),
        ("tool_end", "echo", None),
    ]
    run = collector.traced_runs[0]
    # LangChain's shapes: the arguments as given, the output under "output"
    assert (run.run_type, run.inputs, run.outputs, run.tags) == (
        "tool", {"text": "hi"}, {"output": "HI"}, ["t"]
    )  # fmt: skip
    assert "inputs" not in run.extra


def test_a_string_input_fills_the_single_argument():
    collector = RunCollectorCallbackHandler()
    assert Echo().run("hey", callbacks=[collector]) == "HEY"
    assert collector.traced_runs[0].inputs == {"input": "hey"}


def test_a_plain_string_for_several_arguments_is_the_first_one():
    collector = RunCollectorCallbackHandler()
    with pytest.raises(ToolValidationError, match="a: expected an integer, got 'two and three'"):
        Add().run("two and three", callbacks=[collector])
    assert [event for event, _ in collector.event_log] == ["tool_start", "tool_error"]


@pytest.mark.parametrize(
    ("handle", "expected"),
    [
        (True, "the service is down"),
        ("try again later", "try again later"),
        (lambda err: f"failed: {err}", "failed: the service is down"),
    ],
)
def test_handled_tool_errors_become_the_output(handle, expected):
    collector = RunCollectorCallbackHandler()
    tool = Failing(handle_tool_error=handle)
    assert tool.run("q", callbacks=[collector]) == expected
    assert [event for event, _ in collector.event_log] == ["tool_start", "tool_end"]
    message = tool.invoke(tool_call("failing", {"query": "q"}))
    assert (message.content, message.status) == (expected, "error")


def test_unhandled_errors_are_reported_and_raised():
    collector = RunCollectorCallbackHandler()
    with pytest.raises(ToolException, match="the service is down"):
        Failing().run("q", callbacks=[collector])
    with pytest.raises(ZeroDivisionError):  # handle_tool_error covers ToolException only
        Failing(error=ZeroDivisionError("x"), handle_tool_error=True).run(
            "q", callbacks=[collector]
        )
    assert [event for event, _ in collector.event_log] == ["tool_start", "tool_error"] * 2
    assert isinstance(collector.traced_runs[1].exception, ZeroDivisionError)


def test_validation_errors_are_raised_or_returned_as_asked():
    with pytest.raises(ToolValidationError) as info:
        Add().run({"a": "x", "c": 1})
    assert str(info.value) == (
        "tool 'add' got invalid arguments: a: expected an integer, got 'x'; c: unexpected "
        "argument (it takes: a, b)"
    )
    told = Add(handle_validation_error=True).invoke(tool_call("add", {"b": 1}))
    assert (told.content, told.status) == ("Tool input validation error", "error")
    told = Add(handle_validation_error=str).invoke(tool_call("add", {"b": 1}))
    assert (told.content, told.status) == (
        "tool 'add' got invalid arguments: a: missing (required) (it takes: a, b)",
        "error",
    )
    assert Add(handle_validation_error="bad input").run({}) == "bad input"
    assert Add(handle_validation_error=lambda e: e.errors).run({}) == [("a", "missing (required)")]


def test_content_and_artifact():
    class Lookup(BaseTool):
        name = "lookup"
        response_format = "content_and_artifact"

        def _run(self, key: str) -> tuple[str, dict[str, int]]:
            return f"found {key}", {"rows": 3}

    message = Lookup().invoke(tool_call("lookup", {"key": "k"}))
    assert (message.content, message.artifact) == ("found k", {"rows": 3})
    assert Lookup().run("k") == "found k"
    broken = Lookup()
    broken._run = lambda key: "no tuple"  # type: ignore[method-assign]
    with pytest.raises(InvalidInputError, match=r"must return a \(content, artifact\) tuple"):
        broken.run("k")


def test_non_text_output_is_sent_to_the_model_as_json():
    class Weather(BaseTool):
        name = "weather"

        def _run(self, city: str) -> dict[str, Any]:
            return {"city": city, "temp": 21}

    message = Weather().invoke(tool_call("weather", {"city": "Oslo"}))
    assert message.content == '{"city": "Oslo", "temp": 21}'
    assert Weather().run("Oslo") == {"city": "Oslo", "temp": 21}


def test_verbose_prints_the_tools_own_run_only(capsys):
    Echo().run("hi", verbose=True)
    # not the nested 'upper' chain; the output in the run's colour (green by default)
    assert capsys.readouterr().out == "echoing hi\x1b[32;1m\x1b[1;3mHI\x1b[0m"


def test_verbose_flag_prints_the_output(capsys):
    Echo(verbose=True).run("hi", observation_prefix="Observation: ", llm_prefix="Thought:")
    expected = "echoing hi\nObservation: \x1b[32;1m\x1b[1;3mHI\x1b[0m\nThought:"
    assert capsys.readouterr().out == expected


def test_bad_definitions_are_refused():
    with pytest.raises(InvalidInputError, match="a tool needs a non-empty str name, got ''"):
        Add(name="")
    with pytest.raises(InvalidInputError, match="response_format 'json' is not one of"):
        Add(response_format="json")
    with pytest.warns(UserWarning, match="Add\\(\\) ignores 'nme': not among its fields"):
        assert Add(nme="x").name == "add"  # dropped, as LangChain's pydantic tool drops it
    with pytest.raises(InvalidInputError, match="a ToolCall needs 'args' and an 'id'"):
        Add().invoke({"name": "add", "args": {"a": 1}, "type": "tool_call"})


def test_pydantic_args_schema_is_used_for_the_schema_and_the_check():
    pydantic = pytest.importorskip("pydantic")

    class AddInput(pydantic.BaseModel):
        a: int = pydantic.Field(description="first")
        b: int = pydantic.Field(default=1, description="second")

    tool = Add(args_schema=AddInput)
    assert tool.args["a"] == {"description": "first", "title": "A", "type": "integer"}
    assert tool.run({"a": "2"}) == 3
    with pytest.raises(ToolValidationError) as info:
        tool.run({"a": "two"})
    # pydantic's own error and text (as LangChain's tools raise), and ragline's problems
    assert isinstance(info.value, pydantic.ValidationError)
    assert str(info.value).startswith("1 validation error for AddInput\na\n  Input should be")
    assert info.value.errors == [
        ("a", "Input should be a valid integer, unable to parse string as an integer")
    ]


async def test_async_runs_the_sync_hook_in_a_thread_under_the_tool_run():
    collector = RunCollectorCallbackHandler()
    main_thread = threading.get_ident()
    threads: list[int] = []

    class Where(Echo):
        def _run(self, text: str, run_manager: Any = None) -> str:
            threads.append(threading.get_ident())
            return super()._run(text, run_manager=run_manager)

    assert await Where().ainvoke("x", {"callbacks": [collector]}) == "X"
    assert threads and threads[0] != main_thread
    assert collector.traced_runs[0].tree() == ("echo", [("upper", [])])
    assert ("text", "echo", None) in collector.timeline()
    message = await Add().ainvoke(tool_call("add", {"a": 1}))
    assert message.content == "2"


async def test_async_hook_and_async_handlers_are_awaited():
    events: list[str] = []

    class Events(AsyncCallbackHandler):
        async def on_tool_start(self, serialized, input_str, **kwargs):
            await asyncio.sleep(0)
            events.append(f"start {serialized['name']} {input_str}")

        async def on_tool_end(self, output, **kwargs):
            events.append(f"end {output}")

    class Sleepy(BaseTool):
        name = "sleepy"

        def _run(self, seconds: float) -> str:
            raise AssertionError("the async hook should be used")

        async def _arun(self, seconds: float) -> str:
            await asyncio.sleep(seconds)
            return "rested"

    assert await Sleepy().arun("0", callbacks=[Events()]) == "rested"
    assert events == ["start sleepy 0", "end rested"]


def test_without_pydantic_a_bad_call_raises_tool_validation_error_itself(monkeypatch):
    from ragline.core.tools import _schema

    monkeypatch.setattr(_schema, "_ERROR_CLASS", [None])  # as where pydantic is missing
    with pytest.raises(ToolValidationError) as info:
        Add().run({"a": "two"})
    assert type(info.value) is ToolValidationError
    assert str(info.value) == (
        "tool 'add' got invalid arguments: a: expected an integer, got 'two' (it takes: a, b)"
    )
    assert info.value.errors == [("a", "expected an integer, got 'two'")]
