"""Retrieval chains: retrieve documents for a question, then answer from them.

``create_retrieval_chain`` is the composable form (``{"input"}`` in, ``{"input",
"context", "answer"}`` out); ``load_qa_chain`` and ``RetrievalQA`` keep the older
LangChain shapes (``input_documents``/``question`` -> ``output_text``, and ``query`` ->
``result``/``source_documents``) for ported code.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from ragline.chains._base import BaseCombineDocumentsChain, StuffDocumentsChain
from ragline.chains._chain import (
    LegacyChainAPI,
    callbacks_or_manager,
    chain_verbose,
    with_memory_variables,
)
from ragline.chains._map_reduce import MapReduceDocumentsChain
from ragline.chains._map_rerank import MapRerankDocumentsChain
from ragline.chains._prompts import stuff_prompt
from ragline.chains._refine import RefineDocumentsChain
from ragline.chains._steps import Steps, StepsChain, invoke
from ragline.core import (
    BasePromptTemplate,
    BaseRetriever,
    InvalidInputError,
    MissingVariableError,
    PromptTemplate,
    Runnable,
    RunnableConfig,
    RunnableLambda,
    RunnablePassthrough,
)
from ragline.core._checks import check_choice
from ragline.core._drive import Effect, Emit, adrive, drive
from ragline.core.exceptions import ChainInputError
from ragline.core.runnables.base import adopt_runnable

__all__ = [
    "CHAIN_TYPES",
    "RetrievalQA",
    "create_documents_chain",
    "create_retrieval_chain",
    "load_qa_chain",
]

CHAIN_TYPES: dict[str, type[BaseCombineDocumentsChain]] = {
    "stuff": StuffDocumentsChain,
    "map_reduce": MapReduceDocumentsChain,
    "refine": RefineDocumentsChain,
    "map_rerank": MapRerankDocumentsChain,
}


def _chain_options(cls: type[BaseCombineDocumentsChain]) -> list[str]:
    names = {
        name
        for klass in (cls, BaseCombineDocumentsChain)
        for name, parameter in inspect.signature(klass.__init__).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY or name == "prompt"
    }
    return sorted(names - {"options", "llm_chain", "initial_llm_chain", "refine_llm_chain"})


def create_documents_chain(
    llm: Runnable[Any, Any], chain_type: str = "stuff", **options: Any
) -> BaseCombineDocumentsChain:
    """A combine-documents chain of the given type with its default prompts.

    Args:
        llm: the model.
        chain_type: ``"stuff"``, ``"map_reduce"``, ``"refine"`` or ``"map_rerank"``.
        options: options of that chain class (prompts, ``token_max``, ``question_key``,
            ``output_key`` ...).

    Raises:
        ConfigurationError: an unknown ``chain_type`` (lists the known ones).
        InvalidInputError: an option the chain type does not take (lists the valid ones).

    Example:
        >>> from ragline.core import FakeListChatModel, Document
        >>> chain = create_documents_chain(FakeListChatModel(responses=["ok"]), "refine",
        ...                                question_key="input")
        >>> chain.invoke({"context": [Document("a")], "input": "?"})
        'ok'
    """
    cls = CHAIN_TYPES[check_choice("chain_type", chain_type, CHAIN_TYPES)]
    classic = options.get("output_key") is not None  # load_qa_chain's shape
    if cls is MapReduceDocumentsChain and classic:
        # LangChain's names for the map and combine prompts' document variables
        for name in ("map_reduce_document_variable_name", "combine_document_variable_name"):
            if name in options:
                options[f"_{name}"] = options.pop(name)
    if cls is RefineDocumentsChain and classic and "initial_response_name" in options:
        options["_initial_response_name"] = options.pop("initial_response_name")
    valid = _chain_options(cls)
    if cls is MapReduceDocumentsChain and classic:
        valid += ["_map_reduce_document_variable_name", "_combine_document_variable_name"]
    if cls is RefineDocumentsChain and classic:
        valid.append("_initial_response_name")
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise InvalidInputError(
            f"chain_type {chain_type!r} does not take {', '.join(unknown)}; its options are "
            f"{', '.join(valid)}"
        )
    if cls is StuffDocumentsChain and options.get("output_key") is not None:
        return _classic_stuff_chain(llm, options)
    if cls is MapReduceDocumentsChain and classic:
        if {"max_concurrency", "token_counter"} & set(options):  # ragline's own map-reduce
            for name in ("map_reduce_document_variable_name", "combine_document_variable_name"):
                if f"_{name}" in options:
                    raise InvalidInputError(
                        f"{name} is LangChain's classic map-reduce option; it does not go "
                        "with max_concurrency or token_counter"
                    )
            return cls(llm, **options)
        return _classic_map_reduce_chain(llm, options)
    if cls is RefineDocumentsChain and classic:
        return _classic_refine_chain(llm, options)
    if cls is MapRerankDocumentsChain and classic and "max_concurrency" not in options:
        return _classic_map_rerank_chain(llm, options)
    return cls(llm, **options)


def _classic_stuff_chain(llm: Runnable[Any, Any], options: dict[str, Any]) -> StuffDocumentsChain:
    """LangChain's classic stuff chain (load_qa_chain, load_summarize_chain,
    RetrievalQA.from_chain_type): an LLMChain inside a StuffDocumentsChain, so
    ``chain.llm_chain.prompt`` is the prompt and the runs are StuffDocumentsChain, then
    LLMChain, then the model. The LLMChain gets the verbose flag and the callbacks too, as
    there."""
    from ragline.chains._llm_chain import LLMChain

    question_key = options.pop("question_key", "question")
    prompt = options.pop("prompt", None) or stuff_prompt(question_key)
    options.setdefault("document_variable_name", "context")  # LangChain's default here
    llm_chain = LLMChain(
        llm=llm,
        prompt=prompt,
        verbose=chain_verbose(options.get("verbose")),
        callbacks=options.get("callbacks"),
    )
    return StuffDocumentsChain(llm_chain=llm_chain, **options)


def _classic_map_reduce_chain(
    llm: Runnable[Any, Any], options: dict[str, Any]
) -> MapReduceDocumentsChain:
    """LangChain's classic map-reduce chain (load_qa_chain, load_summarize_chain,
    RetrievalQA.from_chain_type): an LLMChain maps each document, a ReduceDocumentsChain
    combines the answers with a StuffDocumentsChain (and collapses them with another one
    when a ``collapse_prompt`` is given, else with the combine chain) under ``token_max``.
    These are the chains that run: ``chain.llm_chain.prompt`` and
    ``chain.reduce_documents_chain.combine_documents_chain.llm_chain.prompt`` can be
    edited. ragline's default prompts, its one document variable for all three."""
    from ragline.chains._llm_chain import LLMChain
    from ragline.chains._map_reduce import ReduceDocumentsChain
    from ragline.chains._prompts import map_prompt, reduce_prompt

    question_key = options.pop("question_key", "question")
    variable = options.setdefault("document_variable_name", "context")
    options["document_variable_name"] = options.pop("_map_reduce_document_variable_name", variable)
    verbose = chain_verbose(options.get("verbose"))
    callbacks = options.get("callbacks")

    def stuff(prompt: BasePromptTemplate) -> StuffDocumentsChain:
        chain = LLMChain(llm=llm, prompt=prompt, verbose=verbose, callbacks=callbacks)
        return StuffDocumentsChain(
            llm_chain=chain,
            document_variable_name=combine_variable,
            verbose=verbose,
            callbacks=callbacks,
        )

    question = options.pop("question_prompt", None) or map_prompt(question_key)
    combine = options.pop("combine_prompt", None) or reduce_prompt(question_key)
    collapse = options.pop("collapse_prompt", None)
    # LangChain's default for the combine (and collapse) prompts is "summaries"; ragline's
    # own prompts take the documents under the one document variable
    combine_variable = options.pop(
        "_combine_document_variable_name",
        "summaries" if "summaries" in combine.input_variables else variable,
    )
    reduce = ReduceDocumentsChain(
        combine_documents_chain=stuff(combine),
        collapse_documents_chain=stuff(collapse) if collapse is not None else None,
        token_max=options.pop("token_max", 3000),
        verbose=verbose,
        callbacks=callbacks,
    )
    llm_chain = LLMChain(llm=llm, prompt=question, verbose=verbose, callbacks=callbacks)
    return MapReduceDocumentsChain(llm_chain=llm_chain, reduce_documents_chain=reduce, **options)


def _classic_refine_chain(llm: Runnable[Any, Any], options: dict[str, Any]) -> RefineDocumentsChain:
    """LangChain's classic refine chain: ``initial_llm_chain`` answers from the first
    document, ``refine_llm_chain`` improves the answer with each next one (ragline's
    default prompts)."""
    from ragline.chains._llm_chain import LLMChain
    from ragline.chains._prompts import refine_initial_prompt, refine_prompt

    question_key = options.pop("question_key", "question")
    options.setdefault("document_variable_name", "context")
    verbose = chain_verbose(options.get("verbose"))
    callbacks = options.get("callbacks")
    if "_initial_response_name" in options:  # LangChain's name for the answer so far
        options["existing_answer_variable"] = options.pop("_initial_response_name")
    question = options.pop("question_prompt", None) or refine_initial_prompt(question_key)
    refine = options.pop("refine_prompt", None) or refine_prompt(question_key)
    return RefineDocumentsChain(
        initial_llm_chain=LLMChain(llm=llm, prompt=question, verbose=verbose, callbacks=callbacks),
        refine_llm_chain=LLMChain(llm=llm, prompt=refine, verbose=verbose, callbacks=callbacks),
        **options,
    )


def _classic_map_rerank_chain(
    llm: Runnable[Any, Any], options: dict[str, Any]
) -> MapRerankDocumentsChain:
    """LangChain's classic map-rerank chain: ``llm_chain`` answers from each document and
    its prompt's output parser reads the answer and the score (ragline's default prompt,
    parsed by a ``RegexParser`` into ``answer`` / ``score``)."""
    from ragline.chains._llm_chain import LLMChain
    from ragline.chains._prompts import map_rerank_prompt

    question_key = options.pop("question_key", "question")
    options.setdefault("document_variable_name", "context")
    prompt = options.pop("prompt", None)
    if prompt is None:
        from ragline.chains._map_rerank import SCORED_REPLY
        from ragline.core.output_parsers import RegexParser

        prompt = map_rerank_prompt(question_key)
        prompt.output_parser = RegexParser(regex=SCORED_REPLY, output_keys=["answer", "score"])
    verbose = chain_verbose(options.get("verbose"))
    llm_chain = LLMChain(
        llm=llm, prompt=prompt, verbose=verbose, callbacks=options.get("callbacks")
    )
    return MapRerankDocumentsChain(llm_chain=llm_chain, **options)


def load_qa_chain(
    llm: Runnable[Any, Any], chain_type: str = "stuff", **options: Any
) -> BaseCombineDocumentsChain:
    """A question-answering chain in LangChain's classic shape.

    It takes ``{"input_documents": [...], "question": ...}`` and returns
    ``{"output_text": answer}`` (plus ``"intermediate_steps"`` with
    ``return_intermediate_steps=True``). ``callbacks`` (or ``callback_manager``,
    LangChain's deprecated name of it) reach the chains it builds inside too.

    Raises:
        ConfigurationError: an unknown ``chain_type`` (lists the known ones).

    Example:
        >>> from ragline.core import FakeListChatModel, Document
        >>> chain = load_qa_chain(FakeListChatModel(responses=["42"]), chain_type="stuff")
        >>> chain.invoke({"input_documents": [Document("6 x 7 = 42")], "question": "6 x 7?"})
        {'input_documents': [...], 'question': '6 x 7?', 'output_text': '42'}
        >>> chain.llm_chain.prompt.input_variables
        ['context', 'question']
    """
    defaults = {
        "input_key": "input_documents",
        "output_key": "output_text",
        "question_key": "question",
    }
    if "callback_manager" in options:  # as callbacks, as LangChain's: the chains inside too
        manager = options.pop("callback_manager")
        options["callbacks"] = callbacks_or_manager(
            "load_qa_chain", options.get("callbacks"), manager
        )
    return create_documents_chain(llm, chain_type, **{**defaults, **options})


def _question_of(input: Any) -> Any:
    if not isinstance(input, Mapping) or "input" not in input:
        got = sorted(input) if isinstance(input, Mapping) else type(input).__name__
        raise MissingVariableError(f"retrieval chain needs the question under 'input'; got {got}")
    return input["input"]


def create_retrieval_chain(
    retriever: Runnable[Any, Any], combine_docs_chain: Runnable[Any, Any]
) -> Runnable[Any, Any]:
    """Retrieve documents for ``input`` and answer from them.

    Args:
        retriever: a ``BaseRetriever`` (it receives ``input["input"]``), or any Runnable
            taking the whole input dict and returning documents.
        combine_docs_chain: takes ``{"input", "context", ...}`` and returns the answer,
            e.g. ``create_stuff_documents_chain(...)``.

    Returns:
        A Runnable from ``{"input": question, ...}`` to the same dict plus ``"context"``
        (the retrieved documents) and ``"answer"``. ``stream`` yields the input keys,
        then the context, then the answer as it is generated.

    Example:
        >>> from ragline.core import ChatPromptTemplate, FakeListChatModel, Document
        >>> from ragline.chains import create_stuff_documents_chain
        >>> class Fixed(BaseRetriever):
        ...     def _get_relevant_documents(self, query):
        ...         return [Document("Paris is the capital of France.")]
        >>> prompt = ChatPromptTemplate.from_messages(
        ...     [("system", "{context}"), ("human", "{input}")]
        ... )
        >>> model = FakeListChatModel(responses=["Paris"])
        >>> chain = create_retrieval_chain(Fixed(), create_stuff_documents_chain(model, prompt))
        >>> chain.invoke({"input": "Capital of France?"})["answer"]
        'Paris'
    """
    retriever, combine_docs_chain = adopt_runnable(retriever), adopt_runnable(combine_docs_chain)
    if retriever is None or combine_docs_chain is None:
        raise InvalidInputError(
            "create_retrieval_chain takes a retriever and a chain, both Runnables"
        )
    if isinstance(retriever, BaseRetriever):
        # unnamed, as LangChain's lambda is (its runs and graph node say RunnableLambda)
        retrieve = RunnableLambda(_question_of, name="RunnableLambda") | retriever
    else:
        retrieve = retriever
    retrieve = retrieve.with_config(run_name="retrieve_documents")
    return (
        RunnablePassthrough.assign(context=retrieve)
        .assign(answer=combine_docs_chain)
        .with_config(run_name="retrieval_chain")
    )


class RetrievalQA(LegacyChainAPI, StepsChain):
    """LangChain's classic retrieval QA: ``{"query": q}`` -> ``{"query", "result"}``.

    Use :meth:`from_chain_type`. With ``return_source_documents=True`` the output also
    has ``"source_documents"``. Seed 004's calling forms work: ``qa(query)`` (the dict)
    and ``qa.run(query)`` (the answer).

    A subclass may override LangChain's hooks for the documents,
    ``_get_docs(question, *, run_manager)`` (invoke) and ``_aget_docs`` (ainvoke), to
    change what the model answers from (reorder, filter, add); ``run_manager`` is this
    chain's run manager, and a hook without that parameter is called with the question
    only, as LangChain's chain calls it.
    """

    # the steps get the run, for the hooks' run_manager (see _answer_steps)
    _steps_take_run = True
    # whether a subclass overrides _get_docs / _aget_docs, and whether each takes
    # run_manager: looked up once per class (__init_subclass__), not per call
    _own_docs = False
    _get_docs_takes_run = True
    _aget_docs_takes_run = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._own_docs = (
            cls._get_docs is not RetrievalQA._get_docs
            or cls._aget_docs is not RetrievalQA._aget_docs
        )
        cls._get_docs_takes_run = "run_manager" in inspect.signature(cls._get_docs).parameters
        cls._aget_docs_takes_run = "run_manager" in inspect.signature(cls._aget_docs).parameters

    def __init__(
        self,
        *,
        retriever: Runnable[str, Any],
        combine_documents_chain: BaseCombineDocumentsChain,
        return_source_documents: bool = False,
        input_key: str = "query",
        output_key: str = "result",
        question_key: str = "question",
        name: str | None = None,
        verbose: bool | None = None,
        callbacks: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        memory: Any = None,
        callback_manager: Any = None,
    ) -> None:
        adopted = adopt_runnable(retriever)
        if adopted is None:
            raise InvalidInputError(f"retriever must be a Runnable, got {type(retriever).__name__}")
        retriever = adopted
        if combine_documents_chain.output_key is None:
            raise InvalidInputError(
                "RetrievalQA needs a documents chain with an output_key (use load_qa_chain)"
            )
        self._answer_key: str = combine_documents_chain.output_key
        self.retriever = retriever
        self.combine_documents_chain = combine_documents_chain
        self.return_source_documents = return_source_documents
        self.input_key = input_key
        self.output_key = output_key
        self.question_key = question_key
        # a legacy memory (ragline.memory): its variables join each call's inputs (and
        # its output), and it saves each answer, as a LangChain Chain's memory does
        self.memory = memory
        self._set_run_options(name, verbose, callbacks, tags, metadata, callback_manager)

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    def _returned(self, input: Any, output: Any) -> Any:
        # a Chain's invoke returns its inputs with its outputs; the run ends with the
        # outputs only (as LangChain's); invoke("question") is {input_key: "question"}
        inputs = input if isinstance(input, Mapping) else {self.input_key: input}
        return {**inputs, **output}

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        if self.memory is None or not isinstance(input, Mapping):
            return super().invoke(input, config, **kwargs)
        variables = self.memory.load_memory_variables(dict(input))
        inputs = with_memory_variables(self, dict(input), variables)
        result = super().invoke(inputs, config, **kwargs)
        self.memory.save_context(inputs, {key: result[key] for key in self.output_keys})
        return result

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        if self.memory is None or not isinstance(input, Mapping):
            return await super().ainvoke(input, config, **kwargs)
        variables = await self.memory.aload_memory_variables(dict(input))
        inputs = with_memory_variables(self, dict(input), variables)
        result = await super().ainvoke(inputs, config, **kwargs)
        await self.memory.asave_context(inputs, {key: result[key] for key in self.output_keys})
        return result

    # A LangChain Chain does not stream: stream yields invoke's result whole, once (the
    # memory saved as invoke saves it)
    def stream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield self.invoke(input, config, **kwargs)

    async def astream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        yield await self.ainvoke(input, config, **kwargs)

    def _only_outputs(self, result: dict[str, Any]) -> dict[str, Any]:
        # the outputs: not the question, nor the memory's variables (LangChain's
        # return_only_outputs)
        inputs = {self.input_key}
        if self.memory is not None:
            inputs.update(self.memory.memory_variables)
        return {k: v for k, v in result.items() if k not in inputs}

    @property
    def output_keys(self) -> list[str]:
        extra = ["source_documents"] if self.return_source_documents else []
        return [self.output_key, *extra]

    def _legacy_invoke(
        self, inputs: dict[str, Any], config: Any, only_outputs: bool, run_info: bool
    ) -> dict[str, Any]:
        result = super()._legacy_invoke(inputs, config, only_outputs, run_info)
        return self._only_outputs(result) if only_outputs else result

    async def _alegacy_invoke(
        self, inputs: dict[str, Any], config: Any, only_outputs: bool, run_info: bool
    ) -> dict[str, Any]:
        result = await super()._alegacy_invoke(inputs, config, only_outputs, run_info)
        return self._only_outputs(result) if only_outputs else result

    @classmethod
    def from_chain_type(
        cls,
        llm: Runnable[Any, Any],
        chain_type: str = "stuff",
        *,
        retriever: Runnable[str, Any],
        return_source_documents: bool = False,
        chain_type_kwargs: dict[str, Any] | None = None,
        input_key: str = "query",
        output_key: str = "result",
        verbose: bool | None = None,
        callbacks: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        memory: Any = None,
        callback_manager: Any = None,
    ) -> RetrievalQA:
        """Build the chain from a model, a chain type and a retriever.

        ``callbacks``, ``tags`` and ``metadata`` join the chain's own runs (not the
        retriever and model runs inside it), as on a ``Chain``; ``callback_manager`` is
        LangChain's deprecated name of ``callbacks``. A ``memory`` (e.g.
        ``ConversationBufferMemory``) adds its variables to each call's inputs and output
        and saves each question and answer.

        Raises:
            ConfigurationError: an unknown chain_type (lists the known ones).
            InvalidInputError: an option in ``chain_type_kwargs`` the type does not take.
        """
        options = dict(chain_type_kwargs or {})
        combine = load_qa_chain(llm, chain_type, **options)
        return cls(
            question_key=options.get("question_key", "question"),
            retriever=retriever,
            combine_documents_chain=combine,
            return_source_documents=return_source_documents,
            input_key=input_key,
            output_key=output_key,
            verbose=verbose,
            callbacks=callbacks,
            tags=tags,
            metadata=metadata,
            memory=memory,
            callback_manager=callback_manager,
        )

    @classmethod
    def from_llm(
        cls,
        llm: Runnable[Any, Any],
        prompt: BasePromptTemplate | None = None,
        callbacks: Any = None,
        llm_chain_kwargs: dict[str, Any] | None = None,
        *,
        retriever: Runnable[str, Any],
        return_source_documents: bool = False,
        input_key: str = "query",
        output_key: str = "result",
        verbose: bool | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        callback_manager: Any = None,
    ) -> RetrievalQA:
        """LangChain's other constructor: an ``LLMChain`` over ``prompt`` inside a stuff
        chain that writes each document as ``Context:\n<its text>`` into ``{context}``.

        Args:
            llm: the model.
            prompt: a prompt with ``{context}`` and ``{question}`` (default: the stuff
                chain's prompt).
            callbacks: handlers of the chain's runs (and of its stuff chain's and
                LLMChain's, as LangChain passes them to all three).
            llm_chain_kwargs: options for the ``LLMChain`` (``verbose``,
                ``output_parser``, ``llm_kwargs`` ...).
            retriever, return_source_documents, input_key, output_key, verbose, tags,
                metadata: as in :meth:`from_chain_type`.
            callback_manager: LangChain's deprecated name of ``callbacks``, for this
                chain's own runs only (as LangChain passes it on).

        Raises:
            InvalidInputError: the prompt lacks ``{context}``, or an unknown option in
                ``llm_chain_kwargs``.
        """
        from ragline.chains._llm_chain import LLMChain

        llm_chain = LLMChain(
            llm=llm,
            prompt=prompt if prompt is not None else stuff_prompt("question"),
            callbacks=callbacks,
            **(llm_chain_kwargs or {}),
        )
        combine = StuffDocumentsChain(
            llm_chain=llm_chain,
            document_variable_name="context",
            document_prompt=PromptTemplate.from_template("Context:\n{page_content}"),
            callbacks=callbacks,
        )
        return cls(
            retriever=retriever,
            combine_documents_chain=combine,
            return_source_documents=return_source_documents,
            input_key=input_key,
            output_key=output_key,
            verbose=verbose,
            callbacks=callbacks,
            tags=tags,
            metadata=metadata,
            callback_manager=callback_manager,
        )

    def get_name(self) -> str:
        return self.name or "RetrievalQA"

    def _children(self) -> list[Runnable[Any, Any]]:
        return [self.retriever, self.combine_documents_chain]

    def _query(self, input: Any) -> str:
        if not isinstance(input, Mapping):  # invoke("question"): its one input, as LangChain
            return input  # type: ignore[no-any-return]
        if self.input_key not in input:
            raise ChainInputError(
                f"RetrievalQA needs the question under {self.input_key!r}; got {sorted(input)}"
            )
        return input[self.input_key]

    def _combine_input(self, query: str, documents: list[Any]) -> dict[str, Any]:
        chain = self.combine_documents_chain
        return {chain.input_key: documents, self.question_key: query}

    def _result(self, query: str, documents: list[Any], answer: dict[str, Any]) -> dict[str, Any]:
        output = {self.output_key: answer[self._answer_key]}
        if self.return_source_documents:
            output["source_documents"] = documents
        return output

    def _get_docs(self, question: str, *, run_manager: Any) -> list[Any]:
        """The documents to answer ``question`` from: the retriever's. A subclass may
        override it (LangChain's hook); ``run_manager`` is this chain's run manager."""
        return self.retriever.invoke(  # type: ignore[no-any-return]
            question, config={"callbacks": run_manager.get_child()}
        )

    async def _aget_docs(self, question: str, *, run_manager: Any) -> list[Any]:
        """Async twin of :meth:`_get_docs` (what ``ainvoke`` calls)."""
        return await self.retriever.ainvoke(  # type: ignore[no-any-return]
            question, config={"callbacks": run_manager.get_child()}
        )

    def _hook_docs(self, query: str, run: Any) -> list[Any]:
        if self._get_docs_takes_run:
            return self._get_docs(query, run_manager=run)
        return self._get_docs(query)  # type: ignore[call-arg]

    async def _ahook_docs(self, query: str, run: Any) -> list[Any]:
        if self._aget_docs_takes_run:
            return await self._aget_docs(query, run_manager=run)
        return await self._aget_docs(query)  # type: ignore[call-arg]

    def _run_steps(self, input: Any, run: Any = None) -> Any:
        return drive(self._answer_steps(input, run))

    async def _arun_steps(self, input: Any, run: Any = None) -> Any:
        return await adrive(self._answer_steps(input, run))

    def _answer_steps(self, input: Any, run: Any = None) -> Steps:
        """invoke / ainvoke: answer ``input[input_key]`` from the retrieved documents
        (a subclass's ``_get_docs`` / ``_aget_docs``, given the run, choose them)."""
        query = self._query(input)
        if self._own_docs and run is not None:
            documents = yield Effect(self._hook_docs, self._ahook_docs, query, run)
        else:
            documents = yield invoke(self.retriever, query)
        answer = yield invoke(self.combine_documents_chain, self._combine_input(query, documents))
        return self._result(query, documents, answer)

    def _stream_steps(self, input: Any) -> Steps:
        """The outputs in one piece (``stream`` itself yields ``invoke``'s result)."""
        yield Emit((yield from self._answer_steps(input)))
