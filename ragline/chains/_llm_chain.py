"""LLMChain: format a prompt from the inputs, call a model, return its text.

Seed 004's example runs unchanged (``llm_chain("今天的天气真不错")["text"]``): the
chain's input keys are the prompt's variables, its one output is ``output_key``
(``"text"``), optionally parsed by ``output_parser``. ``verbose=True`` prints each
formatted prompt. The model may be any ragline language model or any Runnable that
takes a prompt value (``prompt | llm`` would do the same; this is the older shape).

Example:
    >>> from ragline.core import FakeListLLM, PromptTemplate
    >>> chain = LLMChain(llm=FakeListLLM(responses=["Paris"]),
    ...                  prompt=PromptTemplate.from_template("Capital of {country}?"))
    >>> chain.invoke({"country": "France"})
    {'country': 'France', 'text': 'Paris'}
    >>> chain.predict(country="France")
    'Paris'
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from ragline.chains._chain import Chain
from ragline.core import (
    AIMessage,
    BaseMessage,
    BasePromptTemplate,
    ChatGeneration,
    Generation,
    InvalidInputError,
    LLMResult,
    PromptTemplate,
    PromptValue,
)
from ragline.core.callbacks.stdout import get_colored_text
from ragline.core.config import legacy_call_config
from ragline.core.runnables.base import adopt_runnable

__all__ = ["LLMChain"]

_PROMPT_TEXT = "Prompt after formatting:\n"
_PREDICT_AND_PARSE_WARNING = (
    "predict_and_parse is deprecated: give the parser to the chain (LLMChain(..., "
    "output_parser=parser)) and call predict"
)
_APPLY_AND_PARSE_WARNING = (
    "apply_and_parse is deprecated: give the parser to the chain (LLMChain(..., "
    "output_parser=parser)) and call apply"
)


def _prompt_text(prompt: PromptValue) -> str:
    """What ``verbose`` prints for a formatted prompt: a heading, the prompt in green."""
    return _PROMPT_TEXT + get_colored_text(prompt.to_string(), "green")


class LLMChain(Chain):
    """Prompt, then model, then (optionally) an output parser.

    Args:
        prompt: formats the inputs (its variables are the chain's input keys).
        llm: the model (a chat model, an LLM, or a Runnable taking a prompt value).
        output_key: the output key of the text.
        output_parser: parses each input's generations (``parse_result``, as
            LangChain's chain; ``parse(text)`` for a parser without it); None keeps the
            text.
        return_final_only: False adds ``"full_generation"`` (the generations).
        llm_kwargs: options passed to every model call (``{"stop": [...]}`` ...).
        memory, callbacks, verbose, tags, metadata: as for every ``Chain``.

    Raises:
        InvalidInputError: ``prompt`` is not a prompt template or ``llm`` not a Runnable.
    """

    prompt: BasePromptTemplate
    llm: Any
    output_key: str = "text"
    output_parser: Any = None
    return_final_only: bool = True
    llm_kwargs: dict[str, Any] = {}  # noqa: RUF012 - a field: copied per instance

    def __post_init__(self) -> None:
        if not isinstance(self.prompt, BasePromptTemplate):
            self.prompt = _from_langchain_prompt(self.prompt)
        llm = adopt_runnable(self.llm)  # another library's model too (interop registers)
        if llm is None:
            raise InvalidInputError(
                f"LLMChain.llm must be a model (a Runnable), got {type(self.llm).__name__}"
            )
        self.llm = llm

    @property
    def input_keys(self) -> list[str]:
        return list(self.prompt.input_variables)

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key] if self.return_final_only else [self.output_key, "full_generation"]

    def get_name(self) -> str:
        return self.name or "LLMChain"

    # ---- prompts and generations -----------------------------------------------------
    def _format_prompts(
        self, input_list: Sequence[dict[str, Any]]
    ) -> tuple[list[PromptValue], list[str] | None]:
        stop = input_list[0].get("stop") if input_list else None
        prompts = [
            self.prompt.format_prompt(
                **{k: inputs[k] for k in self.prompt.input_variables if k in inputs}
            )
            for inputs in input_list
        ]
        return prompts, stop

    def prep_prompts(
        self, input_list: Sequence[dict[str, Any]], run_manager: Any = None
    ) -> tuple[list[PromptValue], list[str] | None]:
        """One formatted prompt per input, and the ``stop`` of the first input (if any);
        each prompt is reported to the run's handlers (``verbose`` prints it)."""
        prompts, stop = self._format_prompts(input_list)
        if run_manager is not None and run_manager.handlers:
            for prompt in prompts:
                run_manager.on_text(_prompt_text(prompt), end="\n", verbose=self.verbose)
        return prompts, stop

    async def aprep_prompts(
        self, input_list: Sequence[dict[str, Any]], run_manager: Any = None
    ) -> tuple[list[PromptValue], list[str] | None]:
        """Async :meth:`prep_prompts`."""
        prompts, stop = self._format_prompts(input_list)
        if run_manager is not None and run_manager.handlers:
            for prompt in prompts:
                await run_manager.aon_text(_prompt_text(prompt), end="\n", verbose=self.verbose)
        return prompts, stop

    def _options(self, stop: list[str] | None) -> dict[str, Any]:
        return {**self.llm_kwargs, **({"stop": stop} if stop is not None else {})}

    def generate(self, input_list: Sequence[dict[str, Any]], run_manager: Any = None) -> LLMResult:
        """Call the model once per input; its generations, in order."""
        prompts, stop = self.prep_prompts(input_list, run_manager)
        options = self._options(stop)
        # the class's method: a binding hands generate_prompt on to its model, which
        # would drop the binding's options and config (its invoke applies them)
        if hasattr(type(self.llm), "generate_prompt"):
            return self.llm.generate_prompt(prompts, **options)  # type: ignore[no-any-return]
        return _as_result([self.llm.invoke(prompt, **options) for prompt in prompts])

    async def agenerate(
        self, input_list: Sequence[dict[str, Any]], run_manager: Any = None
    ) -> LLMResult:
        """Async :meth:`generate`."""
        prompts, stop = await self.aprep_prompts(input_list, run_manager)
        options = self._options(stop)
        if hasattr(type(self.llm), "agenerate_prompt"):
            return await self.llm.agenerate_prompt(prompts, **options)  # type: ignore[no-any-return]
        return _as_result([await self.llm.ainvoke(prompt, **options) for prompt in prompts])

    def create_outputs(self, llm_result: LLMResult) -> list[dict[str, Any]]:
        """The chain outputs of each input's generations."""
        outputs = []
        for generations in llm_result.generations:
            value = self._parsed(generations)
            output: dict[str, Any] = {self.output_key: value}
            if not self.return_final_only:
                output["full_generation"] = generations
            outputs.append(output)
        return outputs

    def _parsed(self, generations: list[Any]) -> Any:
        # as LangChain's: the parser's parse_result reads the generations (a JSON parser
        # subclass's own parse() is not used there); a parser without it, its parse()
        parser = self.output_parser
        if parser is None:
            return generations[0].text
        if hasattr(parser, "parse_result"):
            return parser.parse_result(generations)
        return parser.parse(generations[0].text)

    # ---- Chain -----------------------------------------------------------------------
    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        return self.create_outputs(self.generate([inputs], run_manager))[0]

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        return self.create_outputs(await self.agenerate([inputs], run_manager))[0]

    def predict(self, callbacks: Any = None, **kwargs: Any) -> Any:
        """Run with keyword inputs and return the text (``chain.predict(country="x")``)."""
        return self(kwargs, callbacks=callbacks)[self.output_key]

    async def apredict(self, callbacks: Any = None, **kwargs: Any) -> Any:
        """Async :meth:`predict`."""
        return (await self.acall(kwargs, callbacks=callbacks))[self.output_key]

    def predict_and_parse(self, callbacks: Any = None, **kwargs: Any) -> Any:
        """:meth:`predict`, then the prompt's ``output_parser`` (if it has one) parses the
        text. The older form of ``output_parser=`` on the chain (it warns, as LangChain's).
        """
        warnings.warn(_PREDICT_AND_PARSE_WARNING, DeprecationWarning, stacklevel=2)
        return self._parse_with_prompt(self.predict(callbacks=callbacks, **kwargs))

    async def apredict_and_parse(self, callbacks: Any = None, **kwargs: Any) -> Any:
        """Async :meth:`predict_and_parse`."""
        warnings.warn(_PREDICT_AND_PARSE_WARNING, DeprecationWarning, stacklevel=2)
        return self._parse_with_prompt(await self.apredict(callbacks=callbacks, **kwargs))

    def apply_and_parse(
        self, input_list: Sequence[dict[str, Any]], callbacks: Any = None
    ) -> list[Any]:
        """:meth:`apply`, then the prompt's ``output_parser`` (if it has one) parses each
        output's text; without one, :meth:`apply`'s outputs as they are. The older form of
        ``output_parser=`` on the chain (it warns, as LangChain's)."""
        warnings.warn(_APPLY_AND_PARSE_WARNING, DeprecationWarning, stacklevel=2)
        return self._parse_outputs(self.apply(input_list, callbacks=callbacks))

    async def aapply_and_parse(
        self, input_list: Sequence[dict[str, Any]], callbacks: Any = None
    ) -> list[Any]:
        """Async :meth:`apply_and_parse`."""
        warnings.warn(_APPLY_AND_PARSE_WARNING, DeprecationWarning, stacklevel=2)
        return self._parse_outputs(await self.aapply(input_list, callbacks=callbacks))

    def _parse_outputs(self, outputs: list[dict[str, Any]]) -> list[Any]:
        if getattr(self.prompt, "output_parser", None) is None:
            return outputs
        return [self._parse_with_prompt(output[self.output_key]) for output in outputs]

    def _parse_with_prompt(self, text: Any) -> Any:
        parser = getattr(self.prompt, "output_parser", None)
        return text if parser is None else parser.parse(text)

    @classmethod
    def from_string(cls, llm: Any, template: str) -> LLMChain:
        """An LLMChain over ``PromptTemplate.from_template(template)``."""
        return cls(llm=llm, prompt=PromptTemplate.from_template(template))

    def apply(
        self, input_list: Sequence[dict[str, Any]], callbacks: Any = None
    ) -> list[dict[str, Any]]:
        """Run on each input; the outputs only (``[{"text": ...}, ...]``), in order.

        One run of this chain (input ``{"input_list": [...]}``, output ``{"outputs":
        [...]}``) with one model call per input inside, as LangChain's ``apply``.
        """
        config = legacy_call_config(callbacks, None, None, None)
        result = self._call_with_config(
            self._apply_run, {"input_list": list(input_list)}, config, with_run_manager=True
        )
        return result["outputs"]  # type: ignore[no-any-return]

    async def aapply(
        self, input_list: Sequence[dict[str, Any]], callbacks: Any = None
    ) -> list[dict[str, Any]]:
        """Async :meth:`apply`."""
        config = legacy_call_config(callbacks, None, None, None)
        result = await self._acall_with_config(
            self._aapply_run, {"input_list": list(input_list)}, config, with_run_manager=True
        )
        return result["outputs"]  # type: ignore[no-any-return]

    def _apply_run(self, inputs: dict[str, Any], run_manager: Any) -> dict[str, Any]:
        return {"outputs": self.create_outputs(self.generate(inputs["input_list"], run_manager))}

    async def _aapply_run(self, inputs: dict[str, Any], run_manager: Any) -> dict[str, Any]:
        generations = await self.agenerate(inputs["input_list"], run_manager)
        return {"outputs": self.create_outputs(generations)}


def _as_result(outputs: list[Any]) -> LLMResult:
    generations: list[list[Generation]] = []
    for output in outputs:
        if isinstance(output, BaseMessage):
            message = output if isinstance(output, AIMessage) else AIMessage(output.text)
            generations.append([ChatGeneration(message=message)])
        else:
            generations.append([Generation(str(output))])
    return LLMResult(generations)


def _from_langchain_prompt(prompt: Any) -> BasePromptTemplate:
    """LangChain's own text ``PromptTemplate`` as ragline's (same template, variables,
    partials and format): what a program passes when it imports one of LangChain's
    default prompts, which ``ragline port`` leaves (ragline's have their own wording).

    Raises:
        InvalidInputError: ``prompt`` is neither a prompt template nor LangChain's.
    """
    kind = type(prompt)
    if kind.__name__ == "PromptTemplate" and kind.__module__.startswith("langchain_core."):
        return PromptTemplate(
            template=prompt.template,
            input_variables=list(prompt.input_variables),
            partial_variables=dict(prompt.partial_variables),
            template_format=prompt.template_format,
        )
    raise InvalidInputError(
        f"LLMChain.prompt must be a prompt template, got {kind.__module__}.{kind.__name__}"
    )
