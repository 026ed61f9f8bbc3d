"""RunnableEach: apply a runnable to every element of a list input (``runnable.map()``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragline.core._json_schema import _is_pydantic
from ragline.core.config import RunnableConfig
from ragline.core.exceptions import InvalidInputError
from ragline.core.runnables._printing import printed_fields
from ragline.core.runnables.base import Input, Output, Runnable
from ragline.core.runnables.schema import FieldDefs, pydantic_sorted
from ragline.core.runnables.serializable import RunnableSerializable

if TYPE_CHECKING:
    from ragline.core.runnables.graph import Graph

__all__ = ["RunnableEach", "RunnableEachBase"]


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableEachBase(Runnable[list[Input], list[Output]]):
    """Run ``bound`` on each element of a list, concurrently (its ``batch``/``abatch``).

    LangChain's base name for subclasses; :class:`RunnableEach` is the one ``map()`` builds.

    Each element is a child run of the ``RunnableEach`` run; ``max_concurrency``
    applies. The bound runnable's batch fast path (a retriever's batch search) is kept.

    Raises:
        InvalidInputError: the input is not a list or tuple.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> RunnableLambda(lambda x: x * 2).map().invoke([1, 2, 3])
        [2, 4, 6]
    """

    def __init__(self, bound: Runnable[Input, Output], *, name: str | None = None) -> None:
        self.bound = bound
        self.name = name

    def get_name(self) -> str:
        """``RunnableEach<bound name>`` unless a name was set."""
        return self.name or f"RunnableEach<{self.bound.get_name()}>"

    def __repr__(self) -> str:  # LangChain's (pydantic's): the name when given, then bound
        return f"{type(self).__name__}({printed_fields(self.name, ', ', bound=self.bound)})"

    def __str__(self) -> str:
        return printed_fields(self.name, bound=self.bound)

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        item = self.bound._input_json(defs)
        if isinstance(defs, FieldDefs):  # a field's type (a parallel's branch): inline
            return {"type": "array", "items": _model_ref(item, self.bound.InputType, defs)}
        item = _item_ref(item, self.bound._input_title(), defs)
        # LangChain's: a list of the bound input's model (a $defs entry), default None
        return {"type": "array", "items": item, "default": None}

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        item = self.bound._output_json(defs)
        if isinstance(defs, FieldDefs):
            return {"type": "array", "items": _model_ref(item, self.bound.OutputType, defs)}
        item = _item_ref(item, self.bound._output_title(), defs)
        return {"type": "array", "items": item}

    def _children(self) -> list[Runnable[Any, Any]]:
        return [self.bound]

    def _items(self, input: Any) -> list[Any]:
        if not isinstance(input, (list, tuple)):
            raise InvalidInputError(
                f"{self.get_name()} needs a list input, got {type(input).__name__}: {input!r:.80}"
            )
        return list(input)

    def invoke(
        self, input: list[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Output]:
        """Return ``[bound.invoke(item) for item in input]``, computed concurrently."""
        return self._call_with_config(
            lambda items: self.bound.batch(self._items(items), **kwargs), input, config
        )

    async def ainvoke(
        self, input: list[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Output]:
        """Async ``invoke`` through ``bound.abatch``."""

        async def run(items: Any) -> list[Output]:
            return await self.bound.abatch(self._items(items), **kwargs)

        return await self._acall_with_config(run, input, config)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The bound runnable's graph."""
        return self.bound.get_graph(config)


class RunnableEach(RunnableEachBase[Input, Output]):
    """Apply a runnable to every element of a list input (what ``runnable.map()`` returns).

    Example:
        >>> from ragline.core import RunnableLambda
        >>> RunnableEach(bound=RunnableLambda(str)).invoke([1, 2])
        ['1', '2']
    """

    # As LangChain's: binding options, config or listeners to a RunnableEach binds them to
    # the runnable it applies, so each element's run gets them (its name, tags, metadata;
    # a listener per element), not one run around the whole list.

    def bind(self, **kwargs: Any) -> RunnableEach[Input, Output]:  # type: ignore[override]
        """A ``RunnableEach`` of ``bound.bind(**kwargs)``."""
        return RunnableEach(bound=self.bound.bind(**kwargs))

    def with_config(  # type: ignore[override]
        self, config: RunnableConfig | None = None, **options: Any
    ) -> RunnableEach[Input, Output]:
        """A ``RunnableEach`` of ``bound.with_config(...)``: each element's run has it."""
        return RunnableEach(bound=self.bound.with_config(config, **options))

    def with_listeners(  # type: ignore[override]
        self,
        *,
        on_start: Callable[[Any], Any] | None = None,
        on_end: Callable[[Any], Any] | None = None,
        on_error: Callable[[Any], Any] | None = None,
    ) -> RunnableEach[Input, Output]:
        """A ``RunnableEach`` of ``bound.with_listeners(...)``: the listeners see each
        element's run."""
        listened = self.bound.with_listeners(on_start=on_start, on_end=on_end, on_error=on_error)
        return RunnableEach(bound=listened)

    def with_alisteners(  # type: ignore[override]
        self,
        *,
        on_start: Callable[..., Any] | None = None,
        on_end: Callable[..., Any] | None = None,
        on_error: Callable[..., Any] | None = None,
    ) -> RunnableEach[Input, Output]:
        """A ``RunnableEach`` of ``bound.with_alisteners(...)``: the coroutine listeners
        see each element's run."""
        listened = self.bound.with_alisteners(on_start=on_start, on_end=on_end, on_error=on_error)
        return RunnableEach(bound=listened)


def _item_ref(schema: dict[str, Any], title: str, defs: dict[str, Any]) -> dict[str, Any]:
    """The item schema as LangChain's RunnableEach writes it: the bound runnable's titled
    schema under ``$defs``, referenced (a schema that is already a reference stays)."""
    if set(schema) == {"$ref"}:
        return schema
    title = schema.get("title") or title
    key = _DEF_KEY_CHARS.sub("_", title).replace(".", "__")  # pydantic's key for a title
    defs[key] = pydantic_sorted({**schema, "title": title})
    return {"$ref": f"#/$defs/{key}"}


# characters pydantic replaces by "_" in a $defs key ("RunnableEach<f>Input" is keyed
# "RunnableEach_f_Input"); it then writes each "." as "__"
_DEF_KEY_CHARS = re.compile(r"[^a-zA-Z0-9._-]")


def _model_ref(schema: dict[str, Any], type_: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """An item schema written inline, but a pydantic model's (the bound runnable's type
    is a model class) under ``$defs``, referenced, as pydantic writes ``list[Model]``."""
    if _is_pydantic(type_) and "title" in schema:
        return _item_ref(schema, schema["title"], defs)
    return schema
