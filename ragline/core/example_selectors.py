"""Example selectors: which examples a few-shot prompt shows for a given input.

``LengthBasedExampleSelector`` keeps examples in order while they fit a length budget;
``SemanticSimilarityExampleSelector`` and ``MaxMarginalRelevanceExampleSelector`` keep
the examples nearest to the input in any vector store (ragline's ``InMemoryVectorStore``,
``FAISS``, ``Redis`` ...). The store is used through its public methods only
(``add_texts``, ``similarity_search``, ``max_marginal_relevance_search``, ``from_texts``
and their async twins), so core imports no store: the dependency direction holds.

Each example is stored as a document whose text is the example's values (sorted by key,
or only ``input_keys``) joined by spaces, and whose metadata is the example itself.

Example:
    >>> from ragline.core import PromptTemplate
    >>> selector = LengthBasedExampleSelector(
    ...     examples=[{"q": "one two"}, {"q": "three four five"}],
    ...     example_prompt=PromptTemplate.from_template("{q}"), max_length=6)
    >>> selector.select_examples({"input": "a b"})
    [{'q': 'one two'}]
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragline.core._checks import check_positive_int
from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.core.exceptions import InvalidInputError, PromptKeyError

__all__ = [
    "BaseExampleSelector",
    "LengthBasedExampleSelector",
    "MaxMarginalRelevanceExampleSelector",
    "SemanticSimilarityExampleSelector",
]


class BaseExampleSelector(ABC):
    """Chooses examples for an input; implement ``add_example`` and ``select_examples``
    (the async twins run them inline unless a subclass does better)."""

    @abstractmethod
    def add_example(self, example: dict[str, Any]) -> Any:
        """Add one example to choose from."""

    @abstractmethod
    def select_examples(self, input_variables: dict[str, Any]) -> list[dict[str, Any]]:
        """The examples to show for these input variables."""

    async def aadd_example(self, example: dict[str, Any]) -> Any:
        """Async ``add_example``."""
        return self.add_example(example)

    async def aselect_examples(self, input_variables: dict[str, Any]) -> list[dict[str, Any]]:
        """Async ``select_examples``."""
        return self.select_examples(input_variables)


def _word_count(text: str) -> int:
    # LangChain's measure: pieces between spaces and newlines
    return len(re.split("\n| ", text))


class LengthBasedExampleSelector(BaseExampleSelector):
    """The examples, in order, while the input and the examples so far fit ``max_length``.

    Args:
        examples: the examples (dicts with the example prompt's variables).
        example_prompt: renders one example; its text is what is measured.
        max_length: the budget (default 2048), in ``get_text_length`` units.
        get_text_length: how long a text is (default: LangChain's, the number of pieces
            between spaces and newlines).

    Example:
        >>> from ragline.core import PromptTemplate
        >>> selector = LengthBasedExampleSelector(
        ...     examples=[{"a": "x y"}, {"a": "z"}],
        ...     example_prompt=PromptTemplate.from_template("{a}"), max_length=3)
        >>> [selector.select_examples({"q": ""}), selector.select_examples({"q": "long one"})]
        [[{'a': 'x y'}], []]
    """

    def __init__(
        self,
        *,
        examples: Sequence[Mapping[str, Any]],
        example_prompt: Any,
        max_length: int = 2048,
        get_text_length: Callable[[str], int] = _word_count,
    ) -> None:
        check_positive_int("max_length", max_length)
        if not callable(get_text_length):
            raise InvalidInputError("get_text_length must be a function of a str")
        self.example_prompt = example_prompt
        self.max_length = max_length
        self.get_text_length = get_text_length
        self.examples: list[dict[str, Any]] = []
        self.example_text_lengths: list[int] = []
        for example in examples:
            self.add_example(dict(example))

    def add_example(self, example: dict[str, Any]) -> None:
        self.examples.append(example)
        self.example_text_lengths.append(
            self.get_text_length(self.example_prompt.format(**example))
        )

    def select_examples(self, input_variables: dict[str, Any]) -> list[dict[str, Any]]:
        text = " ".join(str(value) for value in input_variables.values())
        remaining = self.max_length - self.get_text_length(text)
        chosen = []
        for example, length in zip(self.examples, self.example_text_lengths, strict=True):
            if remaining <= 0 or remaining - length < 0:
                break
            chosen.append(example)
            remaining -= length
        return chosen


def _example_text(example: Mapping[str, Any], input_keys: Sequence[str] | None) -> str:
    keys = sorted(input_keys if input_keys else example)
    missing = [key for key in keys if key not in example]
    if missing:
        # a KeyError (printed as one) where LangChain's selector raises KeyError
        raise PromptKeyError(f"{dict(example)!r:.80} lacks the input key(s) {missing}")
    return " ".join(str(example[key]) for key in keys)


class _VectorStoreSelector(BaseExampleSelector):
    """The examples stored in a vector store, found by a search of the input's text."""

    def __init__(
        self,
        vectorstore: Any,
        *,
        k: int = 4,
        input_keys: Sequence[str] | None = None,
        example_keys: Sequence[str] | None = None,
        vectorstore_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        for method in ("add_texts", "similarity_search"):
            if not callable(getattr(vectorstore, method, None)):
                raise InvalidInputError(
                    f"vectorstore must be a vector store (with {method}), got "
                    f"{type(vectorstore).__name__}"
                )
        check_positive_int("k", k)
        self.vectorstore = vectorstore
        self.k = k
        self.input_keys = list(input_keys) if input_keys else None
        self.example_keys = list(example_keys) if example_keys else None
        self.vectorstore_kwargs = dict(vectorstore_kwargs or {})

    @classmethod
    def from_examples(
        cls,
        examples: Sequence[Mapping[str, Any]],
        embeddings: Any,
        vectorstore_cls: Any,
        k: int = 4,
        input_keys: Sequence[str] | None = None,
        *,
        example_keys: Sequence[str] | None = None,
        vectorstore_kwargs: Mapping[str, Any] | None = None,
        **vectorstore_cls_kwargs: Any,
    ) -> Any:
        """Build a store of ``examples`` with ``vectorstore_cls.from_texts`` and a
        selector over it.

        Args:
            examples: the examples.
            embeddings: the ``Embeddings`` of the store.
            vectorstore_cls: a vector store class (``InMemoryVectorStore``, ``FAISS`` ...).
            k: how many examples to select.
            input_keys: the keys whose values are embedded (default: every key).
            example_keys: the keys kept in selected examples (default: every key).
            vectorstore_kwargs: extra search options (``filter`` ...).
            **vectorstore_cls_kwargs: options of the store's constructor.

        Example:
            >>> from ragline.embeddings import HashingEmbeddings  # doctest: +SKIP
            >>> from ragline.vectorstores import InMemoryVectorStore  # doctest: +SKIP
            >>> SemanticSimilarityExampleSelector.from_examples(  # doctest: +SKIP
            ...     examples, HashingEmbeddings(), InMemoryVectorStore, k=2)
        """
        return drive(
            cls._building(examples, embeddings, vectorstore_cls, k, input_keys, example_keys,
                          vectorstore_kwargs, vectorstore_cls_kwargs)
        )  # fmt: skip

    @classmethod
    async def afrom_examples(
        cls,
        examples: Sequence[Mapping[str, Any]],
        embeddings: Any,
        vectorstore_cls: Any,
        k: int = 4,
        input_keys: Sequence[str] | None = None,
        *,
        example_keys: Sequence[str] | None = None,
        vectorstore_kwargs: Mapping[str, Any] | None = None,
        **vectorstore_cls_kwargs: Any,
    ) -> Any:
        """Async ``from_examples`` (the store's ``afrom_texts``)."""
        return await adrive(
            cls._building(examples, embeddings, vectorstore_cls, k, input_keys, example_keys,
                          vectorstore_kwargs, vectorstore_cls_kwargs)
        )  # fmt: skip

    @classmethod
    def _building(
        cls,
        examples: Sequence[Mapping[str, Any]],
        embeddings: Any,
        vectorstore_cls: Any,
        k: int,
        input_keys: Sequence[str] | None,
        example_keys: Sequence[str] | None,
        vectorstore_kwargs: Mapping[str, Any] | None,
        store_options: dict[str, Any],
    ) -> Operation[Any]:
        options = cls._split_options(store_options)
        texts = [_example_text(example, input_keys) for example in examples]
        store = yield Effect(
            vectorstore_cls.from_texts,
            getattr(vectorstore_cls, "afrom_texts", None),
            texts,
            embeddings,
            metadatas=[dict(example) for example in examples],
            **store_options,
        )
        return cls(store, k=k, input_keys=input_keys, example_keys=example_keys,
                   vectorstore_kwargs=vectorstore_kwargs, **options)  # fmt: skip

    # options of the selector itself that from_examples takes among the store's options
    _selector_options: tuple[str, ...] = ()

    @classmethod
    def _split_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        return {name: options.pop(name) for name in cls._selector_options if name in options}

    def _adding(self, example: dict[str, Any]) -> Operation[str]:
        store = self.vectorstore
        text = _example_text(example, self.input_keys)
        ids = yield Effect(store.add_texts, store.aadd_texts, [text], metadatas=[dict(example)])
        return ids[0]  # type: ignore[no-any-return]

    def add_example(self, example: dict[str, Any]) -> str:
        """Store one more example; returns its document id."""
        return drive(self._adding(example))

    async def aadd_example(self, example: dict[str, Any]) -> str:
        return await adrive(self._adding(example))

    @abstractmethod
    def _search(self, text: str) -> Effect:
        """The store search for ``text`` (its sync and async forms)."""

    def _selecting(self, input_variables: dict[str, Any]) -> Operation[list[dict[str, Any]]]:
        documents = yield self._search(_example_text(input_variables, self.input_keys))
        examples = [dict(document.metadata) for document in documents]
        if self.example_keys:
            examples = [{key: example[key] for key in self.example_keys} for example in examples]
        return examples

    def select_examples(self, input_variables: dict[str, Any]) -> list[dict[str, Any]]:
        return drive(self._selecting(input_variables))

    async def aselect_examples(self, input_variables: dict[str, Any]) -> list[dict[str, Any]]:
        return await adrive(self._selecting(input_variables))


class SemanticSimilarityExampleSelector(_VectorStoreSelector):
    """The ``k`` examples most similar to the input, from any ragline vector store.

    Args:
        vectorstore: the store holding the examples (see ``from_examples``).
        k: how many examples to select.
        input_keys: the input's keys whose values are searched for (default: all).
        example_keys: the keys kept in selected examples (default: all).
        vectorstore_kwargs: extra options of ``similarity_search`` (``filter``).

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> selector = SemanticSimilarityExampleSelector.from_examples(
        ...     [{"q": "red apple"}, {"q": "blue sky"}], HashingEmbeddings(),
        ...     InMemoryVectorStore, k=1)
        >>> selector.select_examples({"q": "a blue sky"})
        [{'q': 'blue sky'}]
    """

    def _search(self, text: str) -> Effect:
        store = self.vectorstore
        return Effect(store.similarity_search, store.asimilarity_search, text, k=self.k,
                      **self.vectorstore_kwargs)  # fmt: skip


class MaxMarginalRelevanceExampleSelector(_VectorStoreSelector):
    """``k`` examples relevant to the input yet unlike each other (maximal marginal
    relevance over the ``fetch_k`` nearest), from any ragline vector store.

    Args:
        vectorstore: the store holding the examples (see ``from_examples``).
        k: how many examples to select.
        fetch_k: how many nearest examples to choose from (at least ``k``).
        input_keys, example_keys, vectorstore_kwargs: as for
            ``SemanticSimilarityExampleSelector``.

    ``from_examples`` / ``afrom_examples`` take ``fetch_k=`` too.

    Example:
        >>> MaxMarginalRelevanceExampleSelector.from_examples(  # doctest: +SKIP
        ...     examples, embeddings, FAISS, k=2, fetch_k=10)
    """

    _selector_options = ("fetch_k",)

    def __init__(self, vectorstore: Any, *, fetch_k: int = 20, **options: Any) -> None:
        super().__init__(vectorstore, **options)
        check_positive_int("fetch_k", fetch_k)
        if not callable(getattr(vectorstore, "max_marginal_relevance_search", None)):
            raise InvalidInputError(
                f"{type(vectorstore).__name__} has no max_marginal_relevance_search"
            )
        self.fetch_k = fetch_k

    def _search(self, text: str) -> Effect:
        store = self.vectorstore
        return Effect(store.max_marginal_relevance_search, store.amax_marginal_relevance_search,
                      text, k=self.k, fetch_k=self.fetch_k, **self.vectorstore_kwargs)  # fmt: skip
