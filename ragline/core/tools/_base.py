"""``BaseTool``: the tool interface. A tool is a Runnable an agent or a model can call.

A subclass writes ONE hook, ``_run(self, ...)`` (and optionally ``_arun``), with its
arguments as parameters; everything else is written here once:

- ``run(tool_input)`` / ``arun`` (seed 000 §4.2's flow): start a tool run
  (``on_tool_start``), check the input against the argument schema, call ``_run`` with
  the run's child config current, turn a :class:`ToolException` (``handle_tool_error``)
  or a failed check (``handle_validation_error``) into the observation when asked to,
  and end the run (``on_tool_end`` / ``on_tool_error``);
- ``invoke(input)`` with a string, a dict of arguments, or a ``ToolCall``
  (``{"name", "args", "id", "type": "tool_call"}``, as models return them), which returns
  a ``ToolMessage`` carrying the ``tool_call_id``; and so ``batch``, ``stream``, ``|``;
- the argument schema: ``args_schema`` (a pydantic model class, a JSON Schema dict or an
  :class:`ArgsSchema`), else read from ``_run``'s signature.

A ``_run`` that declares a ``run_manager`` parameter receives the tool run's
:class:`~ragline.core.callbacks.CallbackManagerForToolRun` (to report ``on_text``).

Example:
    >>> class WeatherTool(BaseTool):
    ...     name = "Weather"
    ...     description = "useful for When you want to know about the weather"
    ...     def _run(self, query: str) -> str:
    ...         return "Sunny^_^"
    >>> WeatherTool().run("this week")
    'Sunny^_^'
    >>> WeatherTool().invoke({"name": "Weather", "args": {"query": "x"}, "id": "c1",
    ...                       "type": "tool_call"})
    ToolMessage(content='Sunny^_^', name='Weather', tool_call_id='c1')
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any, ClassVar
from uuid import UUID

from ragline.core._checks import check_choice
from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.core.callbacks.manager import CallbackManager
from ragline.core.config import RunnableConfig, ensure_config, merge_configs, use_config
from ragline.core.exceptions import (
    InvalidInputError,
    ToolException,
    ToolValidationError,
)
from ragline.core.fields import Fields, declared_fields
from ragline.core.globals import get_debug
from ragline.core.messages import ToolMessage
from ragline.core.runnables.base import Runnable
from ragline.core.runnables.serializable import RunnableSerializable
from ragline.core.tools._schema import ArgsSchema, InjectedToolCallId, tool_validation_error

__all__ = ["BaseTool", "is_tool_call", "sync_run_manager"]

_RESPONSE_FORMATS = ("content", "content_and_artifact")


def is_tool_call(value: Any) -> bool:
    """Whether ``value`` is a ``ToolCall`` dict (``"type": "tool_call"``), as models send."""
    return isinstance(value, dict) and value.get("type") == "tool_call"


def _takes_run_manager(method: Any) -> bool:
    try:
        return "run_manager" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def config_parameter(function: Any) -> str | None:
    """The name of ``function``'s parameter annotated ``RunnableConfig`` (written as the
    class or, under postponed annotations, as its name), which a tool fills with the
    call's config and leaves out of its schema; ``None`` when it has none."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return None
    for name, parameter in parameters.items():
        annotation = parameter.annotation
        if annotation is RunnableConfig or annotation in (
            "RunnableConfig",
            "RunnableConfig | None",
        ):
            return name
    return None


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class BaseTool(Fields, Runnable[Any, Any]):
    """Base of tools: subclasses write ``_run`` (and optionally ``_arun``).

    Fields (keyword arguments; a subclass may set them as class attributes):
        name: the tool's name, unique among an agent's tools.
        description: what the tool does and when to use it (the model reads this).
        args_schema: the arguments: a pydantic model class, a JSON Schema dict or an
            ArgsSchema; ``None``: read from ``_run``'s signature.
        return_direct: an agent that calls this tool returns its output as the answer.
        verbose: print the tool's output (``StdOutCallbackHandler``) on every run.
        callbacks, tags, metadata: added to every run of this tool.
        handle_tool_error: what a :class:`ToolException` becomes: ``False`` raise it;
            ``True`` its message is the output; a string: that string; a callable: its
            result for the error.
        handle_validation_error: the same for arguments that fail the schema (``True``:
            the fixed text ``"Tool input validation error"``, as LangChain's; ``str``: the
            error's message, which names each bad argument, for a model to correct its
            call).
        response_format: ``"content"``, or ``"content_and_artifact"`` when ``_run``
            returns ``(content, artifact)``: the model sees the content, the
            ``ToolMessage`` keeps the artifact.
    """

    __ragline_extra__ = "ignore"  # a stray keyword is dropped with a warning: LangChain's drops it

    name: str
    description: str = ""
    args_schema: Any = None
    return_direct: bool = False
    verbose: bool = False
    callbacks: Any = None
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    handle_tool_error: Any = False
    handle_validation_error: Any = False
    response_format: str = "content"

    _run_takes_run_manager: ClassVar[bool] = False
    _arun_takes_run_manager: ClassVar[bool] = False
    _run_config_name: ClassVar[str | None] = None
    _arun_config_name: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Read once per class: whether the hooks want the tool run's manager.
        cls._run_takes_run_manager = _takes_run_manager(cls._run)
        cls._arun_takes_run_manager = _takes_run_manager(cls._arun)
        # and the parameter (annotated RunnableConfig) that gets the call's config, as
        # LangChain passes it; such a tool may read configurable ids of its own
        cls._run_config_name = config_parameter(cls._run)
        cls._arun_config_name = config_parameter(cls._arun)
        if cls._run_config_name or cls._arun_config_name:
            cls._takes_run_config = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInputError(f"a tool needs a non-empty str name, got {self.name!r}")
        check_choice(
            "response_format", self.response_format, _RESPONSE_FORMATS, error=InvalidInputError
        )
        self._schema_cache: tuple[Any, ArgsSchema] | None = None

    # fields ragline adds that LangChain's tool has not (left out of repr and str)
    _not_shown: ClassVar[tuple[str, ...]] = ()

    def _shown_fields(self) -> list[tuple[str, Any]]:
        """``(name, value)`` of each field whose value is not its default, in the order
        declared: what LangChain's tools (pydantic models) print."""
        shown = []
        for name, spec in declared_fields(type(self)).items():
            if name in self._not_shown or not hasattr(self, name):
                continue
            value = getattr(self, name)
            if not spec.required:
                default = spec.default if spec.default_factory is None else spec.make_default()
                if value is default or (type(value) is type(default) and value == default):
                    continue
            shown.append((name, value))
        return shown

    def __repr__(self) -> str:
        """``StructuredTool(name='multiply', description=..., args_schema=..., func=...)``:
        the fields not at their defaults, as LangChain's (``args_schema`` is ragline's
        object, so its text differs unless a pydantic class was given)."""
        fields = ", ".join(f"{name}={value!r}" for name, value in self._shown_fields())
        return f"{type(self).__name__}({fields})"

    def __str__(self) -> str:
        """The same fields as ``repr``, space-separated without the class name (pydantic's
        ``str``, what ``print(tool)`` shows in LangChain)."""
        return " ".join(f"{name}={value!r}" for name, value in self._shown_fields())

    # ---- the hooks ---------------------------------------------------------------------
    def _run(self, *args: Any, **kwargs: Any) -> Any:
        """Do the tool's work (the one hook to implement)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _run")

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        """Async ``_run`` (optional; by default ``_run`` runs in a thread of its own).

        Awaiting it can be cancelled at any moment (an agent's ``max_execution_time``
        does): the caller stops waiting at once. The thread itself cannot be killed, so a
        ``_run`` that does not return keeps running in the background until it does; it
        is a daemon thread, so neither ``asyncio.run`` nor the interpreter's exit waits for
        it (the loop's default executor would make ``asyncio.run`` wait: issue 31).
        """
        context = contextvars.copy_context()
        call = functools.partial(context.run, self._run, *args, **kwargs)
        return await _in_daemon_thread(call, name=f"ragline-tool-{self.name}")

    # ---- the schema --------------------------------------------------------------------
    def get_input_schema(self, config: RunnableConfig | None = None) -> ArgsSchema:
        """The tool's arguments as an :class:`ArgsSchema` (``args_schema``, else ``_run``'s
        signature)."""
        cached = getattr(self, "_schema_cache", None)
        if cached is not None and cached[0] is self.args_schema:
            return cached[1]
        if self.args_schema is not None:
            schema = ArgsSchema.coerce(self.args_schema, name=self.name)
        else:
            schema = self._schema_from_hook()
        self._schema_cache = (self.args_schema, schema)
        return schema

    def get_input_jsonschema(self, config: RunnableConfig | None = None) -> dict[str, Any]:
        """The arguments' JSON Schema (what :meth:`get_input_schema` describes)."""
        return self.get_input_schema(config).model_json_schema()

    def _output_title(self) -> str:  # LangChain's: <tool name>_output
        return f"{self.name}_output"

    def _schema_from_hook(self) -> ArgsSchema:
        skip = (self._run_config_name,) if self._run_config_name else ()
        return ArgsSchema.from_function(self._run, name=self.name, skip=skip)

    @property
    def tool_call_schema(self) -> ArgsSchema:
        """The schema a model is shown: the input schema's arguments under the tool's name
        and description (as LangChain's: ``model_json_schema()`` is titled with the tool's
        name, not the args model's)."""
        # a docstring cleaned as pydantic cleans a model's (LangChain's schema is a model)
        shown = self.get_input_schema().shown_to_model()  # InjectedToolArg ones: never
        return shown.titled(self.name, inspect.cleandoc(self.description))

    @property
    def args(self) -> dict[str, dict[str, Any]]:
        """The arguments' JSON Schemas, with titles (``{"a": {"title": "A", "type": ...}}``),
        without those marked InjectedToolArg (what a model is shown; a pydantic field's
        ``Field`` extras left out, as in LangChain)."""
        return self.get_input_schema().shown_to_model().args

    @property
    def is_single_input(self) -> bool:
        """Whether the tool takes exactly one argument a model fills in (what ReAct agents
        can call)."""
        return len(self.get_input_schema().without_injected().properties) == 1

    # ---- input -------------------------------------------------------------------------
    def _to_args_and_kwargs(self, tool_input: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Check ``tool_input`` and turn it into the arguments of ``_run``.

        A string goes to the tool's first argument, as LangChain's tools take it (the other
        arguments must have defaults; pass a dict for several). Where that fails the
        schema and the string is a JSON object, the object is the arguments (what a ReAct
        agent's ``Action Input`` gives; LangChain's tools refuse it). A dict is checked
        against the schema.

        A string is the model's text, so it never fills an argument marked InjectedToolArg:
        it goes to the first argument the model is shown, and such keys of its JSON object
        are dropped (the program passes injected values in a dict; missing, they fail the
        check). LangChain's tools put the string in the first argument, injected or not.

        Raises:
            ToolValidationError: the input does not fit the schema.
        """
        schema = self.get_input_schema()
        if isinstance(tool_input, str):
            names = [name for name in schema.properties if name not in schema.injected]
            if names:  # the other arguments keep their defaults (a missing one is an error)
                try:
                    first = schema.validate({names[0]: tool_input}, tool=self.name)[names[0]]
                except ToolValidationError:
                    parsed = _json_object(tool_input) if len(names) > 1 else None
                    if parsed is None:
                        raise
                    shown = {k: v for k, v in parsed.items() if k not in schema.injected}
                    return (), schema.validate(shown, tool=self.name)
                return (first,), {}
            if not schema.model and not schema.injected:
                return self._string_positional(tool_input), {}
            tool_input = {}
        if isinstance(tool_input, Mapping):
            return (), schema.validate(tool_input, tool=self.name)
        raise tool_validation_error(
            f"tool {self.name!r} takes a str, a dict of arguments or a ToolCall, got "
            f"{type(tool_input).__name__}",
            tool=self.name,
            errors=[("", f"expected a str or a dict, got {type(tool_input).__name__}")],
            args=tool_input,
        )

    def _string_positional(self, tool_input: str) -> tuple[Any, ...]:
        """The positional arguments a string becomes for a tool whose schema names no
        argument: the string itself for a ``_run(*args)``, else none."""
        return (tool_input,) if self._takes_var_positional() else ()

    def _takes_var_positional(self) -> bool:
        try:
            parameters = inspect.signature(self._run).parameters.values()
        except (TypeError, ValueError):
            return False
        return any(p.kind is p.VAR_POSITIONAL for p in parameters)

    # ---- running -----------------------------------------------------------------------
    def run(
        self,
        tool_input: Any,
        verbose: bool | None = None,
        start_color: str | None = "green",
        color: str | None = "green",
        callbacks: Any = None,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        run_id: UUID | None = None,
        config: RunnableConfig | None = None,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run the tool on ``tool_input`` (a str or a dict of arguments).

        Args:
            tool_input: the input.
            verbose: print the output (as well as when the tool's ``verbose`` is set).
            start_color, color: passed to the start / end callbacks (for printers).
            callbacks, tags, metadata, run_name, run_id, config: for this run.
            tool_call_id: answer with a ``ToolMessage`` for this tool call.
            **kwargs: passed to the callbacks (agents pass ``observation_prefix`` and
                ``llm_prefix`` for printing).

        Returns:
            What ``_run`` returned (its content, for ``content_and_artifact``), or a
            ``ToolMessage`` when ``tool_call_id`` is given.

        Raises:
            ToolValidationError: the input does not fit the schema (unless handled).
            ToolException: raised by the tool (unless handled); any other error the
                tool raises, after ``on_tool_error``.
        """
        operation = self._operation(
            tool_input, verbose, start_color, color, callbacks, tags, metadata, run_name,
            run_id, config, tool_call_id, kwargs,
        )  # fmt: skip
        return drive(operation)

    async def arun(
        self,
        tool_input: Any,
        verbose: bool | None = None,
        start_color: str | None = "green",
        color: str | None = "green",
        callbacks: Any = None,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        run_id: UUID | None = None,
        config: RunnableConfig | None = None,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Async :meth:`run`: awaits ``_arun`` (by default ``_run`` in a worker thread)."""
        operation = self._operation(
            tool_input, verbose, start_color, color, callbacks, tags, metadata, run_name,
            run_id, config, tool_call_id, kwargs,
        )  # fmt: skip
        return await adrive(operation)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run on a str, a dict of arguments, or a ToolCall (then return a ToolMessage).

        An argument marked InjectedToolCallId gets the ToolCall's id (a tool with one must
        be invoked with a ToolCall).
        """
        tool_input, tool_call_id = _unpack(input)
        return self.run(tool_input, config=config, tool_call_id=tool_call_id, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Async :meth:`invoke`."""
        tool_input, tool_call_id = _unpack(input)
        return await self.arun(tool_input, config=config, tool_call_id=tool_call_id, **kwargs)

    def _with_call_id(self, tool_input: Any, tool_call_id: str | None) -> Any:
        """``tool_input`` with the ToolCall's id under the InjectedToolCallId argument, in
        place of any value the input itself gives there (a model's tool call may name the
        argument; only the id counts).

        Raises:
            InvalidInputError: the tool has such an argument and no ``tool_call_id``.
        """
        names = [
            name
            for name, kind in self.get_input_schema().injected.items()
            if issubclass(kind, InjectedToolCallId)
        ]
        if not names:
            return tool_input
        if tool_call_id is None:
            raise InvalidInputError(
                f"tool {self.name!r} takes the tool call's id (argument {names[0]!r}, "
                "InjectedToolCallId): invoke it with a ToolCall ({'name': ..., 'args': {...}, "
                "'id': ..., 'type': 'tool_call'}), not bare arguments"
            )
        if not isinstance(tool_input, Mapping):
            return tool_input
        return {**tool_input, **dict.fromkeys(names, tool_call_id)}

    def __call__(self, tool_input: Any, callbacks: Any = None) -> Any:
        """``tool(input)``: the same as ``tool.run(input, callbacks=callbacks)``."""
        return self.run(tool_input, callbacks=callbacks)

    # ---- the run, written once for run and arun -------------------------------------------
    def _operation(
        self,
        tool_input: Any,
        verbose: bool | None,
        start_color: str | None,
        color: str | None,
        callbacks: Any,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
        run_name: str | None,
        run_id: UUID | None,
        config: RunnableConfig | None,
        tool_call_id: str | None,
        extra: dict[str, Any],
    ) -> Operation[Any]:
        config = self._run_config(config, callbacks, tags, metadata)
        manager = CallbackManager.configure(config)
        run_id = run_id or config.get("run_id")
        if (self.verbose or verbose) and not get_debug():
            # a local handler: it prints this run, not the runs below (under set_debug
            # every run prints already, as in LangChain)
            from ragline.core.callbacks.stdout import StdOutCallbackHandler

            manager.add_handler(StdOutCallbackHandler(), inherit=False)
        inputs = dict(tool_input) if isinstance(tool_input, Mapping) else None
        start = {
            # LangChain's keyword order, which a handler printing its **kwargs shows
            "run_id": run_id,
            "inputs": inputs,
            "color": start_color,
            # the run name, None without one: handlers see LangChain's name=None, and
            # the run takes the tool's name from serialized
            "name": run_name or config.get("run_name"),
            "tool_call_id": tool_call_id,
            **extra,
        }
        serialized = {"name": self.name, "description": self.description}
        input_str = tool_input if isinstance(tool_input, str) else str(tool_input)
        run = yield Effect(manager.on_tool_start, manager.aon_tool_start, serialized, input_str,
                           **start)  # fmt: skip
        content: Any = None
        artifact: Any = None
        status = "success"
        try:
            # here, not in invoke: run / arun (as an agent executor calls them with a
            # model's arguments) must not take the id from the arguments either
            args, kwargs = self._to_args_and_kwargs(self._with_call_id(tool_input, tool_call_id))
            response = yield Effect(self._call_run, self._call_arun, run, config, args, kwargs)
            content, artifact = self._split_response(response)
        except ToolValidationError as err:
            if not self.handle_validation_error:
                yield Effect(run.on_tool_error, run.aon_tool_error, err, tool_call_id=tool_call_id)
                raise
            flag = self.handle_validation_error
            content = "Tool input validation error" if flag is True else _handled(err, flag)
            status = "error"
        except ToolException as err:
            if not self.handle_tool_error:
                yield Effect(run.on_tool_error, run.aon_tool_error, err, tool_call_id=tool_call_id)
                raise
            content, status = _handled(err, self.handle_tool_error), "error"
        except (Exception, KeyboardInterrupt) as err:
            yield Effect(run.on_tool_error, run.aon_tool_error, err, tool_call_id=tool_call_id)
            raise
        output = self._format_output(content, artifact, tool_call_id, status)
        yield Effect(run.on_tool_end, run.aon_tool_end, output, color=color, name=self.name,
                     **extra)  # fmt: skip
        return output

    def _run_config(
        self,
        config: RunnableConfig | None,
        callbacks: Any,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
    ) -> RunnableConfig:
        extra: dict[str, Any] = {}
        for key, value in (("callbacks", callbacks), ("tags", tags), ("metadata", metadata)):
            if value is not None:
                extra[key] = value
        own = {"callbacks": self.callbacks, "tags": self.tags, "metadata": self.metadata}
        own = {key: value for key, value in own.items() if value is not None}
        if not extra and not own:
            return ensure_config(config)
        merged = ensure_config(merge_configs(config, own, extra))  # type: ignore[arg-type]
        if self.tags or self.metadata:
            # LangChain's tool run takes the call's tags and metadata as inheritable and
            # its own as local: the call's tags first (as given), then its own; its own
            # metadata over the call's
            given: dict[str, Any] = dict(config or {})
            ordered: list[str] = []
            for tag in [*(given.get("tags") or []), *(tags or []), *(self.tags or [])]:
                if tag not in ordered:
                    ordered.append(tag)
            merged["tags"] = ordered
            merged["metadata"] = {
                **(given.get("metadata") or {}),
                **(metadata or {}),
                **(self.metadata or {}),
            }
        return merged

    def _call_run(
        self, run: Any, config: RunnableConfig, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        if self._run_takes_run_manager:
            kwargs = {**kwargs, "run_manager": run}
        child = run.child_config(config)
        if self._run_config_name:
            kwargs = {**kwargs, self._run_config_name: child}
        with use_config(child):
            return self._run(*args, **kwargs)

    async def _call_arun(
        self, run: Any, config: RunnableConfig, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        child = run.child_config(config)
        if type(self)._arun is BaseTool._arun:  # the default: _run in a worker thread
            if self._run_takes_run_manager:
                kwargs = {**kwargs, "run_manager": sync_run_manager(run)}
            if self._run_config_name:
                kwargs = {**kwargs, self._run_config_name: child}
        else:
            if self._arun_takes_run_manager:
                kwargs = {**kwargs, "run_manager": run}
            if self._arun_config_name:
                kwargs = {**kwargs, self._arun_config_name: child}
        with use_config(child):
            return await self._arun(*args, **kwargs)

    def _split_response(self, response: Any) -> tuple[Any, Any]:
        if self.response_format != "content_and_artifact":
            return response, None
        if not isinstance(response, tuple) or len(response) != 2:
            raise InvalidInputError(
                f"tool {self.name!r} has response_format='content_and_artifact', so _run "
                f"must return a (content, artifact) tuple; it returned a "
                f"{type(response).__name__}"
            )
        return response

    def _format_output(
        self, content: Any, artifact: Any, tool_call_id: str | None, status: str
    ) -> Any:
        # a ToolMessage the tool built itself is its answer as it is (LangChain's rule for
        # its ToolOutputMixin outputs), not the text of a second message around it
        if tool_call_id is None or isinstance(content, ToolMessage):
            return content
        return ToolMessage(
            _message_content(content),
            tool_call_id=tool_call_id,
            name=self.name,
            artifact=artifact,
            status=status,  # type: ignore[arg-type]
        )


def sync_run_manager(run: Any) -> Any:
    """The sync manager of an async run (``on_text`` callable from sync code), else ``run``."""
    get_sync = getattr(run, "get_sync", None)
    return run if get_sync is None else get_sync()


def _handled(err: Exception, flag: Any) -> Any:
    """The observation a handled error becomes (see ``handle_tool_error``)."""
    if isinstance(flag, bool):
        # the error's own message: for a failed check it names each bad argument, which
        # is what a model needs to correct its call
        return (str(err.args[0]) if err.args else "") or "Tool execution error"
    if isinstance(flag, str):
        return flag
    if callable(flag):
        return flag(err)
    raise InvalidInputError(
        f"a tool's error handler must be a bool, a str or a callable, got {flag!r}"
    )


def _json_object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _unpack(input: Any) -> tuple[Any, str | None]:
    if is_tool_call(input):
        if "args" not in input or not input.get("id"):
            raise InvalidInputError(f"a ToolCall needs 'args' and an 'id', got {input!r:.80}")
        return input["args"], input["id"]
    return input, None


def _message_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(block, str) or (isinstance(block, dict) and "type" in block) for block in content
    ):
        return content
    try:
        return json.dumps(content, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(content)


async def _in_daemon_thread(call: Callable[[], Any], *, name: str) -> Any:
    """Await ``call()`` run in a new daemon thread; cancelling stops the wait only."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(error: BaseException | None, result: Any) -> None:
        if future.done():  # the waiter was cancelled (a deadline): drop the late result
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            result = call()
        except BaseException as err:  # handed to the awaiting task, as an executor would
            outcome: tuple[BaseException | None, Any] = (err, None)
        else:
            outcome = (None, result)
        # a RuntimeError: the loop closed while the tool ran, so nobody is waiting
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=work, name=name, daemon=True).start()
    return await future
