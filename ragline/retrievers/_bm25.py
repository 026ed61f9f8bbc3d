"""BM25Retriever: Okapi BM25 keyword search over a fixed corpus, written with numpy.

The score of document ``d`` for a query of tokens ``q1 ... qn`` (a repeated query token
counts once per occurrence) is::

    score(d) = sum_i idf(qi) * (tf(qi, d) * (k1 + 1) / (tf(qi, d) + k1 * (1 - b + b * |d| / avgdl)))

with ``tf`` the count of the token in the document, ``|d|`` the document's token count,
``avgdl`` the mean token count, ``N`` the number of documents and ``n(t)`` how many of
them contain ``t``. Two idf formulas:

* ``"okapi"`` (what LangChain's BM25Retriever gets from rank_bm25's BM25Okapi, and the
  retriever's default): ``ln(N - n + 0.5) - ln(n + 0.5)``; a term in more than half the
  documents would go negative, and gets ``epsilon`` times the average idf instead.
* ``"lucene"`` (the index's default, what store folders and hybrid search use):
  ``ln(1 + (N - n + 0.5) / (n + 0.5))``, always positive, so a document that shares a
  term with the query always scores above one that does not.

The arithmetic is rank_bm25's, in its order, so the scores are the same floats and
equal scores tie the same way.

The index is a term -> postings table (document numbers and precomputed term weights)
in flat numpy arrays. A query adds each of its terms' postings (a contiguous slice) into
a score vector: the work is the length of those postings, with no Python loop over
documents. A batch reuses one score vector for all its queries and skips the per-query
thread and callback work of ``invoke``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from ragline.core import BaseRetriever, Document, InvalidInputError
from ragline.core._checks import (
    check_choice,
    check_number,
    check_positive_int,
    check_unit_interval,
)
from ragline.retrievers._checks import check_documents, check_keys, copy_document
from ragline.retrievers._tokenizer import BM25Tokenizer

__all__ = ["BM25Index", "BM25Retriever", "default_preprocessing_func"]

BM25_IDFS = ("okapi", "lucene")


def default_preprocessing_func(text: str) -> list[str]:
    """Split text on whitespace, keeping case and punctuation (LangChain's default tokenizer).

    ``BM25Tokenizer()`` gives lowercase word tokens instead (``"Cats,"`` matches ``cats``),
    which usually finds more: pass it as ``preprocess_func``.

    Example:
        >>> default_preprocessing_func("Cats, DOGS and e-mail!")
        ['Cats,', 'DOGS', 'and', 'e-mail!']
        >>> BM25Tokenizer()("Cats, DOGS and e-mail!")
        ['cats', 'dogs', 'and', 'e', 'mail']
    """
    return text.split()


def rows_fit(
    vocabulary_size: int, doc_ptr: np.ndarray, doc_terms: np.ndarray, doc_tfs: np.ndarray
) -> bool:
    """Whether per-document rows fit together, as :meth:`BM25Index.from_rows` takes them:
    ``doc_ptr`` starts at 0, never goes down and ends at the entry count, each entry has
    a count of at least 1 and a term number below ``vocabulary_size``."""
    return bool(
        doc_ptr.ndim == 1
        and len(doc_ptr) >= 1
        and doc_ptr[0] == 0
        and doc_ptr[-1] == len(doc_terms)
        and len(doc_terms) == len(doc_tfs)
        and not np.any(np.diff(doc_ptr) < 0)
        and not (len(doc_terms) and (doc_terms.min() < 0 or doc_terms.max() >= vocabulary_size))
        and not (len(doc_tfs) and doc_tfs.min() < 1)
    )


class BM25Index:
    """Okapi BM25 scores over tokenized documents (see the module docstring for the formula).

    Args:
        corpus: one list of tokens per document.
        k1: term-frequency saturation (>= 0).
        b: length normalisation, from 0 (none) to 1 (full).
        idf: ``"lucene"`` (always positive) or ``"okapi"`` (rank_bm25's, with the
            ``epsilon`` floor); see the module docstring.
        epsilon: for ``"okapi"``: a negative idf becomes ``epsilon`` x the average idf.

    The index keeps each document's distinct terms and counts (``doc_ptr``,
    ``doc_terms``, ``doc_tfs``: one row per document, CSR style) and, derived from them,
    each term's postings; :meth:`from_rows` rebuilds it from the rows alone (how a
    saved index loads, and how an index is updated).

    Example:
        >>> index = BM25Index([["a", "b"], ["b", "b", "c"]])
        >>> [round(float(s), 4) for s in index.get_scores(["c"])]
        [0.0, 0.6359]
    """

    def __init__(
        self,
        corpus: Sequence[Sequence[str]],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        idf: str = "lucene",
        epsilon: float = 0.25,
    ) -> None:
        # C-level loops only (fromkeys, map): a Python loop per token costs more than the rest
        vocabulary = list(dict.fromkeys(chain.from_iterable(corpus)))
        numbers = {token: number for number, token in enumerate(vocabulary)}
        lengths = np.fromiter(map(len, corpus), dtype=np.int64, count=len(corpus))
        terms = np.fromiter(
            map(numbers.__getitem__, chain.from_iterable(corpus)),
            dtype=np.int64,
            count=int(lengths.sum()),
        )
        docs = np.repeat(np.arange(len(corpus), dtype=np.int64), lengths)
        # one (document, term) pair per distinct occurrence, sorted by document then term
        width = max(len(vocabulary), 1)
        pairs, tf = np.unique(docs * width + terms, return_counts=True)
        doc_ptr = np.concatenate(
            [[0], np.cumsum(np.bincount(pairs // width, minlength=len(corpus)))]
        )
        self._build(vocabulary, numbers, doc_ptr, pairs % width, tf, k1, b, idf, epsilon)

    @classmethod
    def from_rows(
        cls,
        vocabulary: Sequence[str],
        doc_ptr: np.ndarray,
        doc_terms: np.ndarray,
        doc_tfs: np.ndarray,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        idf: str = "lucene",
        epsilon: float = 0.25,
    ) -> BM25Index:
        """Build an index from per-document rows: document ``i`` has the term numbers
        ``doc_terms[doc_ptr[i]:doc_ptr[i + 1]]`` (each once) with counts ``doc_tfs[...]``.

        Raises:
            InvalidInputError: arrays that do not fit together (sizes, term numbers).
        """
        doc_ptr = np.asarray(doc_ptr, dtype=np.int64)
        doc_terms = np.asarray(doc_terms, dtype=np.int64)
        doc_tfs = np.asarray(doc_tfs, dtype=np.int64)
        if not rows_fit(len(vocabulary), doc_ptr, doc_terms, doc_tfs):
            raise InvalidInputError("BM25Index rows do not fit together (sizes or term numbers)")
        index = cls.__new__(cls)
        numbers = {token: number for number, token in enumerate(vocabulary)}
        index._build(list(vocabulary), numbers, doc_ptr, doc_terms, doc_tfs, k1, b, idf, epsilon)
        return index

    def _build(
        self,
        vocabulary: list[str],
        numbers: dict[str, int],
        doc_ptr: np.ndarray,
        doc_terms: np.ndarray,
        doc_tfs: np.ndarray,
        k1: float,
        b: float,
        idf: str,
        epsilon: float,
    ) -> None:
        self.k1 = check_number("BM25 k1", k1, low=0)
        self.b = check_unit_interval("BM25 b", b)
        self.idf_kind = check_choice("BM25 idf", idf, BM25_IDFS)
        self.epsilon = check_number("BM25 epsilon", epsilon)
        self.terms = vocabulary
        self.vocabulary = numbers
        self.doc_ptr, self.doc_terms, self.doc_tfs = doc_ptr, doc_terms, doc_tfs
        self.corpus_size = len(doc_ptr) - 1
        row_sizes = np.diff(doc_ptr)
        pair_docs = np.repeat(np.arange(self.corpus_size, dtype=np.int64), row_sizes)
        lengths = np.bincount(pair_docs, weights=doc_tfs, minlength=self.corpus_size)
        self.doc_len = lengths.astype(np.int64)
        self.avgdl = float(lengths.mean()) if self.corpus_size else 0.0
        # term-major postings: a stable sort keeps documents ascending within a term
        order = np.argsort(doc_terms, kind="stable")
        pair_terms = doc_terms[order]
        self.postings_docs = pair_docs[order]
        tf = doc_tfs[order].astype(np.float64)
        self.doc_freq = np.bincount(pair_terms, minlength=len(vocabulary))
        self.offsets = np.concatenate([[0], np.cumsum(self.doc_freq)])
        if self.idf_kind == "okapi":
            self.idf = _okapi_idf(self.corpus_size, self.doc_freq, self.epsilon)
        else:
            n = self.doc_freq.astype(np.float64)
            self.idf = np.log1p((self.corpus_size - n + 0.5) / (n + 0.5))
        # rank_bm25's expression, operation for operation: the same floats, the same ties
        length = lengths[self.postings_docs]
        norm = (
            1 - self.b + self.b * length / self.avgdl
            if self.avgdl
            else np.full(len(tf), 1.0 - self.b)
        )
        self.postings_weights = self.idf[pair_terms] * (tf * (self.k1 + 1) / (tf + self.k1 * norm))

    def with_idf(self, idf: str) -> BM25Index:
        """This index with the other idf formula (itself when it already has ``idf``)."""
        if check_choice("BM25 idf", idf, BM25_IDFS) == self.idf_kind:
            return self
        return BM25Index.from_rows(
            self.terms,
            self.doc_ptr,
            self.doc_terms,
            self.doc_tfs,
            k1=self.k1,
            b=self.b,
            idf=idf,
            epsilon=self.epsilon,
        )

    def get_scores(self, query: Sequence[str]) -> np.ndarray:
        """Return the BM25 score of every document for one tokenized query, shape (N,)."""
        scores = np.zeros(self.corpus_size)
        self._add_scores(query, scores)
        return scores

    def score_queries(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """Return the scores of every document for many tokenized queries, shape (Q, N)."""
        scores = np.zeros((len(queries), self.corpus_size))
        for row, query in enumerate(queries):
            self._add_scores(query, scores[row])
        return scores

    def top_k(self, queries: Sequence[Sequence[str]], k: int) -> list[list[int]]:
        """Return, per tokenized query, the indices of its ``k`` best matching documents.

        Only documents with a positive score count; best first, ties by lower index
        (see :meth:`top_k_with_scores` for LangChain's ranking). One score buffer is
        reused for all the queries.
        """
        return [[i for i, _ in row] for row in self.top_k_with_scores(queries, k)]

    def top_k_with_scores(
        self,
        queries: Sequence[Sequence[str]],
        k: int,
        mask: np.ndarray | None = None,
        *,
        only_matching: bool = True,
    ) -> list[list[tuple[int, float]]]:
        """:meth:`top_k` with each document's score: ``(index, score)`` pairs, best first.

        Args:
            queries: tokenized queries.
            k: how many documents per query at most.
            mask: optional boolean array of shape (N,): only documents where it is True
                are returned (a filter).
            only_matching: True: only documents with a positive score, ties by lower
                index. False: the ``k`` best whatever their score, ranked as LangChain's
                BM25Retriever ranks them (rank_bm25's ``numpy.argsort`` of the scores,
                reversed: ties come in the order that gives).
        """
        scores = np.zeros(self.corpus_size)
        results = []
        for query in queries:
            scores.fill(0.0)
            self._add_scores(query, scores)
            if only_matching:
                if mask is not None:
                    scores[~mask] = 0.0
                best = _best_indices(scores, k)
            else:
                ranked = np.argsort(scores)[::-1]
                best = (ranked if mask is None else ranked[mask[ranked]])[:k].tolist()
            results.append(list(zip(best, scores[best].tolist(), strict=True)))
        return results

    def _add_scores(self, query: Sequence[str], out: np.ndarray) -> None:
        # one addition per query token, in the query's order (a repeated token adds
        # again), as rank_bm25 sums: the same floats
        vocabulary = self.vocabulary
        for token in query:
            term = vocabulary.get(token)
            if term is not None:  # unknown tokens match nothing
                start, end = self.offsets[term], self.offsets[term + 1]
                # a term's postings are a contiguous slice and list each document once
                out[self.postings_docs[start:end]] += self.postings_weights[start:end]


def _okapi_idf(corpus_size: int, doc_freq: np.ndarray, epsilon: float) -> np.ndarray:
    """rank_bm25's BM25Okapi idf per term: ``ln(N - n + 0.5) - ln(n + 0.5)``, a negative
    one replaced by ``epsilon`` x the average idf (terms in vocabulary order)."""
    present = doc_freq > 0  # a vocabulary loaded from rows may keep unused terms
    # math.log per distinct count: numpy's vectorised log may differ in the last bit
    counts, inverse = np.unique(doc_freq, return_inverse=True)
    values = np.array(
        [math.log(corpus_size - c + 0.5) - math.log(c + 0.5) for c in counts.tolist()],
        dtype=np.float64,
    )
    idf = values[inverse.reshape(-1)]
    used = idf[present]
    if len(used):
        average = float(np.cumsum(used)[-1]) / len(used)  # summed in order, as rank_bm25
        idf[present & (idf < 0)] = epsilon * average
    return idf


def _best_indices(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the ``k`` best positive scores, best first, ties by lower index."""
    candidates = np.flatnonzero(scores > 0)  # ascending indices
    if len(candidates) > k:
        values = scores[candidates]
        kth = -np.partition(-values, k - 1)[k - 1]  # the k-th best score
        # argpartition alone would pick any of the documents tied at the k-th score
        better = candidates[values > kth]
        candidates = np.concatenate([better, candidates[values == kth][: k - len(better)]])
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order].tolist()


class BM25Retriever(BaseRetriever):
    """Keyword retriever ranking a fixed set of documents by Okapi BM25.

    Build it with :meth:`from_texts` or :meth:`from_documents`. As LangChain's, it
    returns the ``k`` best documents whatever their score (a document sharing no term
    with the query included), ranked as rank_bm25 ranks them; ``only_matching=True``
    returns only documents with a positive score, ties in corpus order (what ragline's
    hybrid search and store folders use, with ``idf="lucene"``).

    Args:
        vectorizer: the :class:`BM25Index` over ``docs``.
        docs: the documents, in index order.
        k: how many documents to return (>= 1); can be changed later (``retriever.k = 2``).
        preprocess_func: the tokenizer used for the documents and the queries (default:
            ``str.split``, case-sensitive, as LangChain's; ``BM25Tokenizer()`` for
            lowercase word tokens, with options for stemming and stopwords).
        score_key: when set, each returned document carries its BM25 score in
            ``metadata[score_key]`` (what score-based fusion reads).
        filter: only documents whose metadata matches this filter are returned (the
            vector stores' filter language: ``{"source": "a.txt"}``, ``$in``, ``$or`` ...).
        only_matching: return only documents with a positive score (see above).

    Raises:
        InvalidInputError: ``k`` < 1, ``docs`` and the index differ in size, the
            tokenizer is not callable, or ``score_key`` is not a str.
        FilterError: a bad filter.

    Example:
        >>> texts = ["cats purr", "dogs bark", "cats and dogs"]
        >>> retriever = BM25Retriever.from_texts(texts, k=2, preprocess_func=BM25Tokenizer())
        >>> [d.page_content for d in retriever.invoke("Cats")]
        ['cats purr', 'cats and dogs']
        >>> [[d.page_content for d in docs] for docs in retriever.batch(["bark", "fish"])]
        [['dogs bark', 'cats and dogs'], ['cats and dogs', 'dogs bark']]
        >>> retriever.only_matching = True
        >>> [[d.page_content for d in docs] for docs in retriever.batch(["bark", "fish"])]
        [['dogs bark'], []]
    """

    def __init__(
        self,
        vectorizer: BM25Index,
        docs: Sequence[Document],
        *,
        k: int = 4,
        preprocess_func: Callable[[str], list[str]] = default_preprocessing_func,
        score_key: str | None = None,
        filter: Mapping[str, Any] | None = None,
        only_matching: bool = False,
    ) -> None:
        from ragline.vectorstores.filters import parse_filter

        if not callable(preprocess_func):
            raise InvalidInputError(
                "BM25Retriever preprocess_func must be callable, got "
                f"{type(preprocess_func).__name__}"
            )
        docs = check_documents("BM25Retriever", docs)
        if len(docs) != vectorizer.corpus_size:
            raise InvalidInputError(
                f"BM25Retriever got {len(docs)} docs for an index of {vectorizer.corpus_size}"
            )
        if score_key is not None and not isinstance(score_key, str):
            raise InvalidInputError(
                f"BM25Retriever score_key must be a str or None, got {score_key!r}"
            )
        self.vectorizer = vectorizer
        self.docs = docs
        self.k = k
        self.preprocess_func = preprocess_func
        self.score_key = score_key
        self.only_matching = bool(only_matching)
        self._filter = parse_filter(filter)
        self._mask: np.ndarray | None = None

    @property
    def k(self) -> int:
        """How many documents a query returns at most."""
        return self._k

    @k.setter
    def k(self, value: int) -> None:
        self._k = check_positive_int("BM25Retriever k", value)

    def __repr__(self) -> str:
        bm25 = self.vectorizer
        return f"BM25Retriever(docs={len(self.docs)}, k={self.k}, k1={bm25.k1}, b={bm25.b})"

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
        ids: Sequence[str | None] | None = None,
        *,
        k: int = 4,
        k1: float = 1.5,
        b: float = 0.75,
        bm25_params: Mapping[str, Any] | None = None,
        preprocess_func: Callable[[str], list[str]] = default_preprocessing_func,
        score_key: str | None = None,
        idf: str = "okapi",
        epsilon: float = 0.25,
        only_matching: bool = False,
    ) -> BM25Retriever:
        """Index texts and return the retriever.

        Args:
            texts: the texts to search.
            metadatas: one metadata dict per text (None: empty).
            ids: one id per text (None: no ids).
            k: documents per query (>= 1).
            k1: term-frequency saturation (>= 0).
            b: length normalisation in [0, 1].
            bm25_params: LangChain's spelling of the index options (rank_bm25's):
                ``{"k1": ..., "b": ..., "epsilon": ...}``; other keys are rejected.
            preprocess_func: tokenizer for texts and queries (default: ``str.split``,
                LangChain's; ``BM25Tokenizer()`` for lowercase words,
                ``BM25Tokenizer(stem=True, stopwords=True)`` for stemming and stopwords).
            score_key: put each returned document's score in ``metadata[score_key]``.
            idf: ``"okapi"`` (rank_bm25's, LangChain's) or ``"lucene"`` (always positive);
                see the module docstring.
            epsilon: for ``"okapi"``: a negative idf becomes ``epsilon`` x the average.
            only_matching: return only documents with a positive score (ragline's
                hybrid search uses ``idf="lucene", only_matching=True``).

        Raises:
            InvalidInputError: lengths differ, a text is not a str, a bad k / k1 / b, or
                the tokenizer returns something other than a list of str.
            ConfigurationError: an unknown ``bm25_params`` key (named).

        Example:
            >>> r = BM25Retriever.from_texts(["a b", "c"], ids=["x", "y"], k=1)
            >>> r.invoke("c")
            [Document(id='y', metadata={}, page_content='c')]
        """
        texts = list(texts)
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidInputError(
                    f"BM25Retriever texts[{position}] must be a str, got {type(text).__name__}"
                )
        for name, values in (("metadatas", metadatas), ("ids", ids)):
            if values is not None and len(values) != len(texts):
                raise InvalidInputError(
                    f"BM25Retriever got {len(values)} {name} for {len(texts)} texts"
                )
        for position, metadata in enumerate(metadatas or ()):
            if metadata is not None and not isinstance(metadata, Mapping):
                raise InvalidInputError(
                    f"BM25Retriever metadatas[{position}] must be a dict or None, "
                    f"got {type(metadata).__name__}"
                )
        docs = [
            Document(text, dict(metadatas[i] or {}) if metadatas else {}, ids[i] if ids else None)
            for i, text in enumerate(texts)
        ]
        return cls.from_documents(
            docs,
            k=k,
            k1=k1,
            b=b,
            bm25_params=bm25_params,
            preprocess_func=preprocess_func,
            score_key=score_key,
            idf=idf,
            epsilon=epsilon,
            only_matching=only_matching,
        )

    @classmethod
    def from_documents(
        cls,
        documents: Iterable[Document],
        *,
        k: int = 4,
        k1: float = 1.5,
        b: float = 0.75,
        bm25_params: Mapping[str, Any] | None = None,
        preprocess_func: Callable[[str], list[str]] = default_preprocessing_func,
        score_key: str | None = None,
        idf: str = "okapi",
        epsilon: float = 0.25,
        only_matching: bool = False,
    ) -> BM25Retriever:
        """Index documents (their ``page_content``) and return the retriever.

        Args and Raises as :meth:`from_texts`.

        Example:
            >>> r = BM25Retriever.from_documents([Document("red fox", {"n": 1})], k=1)
            >>> r.invoke("fox")[0].metadata
            {'n': 1}
        """
        docs = check_documents("BM25Retriever", documents)
        params = check_keys("BM25Retriever", "bm25_params", bm25_params, ("k1", "b", "epsilon"))
        check_positive_int("BM25Retriever k", k)
        if not callable(preprocess_func):
            raise InvalidInputError(
                "BM25Retriever preprocess_func must be callable, got "
                f"{type(preprocess_func).__name__}"
            )
        index_options = {
            "k1": params.get("k1", k1),
            "b": params.get("b", b),
            "idf": idf,
            "epsilon": params.get("epsilon", epsilon),
        }
        check_number("BM25Retriever k1", index_options["k1"], low=0)
        check_unit_interval("BM25Retriever b", index_options["b"])
        check_choice("BM25Retriever idf", idf, BM25_IDFS)
        check_number("BM25Retriever epsilon", index_options["epsilon"])
        corpus = [
            _tokens(preprocess_func, doc.page_content, f"documents[{i}]")
            for i, doc in enumerate(docs)
        ]
        return cls(
            BM25Index(corpus, **index_options),
            [copy_document(d) for d in docs],
            k=k,
            preprocess_func=preprocess_func,
            score_key=score_key,
            only_matching=only_matching,
        )

    # ---- search -----------------------------------------------------------------------
    def _get_relevant_documents(self, query: str) -> list[Document]:
        return self._batch_get_relevant_documents([query])[0]

    def _batch_get_relevant_documents(self, queries: list[str]) -> list[list[Document]]:
        return [[document for document, _ in row] for row in self.search_with_scores(queries)]

    def search_with_scores(self, queries: list[str]) -> list[list[tuple[Document, float]]]:
        """Per query, the best ``k`` documents with their BM25 scores (no callbacks run).

        Documents are fresh copies (with ``metadata[score_key]`` set when the retriever
        has a ``score_key``).
        """
        tokenized = [_tokens(self.preprocess_func, query, "the query") for query in queries]
        if not self.docs:
            return [[] for _ in queries]
        hits = self.vectorizer.top_k_with_scores(
            tokenized, self.k, self._filter_mask(), only_matching=self.only_matching
        )
        key = self.score_key
        results = []
        for row in hits:
            found = []
            for i, score in row:
                document = copy_document(self.docs[i])
                if key is not None:
                    document.metadata[key] = score
                found.append((document, score))
            results.append(found)
        return results

    def _filter_mask(self) -> np.ndarray | None:
        if self._filter is None:
            return None
        if self._mask is None:  # evaluated once per retriever: the documents do not change
            from ragline.vectorstores.filters import matches

            self._mask = np.fromiter(
                (matches(self._filter, d.metadata) for d in self.docs),
                dtype=bool,
                count=len(self.docs),
            )
        return self._mask


def _tokens(tokenizer: Callable[[str], Any], text: str, what: str) -> list[str]:
    tokens = tokenizer(text)
    if tokenizer is default_preprocessing_func or type(tokenizer) is BM25Tokenizer:
        return tokens  # known to be a list of str
    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)):
        raise InvalidInputError(
            f"BM25Retriever preprocess_func must return a list of str for {what}, "
            f"got {type(tokens).__name__}"
        )
    if not set(map(type, tokens)) <= {str}:  # one C-level pass; look closer only then
        bad = [t for t in tokens if not isinstance(t, str)]
        if bad:
            raise InvalidInputError(
                f"BM25Retriever preprocess_func returned a {type(bad[0]).__name__} token for "
                f"{what}: {bad[0]!r:.40}"
            )
    return list(tokens)
