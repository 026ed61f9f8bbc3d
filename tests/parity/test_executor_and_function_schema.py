"""Parity: ``run_in_executor`` (langchain_core.runnables.config) and
``create_schema_from_function`` (langchain_core.tools), names programs import directly
(port trial set 35: a tool subclass whose ``ainvoke`` runs ``invoke`` in a thread and
whose schema is built from its function).
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables.config import run_in_executor as lc_run_in_executor
from langchain_core.tools import StructuredTool as LCStructuredTool
from langchain_core.tools import create_schema_from_function as lc_create_schema

from ragline.core import RunnableLambda
from ragline.core.callbacks import BaseCallbackHandler
from ragline.core.config import run_in_executor
from ragline.core.exceptions import InvalidInputError
from ragline.tools import StructuredTool, create_schema_from_function

COVERS = {"core.config.run_in_executor", "tools.create_schema_from_function"}


def _tree(handler_base: type) -> tuple[Any, list[tuple[str, str | None]]]:
    """A handler recording (run name, parent run name) at each chain start."""
    names: dict[Any, str] = {}
    seen: list[tuple[str, str | None]] = []

    class Recorder(handler_base):  # type: ignore[misc, valid-type]
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            names[kwargs["run_id"]] = kwargs["name"]
            seen.append((kwargs["name"], names.get(kwargs.get("parent_run_id"))))

    return Recorder(), seen


def _nested(lambda_class: Any, executor: Any) -> Any:
    """An async lambda that runs a sync step (itself invoking a runnable) in a thread."""
    inner = lambda_class(lambda x: x * 10, name="inner")

    def blocking(x: int) -> int:
        return inner.invoke(x) + 1

    async def outer(x: int, config: Any) -> int:
        return await executor(config, blocking, x)

    return lambda_class(outer, name="outer")


def test_the_thread_runs_in_the_callers_context_so_runs_nest() -> None:
    results = []
    for lambda_class, executor, handler_base in (
        (LCRunnableLambda, lc_run_in_executor, LCBaseCallbackHandler),
        (RunnableLambda, run_in_executor, BaseCallbackHandler),
    ):
        runnable = _nested(lambda_class, executor)
        handler, seen = _tree(handler_base)
        output = asyncio.run(runnable.ainvoke(2, {"callbacks": [handler]}))
        results.append((output, seen))
    assert results[0] == results[1] == (21, [("outer", None), ("inner", "outer")])


def test_an_executor_given_runs_the_function_there() -> None:
    def where(a: int, *, b: int) -> tuple[int, str]:
        return a + b, threading.current_thread().name.split("_")[0]

    with ThreadPoolExecutor(thread_name_prefix="mine") as pool:
        theirs = asyncio.run(lc_run_in_executor(pool, where, 1, b=2))
        ours = asyncio.run(run_in_executor(pool, where, 1, b=2))
    assert ours == theirs == (3, "mine")


def test_stop_iteration_becomes_a_runtime_error() -> None:
    for executor in (lc_run_in_executor, run_in_executor):
        with pytest.raises(RuntimeError) as caught:
            asyncio.run(executor(None, next, iter([])))
        assert isinstance(caught.value.__cause__, StopIteration)
    with pytest.raises(ZeroDivisionError):
        asyncio.run(run_in_executor({}, lambda: 1 / 0))


def add(
    a: int, b: int = 2, *rest: int, label: Annotated[str, "a label"] = "x", **extra: str
) -> int:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
        label: what to call the sum
    """
    return a + b


def untyped(query, k=4, run_manager=None, callbacks=None):  # type: ignore[no-untyped-def]
    return query


def underscored(_state: int, query: str, _depth: int = 1) -> str:  # private helpers' args
    """Search with a cursor the caller keeps."""
    return query


class Methods:
    def method(self, query: str) -> str:
        return query

    @classmethod
    def build(cls, query: str) -> str:
        return query


def _built(model: Any) -> str:
    """The fields of an instance built from a call's arguments, or the error's fields."""
    try:
        return repr(model(a="3", query="q")).split("(", 1)[1]
    except ValueError as err:
        return str([e["loc"] for e in err.errors()])  # type: ignore[attr-defined]


def _quiet_schema(model: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic deprecates schema(); programs call it
        return model.schema()


@pytest.mark.parametrize(
    ("function", "options"),
    [
        (add, {}),
        (add, {"parse_docstring": True}),
        (add, {"filter_args": ["b", "extra"]}),
        (untyped, {}),
        (untyped, {"filter_args": []}),
        (untyped, {"filter_args": ["k"]}),
        (Methods.method, {}),
        (Methods.method, {"filter_args": ["query"]}),
        (Methods().method, {}),
        (Methods.build, {}),
        (underscored, {}),
    ],
)
def test_a_schema_from_a_function_is_langchains_model(function: Any, options: Any) -> None:
    theirs = lc_create_schema("Args", function, **options)
    ours = create_schema_from_function("Args", function, **options)
    assert ours.model_json_schema() == theirs.model_json_schema()
    assert _quiet_schema(ours) == _quiet_schema(theirs)
    assert (ours.__name__, ours.__doc__) == (theirs.__name__, theirs.__doc__)
    assert list(ours.model_fields) == list(theirs.model_fields)
    assert _built(ours) == _built(theirs)


def test_the_model_refuses_what_langchains_refuses() -> None:
    for make in (lc_create_schema, create_schema_from_function):
        model = make("Args", add)
        with pytest.raises(ValueError, match="valid integer"):
            model(a="three")


def test_a_parameter_named_model_config_is_refused_not_dropped() -> None:
    def configure(name: str, model_config: str = "small") -> str:
        """Pick a model."""
        return model_config

    # pydantic takes the name as the model's own config: LangChain's fails with an unrelated
    # ValueError, and a model built anyway would have no such field (the argument lost)
    with pytest.raises(ValueError, match="dictionary update sequence"):
        lc_create_schema("Args", configure)
    with pytest.raises(
        InvalidInputError,
        match="Args: a parameter named 'model_config' cannot be a field of a pydantic model",
    ):
        create_schema_from_function("Args", configure)
    kept = create_schema_from_function("Args", configure, filter_args=["model_config"])
    assert list(kept.model_fields) == ["name"]


def test_a_tool_given_the_schema_shows_and_checks_the_same_arguments() -> None:
    def get_weather(location: str, days: int = 1) -> str:
        """Get the weather."""
        return f"{location}: {days} day(s) of rain"

    theirs = LCStructuredTool(
        name="get_weather",
        description="Weather",
        func=get_weather,
        args_schema=lc_create_schema("get_weather", get_weather),
    )
    ours = StructuredTool(
        name="get_weather",
        description="Weather",
        func=get_weather,
        args_schema=create_schema_from_function("get_weather", get_weather),
    )
    assert ours.args == theirs.args
    call = {"location": "Tokyo", "days": "2"}
    assert ours.invoke(call) == theirs.invoke(call) == "Tokyo: 2 day(s) of rain"
