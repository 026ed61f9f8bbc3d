"""``AgentExecutor``: the reason-act loop, written once (seed 001 §4.3's ``_call`` →
``_take_next_step`` → ``_iter_next_step`` → tool run → observation).

The loop is one generator (:meth:`AgentExecutor._loop`): it yields an effect for each
model call, tool run and callback, and emits each action, step and the final output as
they happen. Thin drivers run it: ``invoke`` / ``ainvoke`` (the output), ``stream`` /
``astream`` (chunks as they happen) and ``iter`` (one chunk per iteration), sync or
async. So every way of running an agent has the same steps, limits, errors and run tree:

- one chain run for the executor (``on_chain_start`` ... ``on_chain_end``), with
  ``on_agent_action`` before each tool run and ``on_agent_finish`` at the end reported
  on it, and every model, parser and tool run below it;
- ``max_iterations`` and ``max_execution_time`` end the loop through
  ``early_stopping_method``; async runs also cut a step that is still running when the
  time is up (as LangChain does);
- a reply that does not parse raises, or (``handle_parsing_errors``) goes back to the
  model as the observation of an ``_Exception`` step; an unknown tool name gets the
  ``invalid_tool`` observation; a ``return_direct`` tool's output is the answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any
from uuid import uuid4

from ragline.agents._agent import (
    EARLY_STOPPING_METHODS,
    BaseMultiActionAgent,
    BaseSingleActionAgent,
    Steps,
    runnable_agent,
)
from ragline.agents._tools import ExceptionTool, InvalidTool
from ragline.chains._chain import Chain
from ragline.core import (
    AddableDict,
    AgentAction,
    AgentFinish,
    AgentStep,
    BaseTool,
    InvalidInputError,
    MissingVariableError,
    OutputParserException,
    Runnable,
    RunnableConfig,
)
from ragline.core._checks import check_choice, check_optional_positive_int, check_positive_number
from ragline.core._drive import (
    DeadlineExceeded,
    Effect,
    Emit,
    Operation,
    StreamClosed,
    adrive,
    adrive_stream,
    drive,
    drive_stream,
)
from ragline.core.callbacks import CallbackManager, StdOutCallbackHandler
from ragline.core.callbacks.manager import _AGENT_RUNS
from ragline.core.callbacks.stdout import get_color_mapping
from ragline.core.config import ensure_config, legacy_call_config, merge_configs
from ragline.core.exceptions import AgentParsingError
from ragline.core.globals import get_debug
from ragline.core.language_models._outputs import RUN_KEY, RunInfo

__all__ = ["AgentExecutor", "AgentExecutorIterator"]

_INVALID_TOOL = InvalidTool()
_EXCEPTION_TOOL = ExceptionTool()


class AgentExecutor(Chain):
    """Run an agent with its tools until it answers (or a limit stops it).

    It is a ``Chain``, as in LangChain, and keeps LangChain's override points: a
    subclass that overrides ``_call`` (the whole run: call ``super()._call(inputs,
    run_manager)`` for the loop) or ``_take_next_step`` (one round: plan, then run the
    tools) has its override called by ``invoke``, ``__call__``, ``run`` and ``stream``
    (their async twins call ``_acall`` / ``_atake_next_step``, as LangChain's do).

    Fields (keyword arguments):
        agent: a Runnable (``create_react_agent``, ``create_tool_calling_agent``) or an
            agent object (``ZeroShotAgent``, a ``BaseSingleActionAgent`` subclass).
        tools: the tools it may call; names must be unique.
        return_intermediate_steps: add ``"intermediate_steps"`` (``(action,
            observation)`` pairs) to the output.
        max_iterations: at most this many plan-and-act rounds (``None``: no limit).
        max_execution_time: at most this many seconds (checked between rounds; async
            runs also interrupt the round in progress).
        early_stopping_method: what a limit returns: ``"force"`` (a fixed message) or
            ``"generate"`` (the agent answers from the steps so far).
        handle_parsing_errors: a reply that does not parse: ``False`` raises
            :class:`~ragline.core.exceptions.AgentParsingError` (a ``ValueError``); ``True``
            sends the parser's observation (or "Invalid or incomplete response") back
            to the model; a string sends that string; a callable, its result for the
            error.
        trim_intermediate_steps: keep only the last N steps in what the agent sees
            (``-1``: all), or a callable that trims them.
        verbose: print the agent's steps (``> Entering new AgentExecutor chain...``).
        callbacks: handlers of this executor's own run (as in LangChain, not of the
            model, parser and tool runs below it: pass those in the call's config).
        tags, metadata: added to every run of this executor.
        memory: a legacy memory (``load_memory_variables`` / ``save_context``).
        stream_runnable: call a Runnable agent with ``stream`` (tokens reach callbacks)
            rather than ``invoke``.

    Raises:
        InvalidInputError: tools with the same name, a tool the agent was not built
            for, or a bad option.

    Example:
        >>> from ragline.core import FakeListLLM, PromptTemplate
        >>> from ragline.agents import create_react_agent, REACT_PROMPT
        >>> from ragline.tools import tool
        >>> @tool
        ... def search(query: str) -> str:
        ...     '''Search the notes.'''
        ...     return "Etna is in Sicily."
        >>> llm = FakeListLLM(responses=[
        ...     " I should search.\\nAction: search\\nAction Input: Etna",
        ...     " I know.\\nFinal Answer: Sicily"])
        >>> agent = create_react_agent(llm, [search], REACT_PROMPT)
        >>> AgentExecutor(agent=agent, tools=[search]).invoke({"input": "Where is Etna?"})
        {'input': 'Where is Etna?', 'output': 'Sicily'}
    """

    _streams_after_its_run = False  # it streams its steps while it runs

    # a stray keyword (initialize_agent(..., agent_type=...) hands it here) is dropped with
    # a warning: LangChain's executor (a Chain with pydantic's default) drops it silently
    __ragline_extra__ = "ignore"

    agent: Any = None
    tools: Sequence[BaseTool] = ()
    return_intermediate_steps: bool = False
    max_iterations: int | None = 15
    max_execution_time: float | None = None
    early_stopping_method: str = "force"
    handle_parsing_errors: Any = False
    trim_intermediate_steps: Any = -1
    stream_runnable: bool = True

    def __post_init__(self) -> None:
        if self.agent is None:
            raise InvalidInputError("AgentExecutor needs agent=... (and tools=[...])")
        if isinstance(self.agent, Runnable):
            self.agent = runnable_agent(self.agent, stream_runnable=self.stream_runnable)
        elif not isinstance(self.agent, BaseSingleActionAgent | BaseMultiActionAgent) and not (
            hasattr(self.agent, "plan")
        ):
            raise InvalidInputError(
                f"agent must be a Runnable or an agent with plan(), got {type(self.agent).__name__}"
            )
        self.tools = list(self.tools)
        self._tools_by_name = _index_tools(self.tools)
        allowed = self.agent.get_allowed_tools()
        if allowed is not None and set(allowed) != set(self._tools_by_name):
            raise InvalidInputError(
                f"the agent was built for tools {sorted(allowed)}, but the executor was given "
                f"{sorted(self._tools_by_name)}"
            )
        check_optional_positive_int("AgentExecutor max_iterations", self.max_iterations)
        if self.max_execution_time is not None:
            check_positive_number("AgentExecutor max_execution_time", self.max_execution_time)
        check_choice("early_stopping_method", self.early_stopping_method, EARLY_STOPPING_METHODS)
        handle = self.handle_parsing_errors
        if not isinstance(handle, (bool, str)) and not callable(handle):
            raise InvalidInputError(
                f"handle_parsing_errors must be a bool, a str or a callable, got {handle!r}"
            )
        trim = self.trim_intermediate_steps
        if not callable(trim) and (isinstance(trim, bool) or not isinstance(trim, int)):
            raise InvalidInputError(
                f"trim_intermediate_steps must be an int or a callable, got {trim!r}"
            )

    @classmethod
    def from_agent_and_tools(
        cls, agent: Any, tools: Sequence[BaseTool], callbacks: Any = None, **kwargs: Any
    ) -> AgentExecutor:
        """LangChain's constructor: ``AgentExecutor(agent=agent, tools=tools, ...)``."""
        return cls(agent=agent, tools=tools, callbacks=callbacks, **kwargs)

    # ---- Chain-like shape ----------------------------------------------------------------
    @property
    def input_keys(self) -> list[str]:
        """The input keys the agent needs."""
        return list(self.agent.input_keys)

    @property
    def output_keys(self) -> list[str]:
        """The agent's return values, plus ``"intermediate_steps"`` when they are returned.

        As in LangChain, a legacy agent's are ``["output"]`` and a Runnable agent's
        (``create_react_agent``, ``create_tool_calling_agent``) none, so ``run()`` works
        only for the former; ``invoke`` gives ``"output"`` for both.
        """
        keys = list(self.agent.return_values)
        return [*keys, "intermediate_steps"] if self.return_intermediate_steps else keys

    def lookup_tool(self, name: str) -> BaseTool:
        """The tool called ``name``.

        Raises:
            KeyError: no such tool.
        """
        return self._tools_by_name[name]

    def _prep_inputs(self, input: Any) -> dict[str, Any]:
        if not isinstance(input, Mapping):
            keys = self._single_value_keys()  # the memory gives its own (chat_history)
            if len(keys) > 1:
                raise InvalidInputError(
                    f"AgentExecutor got a single {type(input).__name__} but expects the inputs "
                    f"{keys}; pass a dict"
                )
            input = {(keys[0] if keys else "input"): input}
        inputs = dict(input)
        if self.memory is not None:
            inputs.update(self.memory.load_memory_variables(inputs))
        missing = [key for key in self.input_keys if key not in inputs]
        if missing:
            raise MissingVariableError(
                f"AgentExecutor is missing input(s) {missing}; got {sorted(inputs)}"
            )
        return inputs

    # ---- the drivers -------------------------------------------------------------------
    def invoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        return_only_outputs: bool = False,
        include_run_info: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Run the agent; return the inputs and the output (``{"input": ..., "output": ...}``);
        the outputs only with ``return_only_outputs``, and ``RUN_KEY`` too with
        ``include_run_info``, as a LangChain Chain's invoke."""
        self._reject_kwargs(self._drop_config_keywords(kwargs, "invoke"))
        if return_only_outputs or include_run_info:
            return self._legacy_invoke(input, config, return_only_outputs, include_run_info)
        return drive(self._loop(input, config))

    async def ainvoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        return_only_outputs: bool = False,
        include_run_info: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Async :meth:`invoke`: tools called together run concurrently."""
        self._reject_kwargs(self._drop_config_keywords(kwargs, "ainvoke"))
        if return_only_outputs or include_run_info:
            return await self._alegacy_invoke(input, config, return_only_outputs, include_run_info)
        return await adrive(self._loop(input, config), deadline=self._deadline())

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Yield ``{"actions": [...]}``, ``{"steps": [...]}`` (each with ``"messages"``) as
        they happen, then ``{"output": ..., "messages": [...]}``."""
        self._reject_kwargs(self._drop_config_keywords(kwargs, "stream"))
        return self._chunks(self._loop(input, config, streamed=True), _stream_chunk)

    def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Async :meth:`stream`."""
        self._reject_kwargs(self._drop_config_keywords(kwargs, "astream"))
        return self._achunks(self._loop(input, config, streamed=True), _stream_chunk)

    def _chunks(
        self, loop: Operation[dict[str, Any]], convert: Callable[[Any], Any]
    ) -> Iterator[dict[str, Any]]:
        """The loop's events as chunks (``convert`` drops the events it returns None for);
        a consumer that stops early ends the executor's run."""
        events = drive_stream(loop)
        try:
            for event in events:
                chunk = convert(event)
                if chunk is not None:
                    yield chunk
        finally:
            events.close()

    async def _achunks(
        self, loop: Operation[dict[str, Any]], convert: Callable[[Any], Any]
    ) -> AsyncIterator[dict[str, Any]]:
        """Async :meth:`_chunks`."""
        events = adrive_stream(loop, deadline=self._deadline())
        try:
            async for event in events:
                chunk = convert(event)
                if chunk is not None:
                    yield chunk
        finally:
            await events.aclose()

    def iter(
        self,
        inputs: Any,
        callbacks: Any = None,
        *,
        include_run_info: bool = False,
        async_: bool = False,
    ) -> AgentExecutorIterator:
        """Step through the run: ``{"intermediate_step": [(action, observation), ...]}``
        per round, then the output (iterate with ``for`` or ``async for``)."""
        return AgentExecutorIterator(self, inputs, callbacks, include_run_info=include_run_info)

    def run(self, *args: Any, callbacks: Any = None, **kwargs: Any) -> Any:
        """LangChain's ``chain.run``: positional input or keyword inputs in, the output out.

        Raises:
            ValueError: the executor has not exactly one output key (a Runnable agent
                has none, as in LangChain: use ``invoke(...)["output"]``).
        """
        key = self._run_output_key()
        return self.invoke(_run_input(args, kwargs), {"callbacks": callbacks})[key]

    async def arun(self, *args: Any, callbacks: Any = None, **kwargs: Any) -> Any:
        """Async :meth:`run`."""
        key = self._run_output_key()
        return (await self.ainvoke(_run_input(args, kwargs), {"callbacks": callbacks}))[key]

    def _run_output_key(self) -> str:
        keys = self.output_keys
        if len(keys) != 1:
            raise InvalidInputError(
                f"run() needs exactly one output key; this AgentExecutor has {keys}: "
                'call invoke(...)["output"] instead'
            )
        return keys[0]

    def __call__(
        self,
        inputs: Any,
        return_only_outputs: bool = False,
        callbacks: Any = None,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        include_run_info: bool = False,
    ) -> dict[str, Any]:
        """LangChain's ``chain(inputs)``: the outputs, with the inputs unless
        ``return_only_outputs``; with ``include_run_info`` also ``RUN_KEY`` (the
        executor run's ``RunInfo``)."""
        config = legacy_call_config(callbacks, tags, metadata, run_name)
        return self._legacy_invoke(inputs, config, return_only_outputs, include_run_info)

    def _legacy_invoke(
        self, inputs: Any, config: Any, only_outputs: bool, run_info: bool
    ) -> dict[str, Any]:
        """What ``chain(inputs)`` and ``apply`` run (``acall`` runs the async twin).

        ``only_outputs`` gives every key of the agent's finish (a parser of one's own may
        return several, ``{"answer": ..., "sources": ...}``), as LangChain's does."""
        return drive(self._loop(inputs, config, run_info, only_outputs=only_outputs))

    async def _alegacy_invoke(
        self, inputs: Any, config: Any, only_outputs: bool, run_info: bool
    ) -> dict[str, Any]:
        loop = self._loop(inputs, config, run_info, only_outputs=only_outputs)
        return await adrive(loop, deadline=self._deadline())

    def _deadline(self) -> float | None:
        if self.max_execution_time is None:
            return None
        return time.monotonic() + self.max_execution_time

    # ---- the loop, written once ----------------------------------------------------------
    def _loop(
        self,
        input: Any,
        config: RunnableConfig | None,
        include_run_info: bool = False,
        streamed: bool = False,
        *,
        only_outputs: bool = False,
    ) -> Operation[dict[str, Any]]:
        config = self._run_config(config)
        manager = CallbackManager.configure(config)
        # The executor's own handlers are local, as LangChain scopes constructor
        # callbacks: they see this run (and its agent actions), not the runs below it.
        for handler in _handlers(self.callbacks):
            manager.add_handler(handler, inherit=False)
        if self.verbose and not get_debug():  # local: this run, not every run below it
            # (under set_debug every run prints already, as in LangChain)
            manager.add_handler(StdOutCallbackHandler(), inherit=False)
        inputs = self._prep_inputs(input)
        # stream() and iter() start the run as LangChain's iterator does: named by the
        # config's run_name only (the run keeps the class's name; handlers get name=None,
        # so verbose prints "> Entering new None chain...", as LangChain's does)
        name = config.get("run_name") if streamed else config.get("run_name") or self.get_name()
        # serialized: None when invoked, the executor's class path when streamed (as
        # LangChain's iterator passes its serialized form); the run id tells ragline's
        # tracing that this run is an agent's (span invoke_agent), whatever its name
        serialized = {"id": ["ragline", "agents", type(self).__name__]} if streamed else None
        run_id = config.get("run_id") or uuid4()
        _AGENT_RUNS.add(run_id)
        try:
            run = yield Effect(manager.on_chain_start, manager.aon_chain_start, serialized,
                               inputs, name=name, run_id=run_id)  # fmt: skip
        finally:
            _AGENT_RUNS.discard(run_id)
        try:
            if self._overrides("_call") or self._overrides("_acall"):
                outputs = dict((yield Effect(self._call, self._acall, inputs, run_manager=run)))
                finish = AgentFinish(outputs, "")
            else:
                outputs, finish = yield from self._body(inputs, run)
            if self.memory is not None:
                self.memory.save_context(inputs, outputs)
        except StreamClosed:  # the consumer stopped reading: end the run here
            yield Effect(run.on_chain_end, run.aon_chain_end, None)
            return {}
        except BaseException as err:
            yield Effect(run.on_chain_error, run.aon_chain_error, err)
            raise
        yield Effect(run.on_chain_end, run.aon_chain_end, outputs)
        if include_run_info:  # the caller's, not the run's end's: as LangChain adds it
            outputs = {**outputs, RUN_KEY: RunInfo(run.run_id)}
        # the output chunk comes after the run's end, as LangChain's iterator yields it
        try:
            yield Emit(("finish", outputs, finish))
        except StreamClosed:
            return {}
        return dict(outputs) if only_outputs else {**inputs, **outputs}

    def _overrides(self, method: str) -> bool:
        return getattr(type(self), method) is not getattr(AgentExecutor, method)

    def _body(self, inputs: dict[str, Any], run: Any) -> Operation[tuple[dict[str, Any], Any]]:
        """The run inside the executor's chain run: the rounds, then the answer."""
        finish, steps = yield from self._rounds(inputs, run)
        yield Effect(run.on_agent_finish, run.aon_agent_finish, finish, color="green",
                     verbose=self.verbose)  # fmt: skip
        outputs = dict(finish.return_values)
        if self.return_intermediate_steps:
            outputs["intermediate_steps"] = steps
        return outputs, finish

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        """The agent loop inside a started run (LangChain's ``Chain._call``): override it
        to wrap the whole run, calling ``super()._call(inputs, run_manager)``."""
        return drive(self._body(inputs, _run_manager(run_manager)))[0]

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        """Async :meth:`_call`."""
        return (await adrive(self._body(inputs, _run_manager(run_manager))))[0]

    def _take_next_step(
        self,
        name_to_tool_map: dict[str, BaseTool],
        color_mapping: dict[str, str],
        inputs: dict[str, Any],
        intermediate_steps: Steps,
        run_manager: Any = None,
    ) -> AgentFinish | list[tuple[AgentAction, Any]]:
        """One round (LangChain's hook): plan, then run the chosen tools. Returns the
        finish, or the round's ``(action, observation)`` pairs. ``name_to_tool_map`` and
        ``color_mapping`` are passed for overrides' use; the executor's tools are used."""
        return drive(self._step(inputs, intermediate_steps, _run_manager(run_manager)))

    async def _atake_next_step(
        self,
        name_to_tool_map: dict[str, BaseTool],
        color_mapping: dict[str, str],
        inputs: dict[str, Any],
        intermediate_steps: Steps,
        run_manager: Any = None,
    ) -> AgentFinish | list[tuple[AgentAction, Any]]:
        """Async :meth:`_take_next_step`."""
        return await adrive(self._step(inputs, intermediate_steps, _run_manager(run_manager)))

    def _rounds(self, inputs: dict[str, Any], run: Any) -> Operation[tuple[AgentFinish, Steps]]:
        """Plan and act until the agent finishes or a limit is reached."""
        steps: Steps = []
        iterations, started = 0, time.monotonic()
        custom = self._overrides("_take_next_step") or self._overrides("_atake_next_step")
        colors = self._tool_colors()
        try:
            while self._should_continue(iterations, time.monotonic() - started):
                if custom:
                    result = yield Effect(self._take_next_step, self._atake_next_step,
                                          self._tools_by_name, colors, inputs, list(steps),
                                          run_manager=run)  # fmt: skip
                else:
                    result = yield from self._step(inputs, steps, run)
                if isinstance(result, AgentFinish):
                    return result, steps
                new = [(action, observation) for action, observation in result]
                steps.extend(new)
                if len(new) == 1 and (direct := self._tool_return(*new[0])) is not None:
                    return direct, steps
                yield Emit(("round", new))
                iterations += 1
        except DeadlineExceeded:  # async only: the time ran out during a round
            pass
        agent = self.agent
        finish = yield Effect(agent.return_stopped_response, agent.areturn_stopped_response,
                              self.early_stopping_method, steps, callbacks=run.get_child(),
                              **inputs)  # fmt: skip
        return finish, steps

    def _step(
        self, inputs: dict[str, Any], steps: Steps, run: Any
    ) -> Operation[AgentFinish | list[tuple[AgentAction, Any]]]:
        """One round, written once: the plan, then every chosen tool."""
        agent = self.agent
        try:
            output = yield Effect(agent.plan, agent.aplan, self._trimmed(steps),
                                  callbacks=run.get_child(), **inputs)  # fmt: skip
        except OutputParserException as err:
            actions = [self._parsing_error_action(err)]
            tools = [_EXCEPTION_TOOL]
            tool_inputs = [actions[0].tool_input]
        else:
            if isinstance(output, AgentFinish):
                return output
            actions = _as_actions(output)
            for action in actions:
                yield Emit(("action", action))
            tools = [self._tools_by_name.get(a.tool, _INVALID_TOOL) for a in actions]
            pairs = zip(actions, tools, strict=True)
            tool_inputs = [self._tool_input(action, tool) for action, tool in pairs]
        observations = yield Effect(self._act, self._aact, run, actions, tools, tool_inputs,
                                    agent.tool_run_logging_kwargs())  # fmt: skip
        new = list(zip(actions, observations, strict=True))
        for action, observation in new:
            yield Emit(("step", AgentStep(action=action, observation=observation)))
        return new

    def _should_continue(self, iterations: int, elapsed: float) -> bool:
        if self.max_iterations is not None and iterations >= self.max_iterations:
            return False
        return self.max_execution_time is None or elapsed < self.max_execution_time

    def _trimmed(self, steps: Steps) -> Steps:
        trim = self.trim_intermediate_steps
        if callable(trim):
            return list(trim(list(steps)))
        return steps[-trim:] if trim > 0 else list(steps)

    def _parsing_error_action(self, err: OutputParserException) -> AgentAction:
        handle = self.handle_parsing_errors
        if handle is False:
            raise AgentParsingError(
                f"The agent's reply could not be parsed: {err}\nTo send the error back to "
                "the agent and let it try again, give the AgentExecutor "
                "handle_parsing_errors=True (or a message, or a function of the error)."
            ) from err
        text = str(err)
        if handle is True:
            if err.send_to_llm:
                observation, text = str(err.observation), str(err.llm_output)
            else:
                observation = "Invalid or incomplete response"
        elif isinstance(handle, str):
            observation = handle
        else:
            observation = handle(err)
        return AgentAction("_Exception", observation, text)

    def _tool_input(self, action: AgentAction, tool: BaseTool) -> Any:
        if tool is _INVALID_TOOL:
            return {
                "requested_tool_name": action.tool,
                "available_tool_names": list(self._tools_by_name),
            }
        return action.tool_input

    def _tool_return(self, action: AgentAction, observation: Any) -> AgentFinish | None:
        tool = self._tools_by_name.get(action.tool)
        if tool is None or not tool.return_direct:
            return None
        key = (list(self.agent.return_values) or ["output"])[0]
        return AgentFinish({key: observation}, "")

    # ---- one round's actions, sync (in order) and async (together) -----------------------
    def _tool_colors(self) -> dict[str, str]:
        """Each tool's observation prints in its own colour (``verbose``), in turn; green
        and red are the agent's own."""
        return get_color_mapping(list(self._tools_by_name), excluded_colors=["green", "red"])

    def _tool_options(
        self, run: Any, action: AgentAction, tool: BaseTool, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """How the executor runs a tool: printing options, the executor run as parent, and
        the model's tool call id (of a tool-calling agent's action) as the tool run's own
        metadata ``tool_call_id`` (not inherited by runs inside the tool)."""
        options = dict(kwargs)
        if tool.return_direct:
            options["llm_prefix"] = ""
        callbacks = run.get_child()
        call_id = getattr(action, "tool_call_id", None)
        if call_id:
            callbacks.add_metadata({"tool_call_id": call_id}, inherit=False)
        color = None if tool is _INVALID_TOOL else self._tool_colors().get(tool.name)
        options.update(verbose=self.verbose, color=color, callbacks=callbacks)
        return options

    def _act(
        self,
        run: Any,
        actions: list[AgentAction],
        tools: list[BaseTool],
        tool_inputs: list[Any],
        kwargs: dict[str, Any],
    ) -> list[Any]:
        observations = []
        for action, tool, tool_input in zip(actions, tools, tool_inputs, strict=True):
            run.on_agent_action(action, color="green")
            options = self._tool_options(run, action, tool, kwargs)
            observations.append(tool.run(tool_input, **options))
        return observations

    async def _aact(
        self,
        run: Any,
        actions: list[AgentAction],
        tools: list[BaseTool],
        tool_inputs: list[Any],
        kwargs: dict[str, Any],
    ) -> list[Any]:
        async def one(action: AgentAction, tool: BaseTool, tool_input: Any) -> Any:
            await run.aon_agent_action(action, color="green")
            return await tool.arun(tool_input, **self._tool_options(run, action, tool, kwargs))

        if len(actions) == 1:
            return [await one(actions[0], tools[0], tool_inputs[0])]
        calls = zip(actions, tools, tool_inputs, strict=True)
        tasks = [asyncio.ensure_future(one(*call)) for call in calls]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:  # one failed (or we were cancelled): stop the others
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    def _run_config(self, config: RunnableConfig | None) -> RunnableConfig:
        own = {"tags": self.tags, "metadata": self.metadata}
        own = {key: value for key, value in own.items() if value is not None}
        if not own:
            return ensure_config(config)
        return ensure_config(merge_configs(own, config))  # type: ignore[arg-type]


def _index_tools(tools: list[BaseTool]) -> dict[str, BaseTool]:
    by_name: dict[str, BaseTool] = {}
    for position, tool in enumerate(tools):
        if not isinstance(tool, BaseTool):
            raise InvalidInputError(
                f"tools[{position}] must be a tool (BaseTool, @tool, StructuredTool), got "
                f"{type(tool).__name__}"
            )
        if tool.name in by_name:
            raise InvalidInputError(
                f"two tools are named {tool.name!r}; an agent tells tools apart by name, so "
                "give each a unique name"
            )
        by_name[tool.name] = tool
    return by_name


def _run_manager(run_manager: Any) -> Any:
    """The run manager an override passed on, or (called directly, with none) a run
    manager that reports to no one."""
    if run_manager is not None:
        return run_manager
    return CallbackManager.configure({}).on_chain_start(None, {}, name="AgentExecutor")


def _handlers(callbacks: Any) -> list[Any]:
    """The handlers of a constructor's ``callbacks``: a list, or a callback manager."""
    if callbacks is None:
        return []
    if hasattr(callbacks, "handlers"):
        return list(callbacks.handlers)
    return list(callbacks)


def _as_actions(output: Any) -> list[AgentAction]:
    actions = [output] if isinstance(output, AgentAction) else output
    if not isinstance(actions, list) or not all(isinstance(a, AgentAction) for a in actions):
        raise InvalidInputError(
            f"an agent must return an AgentAction, a list of them or an AgentFinish, got "
            f"{output!r:.100}"
        )
    return actions


def _run_input(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if args and kwargs:
        raise InvalidInputError("run() takes one positional input or keyword inputs, not both")
    if len(args) > 1:
        raise InvalidInputError(f"run() takes one positional input, got {len(args)}")
    return args[0] if args else kwargs


def _stream_chunk(event: Any) -> AddableDict | None:
    # AddableDicts, as LangChain's: a RunnableLambda after the executor in a chain gets
    # the chunks added together, so "messages" (and "actions", "steps") join
    kind = event[0]
    if kind == "action":
        return AddableDict(actions=[event[1]], messages=event[1].messages)
    if kind == "step":
        return AddableDict(steps=[event[1]], messages=event[1].messages)
    if kind == "finish":
        return AddableDict({**event[1], "messages": event[2].messages})
    return None


class AgentExecutorIterator:
    """What ``AgentExecutor.iter`` returns: iterate (``for`` or ``async for``) to get one
    ``{"intermediate_step": [(action, observation), ...]}`` per round, then the output
    ``{"output": ..., "messages": [...]}``. Stopping early ends the executor's run."""

    def __init__(
        self,
        agent_executor: AgentExecutor,
        inputs: Any,
        callbacks: Any = None,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        include_run_info: bool = False,
    ) -> None:
        self.agent_executor = agent_executor
        self.inputs = inputs
        config: dict[str, Any] = {"callbacks": callbacks, "tags": tags, "metadata": metadata}
        if run_name:
            config["run_name"] = run_name
        self.config: RunnableConfig = {k: v for k, v in config.items() if v is not None}  # type: ignore[assignment]
        self.include_run_info = include_run_info

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self.agent_executor._chunks(self._loop(), _round_chunk)

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self.agent_executor._achunks(self._loop(), _round_chunk)

    def _loop(self) -> Operation[dict[str, Any]]:
        return self.agent_executor._loop(
            self.inputs, self.config, self.include_run_info, streamed=True
        )


def _round_chunk(event: Any) -> dict[str, Any] | None:
    if event[0] == "round":
        return {"intermediate_step": event[1]}
    if event[0] == "finish":
        return {**event[1], "messages": event[2].messages}
    return None
