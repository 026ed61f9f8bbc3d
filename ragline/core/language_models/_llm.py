"""``BaseLLM``: text in, text out (message input rendered as a transcript); and LangChain's
``LLM``, whose subclasses implement ``_call``."""

from __future__ import annotations

import asyncio
import copy
import inspect
from abc import abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar

from ragline.core.callbacks.manager import CallbackManager, _own_run_of
from ragline.core.config import get_config_list, legacy_call_config, use_config
from ragline.core.language_models._base import BaseLanguageModel, for_handlers, stop_list
from ragline.core.language_models._caching import cache_slot
from ragline.core.language_models._legacy import _joined, _named_inputs
from ragline.core.language_models._outputs import Generation, GenerationChunk, LLMResult, RunInfo
from ragline.core.prompts import PromptValue

__all__ = ["LLM", "BaseLLM"]


def _first_parameter(function: Any) -> str | None:
    try:
        parameters = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None
    return parameters[1] if len(parameters) > 1 and parameters[0] == "self" else None


class BaseLLM(BaseLanguageModel[str]):
    """Base of text-completion models: a string in, a string out.

    Implement ``_generate(self, prompt, stop=None, **bound) -> str`` (or LangChain's
    ``_generate(self, prompts, stop=None, run_manager=None, **kwargs) -> LLMResult``
    over a list of prompts; or subclass :class:`LLM` and write ``_call``); optionally
    ``_stream`` yielding ``str`` or ``GenerationChunk`` pieces, ``_agenerate`` and
    ``_astream``. Message input is rendered as a ``Role: text`` transcript.

    A ``_stream`` that takes ``run_manager`` reports its own tokens with
    ``run_manager.on_llm_new_token`` (LangChain's contract for LLMs); otherwise the base
    class reports each piece.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> FakeListLLM(responses=["4"]).invoke("2 + 2 =")
        '4'
    """

    _cache_hit_runs = False  # a cached answer makes no run, as LangChain's LLMs
    _reports_bound_options = False  # bound options stay out of invocation_params (LangChain)
    # hooks written over a list of prompts (LangChain's BaseLLM._generate shape)
    _list_hooks: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._list_hooks = frozenset(
            hook
            for hook in ("_generate", "_agenerate")
            if _first_parameter(getattr(cls, hook)) == "prompts"
        )

    def __str__(self) -> str:
        # LangChain's printed form of an LLM: its class name in bold, then its params
        return f"\033[1m{type(self).__name__}\033[0m\nParams: {self._identifying_params}"

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "string"}

    def _model_input(self, prompt: PromptValue) -> str:
        return prompt.to_string()

    def _hook_input(self, hook: str, model_input: Any) -> Any:
        return [model_input] if hook in self._list_hooks else model_input

    def _ls_provider(self) -> str:
        name = type(self).__name__
        return (name[:-3] if name.endswith("LLM") else name).lower()

    def _start(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return manager.on_llm_start(_own_run_of(self), [model_input], **options)[0]

    async def _astart(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return await manager.aon_llm_start(_own_run_of(self), [model_input], **options)

    def _reports_own_tokens(self, hook: str) -> bool:
        return hook in self._run_manager_hooks

    def _result_of(self, raw: Any, hook: str) -> tuple[str, Generation, Any]:
        if isinstance(raw, str):
            return raw, Generation(raw), None
        if isinstance(raw, LLMResult) and raw.generations and raw.generations[0]:
            generation = raw.generations[0][0]
            return generation.text, generation, raw.llm_output
        if isinstance(raw, Generation):
            return raw.text, raw, None
        raise TypeError(
            f"{type(self).__name__}.{hook} must return a str (or an LLMResult), "
            f"got {type(raw).__name__}"
        )

    def _from_cache(self, generation: Generation) -> tuple[str, Generation]:
        return generation.text, generation

    def _check_chunk(self, chunk: Any) -> str:
        if isinstance(chunk, str):
            return chunk
        if isinstance(chunk, GenerationChunk):
            return chunk.text
        raise TypeError(
            f"{type(self).__name__}._stream must yield str (or GenerationChunk) pieces, "
            f"got {type(chunk).__name__}"
        )

    def _generation_chunk(self, chunk: Any) -> GenerationChunk:
        return GenerationChunk(chunk)

    def _finish(self, aggregate: Any) -> str:
        return aggregate or ""

    def _as_chunk(self, output: str) -> str:
        return output

    # ---- generate over a list hook: one call with every prompt, as LangChain's ----------
    def generate(  # type: ignore[override]
        self,
        inputs: Sequence[Any] | None = None,
        stop: str | Sequence[str] | None = None,
        callbacks: Any = None,
        *,
        config: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        **bound: Any,
    ) -> LLMResult:
        """Run the model on several prompts (see ``BaseLanguageModel.generate``).

        A model whose ``_generate`` takes a list of ``prompts`` (LangChain's shape) is
        called once with all of them, as LangChain calls it; each prompt still has its
        own run (every start, then every end). The other models run once per prompt.
        With a cache, as LangChain's: a cached prompt makes no run and no call, the
        others run as above; ``llm_output`` and ``run`` are theirs (``{}`` and ``None``
        when every prompt was cached).
        """
        inputs = _named_inputs("generate", inputs, bound)
        config = legacy_call_config(callbacks, tags, metadata, run_name, config=config)
        configs = [config] * len(inputs)
        stops = stop_list(stop)
        cached = self._generate_cached(inputs, configs, stops, bound)
        if cached is not None:
            return cached
        result = self._generate_together(inputs, configs, stops, bound)
        if result is None:
            if len(inputs) > 1:
                return self._generate_each(inputs, configs, stops, bound)
            return super().generate(inputs, stop, config=config, **bound)
        return result

    def batch(  # type: ignore[override]
        self,
        inputs: Sequence[Any],
        config: Any = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[str]:
        """Run the model on several inputs. A model whose ``_generate`` takes a list of
        ``prompts`` is called once with all of them (an error is then every input's, with
        ``return_exceptions``), or once per ``max_concurrency`` inputs, as LangChain's."""
        configs = get_config_list(config, len(inputs))
        size = configs[0].get("max_concurrency") if configs else None
        if size is not None and len(inputs) > size:
            outputs: list[Any] = []
            for start in range(0, len(inputs), size):
                part = [{**one, "max_concurrency": None} for one in configs[start : start + size]]
                outputs += self.batch(
                    inputs[start : start + size],
                    part,
                    return_exceptions=return_exceptions,
                    **kwargs,
                )
            return outputs
        if size is None:
            bound = dict(kwargs)
            stop = stop_list(bound.pop("stop", None))
            try:
                result = self._generate_cached(inputs, configs, stop, bound)
                if result is None:
                    result = self._generate_together(inputs, configs, stop, bound)
                if result is None and len(inputs) > 1:
                    # a per-prompt hook: every run starts, then each prompt is called
                    result = self._generate_each(inputs, configs, stop, bound)
            except Exception as err:
                if not return_exceptions:
                    raise
                return [err for _ in inputs]  # type: ignore[misc]
            if result is not None:
                return [row[0].text for row in result.generations]
        return super().batch(inputs, configs, return_exceptions=return_exceptions, **kwargs)

    def _generate_cached(
        self, inputs: Sequence[Any], configs: list[Any], stops: Any, bound: dict[str, Any]
    ) -> LLMResult | None:
        """``generate`` with a cache (None without one): the cached prompts' generations,
        the others' from one call (a list hook) or a run each."""
        slots = self._cache_slots(inputs, configs, stops, bound)
        if slots is None:
            return None
        rows: list[Any] = [slot.lookup() for slot in slots]
        missing = [index for index, row in enumerate(rows) if row is None]
        if not missing:
            return LLMResult(rows, {}, None)
        part_inputs = [inputs[index] for index in missing]
        part_configs = [configs[index] for index in missing]
        result = self._generate_together(part_inputs, part_configs, stops, bound, cached=True)
        if result is None:  # a per-prompt hook: called for each, every run started first
            result = self._generate_each(part_inputs, part_configs, stops, bound)
        for index, row in zip(missing, result.generations, strict=True):
            slots[index].update(row[0])
            rows[index] = row
        return LLMResult(rows, result.llm_output, result.run)

    def _should_stream(self, run: Any, *hooks: str, bound: dict[str, Any] | None = None) -> bool:
        # LangChain's LLMs never stream inside invoke / generate / batch, whether set to
        # (streaming=True) or under astream_events: only stream / astream call _stream
        return False

    def _generate_each(
        self, inputs: Sequence[Any], configs: list[Any], stops: Any, bound: dict[str, Any]
    ) -> LLMResult:
        """A per-prompt hook over several prompts, as LangChain's ``LLM._generate`` loops
        over ``_call``: every run starts, the hook runs for each prompt in turn, then
        every run ends (an error ends them all)."""
        begun = self._begin_each(inputs, configs, stops, bound)

        def call(runs: list[Any]) -> tuple[list[LLMResult], None]:
            results = []
            for (model_input, config, _, _), run in zip(begun, runs, strict=True):
                with use_config(run.child_config(config)):
                    options = self._hook_options("_generate", stops, run, bound)
                    raw = self._generate(model_input, **options)
                _, generation, llm_output = self._result_of(raw, "_generate")
                results.append(self._end_result(generation, llm_output, run))
            return results, None

        _, results, _ = self._over_runs(begun, call)
        return _joined(results, self._combine_llm_outputs)

    def _begin_each(
        self, inputs: Sequence[Any], configs: list[Any], stops: Any, bound: dict[str, Any]
    ) -> list[tuple[Any, Any, CallbackManager, dict[str, Any]]]:
        """Each prompt's run setup, as one of a batch of ``len(inputs)``."""
        return [
            self._begin(one, config, stops, bound, len(inputs))
            for one, config in zip(inputs, configs, strict=True)
        ]

    def _over_runs(self, begun: list[Any], call: Callable[[list[Any]], Any]) -> Any:
        """Start a run for each prompt of ``begun``, then ``call(runs)`` (each run's
        result and anything else), then end every run with its result, or every run
        with the error ``call`` raised. Returns the runs, the results and the rest."""
        runs = [
            self._start(manager, model_input, **opts) for model_input, _, manager, opts in begun
        ]
        try:
            results, rest = call(runs)
        except BaseException as err:
            for run in runs:
                run.on_llm_error(err, response=self._error_result(None))
            raise
        for run, result in zip(runs, results, strict=True):
            run.on_llm_end(for_handlers(result, run))
        return runs, results, rest

    async def _aover_runs(
        self, begun: list[Any], call: Callable[[list[Any]], Awaitable[Any]]
    ) -> Any:
        """Async :meth:`_over_runs` (``call`` a coroutine function)."""
        runs = [
            await self._astart(manager, model_input, **opts)
            for model_input, _, manager, opts in begun
        ]
        try:
            results, rest = await call(runs)
        except BaseException as err:
            for run in runs:
                await run.aon_llm_error(err, response=self._error_result(None))
            raise
        for run, result in zip(runs, results, strict=True):
            await run.aon_llm_end(for_handlers(result, run))
        return runs, results, rest

    async def _agenerate_each(
        self, inputs: Sequence[Any], configs: list[Any], stops: Any, bound: dict[str, Any]
    ) -> LLMResult:
        """Async :meth:`_generate_each` (``_agenerate`` per prompt when the model has one,
        else ``_generate`` in a worker thread), the prompts in turn, as LangChain's."""
        begun = self._begin_each(inputs, configs, stops, bound)
        own = self._overrides("_agenerate")

        async def call(runs: list[Any]) -> tuple[list[LLMResult], None]:
            results = []
            for (model_input, config, _, _), run in zip(begun, runs, strict=True):
                with use_config(run.child_config(config)):
                    if own:
                        options = self._hook_options("_agenerate", stops, run, bound)
                        raw = await self._agenerate(model_input, **options)
                    else:
                        options = self._hook_options("_generate", stops, run.get_sync(), bound)
                        raw = await asyncio.to_thread(self._generate, model_input, **options)
                hook = "_agenerate" if own else "_generate"
                _, generation, llm_output = self._result_of(raw, hook)
                results.append(self._end_result(generation, llm_output, run))
            return results, None

        _, results, _ = await self._aover_runs(begun, call)
        return _joined(results, self._combine_llm_outputs)

    def _cache_slots(
        self, inputs: Sequence[Any], configs: list[Any], stops: Any, bound: dict[str, Any]
    ) -> list[Any] | None:
        """Each prompt's cache slot; None when the model does not cache."""
        slots = []
        for one, config in zip(inputs, configs, strict=True):
            model_input, _, _, options = self._begin(one, config, stops, bound)
            slot = cache_slot(self, model_input, options["invocation_params"], bound)
            if slot is None:
                return None
            slots.append(slot)
        return slots

    async def _agenerate_cached(
        self, inputs: Sequence[Any], configs: list[Any], stops: Any, bound: dict[str, Any]
    ) -> LLMResult | None:
        """Async :meth:`_generate_cached`."""
        slots = self._cache_slots(inputs, configs, stops, bound)
        if slots is None:
            return None
        rows: list[Any] = [await slot.alookup() for slot in slots]
        missing = [index for index, row in enumerate(rows) if row is None]
        if not missing:
            return LLMResult(rows, {}, None)
        part_inputs = [inputs[index] for index in missing]
        part_configs = [configs[index] for index in missing]
        result = await self._agenerate_together(
            part_inputs, part_configs, stops, bound, cached=True
        )
        if result is None:
            result = await self._agenerate_each(part_inputs, part_configs, stops, bound)
        for index, row in zip(missing, result.generations, strict=True):
            await slots[index].aupdate(row[0])
            rows[index] = row
        return LLMResult(rows, result.llm_output, result.run)

    def _generate_together(
        self,
        inputs: Sequence[Any],
        configs: list[Any],
        stops: Any,
        bound: dict[str, Any],
        *,
        cached: bool = False,
    ) -> LLMResult | None:
        """One ``_generate`` call with every prompt, each with its own run (started with
        its own config); None when the prompts must run one by one (``cached``: the
        prompts the cache lacks, however many)."""
        begun = self._batch_begin("_generate", inputs, configs, stops, bound, cached=cached)
        if begun is None:
            return None

        def call(runs: list[Any]) -> tuple[list[LLMResult], Any]:
            with use_config(runs[0].child_config(begun[0][1])):
                options = self._hook_options("_generate", stops, runs[0], bound)
                raw = self._generate([model_input for model_input, *_ in begun], **options)
            return self._split_result(raw, runs, "_generate"), raw

        runs, _, raw = self._over_runs(begun, call)
        return LLMResult(raw.generations, raw.llm_output, [RunInfo(run.run_id) for run in runs])

    async def agenerate(  # type: ignore[override]
        self,
        inputs: Sequence[Any] | None = None,
        stop: str | Sequence[str] | None = None,
        callbacks: Any = None,
        *,
        config: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        **bound: Any,
    ) -> LLMResult:
        """Async :meth:`generate`: ``_agenerate`` (or ``_generate`` in a thread) is called
        once with every prompt when it takes a list of ``prompts``."""
        inputs = _named_inputs("agenerate", inputs, bound)
        config = legacy_call_config(callbacks, tags, metadata, run_name, config=config)
        configs = [config] * len(inputs)
        stops = stop_list(stop)
        cached = await self._agenerate_cached(inputs, configs, stops, bound)
        if cached is not None:
            return cached
        result = await self._agenerate_together(inputs, configs, stops, bound)
        if result is None:
            if len(inputs) > 1:
                return await self._agenerate_each(inputs, configs, stops, bound)
            return await super().agenerate(inputs, stop, config=config, **bound)
        return result

    async def abatch(  # type: ignore[override]
        self,
        inputs: Sequence[Any],
        config: Any = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[str]:
        """Async :meth:`batch`: ``_agenerate`` (or ``_generate`` in a thread) is called
        once with the inputs together when it takes a list of ``prompts``."""
        configs = get_config_list(config, len(inputs))
        size = configs[0].get("max_concurrency") if configs else None
        if size is not None and len(inputs) > size:
            outputs: list[Any] = []
            for start in range(0, len(inputs), size):
                part = [{**one, "max_concurrency": None} for one in configs[start : start + size]]
                outputs += await self.abatch(
                    inputs[start : start + size],
                    part,
                    return_exceptions=return_exceptions,
                    **kwargs,
                )
            return outputs
        if size is None:
            bound = dict(kwargs)
            stop = stop_list(bound.pop("stop", None))
            try:
                result = await self._agenerate_cached(inputs, configs, stop, bound)
                if result is None:
                    result = await self._agenerate_together(inputs, configs, stop, bound)
                if result is None and len(inputs) > 1:
                    result = await self._agenerate_each(inputs, configs, stop, bound)
            except Exception as err:
                if not return_exceptions:
                    raise
                return [err for _ in inputs]  # type: ignore[misc]
            if result is not None:
                return [row[0].text for row in result.generations]
        return await super().abatch(inputs, configs, return_exceptions=return_exceptions, **kwargs)

    async def _agenerate_together(
        self,
        inputs: Sequence[Any],
        configs: list[Any],
        stops: Any,
        bound: dict[str, Any],
        *,
        cached: bool = False,
    ) -> LLMResult | None:
        """Async :meth:`_generate_together` (``_agenerate`` when the model has one)."""
        hook = "_agenerate" if self._overrides("_agenerate") else "_generate"
        begun = self._batch_begin(hook, inputs, configs, stops, bound, cached=cached)
        if begun is None:
            return None
        prompts = [model_input for model_input, *_ in begun]

        async def call(runs: list[Any]) -> tuple[list[LLMResult], Any]:
            with use_config(runs[0].child_config(begun[0][1])):
                if hook == "_agenerate":
                    options = self._hook_options(hook, stops, runs[0], bound)
                    raw = await self._agenerate(prompts, **options)
                else:
                    options = self._hook_options(hook, stops, runs[0].get_sync(), bound)
                    raw = await asyncio.to_thread(self._generate, prompts, **options)
            return self._split_result(raw, runs, hook), raw

        runs, _, raw = await self._aover_runs(begun, call)
        return LLMResult(raw.generations, raw.llm_output, [RunInfo(run.run_id) for run in runs])

    def _batch_begin(
        self,
        hook: str,
        inputs: Sequence[Any],
        configs: list[Any],
        stop: Any,
        bound: dict[str, Any],
        *,
        cached: bool = False,
    ) -> list[tuple[Any, Any, CallbackManager, dict[str, Any]]] | None:
        """Each prompt's run setup, when ``hook`` takes the whole list; None to run the
        prompts one by one (a per-prompt hook, or one prompt). ``cached``: the prompts
        a cache lacks, sent together however many (LangChain's generate)."""
        if hook not in self._list_hooks or (len(inputs) < 2 and not cached):
            return None
        return self._begin_each(inputs, configs, stop, bound)

    def _split_result(self, raw: Any, runs: list[Any], hook: str) -> list[LLMResult]:
        """One run's share of a call over every prompt: its generations; the call's
        ``llm_output`` for the first run, the same keys without token usage for the rest
        (so usage is counted once), as LangChain's ``LLMResult.flatten``."""
        if not isinstance(raw, LLMResult) or len(raw.generations) != len(runs):
            rows = len(raw.generations) if isinstance(raw, LLMResult) else type(raw).__name__
            raise TypeError(
                f"{type(self).__name__}.{hook} was given {len(runs)} prompts and must return "
                f"an LLMResult with one list of generations per prompt, got {rows}"
            )
        results = []
        for index, (row, run) in enumerate(zip(raw.generations, runs, strict=True)):
            llm_output = raw.llm_output
            if index and llm_output:
                llm_output = {**copy.deepcopy(llm_output), "token_usage": {}}
            results.append(LLMResult([row], llm_output, [RunInfo(run.run_id)]))
        return results


class LLM(BaseLLM):
    """LangChain's simple LLM base: implement ``_call(prompt, stop=None, run_manager=None,
    **kwargs) -> str`` (and optionally ``_acall``, ``_stream`` yielding
    ``GenerationChunk``, ``_identifying_params``, ``_llm_type``).

    Declare options as annotated class attributes: they become keyword arguments.

    Example:
        >>> class CustomLLM(LLM):
        ...     n: int
        ...     @property
        ...     def _llm_type(self):
        ...         return "custom"
        ...     def _call(self, prompt, stop=None, run_manager=None, **kwargs):
        ...         return prompt[: self.n]
        >>> CustomLLM(n=5).invoke("instruction: summarise")
        'instr'
    """

    _call_options: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._call_options = frozenset(
            hook
            for hook in ("_call", "_acall")
            if "run_manager" in inspect.signature(getattr(cls, hook)).parameters
        )

    @abstractmethod
    def _call(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        """The completion of ``prompt``."""

    async def _acall(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        """Async ``_call`` (default: ``_call`` in a worker thread)."""
        raise NotImplementedError

    def _generate(  # type: ignore[override]
        self, prompt: Any, stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        if isinstance(prompt, list):  # LangChain's form, from a subclass's super()._generate
            return LLMResult(
                [
                    [Generation(LLM._generate(self, each, stop, run_manager, **kwargs))]
                    for each in prompt
                ]
            )
        if "_call" in self._call_options:
            kwargs["run_manager"] = run_manager
        return self._call(prompt, stop=self._users_stop("_call", stop), **kwargs)

    async def _agenerate(  # type: ignore[override]
        self, prompt: str, stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> str:
        if type(self)._acall is not LLM._acall:
            if "_acall" in self._call_options:
                kwargs["run_manager"] = run_manager
            return await self._acall(prompt, stop=self._users_stop("_acall", stop), **kwargs)
        sync = run_manager.get_sync() if run_manager is not None else None
        return await asyncio.to_thread(self._generate, prompt, stop, sync, **kwargs)
