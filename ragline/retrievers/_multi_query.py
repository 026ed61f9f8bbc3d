"""MultiQueryRetriever: a model rewrites the question several ways; each is searched.

The model answers with one alternative question per line. The lines (empty ones dropped,
as LangChain's; with ``unique_queries=True`` also blank and repeated ones, and each line
stripped; the original question appended when ``include_original`` is set) are searched
with ONE ``retriever.batch`` call, so a vector-store retriever embeds them together, and
the unique documents are returned in order: all of the first query's results, then the
new ones of the second ... A ``batch`` of questions makes one model ``batch`` and one
retriever ``batch`` for all of them.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Hashable
from typing import Any

from ragline.core import (
    BaseOutputParser,
    BasePromptTemplate,
    Document,
    InvalidInputError,
    PromptTemplate,
    Runnable,
    RunnableConfig,
)
from ragline.core._checks import check_flag
from ragline.core.runnables.base import adopt_runnable
from ragline.retrievers._batching import ChildBatchRetriever

logger = logging.getLogger("ragline.retrievers.multi_query")

__all__ = [
    "DEFAULT_QUERY_PROMPT",
    "LineListOutputParser",
    "MultiQueryRetriever",
    "unique_documents",
]

DEFAULT_QUERY_PROMPT = PromptTemplate.from_template(
    "Write 3 different search queries that would find documents answering the question "
    "below. Vary the words and the angle, so that together they find more than the "
    "question alone would.\n"
    "Answer with the queries only, one per line, without numbering.\n"
    "Question: {question}"
)


class LineListOutputParser(BaseOutputParser[list[str]]):
    """Split the model's answer (stripped at both ends) at each ``\\n``; drop empty lines.

    A line keeps its own spaces (LangChain's parser does the same).

    Example:
        >>> LineListOutputParser().invoke("first query\\n\\n  second query \\n")
        ['first query', '  second query']
    """

    def parse(self, text: str) -> list[str]:
        return [line for line in text.strip().split("\n") if line]


def unique_documents(documents: list[Document]) -> list[Document]:
    """Drop documents equal to an earlier one (same text, metadata and id), keeping order.

    Example:
        >>> unique_documents([Document("a"), Document("b"), Document("a")])
        [Document(metadata={}, page_content='a'), Document(metadata={}, page_content='b')]
    """
    kept: dict[Hashable, list[Document]] = {}
    result = []
    for document in documents:
        bucket = kept.setdefault((document.id, document.page_content), [])
        if document not in bucket:  # metadata dicts are not hashable: compare in the bucket
            bucket.append(document)
            result.append(document)
    return result


def _child_config(run_manager: Any) -> RunnableConfig | None:
    """The config of a run manager's children (None without one: the current run)."""
    if run_manager is None:
        return None
    return {"callbacks": run_manager.get_child()}


def _warn_parser_key(parser_key: str | None, stacklevel: int = 3) -> None:
    if parser_key is not None:
        warnings.warn(
            f"MultiQueryRetriever parser_key={parser_key!r} is deprecated and unused (as in "
            "LangChain): the queries are the model's lines; remove the argument",
            DeprecationWarning,
            stacklevel=stacklevel,
        )


class MultiQueryRetriever(ChildBatchRetriever):
    """Search with several model-written versions of the question; return the union.

    Args:
        retriever: the retriever to search with (any Runnable from str to documents).
        llm_chain: a Runnable from ``{"question": ...}`` to the list of queries (or to
            text with one query per line). :meth:`from_llm` builds one.
        include_original: also search the question itself (searched last).
        parser_key: deprecated and unused, as in LangChain (a ``DeprecationWarning``).
        unique_queries: strip each query and search a blank or repeated one not at all
            (the documents found are the same; the retriever is asked less). Default: each
            query as the model wrote it, repeats included, as LangChain's.
        verbose: log the model's queries for each question (INFO, logger
            ``ragline.retrievers.multi_query``: ``Generated queries: [...]``), as
            LangChain's does by default.

    Raises:
        InvalidInputError: ``retriever`` or ``llm_chain`` is not a Runnable.

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> from ragline.retrievers import BM25Retriever
        >>> base = BM25Retriever.from_texts(["cats purr", "felines sleep", "dogs bark"], k=1)
        >>> model = FakeListChatModel(responses=["cats\\nfelines"])
        >>> retriever = MultiQueryRetriever.from_llm(base, model)
        >>> [d.page_content for d in retriever.invoke("What do cats do?")]
        ['cats purr', 'felines sleep']
    """

    def __init__(
        self,
        retriever: Runnable[str, list[Document]],
        llm_chain: Runnable[Any, Any],
        *,
        include_original: bool = False,
        parser_key: str | None = None,
        unique_queries: bool = False,
        verbose: bool = True,
    ) -> None:
        _warn_parser_key(parser_key)
        parts = []
        for name, value in (("retriever", retriever), ("llm_chain", llm_chain)):
            adopted = adopt_runnable(value)
            if adopted is None:
                raise InvalidInputError(
                    f"MultiQueryRetriever {name} must be a Runnable, got {type(value).__name__}"
                )
            parts.append(adopted)
        self.retriever, self.llm_chain = parts
        self.include_original = bool(include_original)
        self.unique_queries = check_flag("MultiQueryRetriever unique_queries", unique_queries)
        self.verbose = check_flag("MultiQueryRetriever verbose", verbose)

    @classmethod
    def from_llm(
        cls,
        retriever: Runnable[str, list[Document]],
        llm: Runnable[Any, Any],
        prompt: BasePromptTemplate | None = None,
        parser_key: str | None = None,
        include_original: bool = False,
        *,
        unique_queries: bool = False,
    ) -> MultiQueryRetriever:
        """Build the retriever with ``prompt | llm | LineListOutputParser()``.

        Args:
            retriever: the retriever to search with.
            llm: a chat model or text model (any Runnable whose output is text or a message).
            prompt: a prompt with the variable ``question`` (default: ``DEFAULT_QUERY_PROMPT``).
            parser_key: LangChain's deprecated option, unused there and here: accepted
                (in LangChain's position) with a ``DeprecationWarning``.
            include_original: also search the question itself.
            unique_queries: search each stripped query once, blank ones not at all.

        Raises:
            InvalidInputError: the prompt does not have exactly the variable ``question``,
                or ``llm`` is not a Runnable.

        Example:
            >>> from ragline.core import FakeListLLM
            >>> from ragline.retrievers import BM25Retriever
            >>> base = BM25Retriever.from_texts(["red fox", "blue whale", "grey seal"], k=1)
            >>> MultiQueryRetriever.from_llm(base, FakeListLLM(responses=["fox"]),
            ...     include_original=True).invoke("whale")  # doctest: +NORMALIZE_WHITESPACE
            [Document(metadata={}, page_content='red fox'), Document(metadata={},
             page_content='blue whale')]
        """
        _warn_parser_key(parser_key, stacklevel=3)
        prompt = DEFAULT_QUERY_PROMPT if prompt is None else prompt
        if not isinstance(prompt, BasePromptTemplate):
            raise InvalidInputError(
                f"MultiQueryRetriever prompt must be a prompt template, got {type(prompt).__name__}"
            )
        if list(prompt.input_variables) != ["question"]:
            raise InvalidInputError(
                "MultiQueryRetriever prompt must have the one variable 'question', "
                f"got {prompt.input_variables}"
            )
        if adopt_runnable(llm) is None:
            raise InvalidInputError(
                f"MultiQueryRetriever llm must be a Runnable, got {type(llm).__name__}"
            )
        return cls(
            retriever,
            prompt | llm | LineListOutputParser(),
            include_original=include_original,
            unique_queries=unique_queries,
        )

    def __repr__(self) -> str:
        unique = ", unique_queries=True" if self.unique_queries else ""
        return (
            f"MultiQueryRetriever(retriever={self.retriever.get_name()}, "
            f"include_original={self.include_original}{unique})"
        )

    def _written(self, output: Any) -> list[str]:
        """The model's queries (its text split into lines), checked and logged."""
        if isinstance(output, str):
            output = LineListOutputParser().parse(output)
        if not isinstance(output, list) or not all(isinstance(q, str) for q in output):
            raise InvalidInputError(
                f"MultiQueryRetriever llm_chain must return a list of str, got {output!r:.80}"
            )
        output = list(output)
        if self.verbose:  # the record keeps the list: the question joins it below, as in
            logger.info("Generated queries: %s", output)  # LangChain's records
        return output

    def _queries(self, question: str, output: Any) -> list[str]:
        """The queries searched for ``question``: the model's, then the question itself
        when ``include_original`` is set."""
        queries = self._once(self._written(output))
        if self.include_original:
            queries.append(question)  # as given, not stripped
            if self.unique_queries:
                return list(dict.fromkeys(queries))
        return queries

    def _once(self, queries: list[str]) -> list[str]:
        """With ``unique_queries``: each stripped query once, blank ones dropped (a
        repeated query would find the same documents); else ``queries`` as they are."""
        if not self.unique_queries:
            return queries
        return list(dict.fromkeys(q.strip() for q in queries if q.strip()))

    def generate_queries(self, question: str, run_manager: Any = None) -> list[str]:
        """Ask the model for the queries of ``question`` (without the question itself,
        which ``include_original`` adds when searching), as LangChain's method does.

        Args:
            question: the user's question.
            run_manager: the retriever run's manager (the model's run is its child);
                None: the current run, if any.
        """
        output = self.llm_chain.invoke({"question": question}, _child_config(run_manager))
        return self._once(self._written(output))

    async def agenerate_queries(self, question: str, run_manager: Any = None) -> list[str]:
        """Async :meth:`generate_queries`."""
        output = await self.llm_chain.ainvoke({"question": question}, _child_config(run_manager))
        return self._once(self._written(output))

    def retrieve_documents(self, queries: list[str], run_manager: Any = None) -> list[Document]:
        """Search every query (one ``retriever.batch``); all the documents found, in order
        and with repeats (:meth:`unique_union` drops them), as LangChain's method returns.
        """
        config = _child_config(run_manager)
        found = self.retriever.batch(queries, config) if queries else []
        return self._checked(found)

    async def aretrieve_documents(
        self, queries: list[str], run_manager: Any = None
    ) -> list[Document]:
        """Async :meth:`retrieve_documents`."""
        config = _child_config(run_manager)
        found = await self.retriever.abatch(queries, config) if queries else []
        return self._checked(found)

    def unique_union(self, documents: list[Document]) -> list[Document]:
        """The documents without those equal to an earlier one, in order."""
        return unique_documents(documents)

    def _get_relevant_documents(self, query: str) -> list[Document]:
        queries = self._queries(query, self.llm_chain.invoke({"question": query}))
        if not queries:
            return []
        return self._union(self.retriever.batch(queries))

    async def _aget_relevant_documents(self, query: str) -> list[Document]:
        queries = self._queries(query, await self.llm_chain.ainvoke({"question": query}))
        if not queries:
            return []
        return self._union(await self.retriever.abatch(queries))

    def _checked(self, results: list[Any]) -> list[Document]:
        """The documents of the queries' results, in order (each result checked)."""
        for documents in results:
            if not isinstance(documents, list) or not all(
                isinstance(d, Document) for d in documents
            ):
                raise InvalidInputError(
                    f"MultiQueryRetriever retriever ({self.retriever.get_name()}) must return a "
                    f"list of Document, got {documents!r:.80}"
                )
        return [doc for documents in results for doc in documents]

    def _union(self, results: list[Any]) -> list[Document]:
        """The unique documents of the queries' results, in order (each result checked)."""
        return unique_documents(self._checked(results))

    # batch / abatch (ChildBatchRetriever): the model writes the queries of every question
    # in one batch, then ALL the written queries are searched in one retriever batch.
    def _written_queries(
        self, questions: list[str], outputs: list[Any]
    ) -> tuple[list[Any], list[str], list[int]]:
        per_question: list[Any] = []
        for question, output in zip(questions, outputs, strict=True):
            try:
                per_question.append(
                    output if isinstance(output, BaseException) else self._queries(question, output)
                )
            except InvalidInputError as err:
                per_question.append(err)
        flat, owners = [], []
        for owner, queries in enumerate(per_question):
            if not isinstance(queries, BaseException):
                flat.extend(queries)
                owners.extend([owner] * len(queries))
        return per_question, flat, owners

    def _assemble(self, per_question: list[Any], owners: list[int], found: list[Any]) -> list[Any]:
        grouped: list[list[Any]] = [[] for _ in per_question]
        for owner, documents in zip(owners, found, strict=True):
            grouped[owner].append(documents)
        results: list[Any] = []
        for queries, lists in zip(per_question, grouped, strict=True):
            error = (
                queries
                if isinstance(queries, BaseException)
                else next((d for d in lists if isinstance(d, BaseException)), None)
            )
            if error is None:
                try:
                    results.append(self._union(lists))
                except InvalidInputError as err:  # fails this question only
                    results.append(err)
            else:
                results.append(error)
        return results

    def _search_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        outputs = self.llm_chain.batch(
            [{"question": q} for q in queries], configs, return_exceptions=True
        )
        per_question, flat, owners = self._written_queries(queries, outputs)
        found = (
            self.retriever.batch(flat, [configs[o] for o in owners], return_exceptions=True)
            if flat
            else []
        )
        return self._assemble(per_question, owners, found)

    async def _asearch_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        outputs = await self.llm_chain.abatch(
            [{"question": q} for q in queries], configs, return_exceptions=True
        )
        per_question, flat, owners = self._written_queries(queries, outputs)
        found = (
            await self.retriever.abatch(flat, [configs[o] for o in owners], return_exceptions=True)
            if flat
            else []
        )
        return self._assemble(per_question, owners, found)
