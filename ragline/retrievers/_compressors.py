"""Document compressors: keep the documents similar to the query, or what a model extracts."""

from __future__ import annotations

import asyncio
import builtins
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ragline.core import (
    BaseDocumentTransformer,
    BaseOutputParser,
    BasePromptTemplate,
    ConfigurationError,
    Document,
    InvalidInputError,
    PromptTemplate,
    Runnable,
)
from ragline.core._checks import (
    check_flag,
    check_number,
    check_optional_number,
    check_optional_positive_int,
)
from ragline.core._optional import require
from ragline.core.runnables.base import adopt_runnable
from ragline.retrievers._compression import BaseDocumentCompressor

if TYPE_CHECKING:
    from ragline.embeddings import Embeddings

__all__ = [
    "DEFAULT_EXTRACT_PROMPT",
    "EmbeddingsClusteringFilter",
    "EmbeddingsFilter",
    "EmbeddingsRedundantFilter",
    "LLMChainExtractor",
    "NoOutputParser",
]


@dataclass
class _DocumentWithState(Document):
    """A Document with ``state``, what a compressor worked out about it (LangChain's
    name and printed form): ``EmbeddingsFilter`` gives its embedding (``embedded_doc``)
    and its similarity to the query (``query_similarity_score``)."""

    state: dict[str, Any] = field(default_factory=dict)

    _dump_keys = ("id", "metadata", "page_content", "type", "state")
    # ragline.core.load's dumps writes it as LangChain's dumps does: not_implemented,
    # with this id and its printed form
    _lc_not_implemented_id = (
        "langchain_community",
        "document_transformers",
        "embeddings_redundant_filter",
        "_DocumentWithState",
    )

    def __repr__(self) -> str:
        head = f"id={self.id!r}, " if self.id is not None else ""
        return (
            f"_DocumentWithState({head}metadata={self.metadata!r}, "
            f"page_content={self.page_content!r}, state={self.state!r})"
        )

    def to_document(self) -> Document:
        """The document without its state."""
        return Document(self.page_content, metadata=self.metadata, id=self.id)

    @classmethod
    def from_document(cls, document: Document) -> _DocumentWithState:
        """``document`` with an empty state (the same state when it has one)."""
        if isinstance(document, cls):
            return document
        return cls(document.page_content, metadata=document.metadata, id=document.id)


class EmbeddingsFilter(BaseDocumentCompressor):
    """Keep the documents whose embedding is most similar (cosine) to the query's.

    All documents are embedded in one ``embed_documents_array`` call and compared with
    one matrix-vector product. The result is best first (equal scores in the order of
    numpy's argsort reversed, as LangChain's): the ``k`` most similar, then only those
    whose similarity is above ``similarity_threshold``. (``k=None`` keeps all; LangChain
    replaces an explicit ``k=None`` by its default 20.)

    Args:
        embeddings: the embeddings to compare with.
        similarity_threshold: a document is kept when its cosine similarity is above this,
            in [-1, 1] (None: no floor).
        k: how many documents to keep at most (None: no limit). At least one of ``k``
            and ``similarity_threshold`` must be set.
        similarity_fn: instead of the cosine, a function of two matrices of vectors
            (rows) returning their similarity matrix, as LangChain's ``similarity_fn``
            (then the threshold may be any number).

    Raises:
        ConfigurationError: both ``k`` and ``similarity_threshold`` are None.
        InvalidInputError: ``k`` < 1, a threshold outside [-1, 1] (for the cosine), or a
            ``similarity_fn`` that is not callable or gives a matrix of the wrong shape.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> embeddings = HashingEmbeddings(dimension=256)
        >>> keep = EmbeddingsFilter(embeddings, similarity_threshold=0.3, k=None)
        >>> kept = keep.compress_documents(
        ...     [Document("stock prices"), Document("cats purr")], "cats purr")
        >>> [(d.page_content, round(float(d.state["query_similarity_score"]), 2)) for d in kept]
        [('cats purr', 1.0)]
    """

    def __init__(
        self,
        embeddings: Embeddings,
        similarity_threshold: float | None = None,
        k: int | None = 20,
        *,
        similarity_fn: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        if not callable(getattr(embeddings, "embed_documents_array", None)):
            raise InvalidInputError(
                f"EmbeddingsFilter needs a ragline Embeddings, got {type(embeddings).__name__}"
            )
        self.similarity_fn = _check_similarity_fn("EmbeddingsFilter", similarity_fn)
        if similarity_threshold is None and k is None:
            raise ConfigurationError(
                "EmbeddingsFilter needs k or similarity_threshold (or both); both are None"
            )
        self.embeddings = embeddings
        self.k = check_optional_positive_int("EmbeddingsFilter k", k)
        low, high = _threshold_range(similarity_fn)
        self.similarity_threshold = check_optional_number(
            "EmbeddingsFilter similarity_threshold", similarity_threshold, low=low, high=high
        )

    def __repr__(self) -> str:
        return (
            f"EmbeddingsFilter(embeddings={type(self.embeddings).__name__}, "
            f"similarity_threshold={self.similarity_threshold}, k={self.k}"
            f"{_fn_repr(self.similarity_fn)})"
        )

    def similarities(self, documents: Sequence[Document], query: str) -> np.ndarray:
        """Return the similarity of each document to the query, shape (len(documents),)."""
        return self._scored(documents, query)[1]

    def _scored(self, documents: Sequence[Document], query: str) -> tuple[Any, np.ndarray]:
        vectors = self.embeddings.embed_documents_array([d.page_content for d in documents])
        query_vectors = self.embeddings.embed_queries_array([query])
        if self.similarity_fn is not None:
            matrix = _similarity_matrix(
                "EmbeddingsFilter", self.similarity_fn, query_vectors, vectors
            )
            return vectors, matrix[0]
        return vectors, _unit_rows(vectors) @ _unit_rows(query_vectors)[0]

    def compress_documents(
        self, documents: Sequence[Document], query: str
    ) -> list[_DocumentWithState]:
        """The kept documents, best first, each with ``state``: its embedding
        (``embedded_doc``, a list of floats) and ``query_similarity_score``, as
        LangChain's (which drops the documents' ids there; ragline keeps them)."""
        documents = list(documents)
        if not documents:
            return []
        vectors, scores = self._scored(documents, query)
        # LangChain's order: numpy's default argsort reversed, so equal scores come out in
        # its order (the later document first in a short list)
        order = np.argsort(scores)[::-1]
        if self.k is not None:
            order = order[: self.k]
        if self.similarity_threshold is not None:
            order = order[scores[order] > self.similarity_threshold]
        kept = []
        for i in order.tolist():
            document = documents[i]
            state = dict(document.state) if isinstance(document, _DocumentWithState) else {}
            state["embedded_doc"] = np.asarray(vectors[i], dtype=np.float64).tolist()
            state["query_similarity_score"] = np.float64(scores[i])
            kept.append(
                _DocumentWithState(
                    document.page_content, metadata=document.metadata, id=document.id, state=state
                )
            )
        return kept


def _check_similarity_fn(owner: str, function: Any) -> Any:
    if function is not None and not callable(function):
        raise InvalidInputError(
            f"{owner} similarity_fn must be callable, got {type(function).__name__}"
        )
    return function


def _threshold_range(function: Any) -> tuple[float | None, float | None]:
    """The bounds of a similarity threshold: a cosine's [-1, 1]; any number for a
    ``similarity_fn``."""
    return (None, None) if function is not None else (-1, 1)


def _fn_repr(function: Any) -> str:
    return "" if function is None else f", similarity_fn={getattr(function, '__name__', function)}"


def _similarity_matrix(owner: str, function: Any, left: Any, right: Any) -> np.ndarray:
    """``function(left, right)`` (float64 rows, as LangChain hands them) as a float64
    matrix of shape (len(left), len(right))."""
    left = np.asarray(left, dtype=np.float64)
    right = np.asarray(right, dtype=np.float64)
    matrix = np.asarray(function(left, right), dtype=np.float64)
    if matrix.shape != (len(left), len(right)):
        raise InvalidInputError(
            f"{owner} similarity_fn must return a {len(left)} x {len(right)} matrix, got "
            f"shape {matrix.shape}"
        )
    return matrix


def _unit_rows(vectors: Any) -> np.ndarray:
    """Rows scaled to length 1 (float64); a zero row stays zero, so it is similar to nothing."""
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class EmbeddingsRedundantFilter(BaseDocumentTransformer):
    """Drop near-duplicate documents (cosine similarity of their embeddings): a document
    transformer.

    By default this is LangChain's rule: every pair of documents more similar than
    ``similarity_threshold`` is taken, most similar first, and while both of a pair are
    still kept the earlier one is dropped; what is left keeps its order. So of two copies
    the later one stays, and in a chain of near-duplicates (``a`` like ``b``, ``b`` like
    ``c``, ``a`` unlike ``c``) ``a`` can go with ``b`` although nothing kept is like it.
    ``keep_first=True`` takes the documents in order instead and keeps one unless it is
    too close to a document already kept: the first copy stays (the best ranked, for a
    retriever's results), and a document goes only when a kept one is like it. All
    documents are embedded in one call.

    Args:
        embeddings: the embeddings to compare with.
        similarity_threshold: similarity above which a document is redundant, in [-1, 1]
            (any number with a ``similarity_fn``).
        keep_first: ragline's rule (above) instead of LangChain's.
        similarity_fn: instead of the cosine, a function of two matrices of vectors
            (rows) returning their similarity matrix, as LangChain's ``similarity_fn``.

    Raises:
        InvalidInputError: a threshold outside [-1, 1] (for the cosine), ``keep_first``
            not a bool, not a ragline Embeddings, or a ``similarity_fn`` that is not
            callable or gives a matrix of the wrong shape.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> texts = ["cats purr", "dogs", "cats purr"]
        >>> dedup = EmbeddingsRedundantFilter(HashingEmbeddings(dimension=256))
        >>> [d.page_content for d in dedup.transform_documents([Document(t) for t in texts])]
        ['dogs', 'cats purr']
        >>> dedup = EmbeddingsRedundantFilter(HashingEmbeddings(dimension=256), keep_first=True)
        >>> [d.page_content for d in dedup.transform_documents([Document(t) for t in texts])]
        ['cats purr', 'dogs']
    """

    def __init__(
        self,
        embeddings: Embeddings,
        similarity_threshold: float = 0.95,
        *,
        keep_first: bool = False,
        similarity_fn: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        if not callable(getattr(embeddings, "embed_documents_array", None)):
            raise InvalidInputError(
                "EmbeddingsRedundantFilter needs a ragline Embeddings, got "
                f"{type(embeddings).__name__}"
            )
        self.embeddings = embeddings
        self.similarity_fn = _check_similarity_fn("EmbeddingsRedundantFilter", similarity_fn)
        low, high = _threshold_range(similarity_fn)
        self.similarity_threshold = check_number(
            "EmbeddingsRedundantFilter similarity_threshold",
            similarity_threshold,
            low=low,
            high=high,
        )
        self.keep_first = check_flag("EmbeddingsRedundantFilter keep_first", keep_first)

    def __repr__(self) -> str:
        first = ", keep_first=True" if self.keep_first else ""
        return (
            f"EmbeddingsRedundantFilter(embeddings={type(self.embeddings).__name__}, "
            f"similarity_threshold={self.similarity_threshold}{first}"
            f"{_fn_repr(self.similarity_fn)})"
        )

    def transform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> list[_DocumentWithState]:
        """Return the documents without their near-duplicates, in their order (``kwargs``
        are ignored, as LangChain's filter ignores them). Each comes back as LangChain's
        does, a ``_DocumentWithState`` whose ``state`` has its embedding
        (``embedded_doc``); ragline's keeps the document's id."""
        documents = list(documents)
        if not documents:
            return []
        vectors = self.embeddings.embed_documents_array([d.page_content for d in documents])
        return [_with_embedding(documents[i], vectors[i]) for i in self._kept(documents, vectors)]

    def _kept(self, documents: list[Document], vectors: Any) -> list[int]:
        """The indexes of the documents to keep, in order."""
        if self.similarity_fn is not None:
            name = "EmbeddingsRedundantFilter"
            similarity = _similarity_matrix(name, self.similarity_fn, vectors, vectors)
        else:
            unit = _unit_rows(vectors)
            similarity = unit @ unit.T
        similar = similarity > self.similarity_threshold
        if self.keep_first:
            kept: list[int] = []
            for index in range(len(documents)):
                if not similar[index, kept].any():
                    kept.append(index)
            return kept
        # pairs (later, earlier), most similar first; equal similarities in reverse order
        # of (later, earlier), as LangChain's order comes out
        later, earlier = np.nonzero(np.tril(similar, k=-1))
        order = np.lexsort((-earlier, -later, -similarity[later, earlier]))
        dropped = np.zeros(len(documents), dtype=bool)
        for pair in order:
            if not dropped[later[pair]] and not dropped[earlier[pair]]:
                dropped[earlier[pair]] = True
        return [i for i, gone in enumerate(dropped.tolist()) if not gone]


def _with_embedding(document: Document, vector: Any) -> _DocumentWithState:
    """``document`` as a ``_DocumentWithState`` (its id and any state kept) whose state
    has its embedding, a list of floats, as LangChain's filters record it."""
    state = dict(document.state) if isinstance(document, _DocumentWithState) else {}
    state["embedded_doc"] = np.asarray(vector, dtype=np.float64).tolist()
    return _DocumentWithState(
        document.page_content, metadata=document.metadata, id=document.id, state=state
    )

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> list[Document]:
        """Async :meth:`transform_documents` (in a worker thread)."""
        return await asyncio.to_thread(self.transform_documents, documents)


class EmbeddingsClusteringFilter(BaseDocumentTransformer):
    """Keep a few representative documents: k-means clusters of their embeddings, and
    the documents nearest each cluster's centre (a document transformer, LangChain's
    filter of the same name; scikit-learn's ``KMeans`` does the clustering).

    For each cluster in turn the ``num_closest`` documents nearest its centre are kept,
    skipping any already kept (and taking the next nearest instead, unless
    ``remove_duplicates``). The result is grouped by cluster, or in the documents' own
    order with ``sorted=True``. All documents are embedded in one call.

    Args:
        embeddings: the embeddings to cluster with.
        num_clusters: how many clusters (at most the number of documents).
        num_closest: documents kept per cluster.
        random_state: the seed of the cluster centres' start (``None``: a new one each
            call, so results vary).
        sorted: keep the documents' order instead of grouping by cluster.
        remove_duplicates: when a cluster's nearest document is already kept, keep
            fewer rather than the next nearest.

    Raises:
        InvalidInputError: not a ragline Embeddings, a count below 1, a flag that is not
            a bool; when called, fewer documents than ``num_clusters``.
        MissingDependencyError: scikit-learn is not installed (extra ``cluster``).

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> texts = ["cats purr", "cats purr loudly", "stocks fell", "stocks fell fast"]
        >>> keep = EmbeddingsClusteringFilter(HashingEmbeddings(dimension=64), num_clusters=2)
        >>> len(keep.transform_documents([Document(t) for t in texts]))  # doctest: +SKIP
        2
    """

    def __init__(
        self,
        embeddings: Embeddings,
        num_clusters: int = 5,
        num_closest: int = 1,
        random_state: int | None = 42,
        sorted: bool = False,
        remove_duplicates: bool = False,
    ) -> None:
        name = "EmbeddingsClusteringFilter"
        if not callable(getattr(embeddings, "embed_documents_array", None)):
            raise InvalidInputError(
                f"{name} needs a ragline Embeddings, got {type(embeddings).__name__}"
            )
        self.embeddings = embeddings
        self.num_clusters = _positive_int(f"{name} num_clusters", num_clusters)
        self.num_closest = _positive_int(f"{name} num_closest", num_closest)
        if random_state is not None and (
            isinstance(random_state, bool) or not isinstance(random_state, int)
        ):
            raise InvalidInputError(
                f"{name} random_state must be an int or None, got {random_state!r}"
            )
        self.random_state = random_state
        self.sorted = check_flag(f"{name} sorted", sorted)
        self.remove_duplicates = check_flag(f"{name} remove_duplicates", remove_duplicates)

    def __repr__(self) -> str:
        return (
            f"EmbeddingsClusteringFilter(embeddings={type(self.embeddings).__name__}, "
            f"num_clusters={self.num_clusters}, num_closest={self.num_closest}, "
            f"random_state={self.random_state}, sorted={self.sorted}, "
            f"remove_duplicates={self.remove_duplicates})"
        )

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        """Return the documents nearest the cluster centres (``kwargs`` are ignored, as
        LangChain's filter ignores them)."""
        documents = list(documents)
        if not documents:
            return []
        if len(documents) < self.num_clusters:
            raise InvalidInputError(
                f"EmbeddingsClusteringFilter has num_clusters={self.num_clusters} but got "
                f"{len(documents)} documents; give at least as many documents as clusters"
            )
        cluster = require("sklearn.cluster", "cluster", package="scikit-learn")
        # float64, as LangChain clusters the embeddings' lists of floats
        vectors = np.asarray(
            self.embeddings.embed_documents_array([d.page_content for d in documents]),
            dtype=np.float64,
        )
        kmeans = cluster.KMeans(n_clusters=self.num_clusters, random_state=self.random_state)
        centres = kmeans.fit(vectors).cluster_centers_
        kept: list[int] = []
        for centre in centres:
            nearest = np.argsort(np.linalg.norm(vectors - centre, axis=1))
            if self.remove_duplicates:
                chosen = [int(i) for i in nearest[: self.num_closest] if i not in kept]
            else:
                chosen = [int(i) for i in nearest if i not in kept][: self.num_closest]
            kept.extend(chosen)
        order = builtins.sorted(kept) if self.sorted else kept
        return [documents[i] for i in order]

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> list[Document]:
        """Async :meth:`transform_documents` (in a worker thread)."""
        return await asyncio.to_thread(self.transform_documents, documents)


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"{name} must be an int of at least 1, got {value!r}")
    return value


DEFAULT_EXTRACT_PROMPT = PromptTemplate.from_template(
    "Copy, word for word, the parts of the context below that help answer the question. "
    "Do not change or add anything. If no part helps, answer exactly NO_OUTPUT.\n\n"
    "Question: {question}\n"
    "Context:\n>>>\n{context}\n>>>\n"
    "Relevant parts:"
)


class NoOutputParser(BaseOutputParser[str]):
    """Return the model's answer stripped, or ``""`` when it is ``NO_OUTPUT``.

    Example:
        >>> NoOutputParser().invoke(" NO_OUTPUT \\n"), NoOutputParser().invoke(" kept ")
        ('', 'kept')
    """

    no_output_str = "NO_OUTPUT"

    def parse(self, text: str) -> str:
        cleaned = text.strip()
        return "" if cleaned == self.no_output_str else cleaned


def default_get_input(query: str, document: Document) -> dict[str, Any]:
    """The prompt variables for one document: ``{"question": query, "context": text}``."""
    return {"question": query, "context": document.page_content}


_Compressor = TypeVar("_Compressor", bound="LLMDocumentCompressor")


class LLMDocumentCompressor(BaseDocumentCompressor):
    """Shared shape of the model-driven compressors: one model ``batch`` per call.

    A subclass names its default prompt and output parser and writes ``_keep``, which
    turns the documents and the model's outputs into the documents kept.

    Args:
        llm_chain: a Runnable from the prompt variables to the model's verdict;
            :meth:`from_llm` builds ``prompt | llm | parser``.
        get_input: builds the prompt variables from ``(query, document)``.

    Raises:
        InvalidInputError: ``llm_chain`` is not a Runnable or ``get_input`` not callable.
    """

    default_prompt: BasePromptTemplate
    parser: type[BaseOutputParser[Any]]

    def __init__(
        self,
        llm_chain: Runnable[Any, Any],
        get_input: Callable[[str, Document], Any] = default_get_input,
    ) -> None:
        name = type(self).__name__
        adopted = adopt_runnable(llm_chain)
        if adopted is None:
            raise InvalidInputError(
                f"{name} llm_chain must be a Runnable, got {type(llm_chain).__name__}"
            )
        llm_chain = adopted
        if not callable(get_input):
            raise InvalidInputError(
                f"{name} get_input must be callable, got {type(get_input).__name__}"
            )
        self.llm_chain = llm_chain
        self.get_input = get_input

    @classmethod
    def from_llm(
        cls: type[_Compressor],
        llm: Runnable[Any, Any],
        prompt: BasePromptTemplate | None = None,
        get_input: Callable[[str, Document], Any] | None = None,
    ) -> _Compressor:
        """Build the compressor with ``prompt | llm | parser()``.

        Args:
            llm: a chat or text model.
            prompt: a prompt with the variables ``question`` and ``context`` (default:
                the class's ``default_prompt``); with a custom ``get_input``, any variables.
            get_input: builds the prompt variables from ``(query, document)``.

        Raises:
            InvalidInputError: ``llm`` is not a Runnable, or the prompt's variables are
                not ``question`` and ``context`` (with the default ``get_input``).

        Example:
            >>> from ragline.core import FakeListChatModel
            >>> extractor = LLMChainExtractor.from_llm(FakeListChatModel(responses=["x"]))
            >>> extractor.get_input("q", Document("t"))
            {'question': 'q', 'context': 't'}
        """
        name = cls.__name__
        prompt = cls.default_prompt if prompt is None else prompt
        if not isinstance(prompt, BasePromptTemplate):
            raise InvalidInputError(
                f"{name} prompt must be a prompt template, got {type(prompt).__name__}"
            )
        if get_input is None and sorted(prompt.input_variables) != ["context", "question"]:
            raise InvalidInputError(
                f"{name} prompt must have the variables 'question' and 'context', "
                f"got {prompt.input_variables}"
            )
        if adopt_runnable(llm) is None:
            raise InvalidInputError(f"{name} llm must be a Runnable, got {type(llm).__name__}")
        return cls(prompt | llm | cls.parser(), get_input or default_get_input)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    @abstractmethod
    def _keep(self, documents: list[Document], outputs: list[Any]) -> list[Document]:
        """The documents kept, given the model's output for each one."""

    def compress_documents(self, documents: Sequence[Document], query: str) -> list[Document]:
        documents = list(documents)
        if not documents:
            return []
        outputs = self.llm_chain.batch([self.get_input(query, d) for d in documents])
        return self._keep(documents, outputs)

    async def acompress_documents(
        self, documents: Sequence[Document], query: str
    ) -> list[Document]:
        documents = list(documents)
        if not documents:
            return []
        outputs = await self.llm_chain.abatch([self.get_input(query, d) for d in documents])
        return self._keep(documents, outputs)


class LLMChainExtractor(LLMDocumentCompressor):
    """Ask a model to extract the relevant part of each document; drop the irrelevant ones.

    All documents go to the model in one ``batch``. A document whose answer is empty or
    ``NO_OUTPUT`` is dropped; for the others a new document with the extracted text and
    the document's metadata (no id: the extract is not the stored document, as in
    LangChain).

    Args:
        llm_chain: a Runnable from the prompt variables to the extracted text;
            :meth:`from_llm` builds ``prompt | llm | NoOutputParser()`` (default prompt
            ``DEFAULT_EXTRACT_PROMPT``).
        get_input: builds the prompt variables from ``(query, document)``.

    Raises:
        InvalidInputError: ``llm_chain`` is not a Runnable or ``get_input`` not callable.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> extract = LLMChainExtractor.from_llm(FakeListLLM(responses=["cats purr", "NO_OUTPUT"]))
        >>> documents = [Document("cats purr. dogs bark."), Document("stocks")]
        >>> extract.compress_documents(documents, "cats")
        [Document(metadata={}, page_content='cats purr')]
    """

    default_prompt = DEFAULT_EXTRACT_PROMPT
    parser = NoOutputParser

    def _keep(self, documents: list[Document], outputs: list[Any]) -> list[Document]:
        kept = []
        for document, output in zip(documents, outputs, strict=True):
            text = _text(output)
            if text:
                # a new document, as LangChain's: the extract is not the stored document,
                # so it has no id
                kept.append(Document(text, dict(document.metadata)))
        return kept


def _text(output: Any) -> str:
    # a custom llm_chain may end in the model itself (a message) or a plain str parser
    text = getattr(output, "content", output)
    if not isinstance(text, str):
        raise InvalidInputError(
            f"LLMChainExtractor llm_chain must return text, got {type(output).__name__}"
        )
    return NoOutputParser().parse(text)
