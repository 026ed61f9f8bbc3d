"""Map-reduce: ask about each document on its own, then combine the answers.

The map step runs one model call per document, concurrently (bounded by
``max_concurrency``). When the mapped outputs together exceed ``token_max`` tokens,
they are collapsed in groups (each group summarised by one call) until they fit; then
one reduce call writes the answer from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragline.chains import _prompts
from ragline.chains._base import (
    BaseCombineDocumentsChain,
    ChainOptions,
    Prepared,
    _Final,
    _require_variable,
    concurrency_config,
)
from ragline.chains._steps import batch
from ragline.core import BasePromptTemplate, Document, InvalidInputError, Runnable
from ragline.core._checks import check_optional_positive_int, check_positive_int

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["MapReduceDocumentsChain"]

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
        llm: Runnable[Any, Any],
        *,
        question_prompt: BasePromptTemplate | None = None,
        combine_prompt: BasePromptTemplate | None = None,
        collapse_prompt: BasePromptTemplate | None = None,
        token_max: int = 3000,
        token_counter: Callable[[str], int] | None = None,
        max_concurrency: int | None = None,
        question_key: str = "question",
        **options: Unpack[ChainOptions],
    ) -> None:
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
        self.token_counter = token_counter or _token_counter_of(llm)
        self.max_concurrency = check_optional_positive_int("max_concurrency", max_concurrency)

    @property
    def _prompts(self) -> list[BasePromptTemplate]:
        return [self.question_prompt, self.combine_prompt, self.collapse_prompt]

    def get_name(self) -> str:
        return self.name or "map_reduce_documents_chain"

    def _batch_config(self) -> dict[str, Any]:
        return concurrency_config(self.max_concurrency)

    def _groups(self, documents: list[Document]) -> list[list[Document]] | None:
        """Groups of documents that each fit in ``token_max``; None when all fit at once."""
        if self.token_counter(self._render(documents)) <= self.token_max:
            return None  # the usual case: one count, none per document
        sizes = [self.token_counter(self._render([d])) for d in documents]
        for index, size in enumerate(sizes):
            if size > self.token_max:
                raise InvalidInputError(
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


def _as_documents(texts: list[Any], sources: list[Document]) -> list[Document]:
    """Model outputs as Documents that keep the id and metadata of what they came from."""
    return [
        Document(str(text), metadata=dict(source.metadata), id=source.id)
        for text, source in zip(texts, sources, strict=True)
    ]


def _did_not_fit(token_max: int) -> InvalidInputError:
    return InvalidInputError(
        f"collapsing the mapped outputs {MAX_COLLAPSE_ROUNDS} times did not bring them under "
        f"token_max={token_max}; the collapse prompt is not shortening them"
    )


def _token_counter_of(llm: Runnable[Any, Any]) -> Callable[[str], int]:
    """The model's ``get_num_tokens``, looking through bindings, retries and fallbacks."""
    seen: list[Any] = [llm]
    while seen:
        candidate = seen.pop(0)
        counter = getattr(candidate, "get_num_tokens", None)
        if callable(counter):
            return counter
        for attribute in ("bound", "runnable", "default"):
            inner = getattr(candidate, attribute, None)
            if isinstance(inner, Runnable):
                seen.append(inner)
    raise InvalidInputError(
        f"cannot count tokens with {type(llm).__name__}: it has no get_num_tokens; pass "
        "token_counter=..."
    )
