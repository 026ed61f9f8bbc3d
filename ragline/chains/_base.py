"""The base of every combine-documents chain, and the stuff chain built on it.

A combine-documents chain takes a dict holding a list of Documents (under
``document_variable_name``, or ``input_key`` when that is set) and any other prompt
variables, and returns an answer. Subclasses write one hook, :meth:`_prepare`: make the
preliminary model calls (map, collapse, refine ...) and return the *final* step with its
input. The hook is written once for sync and async: it yields each call as a step
(``invoke`` / ``batch`` effects from ``_steps``) and gets the result back. The base invokes or
streams the final step inside the chain's own run, so ``stream`` yields the answer's
tokens as the last model produces them and every model call shows up in callbacks as a
child of the chain run.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import (
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from ragline.chains._chain import LegacyChainAPI
from ragline.chains._prompts import DEFAULT_DOCUMENT_PROMPT, NO_CONTEXT_ANSWER, stuff_prompt
from ragline.chains._steps import Steps, StepsChain, invoke, stream_from
from ragline.core import (
    BasePromptTemplate,
    ChainStepError,
    Document,
    InvalidInputError,
    MissingVariableError,
    Runnable,
    RunnableConfig,
    RunnableLambda,
    RunnablePassthrough,
    RunnableSequence,
    StrOutputParser,
)
from ragline.core._drive import Effect, Emit, adrive, drive
from ragline.core.config import get_current_config, graph_config, use_config
from ragline.core.exceptions import ChainInputError, PromptKeyError
from ragline.core.prompts import format_document as _format_document
from ragline.core.runnables.base import adopt_runnable
from ragline.core.runnables.runs import combine_chunks

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ragline.core import RunnableConfig
    from ragline.core.runnables.graph import Graph

__all__ = [
    "BaseCombineDocumentsChain",
    "StuffDocumentsChain",
    "create_stuff_documents_chain",
    "format_document",
    "format_documents",
]

_STEPS_KEY = "intermediate_steps"


def format_document(
    document: Document, prompt: BasePromptTemplate = DEFAULT_DOCUMENT_PROMPT
) -> str:
    """Render one document with a prompt over ``page_content`` and its metadata keys
    (``ragline.core.format_document``, with the chains' default document prompt).

    Raises:
        MissingVariableError: the prompt names a metadata key the document lacks.

    Example:
        >>> from ragline.core import PromptTemplate
        >>> format_document(Document("text", metadata={"source": "a.txt"}),
        ...                 PromptTemplate.from_template("[{source}] {page_content}"))
        '[a.txt] text'
    """
    return _format_document(document, prompt)


def format_documents(
    documents: Sequence[Document], prompt: BasePromptTemplate, separator: str
) -> str:
    """Render documents with :func:`format_document` and join them with ``separator``."""
    return separator.join(format_document(document, prompt) for document in documents)


@dataclass
class _Final:
    """What :meth:`BaseCombineDocumentsChain._prepare` hands back to the base.

    Either ``runnable`` with its ``input`` (the last model call, invoked or streamed by
    the base), or, when no model call is left to make, the finished ``answer``.
    """

    runnable: Runnable[Any, Any] | None = None
    input: Any = None
    answer: Any = None
    steps: list[Any] = field(default_factory=list)
    answer_is_step: bool = False
    """The final answer is also the last intermediate step (refine, as in LangChain)."""
    pick: str | None = None
    """The answer is this key of ``runnable``'s output dict (a legacy ``LLMChain``)."""


class ChainOptions(TypedDict, total=False):
    """The options every combine-documents chain takes (see BaseCombineDocumentsChain)."""

    output_parser: Runnable[Any, Any] | None
    document_prompt: BasePromptTemplate | None
    document_separator: str
    document_variable_name: str
    input_key: str | None
    output_key: str | None
    return_intermediate_steps: bool
    empty_answer: Any
    name: str | None
    verbose: bool
    callbacks: Any
    callback_manager: Any
    tags: list[str] | None
    metadata: dict[str, Any] | None


# What _prepare is: the final step at once, or steps that end by returning it.
Prepared = _Final | Generator[Effect | Emit, Any, _Final]


class BaseCombineDocumentsChain(LegacyChainAPI, StepsChain):
    """Turns a list of documents (and a question) into one answer.

    Args:
        llm: the model (any Runnable taking a prompt value).
        output_parser: parses the final model output (default: ``StrOutputParser``).
        document_prompt: renders each document (default: its ``page_content``).
        document_separator: joins rendered documents.
        document_variable_name: the prompt variable that receives the documents.
        input_key: the input key holding the documents (default: the variable name).
        output_key: ``None`` returns the answer itself; a key returns a dict
            ``{output_key: answer}`` (plus ``intermediate_steps`` when asked).
        return_intermediate_steps: with ``output_key``, also return what the
            preliminary steps produced.
        empty_answer: returned without calling the model when there are no documents;
            ``None`` calls the model with an empty context.
        verbose: print this chain's runs (LangChain's ``verbose=True``).
        callbacks, tags, metadata: added to this chain's own runs (not to the runs
            inside it), as on a ``Chain``.
        callback_manager: LangChain's deprecated name of ``callbacks`` (it warns).

    Besides ``invoke``/``stream``, LangChain's older calling forms work:
    ``chain({"input_documents": docs, "question": q})`` and
    ``chain.run(input_documents=docs, question=q)``.
    """

    def __init__(
        self,
        llm: Runnable[Any, Any],
        *,
        output_parser: Runnable[Any, Any] | None = None,
        document_prompt: BasePromptTemplate | None = None,
        document_separator: str = "\n\n",
        document_variable_name: str = "context",
        input_key: str | None = None,
        output_key: str | None = None,
        return_intermediate_steps: bool = False,
        empty_answer: Any = NO_CONTEXT_ANSWER,
        name: str | None = None,
        verbose: bool | None = None,
        callbacks: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        callback_manager: Any = None,
    ) -> None:
        adopted = adopt_runnable(llm)  # another library's model too (interop registers)
        if adopted is None:
            raise InvalidInputError(f"llm must be a Runnable model, got {type(llm).__name__}")
        llm = adopted
        if return_intermediate_steps and output_key is None:
            raise InvalidInputError(
                "return_intermediate_steps=True needs an output_key (the answer then comes "
                "back in a dict beside the steps)"
            )
        self.llm = llm
        self.output_parser = output_parser if output_parser is not None else StrOutputParser()
        self.document_prompt = document_prompt or DEFAULT_DOCUMENT_PROMPT
        self.document_separator = document_separator
        self.document_variable_name = document_variable_name
        self.input_key = input_key or document_variable_name
        self.output_key = output_key
        self.return_intermediate_steps = return_intermediate_steps
        self.empty_answer = empty_answer
        self._set_run_options(name, verbose, callbacks, tags, metadata, callback_manager)

    @property
    def input_keys(self) -> list[str]:
        """The documents' input key (the chain's legacy calling forms use it)."""
        return [self.input_key]

    @property
    def output_keys(self) -> list[str]:
        """The answer's key (``output_text`` when the chain returns the bare answer), then
        ``intermediate_steps`` when they are returned (as LangChain's document chains)."""
        keys = [self.output_key or "output_text"]
        if self.output_key is not None and self.return_intermediate_steps:
            keys.append("intermediate_steps")
        return keys

    # LangChain's classic document chains (load_qa_chain, load_summarize_chain, llm_chain=)
    # are Chains: invoke takes the documents alone (chain.invoke(docs)) and
    # return_only_outputs=True; a chain built by create_stuff_documents_chain (no
    # output_key) takes its input as given, as LangChain's sequence does.
    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if self.output_key is None:
            return super().invoke(input, config, **kwargs)
        only_outputs = kwargs.pop("return_only_outputs", False)
        result = super().invoke(self._input_dict(input), config, **kwargs)
        return self._as_outputs(result) if only_outputs else result

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if self.output_key is None:
            return await super().ainvoke(input, config, **kwargs)
        only_outputs = kwargs.pop("return_only_outputs", False)
        result = await super().ainvoke(self._input_dict(input), config, **kwargs)
        return self._as_outputs(result) if only_outputs else result

    # ---- the one hook ------------------------------------------------------------------
    @abstractmethod
    def _prepare(self, documents: list[Document], variables: dict[str, Any]) -> Prepared:
        """Make the preliminary calls; return the final step (or the finished answer).

        A chain with preliminary calls writes this as a generator: ``outputs = yield
        batch(runnable, inputs, config)`` (or ``yield invoke(runnable, input)``), then
        ``return _Final(...)``; the base runs it with invoke/batch or ainvoke/abatch.
        """

    @property
    @abstractmethod
    def _prompts(self) -> list[BasePromptTemplate]:
        """The prompts this chain formats (to check the input keys up front)."""

    # ---- helpers for subclasses --------------------------------------------------------
    def _model_chain(
        self, prompt: BasePromptTemplate, step: str, *, final: bool = False
    ) -> Runnable[Any, Any]:
        """``prompt | llm | parser`` reported as a run named ``step``.

        The final step parses with ``output_parser``; the others keep the model's text.
        """
        parser = self.output_parser if final else StrOutputParser()
        return (prompt | self.llm | parser).with_config(run_name=step)

    def _render(self, documents: Sequence[Document]) -> str:
        return format_documents(documents, self.document_prompt, self.document_separator)

    def _per_document_inputs(
        self, documents: Sequence[Document], variables: dict[str, Any]
    ) -> list[dict[str, Any]]:
        return [
            {**variables, self.document_variable_name: format_document(d, self.document_prompt)}
            for d in documents
        ]

    def _inputs_or_empty(
        self, documents: Sequence[Document], variables: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """:meth:`_per_document_inputs`, or with no documents (``empty_answer=None``) one
        input with an empty context, for chains that need at least one call."""
        return self._per_document_inputs(documents, variables) or [
            {**variables, self.document_variable_name: ""}
        ]

    @staticmethod
    def _step_error(
        step: str, index: int, documents: Sequence[Document], error: BaseException
    ) -> ChainStepError:
        """A ChainStepError naming the document whose ``step`` failed."""
        if index >= len(documents):  # the one call on an empty context (no documents)
            return ChainStepError(
                f"{step} step failed on an empty context (no documents): "
                f"{type(error).__name__}: {error}",
                index=index,
            )
        document = documents[index]
        return ChainStepError(
            f"{step} step failed on document {index} of {len(documents)} "
            f"(id {document.id!r}, source {document.metadata.get('source')!r}): "
            f"{type(error).__name__}: {error}",
            index=index,
            item=document,
        )

    def _raise_first_failure(
        self, results: list[Any], documents: Sequence[Document], step: str
    ) -> None:
        """Raise a ChainStepError for the first result that is an exception."""
        for index, result in enumerate(results):
            if isinstance(result, BaseException):
                raise self._step_error(step, index, documents, result) from result

    # ---- input and output --------------------------------------------------------------
    def _split_input(self, input: Any) -> tuple[list[Document], dict[str, Any]]:
        if (
            not isinstance(input, Mapping)
            and self.output_key is not None  # LangChain's classic chain: a bare input is
            and len(self.input_keys) == 1  # the value of its one input key
            and isinstance(input, Sequence)
        ):
            input = {self.input_key: input}
        if not isinstance(input, Mapping):
            raise InvalidInputError(
                f"{self.get_name()} takes a dict with the documents under {self.input_key!r}, "
                f"got {type(input).__name__}"
            )
        if self.input_key not in input:
            raise self._missing_input_error(
                f"{self.get_name()} is missing input key {self.input_key!r} (the documents); "
                f"got {sorted(input)}"
            )
        documents = input[self.input_key]
        if not isinstance(documents, Sequence) or not all(
            isinstance(d, Document) for d in documents
        ):
            raise InvalidInputError(
                f"{self.get_name()}: input {self.input_key!r} must be a list of Documents, "
                f"got {type(documents).__name__}"
            )
        variables = {k: v for k, v in input.items() if k != self.input_key}
        needed = {
            name
            for prompt in self._prompts
            for name in prompt.input_variables
            if name not in prompt.partial_variables
        } - {self.document_variable_name, getattr(self, "existing_answer_variable", None)}
        missing = sorted(needed - set(variables))
        if missing:
            raise self._missing_input_error(
                f"{self.get_name()} is missing input key(s) {missing}; got {sorted(input)}"
            )
        return list(documents), variables

    def _missing_input_error(self, message: str) -> MissingVariableError:
        """The error for a missing input, printed as LangChain's class there: the
        classic chain's ``ValueError``, the ``create_stuff_documents_chain`` runnable's
        ``KeyError`` (both stay MissingVariableErrors)."""
        if self.output_key is not None:
            return ChainInputError(message)
        return PromptKeyError(message)

    def _output(self, answer: Any, steps: list[Any]) -> Any:
        if self.output_key is None:
            return answer
        output: dict[str, Any] = {}
        if self.return_intermediate_steps:  # first, as LangChain's dicts print them
            output[_STEPS_KEY] = steps
        output[self.output_key] = answer
        return output

    # ---- the steps every call shares (run by _steps.StepsChain) ------------------------
    def _final(self, input: Any) -> Generator[Effect | Emit, Any, _Final | None]:
        """Check the input and prepare the final step; None means "the empty answer"."""
        documents, variables = self._split_input(input)
        if not documents and self.empty_answer is not None:
            return None
        prepared = self._prepare(documents, variables)
        if isinstance(prepared, _Final):
            return prepared
        return (yield from prepared)

    # LangChain's BaseCombineDocumentsChain.combine_docs: the combining alone, with no
    # run of this chain (the runs inside it are started as invoke starts them)
    def combine_docs(
        self, docs: list[Document], callbacks: Any = None, **kwargs: Any
    ) -> tuple[Any, dict[str, Any]]:
        """Combine ``docs`` (``kwargs``: the prompts' other variables) without a run of
        this chain.

        Returns:
            The answer, and the chain's other outputs (``intermediate_steps`` when it
            returns them), as LangChain's ``combine_docs`` does.

        Raises:
            MissingVariableError: a prompt variable is missing from ``kwargs``.
        """
        with use_config(self._combine_config(callbacks)):
            output = drive(self._answer_steps({**kwargs, self.input_key: docs}))
        return self._answer_and_rest(output)

    async def acombine_docs(
        self, docs: list[Document], callbacks: Any = None, **kwargs: Any
    ) -> tuple[Any, dict[str, Any]]:
        """:meth:`combine_docs`, awaited."""
        with use_config(self._combine_config(callbacks)):
            output = await adrive(self._answer_steps({**kwargs, self.input_key: docs}))
        return self._answer_and_rest(output)

    @staticmethod
    def _combine_config(callbacks: Any) -> RunnableConfig | None:
        current = get_current_config()
        if callbacks is None:
            return current
        return {**(current or {}), "callbacks": callbacks}  # type: ignore[typeddict-item]

    def _answer_and_rest(self, output: Any) -> tuple[Any, dict[str, Any]]:
        if self.output_key is None:
            return output, {}
        rest = {key: value for key, value in output.items() if key != self.output_key}
        return output[self.output_key], rest

    def _answer_steps(self, input: Any) -> Steps:
        """invoke / ainvoke: the answer from the documents in ``input``.

        Raises:
            MissingVariableError: the documents or a prompt variable are missing.
            ChainStepError: a model call failed on one document (names it).
        """
        final = yield from self._final(input)
        if final is None:
            answer, steps = self.empty_answer, []
        elif final.runnable is None:
            answer, steps = final.answer, final.steps
        else:
            answer, steps = (yield invoke(final.runnable, final.input)), final.steps
            if final.pick is not None:
                answer = answer[final.pick]
        if final is not None and final.answer_is_step:
            steps = [*steps, answer]
        return self._output(answer, steps)

    def _returned(self, input: Any, output: Any) -> Any:
        # LangChain's legacy document chains (load_qa_chain, llm_chain=...) are Chains:
        # invoke returns the inputs with the outputs, the run ends with the outputs only
        return output if self.output_key is None else {**input, **output}

    def _as_outputs(self, result: Any) -> dict[str, Any]:
        """The outputs in ``invoke``'s result (``chain(inputs, return_only_outputs=True)``)."""
        if self.output_key is None:
            return super()._as_outputs(result)
        return {k: v for k, v in result.items() if k in (self.output_key, _STEPS_KEY)}

    def _stream_steps(self, input: Any) -> Steps:
        """stream / astream without ``output_key``: the answer as the final model call
        produces it (with ``output_key`` the chain streams as a LangChain Chain does:
        :meth:`stream`)."""
        final = yield from self._final(input)
        if final is None:
            yield Emit(self._output(self.empty_answer, []))
        elif final.runnable is None:
            yield Emit(self._wrap(final.answer))
        else:

            def keep(chunk: Any) -> Iterable[Any]:
                if final.pick is not None:  # a chain's dict chunks: the answer's key only
                    if final.pick not in chunk:
                        return ()
                    chunk = chunk[final.pick]
                return self._wrapped(chunk)

            yield from stream_from(final.runnable, final.input, keep)

    # A LangChain Chain does not stream: its stream yields invoke's result whole (the
    # inputs with the outputs), once. The chains in that shape (an output_key) do the
    # same; without one (ragline's answer-only form) the answer streams.
    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        if self.output_key is None:
            yield from super().stream(input, config, **kwargs)
        else:
            yield self.invoke(input, config, **kwargs)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        if self.output_key is None:
            async for chunk in super().astream(input, config, **kwargs):
                yield chunk
        else:
            yield await self.ainvoke(input, config, **kwargs)

    def _wrapped(self, chunk: Any) -> Iterable[Any]:
        return (self._wrap(chunk),)

    def _wrap(self, chunk: Any) -> Any:
        return chunk if self.output_key is None else {self.output_key: chunk}


def token_counter_of(llm: Runnable[Any, Any]) -> Callable[[str], int]:
    """The model's ``get_num_tokens``, looking through bindings, retries and fallbacks.

    Raises:
        InvalidInputError: no ``get_num_tokens`` is found.
    """
    seen: list[Any] = [llm]
    while seen:
        candidate = seen.pop(0)
        counter = getattr(candidate, "get_num_tokens", None)
        if callable(counter):
            return counter  # type: ignore[no-any-return]
        for attribute in ("bound", "runnable", "default"):
            inner = getattr(candidate, attribute, None)
            if isinstance(inner, Runnable):
                seen.append(inner)
    raise InvalidInputError(
        f"cannot count tokens with {type(llm).__name__}: it has no get_num_tokens; pass "
        "token_counter=..."
    )


def concurrency_config(max_concurrency: int | None) -> dict[str, Any]:
    """The batch config for a chain's ``max_concurrency`` (empty: inherit the caller's)."""
    return {} if max_concurrency is None else {"max_concurrency": max_concurrency}


class StuffDocumentsChain(BaseCombineDocumentsChain):
    """Put every document into one prompt and ask the model once.

    Args:
        llm: the model.
        prompt: the prompt; must have the ``document_variable_name`` variable.
        llm_chain: LangChain's older form instead of ``llm`` and ``prompt``:
            ``StuffDocumentsChain(llm_chain=LLMChain(llm=..., prompt=...),
            document_variable_name="context")``; the chain then takes
            ``input_documents``, returns ``{"output_text": answer}``, runs the LLMChain
            (a chain run of its own, with its own verbose and callbacks) and reports its
            run as ``StuffDocumentsChain``, as there.
        (others as :class:`BaseCombineDocumentsChain`)

    Raises:
        InvalidInputError: the prompt has no variable for the documents, or neither
            ``llm`` nor ``llm_chain`` is given.
    """

    def __init__(
        self,
        llm: Runnable[Any, Any] | None = None,
        prompt: BasePromptTemplate | None = None,
        *,
        question_key: str = "question",
        llm_chain: Any = None,
        **options: Unpack[ChainOptions],
    ) -> None:
        if llm_chain is not None:
            # LangChain's shape: the LLMChain runs inside this chain as a chain run of its
            # own (its verbose, callbacks, tags and output parser are its own), and this
            # chain's run is named after the class
            llm, prompt = llm_chain.llm, prompt or llm_chain.prompt
            document_variable_from(llm_chain, options, "StuffDocumentsChain")
            options.setdefault("input_key", "input_documents")
            options.setdefault("output_key", "output_text")
            options.setdefault("empty_answer", None)  # no documents: the LLMChain runs
        if llm is None:
            raise InvalidInputError(
                "StuffDocumentsChain needs llm=... (or llm_chain=LLMChain(...))"
            )
        super().__init__(llm, **options)
        self.llm_chain = llm_chain
        self.prompt = prompt if prompt is not None else stuff_prompt(question_key)
        _require_variable(self.prompt, self.document_variable_name, "prompt")

    @property
    def _prompts(self) -> list[BasePromptTemplate]:
        return [self.prompt]

    @property
    def input_keys(self) -> list[str]:
        """The documents' key, then (as LangChain's classic chain) the prompt's other
        variables; a chain made by ``create_stuff_documents_chain`` lists the documents'
        key alone."""
        if self.output_key is None:
            return super().input_keys
        others = [v for v in self.prompt.input_variables if v != self.document_variable_name]
        return [*super().input_keys, *others]

    def _get_inputs(self, docs: list[Document], **kwargs: Any) -> dict[str, Any]:
        """The prompt's inputs for these documents: the ``kwargs`` the prompt takes, then
        the rendered documents under ``document_variable_name`` (LangChain's method of the
        same name, which programs call)."""
        inputs = {k: v for k, v in kwargs.items() if k in self.prompt.input_variables}
        inputs[self.document_variable_name] = self._render(docs)
        return inputs

    def prompt_length(self, docs: list[Document], **kwargs: Any) -> int | None:
        """The tokens of the prompt these documents (and ``kwargs``) would make, counted
        by the model's ``get_num_tokens`` (what ``ReduceDocumentsChain`` compares with
        ``token_max``).

        Raises:
            MissingVariableError: a prompt variable is missing from ``kwargs``.
            InvalidInputError: the model cannot count tokens.
        """
        return token_counter_of(self.llm)(self.prompt.format(**self._get_inputs(docs, **kwargs)))

    def _prepare(self, documents: list[Document], variables: dict[str, Any]) -> _Final:
        final_input = {**variables, self.document_variable_name: self._render(documents)}
        if self.llm_chain is not None:
            wanted = set(self.llm_chain.prompt.input_variables)
            chain_input = {k: v for k, v in final_input.items() if k in wanted}
            return _Final(self.llm_chain, chain_input, pick=self.llm_chain.output_key)
        return _Final(self._model_chain(self.prompt, "answer", final=True), final_input)

    def get_name(self) -> str:
        # LangChain's create_stuff_documents_chain is a sequence bound with
        # run_name="stuff_documents_chain": get_name() answers RunnableSequence, its runs
        # are named stuff_documents_chain (see _default_run_name)
        if self.name:
            return self.name
        return "StuffDocumentsChain" if self.llm_chain is not None else "RunnableSequence"

    def _default_run_name(self) -> str:
        if self.name or self.llm_chain is not None:
            return self.get_name()
        return "stuff_documents_chain"

    # create_stuff_documents_chain's schemas are LangChain's sequence's: what its assign
    # of the formatted documents takes (any dict) and what the output parser gives
    def _input_title(self) -> str:
        if self.llm_chain is not None:
            return super()._input_title()
        return f"RunnableAssign<{self.document_variable_name}>Input"

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        if self.llm_chain is not None:
            return super()._input_json(defs)
        return {"additionalProperties": True, "type": "object"}

    def _output_title(self) -> str:
        if self.llm_chain is not None:
            return super()._output_title()
        return self.output_parser._output_title()

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        if self.llm_chain is not None:
            return super()._output_json(defs)
        return self.output_parser._output_json(defs)

    def get_graph(self, config: Any = None) -> Graph:
        """The steps inside, as LangChain draws ``create_stuff_documents_chain``: the
        documents rendered with the document prompt beside the passed-through input, then
        the prompt, the model and the output parser (a classic chain, built with an
        ``llm_chain``, is one node). Like LangChain's, whose sequence is bound with a run
        name, the steps' nodes carry the config's metadata (``{}`` without one)."""
        from ragline.core.runnables.graph import Graph

        if self.llm_chain is not None:
            return super().get_graph(config)
        render = RunnablePassthrough.assign(**{self.document_variable_name: self.document_prompt})
        steps = [render, self.prompt, self.llm, self.output_parser]
        return Graph.sequence(steps, graph_config(config))


def document_variable_from(llm_chain: Any, options: Any, owner: str) -> None:
    """LangChain's default: the LLMChain prompt's one variable; of several, ragline's
    default ``context`` when the prompt has it, else a name is needed."""
    variables = list(llm_chain.prompt.input_variables)
    if "document_variable_name" not in options:
        if len(variables) == 1:
            options["document_variable_name"] = variables[0]
        elif "context" in variables:
            options["document_variable_name"] = "context"
        else:
            raise InvalidInputError(
                f"{owner} needs document_variable_name=... when the llm_chain's prompt has "
                f"several variables ({variables})"
            )
    _require_variable(llm_chain.prompt, options["document_variable_name"], "llm_chain's prompt")


def _require_variable(prompt: BasePromptTemplate, variable: str, what: str) -> None:
    if variable not in prompt.input_variables:
        raise InvalidInputError(
            f"{what} has no variable {variable!r} to put the documents in; its variables "
            f"are {prompt.input_variables} (pass document_variable_name=... or add "
            f"{{{variable}}} to the prompt)"
        )


class _StuffDocumentsSequence(StuffDocumentsChain):
    """The chain ``create_stuff_documents_chain`` returns: LangChain's runs, a sequence's.

    Its run (``stuff_documents_chain``) has the steps of LangChain's sequence as children,
    tagged ``seq:step:N``: ``format_inputs`` (an assign whose ``format_docs`` renders the
    documents into the prompt variable), the prompt, the model and the parser. Streamed,
    it is a transform of its input, as a sequence is. With no documents and an
    ``empty_answer`` it returns that without a step.
    """

    _starts_without_run_type = True  # a sequence's run, as LangChain's

    def _sequence(self) -> Runnable[Any, Any]:
        documents, prompt, separator = (
            self.document_variable_name,
            self.document_prompt,
            self.document_separator,
        )

        def format_docs(inputs: dict[str, Any]) -> str:
            return format_documents(inputs[documents], prompt, separator)

        format_inputs = RunnablePassthrough.assign(
            **{documents: RunnableLambda(format_docs)}
        ).with_config(run_name="format_inputs")
        return RunnableSequence(format_inputs, self.prompt, self.llm, self.output_parser)

    def _no_steps(self, input: Any) -> bool:
        documents, _ = self._split_input(input)  # checked before any step, as ever
        return not documents and self.empty_answer is not None

    def _run_steps(self, input: Any) -> Any:
        if self._no_steps(input):
            return self.empty_answer
        return self._sequence()._invoke_steps(input)  # type: ignore[attr-defined]

    async def _arun_steps(self, input: Any) -> Any:
        if self._no_steps(input):
            return self.empty_answer
        return await self._sequence()._ainvoke_steps(input)  # type: ignore[attr-defined]

    def _transform_steps(self, chunks: Iterator[Any]) -> Iterator[Any]:
        input = combine_chunks(list(chunks))
        if self._no_steps(input):
            yield self.empty_answer
            return
        yield from self._sequence()._transform_steps(iter([input]))  # type: ignore[attr-defined]

    async def _atransform_steps(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        input = combine_chunks([chunk async for chunk in chunks])
        if self._no_steps(input):
            yield self.empty_answer
            return
        steps = self._sequence()._atransform_steps(_one(input))  # type: ignore[attr-defined]
        try:
            async for chunk in steps:
                yield chunk
        finally:
            await steps.aclose()

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(iter([input]), self._transform_steps, config)

    def transform(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(input, self._transform_steps, config)

    def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self._reject_kwargs(kwargs)
        return self._atransform_stream_with_config(_one(input), self._atransform_steps, config)

    def atransform(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self._reject_kwargs(kwargs)
        return self._atransform_stream_with_config(input, self._atransform_steps, config)


async def _one(value: Any) -> AsyncIterator[Any]:
    yield value


def create_stuff_documents_chain(
    llm: Runnable[Any, Any],
    prompt: BasePromptTemplate,
    *,
    output_parser: Runnable[Any, Any] | None = None,
    document_prompt: BasePromptTemplate | None = None,
    document_separator: str = "\n\n",
    document_variable_name: str = "context",
    empty_answer: Any = NO_CONTEXT_ANSWER,
) -> StuffDocumentsChain:
    """A chain that formats all documents into ``prompt`` and calls ``llm`` once.

    It takes ``{"context": [Document, ...], **other prompt variables}`` and returns the
    parsed answer (a string by default). With no documents it returns ``empty_answer``
    without calling the model (``empty_answer=None`` calls it anyway).

    Raises:
        InvalidInputError: ``prompt`` lacks the ``document_variable_name`` variable.

    Example:
        >>> from ragline.core import ChatPromptTemplate, FakeListChatModel
        >>> prompt = ChatPromptTemplate.from_messages(
        ...     [("system", "Context: {context}"), ("human", "{input}")])
        >>> chain = create_stuff_documents_chain(FakeListChatModel(responses=["Paris"]), prompt)
        >>> chain.invoke({"context": [Document("Paris is in France.")], "input": "Where?"})
        'Paris'
    """
    return _StuffDocumentsSequence(
        llm,
        prompt,
        output_parser=output_parser,
        document_prompt=document_prompt,
        document_separator=document_separator,
        document_variable_name=document_variable_name,
        empty_answer=empty_answer,
    )
