"""The legacy Chain API: ``Chain`` and the calling forms LangChain's older chains share.

A ``Chain`` maps a dict of inputs to a dict of outputs. Subclasses declare their options
as annotated class attributes (keyword constructor, as LangChain's pydantic chains are
written) and implement ``input_keys``, ``output_keys`` and one hook,
``_call(inputs, run_manager=None)`` (optionally ``_acall``). The base runs the seed's
flow (seed 000 §2.2, 001 §3.3) once for every way of calling it:

1. ``prep_inputs``: a single value becomes ``{the one input key: value}``; the
   memory's variables are loaded and join the inputs (an input with a memory
   variable's name is an error); missing input keys are an error;
2. the chain's run starts (callbacks, tags, metadata, ``verbose``), ``_call`` runs
   with the run manager, the run ends with the outputs (missing output keys are an
   error);
3. ``prep_outputs``: the memory saves the run; the inputs and outputs are returned
   together, or the outputs only with ``return_only_outputs=True``.

Calling forms: ``chain(inputs)``, ``chain.invoke(inputs)``, ``chain.run(...)`` (the one
output's value), ``chain.apply([...])``, ``batch``, the async twins, and ``|`` (a
``Chain`` is a Runnable).

Example:
    >>> class Shout(Chain):
    ...     @property
    ...     def input_keys(self):
    ...         return ["text"]
    ...     @property
    ...     def output_keys(self):
    ...         return ["loud"]
    ...     def _call(self, inputs, run_manager=None):
    ...         return {"loud": inputs["text"].upper() + "!"}
    >>> Shout()("hello")
    {'text': 'hello', 'loud': 'HELLO!'}
    >>> Shout().run("hi")
    'HI!'
"""

from __future__ import annotations

import asyncio
import inspect
import warnings
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

from ragline.core import (
    ConfigurationError,
    Field,
    Fields,
    InvalidInputError,
    Runnable,
    RunnableConfig,
    RunnableSerializable,
    StdOutCallbackHandler,
)
from ragline.core._json_schema import field_title
from ragline.core.callbacks import CallbackManager
from ragline.core.config import legacy_call_config
from ragline.core.exceptions import ChainInputError
from ragline.core.fields import user_stacklevel
from ragline.core.globals import get_debug, get_verbose
from ragline.core.language_models._outputs import RUN_KEY, RunInfo

__all__ = [
    "RUN_KEY",
    "Chain",
    "LegacyChainAPI",
    "RunInfo",
    "callbacks_or_manager",
    "chain_verbose",
]


def chain_verbose(verbose: bool | None) -> bool:
    """A chain's ``verbose`` option: None is :func:`ragline.core.get_verbose` now."""
    return get_verbose() if verbose is None else verbose


class LegacyChainAPI:
    """The calling forms of LangChain's older chains, for any dict-to-dict Runnable here.

    A class using it provides ``invoke``, ``input_keys`` and ``output_keys``; it gets
    ``chain(inputs)``, ``run``, ``apply`` and their async twins; its own ``callbacks``,
    ``tags`` and ``metadata`` join every run it starts but not the runs inside it, and
    ``verbose=True`` prints its own run (not the runs inside it), as LangChain's do. (A
    call's ``config`` callbacks, tags and metadata reach the runs inside too.)
    """

    verbose: bool = False
    callbacks: Any = None
    callback_manager: Any = None  # LangChain's deprecated keyword; read back as None
    tags: list[str] | None = None
    _starts_without_run_type = True  # a Chain's start has no run_type keyword, as LangChain's
    _streams_after_its_run = True  # its stream is invoke's result (see RunReporting)
    metadata: dict[str, Any] | None = None

    if TYPE_CHECKING:  # what the class using the mixin provides

        @property
        def input_keys(self) -> list[str]: ...

        @property
        def output_keys(self) -> list[str]: ...

        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any: ...
        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any: ...
        def get_name(self) -> str: ...

    # ---- the chain's own callbacks, tags and metadata; verbose --------------------------
    def _set_run_options(
        self,
        name: str | None,
        verbose: bool | None,
        callbacks: Any,
        tags: Sequence[str] | None,
        metadata: Mapping[str, Any] | None,
        callback_manager: Any = None,
    ) -> None:
        """Keep the options of this chain's runs (for an ``__init__`` written by hand);
        ``callback_manager`` is taken as ``callbacks`` (:func:`callbacks_or_manager`)."""
        self.name = name
        self.verbose = chain_verbose(verbose)
        self.callbacks = callbacks_or_manager(type(self).__name__, callbacks, callback_manager)
        self.tags = list(tags) if tags else None
        self.metadata = dict(metadata) if metadata else None

    def _run_config(self, config: RunnableConfig) -> RunnableConfig:
        # the chain's own handlers, tags and metadata are for its own run only (local),
        # after the call's, as LangChain's CallbackManager.configure orders them
        if self.callbacks is None and not self.tags and not self.metadata and not self.verbose:
            return config
        manager = CallbackManager.configure(
            config,
            self.callbacks,
            local_tags=self.tags or None,
            local_metadata=self.metadata or None,
        )
        if self.verbose and not get_debug():  # a stdout handler for this chain's own run
            # only (under set_debug every run prints already, as in LangChain)
            manager.add_handler(StdOutCallbackHandler(), inherit=False)
        # the manager holds the call's tags and metadata now: read again from the config
        # they would move after the chain's own
        return {**config, "callbacks": manager, "tags": [], "metadata": {}}

    def _start_run(
        self, input: Any, config: RunnableConfig, run_type: str, streamed_input: bool = False
    ) -> Any:
        return super()._start_run(  # type: ignore[misc]
            input, self._run_config(config), run_type, streamed_input
        )

    async def _astart_run(
        self, input: Any, config: RunnableConfig, run_type: str, streamed_input: bool = False
    ) -> Any:
        return await super()._astart_run(  # type: ignore[misc]
            input, self._run_config(config), run_type, streamed_input
        )

    # ---- the calling forms -------------------------------------------------------------
    def _input_dict(self, inputs: Any) -> dict[str, Any]:
        if isinstance(inputs, Mapping):
            return dict(inputs)
        keys = self._single_value_keys()
        if len(keys) != 1:
            raise InvalidInputError(
                f"{self.get_name()} takes a dict with the keys {keys}; a single value fits "
                "only a chain with one input key"
            )
        return {keys[0]: inputs}

    def _single_value_keys(self) -> list[str]:
        return list(self.input_keys)

    def _as_outputs(self, result: Any) -> dict[str, Any]:
        if isinstance(result, Mapping):
            return dict(result)
        return {self.output_keys[0]: result}

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
        """Run on ``inputs`` (a dict, or one value for a one-input chain).

        Returns:
            The inputs and the outputs in one dict (only the outputs with
            ``return_only_outputs=True``); with ``include_run_info`` also ``RUN_KEY``.
        """
        config = legacy_call_config(callbacks, tags, metadata, run_name)
        return self._legacy_invoke(
            self._input_dict(inputs), config, return_only_outputs, include_run_info
        )

    async def acall(
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
        """Async ``chain(inputs)``."""
        config = legacy_call_config(callbacks, tags, metadata, run_name)
        return await self._alegacy_invoke(
            self._input_dict(inputs), config, return_only_outputs, include_run_info
        )

    def _legacy_invoke(
        self, inputs: dict[str, Any], config: Any, only_outputs: bool, run_info: bool
    ) -> dict[str, Any]:
        if run_info:
            raise InvalidInputError(f"{self.get_name()} does not report include_run_info")
        outputs = self._as_outputs(self.invoke(inputs, config))
        return outputs if only_outputs else {**inputs, **outputs}

    async def _alegacy_invoke(
        self, inputs: dict[str, Any], config: Any, only_outputs: bool, run_info: bool
    ) -> dict[str, Any]:
        if run_info:
            raise InvalidInputError(f"{self.get_name()} does not report include_run_info")
        outputs = self._as_outputs(await self.ainvoke(inputs, config))
        return outputs if only_outputs else {**inputs, **outputs}

    def _run_inputs(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if len(self.output_keys) != 1:
            raise InvalidInputError(
                f"run() needs a chain with exactly one output key; {self.get_name()} has "
                f"{self.output_keys}: call it with chain(inputs) or invoke() instead"
            )
        if args and not kwargs and len(args) == 1:
            return args[0]
        if kwargs and not args:
            return kwargs
        raise InvalidInputError(
            f"run() takes one positional value or keyword arguments, not both; got "
            f"{len(args)} positional and {sorted(kwargs)}"
        )

    def run(
        self,
        *args: Any,
        callbacks: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run and return the value of the one output key.

        Example: ``chain.run("question")`` or ``chain.run(question="...", context="...")``.
        """
        inputs = self._run_inputs(args, kwargs)
        outputs = self(inputs, True, callbacks, tags=tags, metadata=metadata)
        return outputs[self.output_keys[0]]

    async def arun(
        self,
        *args: Any,
        callbacks: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Async :meth:`run`."""
        inputs = self._run_inputs(args, kwargs)
        outputs = await self.acall(inputs, True, callbacks, tags=tags, metadata=metadata)
        return outputs[self.output_keys[0]]

    def apply(
        self, input_list: Sequence[dict[str, Any]], callbacks: Any = None
    ) -> list[dict[str, Any]]:
        """Run on each input in turn (a memory sees them in order)."""
        return [self(inputs, callbacks=callbacks) for inputs in input_list]

    async def aapply(
        self, input_list: Sequence[dict[str, Any]], callbacks: Any = None
    ) -> list[dict[str, Any]]:
        """Async :meth:`apply`."""
        return [await self.acall(inputs, callbacks=callbacks) for inputs in input_list]


def callbacks_or_manager(owner: str, callbacks: Any, callback_manager: Any) -> Any:
    """The callbacks of a chain given ``callback_manager=`` (LangChain's deprecated
    spelling of ``callbacks``, which older agents and ``load_qa_chain`` still pass): the
    manager, with a ``DeprecationWarning``; ``None`` is accepted silently.

    Raises:
        ConfigurationError: both were given (LangChain refuses it too).
    """
    if callback_manager is None:
        return callbacks
    if callbacks is not None:
        raise ConfigurationError(
            f"{owner}() got both callbacks= and callback_manager=; callback_manager is the "
            "deprecated name of callbacks: give one"
        )
    warnings.warn(
        f"{owner}(callback_manager=...) is deprecated: give the handlers or the manager as "
        "callbacks=",
        DeprecationWarning,
        stacklevel=user_stacklevel(),
    )
    return callback_manager


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class _CallbackManagerKeyword:
    """``Chain(callback_manager=...)``: the manager becomes the chain's ``callbacks``
    (:func:`callbacks_or_manager`). Sits before ``Fields`` in the chain's bases, so the
    generated ``__init__`` has set ``callbacks`` already."""

    callback_manager: Any = None

    def __init__(self, **kwargs: Any) -> None:
        if "callback_manager" in kwargs:
            manager = kwargs.pop("callback_manager")
            callbacks = getattr(self, "callbacks", None)
            chosen = callbacks_or_manager(type(self).__name__, callbacks, manager)
            object.__setattr__(self, "callbacks", chosen)
        super().__init__(**kwargs)


class Chain(
    LegacyChainAPI, _CallbackManagerKeyword, Fields, Runnable[dict[str, Any], dict[str, Any]]
):
    """Base of the legacy chains (see the module docstring).

    Args:
        memory: loads variables before each run and saves each run (``ragline.memory``).
        callbacks: handlers for every run of this chain (besides the config's).
        verbose: print this chain's runs (``> Entering new ... chain``); default:
            :func:`ragline.core.get_verbose` when the chain is built.
        tags, metadata: added to every run of this chain.
        name: the run name (default: the class name).
    """

    memory: Any = None
    callbacks: Any = None
    verbose: bool = Field(default_factory=get_verbose)
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    name: str | None = None

    @property
    @abstractmethod
    def input_keys(self) -> list[str]:
        """The keys ``_call`` reads."""

    @property
    @abstractmethod
    def output_keys(self) -> list[str]:
        """The keys ``_call`` returns."""

    # LangChain's Chain schemas: ChainInput / ChainOutput, one property per key (default
    # None); get_graph draws them as the chain's input and output nodes
    def _input_title(self) -> str:
        return "ChainInput"

    def _output_title(self) -> str:
        return "ChainOutput"

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return _keys_schema(self.input_keys)

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return _keys_schema(self.output_keys)

    @abstractmethod
    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        """Compute the outputs (the one hook). ``run_manager`` reports ``on_text`` and
        hands children a callback manager (``run_manager.get_child()``); anything
        invoked here is a child run anyway."""

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        """Async ``_call`` (by default ``_call`` in a worker thread, with the run manager's
        sync form)."""
        sync = run_manager.get_sync() if hasattr(run_manager, "get_sync") else run_manager
        return await asyncio.to_thread(self._call, inputs, sync)

    # ---- the flow ------------------------------------------------------------------------
    def _memory_variables(self) -> list[str]:
        return list(self.memory.memory_variables) if self.memory is not None else []

    def _single_value_keys(self) -> list[str]:
        memory_variables = set(self._memory_variables())
        return [key for key in self.input_keys if key not in memory_variables]

    def _with_memory(self, inputs: dict[str, Any], variables: dict[str, Any]) -> dict[str, Any]:
        return with_memory_variables(self, inputs, variables)

    def prep_inputs(self, inputs: Any) -> dict[str, Any]:
        """The inputs as a dict, with the memory's variables added, checked."""
        inputs = self._input_dict(inputs)
        variables = self.memory.load_memory_variables(inputs) if self.memory is not None else {}
        return self._with_memory(inputs, variables)

    async def aprep_inputs(self, inputs: Any) -> dict[str, Any]:
        """Async :meth:`prep_inputs` (the memory's async load)."""
        inputs = self._input_dict(inputs)
        variables = {}
        if self.memory is not None:
            variables = await self.memory.aload_memory_variables(inputs)
        return self._with_memory(inputs, variables)

    def _checked_outputs(self, outputs: Any) -> dict[str, Any]:
        if not isinstance(outputs, Mapping):
            raise InvalidInputError(
                f"{self.get_name()}._call must return a dict, got {type(outputs).__name__}"
            )
        missing = [key for key in self.output_keys if key not in outputs]
        if missing:
            raise InvalidInputError(
                f"{self.get_name()}._call did not return output key(s) {missing}; it returned "
                f"{sorted(outputs)}"
            )
        return dict(outputs)

    def _final(
        self, inputs: dict[str, Any], outputs: dict[str, Any], return_only_outputs: bool
    ) -> dict[str, Any]:
        return dict(outputs) if return_only_outputs else {**inputs, **outputs}

    def prep_outputs(
        self, inputs: dict[str, Any], outputs: dict[str, Any], return_only_outputs: bool = False
    ) -> dict[str, Any]:
        """Let the memory save the run; return inputs and outputs (or outputs only)."""
        outputs = self._checked_outputs(outputs)
        if self.memory is not None:
            self.memory.save_context(inputs, outputs)
        return self._final(inputs, outputs, return_only_outputs)

    async def aprep_outputs(
        self, inputs: dict[str, Any], outputs: dict[str, Any], return_only_outputs: bool = False
    ) -> dict[str, Any]:
        """Async :meth:`prep_outputs` (the memory's async save)."""
        outputs = self._checked_outputs(outputs)
        if self.memory is not None:
            await self.memory.asave_context(inputs, outputs)
        return self._final(inputs, outputs, return_only_outputs)

    def _run_call(self, runs: list[Any], inputs: dict[str, Any], run: Any) -> dict[str, Any]:
        runs.append(run)  # its id is made only if include_run_info asks for it
        call = self._call
        if _names_run_manager(getattr(call, "__func__", call)):
            return self._checked_outputs(call(inputs, run_manager=run))
        return self._checked_outputs(call(inputs))

    async def _arun_call(self, runs: list[Any], inputs: dict[str, Any], run: Any) -> dict[str, Any]:
        runs.append(run)
        call = self._acall
        if _names_run_manager(getattr(call, "__func__", call)):
            return self._checked_outputs(await call(inputs, run_manager=run))
        return self._checked_outputs(await call(inputs))

    def invoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        return_only_outputs: bool = False,
        include_run_info: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Run the chain: memory, callbacks, ``_call``, memory again (module docstring).

        Raises:
            ChainInputError: an input key is missing (a MissingVariableError printed as
                LangChain's ``ValueError``).
            InvalidInputError: an input has a memory variable's name, a single value was
                given to a chain with several inputs, or ``_call`` left out an output.
        """
        self._reject_kwargs(self._drop_config_keywords(kwargs, "invoke"))
        inputs = self.prep_inputs(input)
        runs: list[Any] = []
        outputs = self._call_with_config(
            partial(self._run_call, runs),
            inputs,
            config,
            with_run_manager=True,
        )
        final = self.prep_outputs(inputs, outputs, return_only_outputs)
        if include_run_info:
            final[RUN_KEY] = RunInfo(run_id=runs[0].run_id)
        return final

    async def ainvoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        return_only_outputs: bool = False,
        include_run_info: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Async :meth:`invoke` (``_acall``, the memory's async methods)."""
        self._reject_kwargs(self._drop_config_keywords(kwargs, "ainvoke"))
        inputs = await self.aprep_inputs(input)
        runs: list[Any] = []
        outputs = await self._acall_with_config(
            partial(self._arun_call, runs),
            inputs,
            config,
            with_run_manager=True,
        )
        final = await self.aprep_outputs(inputs, outputs, return_only_outputs)
        if include_run_info:
            final[RUN_KEY] = RunInfo(run_id=runs[0].run_id)
        return final

    def _legacy_invoke(
        self, inputs: dict[str, Any], config: Any, only_outputs: bool, run_info: bool
    ) -> dict[str, Any]:
        return self.invoke(
            inputs, config, return_only_outputs=only_outputs, include_run_info=run_info
        )

    async def _alegacy_invoke(
        self, inputs: dict[str, Any], config: Any, only_outputs: bool, run_info: bool
    ) -> dict[str, Any]:
        return await self.ainvoke(
            inputs, config, return_only_outputs=only_outputs, include_run_info=run_info
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}()" if not self.name else f"{type(self).__name__}({self.name!r})"
        )


def _keys_schema(keys: list[str]) -> dict[str, Any]:
    properties = {key: {"default": None, "title": field_title(key)} for key in keys}
    return {"properties": properties, "type": "object"}


@lru_cache(maxsize=512)
def _names_run_manager(hook: Callable[..., Any]) -> bool:
    """Whether a ``_call`` / ``_acall`` takes ``run_manager``: as in LangChain, one written
    ``_call(self, inputs)`` (older tutorials, user chains) is called with the inputs only;
    ``**kwargs`` alone does not count."""
    try:
        return "run_manager" in inspect.signature(hook).parameters
    except (TypeError, ValueError):  # no signature to read: pass it, as before
        return True


def with_memory_variables(
    chain: Any, inputs: dict[str, Any], variables: dict[str, Any]
) -> dict[str, Any]:
    """``chain``'s inputs with the variables its memory loaded, checked against its
    ``input_keys``: an input the memory also provides is replaced by the memory's value
    (RunnableWithMessageHistory around a chain with memory passes both), as LangChain's,
    with a warning when that drops a different value the caller gave.

    Raises:
        ChainInputError: an input key is neither given nor loaded (a
            MissingVariableError printed as LangChain's ``ValueError``).
    """
    replaced = sorted(
        k for k in inputs.keys() & variables.keys() if _differ(inputs[k], variables[k])
    )
    if replaced:
        warnings.warn(
            f"{chain.get_name()} got input(s) {replaced}, which its memory "
            f"({type(chain.memory).__name__}) provides too: the memory's value is used and "
            "the given one dropped, as LangChain does; rename the input or the memory's "
            "memory_key to keep both",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    merged = {**inputs, **variables}
    missing = [key for key in chain.input_keys if key not in merged]
    if missing:
        raise ChainInputError(
            f"{chain.get_name()} is missing input key(s) {missing}; got {sorted(merged)}"
        )
    return merged


def _differ(given: Any, loaded: Any) -> bool:
    """Whether a caller's input differs from the memory's value under the same key."""
    try:
        return bool(given != loaded)
    except Exception:  # a value whose comparison is not a bool (an array)
        return given is not loaded
