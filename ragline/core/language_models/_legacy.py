"""LangChain's pre-Runnable model methods: ``generate``, ``generate_prompt``, ``predict``,
``predict_messages`` and their async twins, written once on top of ``invoke``.

``generate`` runs the model once per input (one run each) and returns an ``LLMResult``
whose ``llm_output`` sums the runs' token usage; ``predict`` / ``predict_messages`` are
the old text-in-text-out and messages-in-message-out calls (LangChain deprecated them in
favour of ``invoke``; they still work here, without a warning).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragline.core.config import legacy_call_config
from ragline.core.language_models._outputs import LLMResult
from ragline.core.messages import AIMessage, BaseMessage

if TYPE_CHECKING:
    from ragline.core.prompts import PromptValue

__all__ = ["LegacyMethods", "combine_llm_outputs"]


def combine_llm_outputs(outputs: Sequence[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Several runs' ``llm_output`` as one: token counts summed, other keys from the first.

    Example:
        >>> combine_llm_outputs([{"token_usage": {"total_tokens": 3}, "model_name": "m"},
        ...                      {"token_usage": {"total_tokens": 4}}])
        {'token_usage': {'total_tokens': 7}, 'model_name': 'm'}
    """
    present = [output for output in outputs if output]
    if not present:
        return None
    combined: dict[str, Any] = {}
    usage: dict[str, Any] = {}
    for output in present:
        for key, value in output.items():
            if key == "token_usage" and isinstance(value, dict):
                for name, count in value.items():
                    if isinstance(count, (int, float)) and not isinstance(count, bool):
                        usage[name] = usage.get(name, 0) + count
                    else:
                        usage.setdefault(name, count)
            else:
                combined.setdefault(key, value)
    if usage or any("token_usage" in output for output in present):
        combined = {"token_usage": usage, **combined}
    return combined


class LegacyMethods:
    """``generate`` and friends for ``BaseLanguageModel`` (see the module docstring)."""

    if TYPE_CHECKING:

        def _invoke_with_result(
            self, input: Any, config: Any, stop: Any, bound: dict[str, Any]
        ) -> tuple[Any, LLMResult]: ...

        async def _ainvoke_with_result(
            self, input: Any, config: Any, stop: Any, bound: dict[str, Any]
        ) -> tuple[Any, LLMResult]: ...

        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any: ...

        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any: ...

    def generate(
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
        """Run the model on several inputs, one run each, and return every generation.

        Args:
            inputs: prompt strings (an LLM), message lists (a chat model), or PromptValues;
                also given by LangChain's keyword, ``messages=`` (a chat model) or
                ``prompts=`` (an LLM).
            stop: stop sequences for every input.
            callbacks: handlers added to the config's callbacks.
            config: a RunnableConfig shared by the runs.
            tags, metadata, run_name: added to each run.

        Returns:
            ``LLMResult`` with one list of generations per input, in order; ``llm_output``
            sums the runs' token usage; ``run`` names each run.

        Example:
            >>> from ragline.core import FakeListLLM
            >>> FakeListLLM(responses=["a", "b"]).generate(["x", "y"]).generations[1][0].text
            'b'
        """
        from ragline.core.language_models._base import stop_list

        inputs = _named_inputs("generate", inputs, bound)
        config = legacy_call_config(callbacks, tags, metadata, run_name, config=config)
        stops = stop_list(stop)
        results = [self._invoke_with_result(one, config, stops, bound)[1] for one in inputs]
        return _joined(results, self._combine_llm_outputs)

    async def agenerate(
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
        """Async ``generate``; the inputs run concurrently."""
        from ragline.core.language_models._base import stop_list

        inputs = _named_inputs("agenerate", inputs, bound)
        config = legacy_call_config(callbacks, tags, metadata, run_name, config=config)
        stops = stop_list(stop)
        results = await asyncio.gather(
            *(self._ainvoke_with_result(one, config, stops, bound) for one in inputs)
        )
        return _joined([result for _, result in results], self._combine_llm_outputs)

    def _combine_llm_outputs(self, llm_outputs: list[dict[str, Any] | None]) -> Any:
        """``generate``'s ``llm_output`` from its runs' (LangChain's hook of that name):
        token usage summed, other keys from the first (a chat model: ``{}``, as
        LangChain's base chat model gives; a model class may override it)."""
        return combine_llm_outputs(llm_outputs)

    def generate_prompt(
        self,
        prompts: Sequence[PromptValue],
        stop: str | Sequence[str] | None = None,
        callbacks: Any = None,
        **kwargs: Any,
    ) -> LLMResult:
        """``generate`` from PromptValues (what a prompt template's ``invoke`` returns).

        Example:
            >>> from ragline.core import FakeListLLM, PromptTemplate
            >>> prompt = PromptTemplate.from_template("Say {word}").invoke({"word": "hi"})
            >>> FakeListLLM(responses=["hi"]).generate_prompt([prompt]).generations[0][0].text
            'hi'
        """
        return self.generate(list(prompts), stop, callbacks, **kwargs)

    async def agenerate_prompt(
        self,
        prompts: Sequence[PromptValue],
        stop: str | Sequence[str] | None = None,
        callbacks: Any = None,
        **kwargs: Any,
    ) -> LLMResult:
        """Async :meth:`generate_prompt`."""
        return await self.agenerate(list(prompts), stop, callbacks, **kwargs)

    def predict(self, text: str, *, stop: Sequence[str] | None = None, **kwargs: Any) -> str:
        """Text in, text out: the model's answer to ``text`` as a string.

        Example:
            >>> from ragline.core import FakeListChatModel
            >>> FakeListChatModel(responses=["Paris"]).predict("Capital of France?")
            'Paris'
        """
        return _text(self.invoke(text, stop=stop, **kwargs))

    async def apredict(self, text: str, *, stop: Sequence[str] | None = None, **kwargs: Any) -> str:
        """Async :meth:`predict`."""
        return _text(await self.ainvoke(text, stop=stop, **kwargs))

    def predict_messages(
        self, messages: list[BaseMessage], *, stop: Sequence[str] | None = None, **kwargs: Any
    ) -> BaseMessage:
        """Messages in, a message out (an LLM reads the messages as one transcript).

        Example:
            >>> from ragline.core import FakeListLLM, HumanMessage
            >>> reply = FakeListLLM(responses=["4"]).predict_messages([HumanMessage("2+2?")])
            >>> type(reply).__name__, reply.content
            ('AIMessage', '4')
        """
        return _message(self.invoke(self._messages_input(messages), stop=stop, **kwargs))

    async def apredict_messages(
        self, messages: list[BaseMessage], *, stop: Sequence[str] | None = None, **kwargs: Any
    ) -> BaseMessage:
        """Async :meth:`predict_messages`."""
        output = await self.ainvoke(self._messages_input(messages), stop=stop, **kwargs)
        return _message(output)

    def _messages_input(self, messages: list[BaseMessage]) -> Any:
        return messages  # an LLM reads them as a "Role: text" transcript


def _text(output: Any) -> str:
    return output if isinstance(output, str) else output.text


def _message(output: Any) -> BaseMessage:
    return AIMessage(output) if isinstance(output, str) else output


def _joined(results: list[LLMResult], combine: Any) -> LLMResult:
    return LLMResult(
        [generations for result in results for generations in result.generations],
        combine([result.llm_output for result in results]),
        [info for result in results for info in result.run or []],
    )


def _named_inputs(method: str, inputs: Sequence[Any] | None, bound: dict[str, Any]) -> Any:
    """The inputs of ``generate`` / ``agenerate``, given first or by LangChain's keyword
    (``messages=`` for a chat model, ``prompts=`` for an LLM), taken out of ``bound``."""
    named = [key for key in ("messages", "prompts") if key in bound]
    if inputs is not None and named:
        raise TypeError(f"{method}() got its inputs twice: positionally and as {named[0]}=")
    if len(named) > 1:
        raise TypeError(f"{method}() got both messages= and prompts=; give one")
    if inputs is None:
        if not named:
            raise TypeError(
                f"{method}() needs its inputs: a list of prompts (an LLM) or of message "
                "lists (a chat model), first or as prompts= / messages="
            )
        inputs = bound.pop(named[0])
    return inputs
