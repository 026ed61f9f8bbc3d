"""``BaseLLM``: text in, text out (message input rendered as a transcript); and LangChain's
``LLM``, whose subclasses implement ``_call``."""

from __future__ import annotations

import asyncio
import inspect
from abc import abstractmethod
from typing import Any, ClassVar

from ragline.core.callbacks.manager import CallbackManager
from ragline.core.language_models._base import BaseLanguageModel
from ragline.core.language_models._outputs import Generation, GenerationChunk, LLMResult
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

    # hooks written over a list of prompts (LangChain's BaseLLM._generate shape)
    _list_hooks: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._list_hooks = frozenset(
            hook
            for hook in ("_generate", "_agenerate")
            if _first_parameter(getattr(cls, hook)) == "prompts"
        )

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "string"}

    def _model_input(self, prompt: PromptValue) -> str:
        return prompt.to_string()

    def _hook_input(self, hook: str, model_input: Any) -> Any:
        return [model_input] if hook in self._list_hooks else model_input

    def _start(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return manager.on_llm_start(None, [model_input], **options)[0]

    async def _astart(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return await manager.aon_llm_start(None, [model_input], **options)

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
        self, prompt: str, stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> str:
        if "_call" in self._call_options:
            kwargs["run_manager"] = run_manager
        return self._call(prompt, stop=stop, **kwargs)

    async def _agenerate(  # type: ignore[override]
        self, prompt: str, stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> str:
        if type(self)._acall is not LLM._acall:
            if "_acall" in self._call_options:
                kwargs["run_manager"] = run_manager
            return await self._acall(prompt, stop=stop, **kwargs)
        sync = run_manager.get_sync() if run_manager is not None else None
        return await asyncio.to_thread(self._generate, prompt, stop, sync, **kwargs)
