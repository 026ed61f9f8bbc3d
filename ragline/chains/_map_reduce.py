"""Map-reduce: ask about each document on its own, then combine the answers.

The map step runs one model call per document, concurrently (bounded by
``max_concurrency``). When the mapped outputs together exceed ``token_max`` tokens,
they are collapsed in groups (each group summarised by one call) until they fit; then
one reduce call writes the answer from them.

LangChain's wiring works too: ``MapReduceDocumentsChain(llm_chain=LLMChain(...),
reduce_documents_chain=ReduceDocumentsChain(combine_documents_chain=StuffDocumentsChain(
...), collapse_documents_chain=..., token_max=...))``. The map is the ``LLMChain``'s
``apply`` (one call per document, in order); :class:`ReduceDocumentsChain` measures the
combine chain's prompt (``prompt_length``), collapses groups that fit ``token_max`` with
the collapse chain (each group's metadata joined), and runs the combine chain.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, Protocol

from ragline.chains import _prompts
from ragline.chains._base import (
    BaseCombineDocumentsChain,
    ChainOptions,
    Prepared,
    _Final,
    _require_variable,
    concurrency_config,
    document_variable_from,
    token_counter_of,
)
from ragline.chains._steps import batch, invoke
from ragline.core import BasePromptTemplate, Document, InvalidInputError, Runnable
from ragline.core._checks import check_optional_positive_int, check_positive_int
from ragline.core._drive import Effect, Emit
from ragline.core.exceptions import TokenLimitError

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "AsyncCombineDocsProtocol",
    "CombineDocsProtocol",
    "MapReduceDocumentsChain",
    "ReduceDocumentsChain",
    "acollapse_docs",
    "collapse_docs",
    "split_list_of_docs",
]

# Collapsing that does not shrink the text would loop for ever; stop after this many rounds.
MAX_COLLAPSE_ROUNDS = 10


class MapReduceDocumentsChain(BaseCombineDocumentsChain):
    """Map each document with ``question_prompt``, collapse if needed, then reduce.

    Args:
        llm: the model.
        question_prompt: the map prompt (one document in the document variable).
        combine_prompt: the reduce prompt (all mapped outputs in the document variable).
        collapse_prompt: shortens a group of mapped outputs (default: a condensing prompt).
        token_max: the most tokens the reduce prompt's documents may take.
        token_counter: counts tokens of a text (default: the model's ``get_num_tokens``).
        max_concurrency: how many map calls run at once (default: the config's).
        question_key: the question variable of the default prompts.
        (others as :class:`BaseCombineDocumentsChain`)

    Raises:
        InvalidInputError: a prompt lacks the document variable; ``token_max`` < 1; no
            token counter can be found. At run time: one mapped output alone exceeds
            ``token_max`` (it could never be collapsed to fit).

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> model = FakeListChatModel(responses=["a", "b", "a and b"])
        >>> chain = MapReduceDocumentsChain(model, max_concurrency=1)
        >>> chain.invoke({"context": [Document("1"), Document("2")], "question": "?"})
        'a and b'
    """

    def __init__(
        self,
        llm: Runnable[Any, Any] | None = None,
        *,
        question_prompt: BasePromptTemplate | None = None,
        combine_prompt: BasePromptTemplate | None = None,
        collapse_prompt: BasePromptTemplate | None = None,
        token_max: int = 3000,
        token_counter: Callable[[str], int] | None = None,
        max_concurrency: int | None = None,
        question_key: str = "question",
        llm_chain: Any = None,
        reduce_documents_chain: ReduceDocumentsChain | None = None,
        **options: Unpack[ChainOptions],
    ) -> None:
        self.llm_chain = llm_chain
        self.reduce_documents_chain = reduce_documents_chain
        if llm_chain is not None:
            self._init_from_chains(llm_chain, reduce_documents_chain, options)
            return
        if llm is None:
            raise InvalidInputError(
                "MapReduceDocumentsChain needs llm=... (or llm_chain=LLMChain(...) and "
                "reduce_documents_chain=ReduceDocumentsChain(...))"
            )
        super().__init__(llm, **options)
        self.token_max = check_positive_int("token_max", token_max)
        self.question_prompt = question_prompt or _prompts.map_prompt(question_key)
        self.combine_prompt = combine_prompt or _prompts.reduce_prompt(question_key)
        self.collapse_prompt = collapse_prompt or _prompts.collapse_prompt(question_key)
        for what, prompt in [
            ("question_prompt", self.question_prompt),
            ("combine_prompt", self.combine_prompt),
            ("collapse_prompt", self.collapse_prompt),
        ]:
            _require_variable(prompt, self.document_variable_name, what)
        self.token_counter = token_counter or token_counter_of(llm)
        self.max_concurrency = check_optional_positive_int("max_concurrency", max_concurrency)

    def _init_from_chains(
        self, llm_chain: Any, reduce_chain: ReduceDocumentsChain | None, options: Any
    ) -> None:
        if not isinstance(reduce_chain, ReduceDocumentsChain):
            raise InvalidInputError(
                "MapReduceDocumentsChain(llm_chain=...) needs reduce_documents_chain="
                "ReduceDocumentsChain(combine_documents_chain=...), got "
                f"{type(reduce_chain).__name__}"
            )
        document_variable_from(llm_chain, options, "MapReduceDocumentsChain")
        options.setdefault("input_key", "input_documents")
        options.setdefault("output_key", "output_text")
        options.setdefault("empty_answer", None)  # no documents: the chains run anyway
        super().__init__(llm_chain.llm, **options)
        self.token_max = reduce_chain.token_max
        self.question_prompt = llm_chain.prompt
        self.combine_prompt = self.collapse_prompt = None  # type: ignore[assignment]
        self.max_concurrency = None

    @property
    def _prompts(self) -> list[BasePromptTemplate]:
        if self.llm_chain is not None:
            return [self.llm_chain.prompt]
        return [self.question_prompt, self.combine_prompt, self.collapse_prompt]

    def get_name(self) -> str:
        if self.name:
            return self.name
        return "MapReduceDocumentsChain" if self.llm_chain else "map_reduce_documents_chain"

    def _batch_config(self) -> dict[str, Any]:
        return concurrency_config(self.max_concurrency)

    def _groups(self, documents: list[Document]) -> list[list[Document]] | None:
        """Groups of documents that each fit in ``token_max``; None when all fit at once."""
        if self.token_counter(self._render(documents)) <= self.token_max:
            return None  # the usual case: one count, none per document
        sizes = [self.token_counter(self._render([d])) for d in documents]
        for index, size in enumerate(sizes):
            if size > self.token_max:
                raise TokenLimitError(
                    f"mapped document {index} alone is {size} tokens, more than token_max="
                    f"{self.token_max}; it cannot be collapsed to fit: raise token_max or "
                    "split the documents smaller"
                )
        groups: list[list[Document]] = [[]]
        for document in documents:
            candidate = [*groups[-1], document]
            if groups[-1] and self.token_counter(self._render(candidate)) > self.token_max:
                groups.append([document])
            else:
                groups[-1] = candidate
        return groups

    def _collapse_inputs(
        self, groups: list[list[Document]], variables: dict[str, Any]
    ) -> list[dict[str, Any]]:
        return [{**variables, self.document_variable_name: self._render(g)} for g in groups]

    def _prepare(self, documents: list[Document], variables: dict[str, Any]) -> Prepared:
        if self.llm_chain is not None:
            return (yield from self._map_then_reduce(documents, variables))
        results = yield batch(
            self._model_chain(self.question_prompt, "map"),
            self._per_document_inputs(documents, variables),
            self._batch_config(),
        )
        self._raise_first_failure(results, documents, "map")
        mapped = _as_documents(results, documents)
        steps = [d.page_content for d in mapped]
        for _ in range(MAX_COLLAPSE_ROUNDS):
            groups = self._groups(mapped)
            if groups is None:
                break
            results = yield batch(
                self._model_chain(self.collapse_prompt, "collapse"),
                self._collapse_inputs(groups, variables),
                self._batch_config(),
            )
            mapped = self._collapsed(results, groups)
        else:
            raise _did_not_fit(self.token_max)
        return self._reduce(mapped, variables, steps)

    def _map_then_reduce(
        self, documents: list[Document], variables: dict[str, Any]
    ) -> Generator[Effect | Emit, Any, _Final]:
        """LangChain's wiring: the LLMChain's ``apply`` over the documents' texts, then
        the ReduceDocumentsChain's steps over the answers (with the documents' metadata)."""
        token_max = variables.pop("token_max", None)
        chain = self.llm_chain
        inputs = [{self.document_variable_name: d.page_content, **variables} for d in documents]
        results = yield Effect(chain.apply, chain.aapply, inputs)
        texts = [result[chain.output_key] for result in results]
        mapped = [
            Document(text, metadata=dict(d.metadata))
            for text, d in zip(texts, documents, strict=True)
        ]
        assert self.reduce_documents_chain is not None  # set with llm_chain
        final = yield from self.reduce_documents_chain._reduce_steps(mapped, variables, token_max)
        final.steps = texts
        return final

    def _collapsed(self, results: list[Any], groups: list[list[Document]]) -> list[Document]:
        """Collapse outputs as Documents; a failed call names the first document of its group."""
        self._raise_first_failure(results, [group[0] for group in groups], "collapse")
        return _as_documents(results, [group[0] for group in groups])

    def _reduce(
        self, mapped: list[Document], variables: dict[str, Any], steps: list[str]
    ) -> _Final:
        final_input = {**variables, self.document_variable_name: self._render(mapped)}
        return _Final(
            self._model_chain(self.combine_prompt, "reduce", final=True), final_input, steps=steps
        )


class ReduceDocumentsChain(BaseCombineDocumentsChain):
    """Combine documents with one chain, collapsing them first while they do not fit.

    While ``combine_documents_chain.prompt_length(documents)`` is over ``token_max``, the
    documents are split into runs that each fit (:func:`split_list_of_docs`) and each run
    becomes one document: the collapse chain's answer, with the run's metadata values
    joined by ``", "``. Then ``combine_documents_chain`` combines what is left (its
    steps run inside this chain's run, as in LangChain: a collapse is a run of the
    collapse chain, the final combine is not a run of the combine chain). It takes
    ``input_documents`` and returns ``{"output_text": answer}``.

    Args:
        combine_documents_chain: the final chain (a ``StuffDocumentsChain``).
        collapse_documents_chain: the chain that shortens a run of documents (default:
            ``combine_documents_chain``).
        token_max: the most tokens the combine prompt may take.
        collapse_max_retries: stop (InvalidInputError) after this many collapse rounds;
            ``None`` stops after 10 rounds that did not bring the documents under
            ``token_max`` (LangChain's would loop for ever).
        input_key, output_key, name, verbose, callbacks, tags, metadata: as for
            :class:`BaseCombineDocumentsChain`.

    Raises:
        InvalidInputError: a chain is not a combine-documents chain; ``token_max`` < 1.
            At run time: one document alone is over ``token_max``, or collapsing did not
            bring them under it.

    Example:
        >>> from ragline.chains import LLMChain, StuffDocumentsChain
        >>> from ragline.core import FakeListLLM, PromptTemplate
        >>> stuff = StuffDocumentsChain(llm_chain=LLMChain(
        ...     llm=FakeListLLM(responses=["two fruits"]),
        ...     prompt=PromptTemplate.from_template("Sum up: {docs}")))
        >>> reduce = ReduceDocumentsChain(combine_documents_chain=stuff)
        >>> reduce.invoke({"input_documents": [Document("apple"), Document("pear")]})["output_text"]
        'two fruits'
    """

    def __init__(
        self,
        *,
        combine_documents_chain: BaseCombineDocumentsChain,
        collapse_documents_chain: BaseCombineDocumentsChain | None = None,
        token_max: int = 3000,
        collapse_max_retries: int | None = None,
        input_key: str = "input_documents",
        output_key: str = "output_text",
        name: str | None = None,
        verbose: bool | None = None,
        callbacks: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        callback_manager: Any = None,
    ) -> None:
        for what, chain in [
            ("combine_documents_chain", combine_documents_chain),
            ("collapse_documents_chain", collapse_documents_chain),
        ]:
            if chain is not None and not isinstance(chain, BaseCombineDocumentsChain):
                raise InvalidInputError(
                    f"{what} must be a combine-documents chain (StuffDocumentsChain ...), "
                    f"got {type(chain).__name__}"
                )
        super().__init__(
            combine_documents_chain.llm,
            input_key=input_key,
            output_key=output_key,
            empty_answer=None,
            name=name,
            verbose=verbose,
            callbacks=callbacks,
            tags=tags,
            metadata=metadata,
            callback_manager=callback_manager,
        )
        self.combine_documents_chain = combine_documents_chain
        self.collapse_documents_chain = collapse_documents_chain
        self.token_max = check_positive_int("token_max", token_max)
        self.collapse_max_retries = check_optional_positive_int(
            "collapse_max_retries", collapse_max_retries
        )

    @property
    def _prompts(self) -> list[BasePromptTemplate]:
        return []  # the inner chains check their own variables

    def get_name(self) -> str:
        return self.name or "ReduceDocumentsChain"

    def _prepare(self, documents: list[Document], variables: dict[str, Any]) -> Prepared:
        token_max = variables.pop("token_max", None)
        return (yield from self._reduce_steps(documents, variables, token_max))

    def _reduce_steps(
        self, documents: list[Document], variables: dict[str, Any], token_max: int | None
    ) -> Generator[Effect | Emit, Any, _Final]:
        """Collapse while over the limit, then hand the combine chain back as the final
        step (its answer is its ``output_key``)."""
        combine = self.combine_documents_chain
        collapse = self.collapse_documents_chain or combine
        limit = token_max or self.token_max

        def length(docs: list[Document], **kwargs: Any) -> int | None:
            return _prompt_length(combine, docs, kwargs)

        rounds = 0
        while (size := length(documents, **variables)) is not None and size > limit:
            if rounds == (self.collapse_max_retries or MAX_COLLAPSE_ROUNDS):
                raise TokenLimitError(
                    f"the documents still take {size} tokens, more than token_max={limit}, "
                    f"after {rounds} collapse rounds: the collapse chain is not shortening "
                    "them (raise token_max or collapse_max_retries)"
                )
            collapsed = []
            for group in split_list_of_docs(documents, length, limit, **variables):
                output = yield invoke(collapse, {**variables, collapse.input_key: group})
                text = output[collapse.output_key] if collapse.output_key else output
                collapsed.append(Document(str(text), metadata=_joined_metadata(group)))
            documents = collapsed
            rounds += 1
        # the combine chain's own steps, inline (no run of its own), as LangChain's
        # reduce calls its combine_docs: a StuffDocumentsChain(llm_chain=...) shows as
        # its LLMChain's run
        prepared = combine._prepare(documents, variables)
        if isinstance(prepared, _Final):
            return prepared
        return (yield from prepared)


def _prompt_length(chain: BaseCombineDocumentsChain, docs: list[Document], kwargs: Any) -> Any:
    measure = getattr(chain, "prompt_length", None)
    return measure(docs, **kwargs) if callable(measure) else None


def split_list_of_docs(
    docs: list[Document],
    length_func: Callable[..., int | None],
    token_max: int,
    **kwargs: Any,
) -> list[list[Document]]:
    """Split ``docs`` into consecutive runs whose ``length_func(run, **kwargs)`` is at most
    ``token_max`` (a run grows until the next document would push it over).

    Raises:
        TokenLimitError: the first document alone is over ``token_max`` (a ValueError).
            As in LangChain, a later document over it is not refused: it gets a run of
            its own.

    Example:
        >>> words = lambda docs: sum(len(d.page_content.split()) for d in docs)
        >>> docs = [Document("a b"), Document("c"), Document("d e f")]
        >>> [[d.page_content for d in run] for run in split_list_of_docs(docs, words, 3)]
        [['a b', 'c'], ['d e f']]
    """
    runs: list[list[Document]] = []
    current: list[Document] = []
    for index, doc in enumerate(docs):
        current.append(doc)
        size = length_func(current, **kwargs)
        if size is not None and size > token_max:
            if len(current) == 1:
                raise TokenLimitError(
                    f"document {index} alone takes {size} tokens, more than token_max="
                    f"{token_max}; it cannot be collapsed to fit: raise token_max or split "
                    "the documents smaller"
                )
            runs.append(current[:-1])
            current = current[-1:]
    runs.append(current)  # the last run (empty when there are no documents)
    return runs


class CombineDocsProtocol(Protocol):
    """What :func:`collapse_docs` calls: documents (and keywords) in, text out."""

    def __call__(self, docs: list[Document], **kwargs: Any) -> str: ...


class AsyncCombineDocsProtocol(Protocol):
    """What :func:`acollapse_docs` awaits: documents (and keywords) in, text out."""

    def __call__(self, docs: list[Document], **kwargs: Any) -> Awaitable[str]: ...


def collapse_docs(
    docs: list[Document], combine_document_func: CombineDocsProtocol, **kwargs: Any
) -> Document:
    """Collapse ``docs`` into one document: ``combine_document_func(docs, **kwargs)`` is
    its text, each metadata key's values are joined as text by ``", "``.

    Example:
        >>> docs = [Document("a", metadata={"page": 1}), Document("b", metadata={"page": 2})]
        >>> collapse_docs(docs, lambda docs: " + ".join(d.page_content for d in docs))
        Document(metadata={'page': '1, 2'}, page_content='a + b')
    """
    return Document(
        page_content=combine_document_func(docs, **kwargs), metadata=_joined_metadata(docs)
    )


async def acollapse_docs(
    docs: list[Document], combine_document_func: AsyncCombineDocsProtocol, **kwargs: Any
) -> Document:
    """:func:`collapse_docs` with an async ``combine_document_func`` (a chain's ``ainvoke``)."""
    text = await combine_document_func(docs, **kwargs)
    return Document(page_content=text, metadata=_joined_metadata(docs))


def _joined_metadata(docs: list[Document]) -> dict[str, str]:
    """The metadata of a collapsed run: each key's values as text, joined by ", "."""
    joined: dict[str, str] = {}
    for doc in docs:
        for key, value in doc.metadata.items():
            joined[key] = f"{joined[key]}, {value}" if key in joined else str(value)
    return joined


def _as_documents(texts: list[Any], sources: list[Document]) -> list[Document]:
    """Model outputs as Documents that keep the id and metadata of what they came from."""
    return [
        Document(str(text), metadata=dict(source.metadata), id=source.id)
        for text, source in zip(texts, sources, strict=True)
    ]


def _did_not_fit(token_max: int) -> TokenLimitError:
    return TokenLimitError(
        f"collapsing the mapped outputs {MAX_COLLAPSE_ROUNDS} times did not bring them under "
        f"token_max={token_max}; the collapse prompt is not shortening them"
    )
