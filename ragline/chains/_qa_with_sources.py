"""Question answering that names its sources: ``RetrievalQAWithSourcesChain`` and
``load_qa_with_sources_chain`` (LangChain's classic shapes).

The documents chain shows the model each document with its ``source`` metadata and asks
it to end the answer with a ``SOURCES:`` line. The chain splits the model's text there:
``{"question"} -> {"question", "answer", "sources"}`` (plus ``"source_documents"`` with
``return_source_documents=True``). The split is LangChain's: when the text mentions
``SOURCE:`` or ``SOURCES:`` (any case), it is cut at the first such label or
``QUESTION:`` followed by a space; the part before is the answer, the first line of the
next part, stripped, the sources. Otherwise the whole text is the answer and the sources
are ``""``.

The prompts are ragline's own wording with LangChain's variables: the stuff prompt
takes ``{summaries}`` and ``{question}``, each document is written with
``{page_content}`` and ``{source}`` (a document without ``source`` metadata is an
error, as in LangChain), and the refine prompts take ``{context_str}``,
``{existing_answer}`` and ``{question}``. One difference: ragline's map-reduce chain
gives its question and combine prompts one documents variable, ``{summaries}``, where
LangChain's map prompt takes ``{context}``.
"""

from __future__ import annotations

import re
from typing import Any

from ragline.chains._base import BaseCombineDocumentsChain, StuffDocumentsChain
from ragline.chains._chain import Chain
from ragline.chains._retrieval import create_documents_chain
from ragline.core import Document, PromptTemplate

__all__ = [
    "RetrievalQAWithSourcesChain",
    "load_qa_with_sources_chain",
]

DOCUMENT_PROMPT = PromptTemplate.from_template("Passage: {page_content}\nSource: {source}")

_SOURCES_RULE = (
    "Answer the question from the passages below, each followed by its source. If they "
    "do not hold the answer, say that you don't know rather than inventing one. End with "
    "a line 'SOURCES: ' listing the sources you used, separated by commas."
)

STUFF_PROMPT = PromptTemplate.from_template(
    _SOURCES_RULE + "\n\n{summaries}\n\nQuestion: {question}\nAnswer:"
)
MAP_PROMPT = PromptTemplate.from_template(
    "Copy out, word for word, any text of the passage below that helps answer the "
    "question; reply with nothing if none does.\n\n{summaries}\n\nQuestion: {question}"
)
COLLAPSE_PROMPT = PromptTemplate.from_template(
    "Shorten the extracts below, keeping every fact that helps answer the question and "
    "the source of each.\n\n{summaries}\n\nQuestion: {question}"
)
REFINE_QUESTION_PROMPT = PromptTemplate.from_template(
    _SOURCES_RULE + "\n\n{context_str}\n\nQuestion: {question}\nAnswer:"
)
REFINE_PROMPT = PromptTemplate.from_template(
    "Question: {question}\nAnswer so far: {existing_answer}\n\n"
    "One more passage, with its source:\n{context_str}\n\n"
    "Improve the answer with this passage if it helps, otherwise repeat it unchanged; "
    "keep the 'SOURCES: ' line and add this passage's source if you used it."
)

# chain_type -> the documents chain's default options (ragline's option names)
_DEFAULTS: dict[str, dict[str, Any]] = {
    "stuff": {
        "prompt": STUFF_PROMPT,
        "document_prompt": DOCUMENT_PROMPT,
        "document_variable_name": "summaries",
    },
    "map_reduce": {
        "question_prompt": MAP_PROMPT,
        "combine_prompt": STUFF_PROMPT,
        "collapse_prompt": COLLAPSE_PROMPT,
        "document_prompt": DOCUMENT_PROMPT,
        "document_variable_name": "summaries",
    },
    "refine": {
        "question_prompt": REFINE_QUESTION_PROMPT,
        "refine_prompt": REFINE_PROMPT,
        "document_prompt": DOCUMENT_PROMPT,
        "document_variable_name": "context_str",
    },
    "map_rerank": {},
}


def load_qa_with_sources_chain(
    llm: Any, chain_type: str = "stuff", verbose: bool | None = None, **options: Any
) -> BaseCombineDocumentsChain:
    """A documents chain that answers and names its sources (the answer's last line is
    ``SOURCES: ...``): ``{"input_documents", "question"} -> {"output_text"}``.

    Args:
        llm: the model.
        chain_type: ``"stuff"``, ``"map_reduce"``, ``"refine"`` or ``"map_rerank"``.
        verbose: print the chain's runs.
        options: options of that chain type (prompts, ``document_prompt`` ...).

    Raises:
        ConfigurationError: an unknown ``chain_type``.
        InvalidInputError: an option the chain type does not take.
    """
    defaults: dict[str, Any] = {
        "input_key": "input_documents",
        "output_key": "output_text",
        "question_key": "question",
        "empty_answer": None,  # no documents: the model is still asked, as in LangChain
        **_DEFAULTS.get(chain_type, {}),
    }
    if verbose is not None:
        defaults["verbose"] = verbose
    return create_documents_chain(llm, chain_type, **{**defaults, **options})


class RetrievalQAWithSourcesChain(Chain):
    """Retrieve documents for ``question``, answer from them and name the sources.

    Args:
        retriever: finds the documents (any Runnable from a str to Documents).
        combine_documents_chain: answers from the documents (see
            :func:`load_qa_with_sources_chain`).
        question_key, answer_key, sources_answer_key: the input and output names.
        return_source_documents: add the documents under ``"source_documents"``.
        reduce_k_below_max_tokens: with a stuff chain, drop documents from the end
            until their text fits in ``max_tokens_limit`` of the model's tokens.
        max_tokens_limit: see above (3375).

    Example:
        >>> from ragline.core import FakeListLLM, RunnableLambda
        >>> docs = [Document("Paris is in France.", metadata={"source": "fr.txt"})]
        >>> qa = RetrievalQAWithSourcesChain.from_chain_type(
        ...     FakeListLLM(responses=["Paris.\\nSOURCES: fr.txt"]),
        ...     retriever=RunnableLambda(lambda q: docs),
        ... )
        >>> qa.invoke({"question": "Where is Paris?"})
        {'question': 'Where is Paris?', 'answer': 'Paris.\\n', 'sources': 'fr.txt'}
    """

    retriever: Any
    combine_documents_chain: Any
    question_key: str = "question"
    input_docs_key: str = "docs"
    answer_key: str = "answer"
    sources_answer_key: str = "sources"
    return_source_documents: bool = False
    reduce_k_below_max_tokens: bool = False
    max_tokens_limit: int = 3375

    @property
    def input_keys(self) -> list[str]:
        return [self.question_key]

    @property
    def output_keys(self) -> list[str]:
        keys = [self.answer_key, self.sources_answer_key]
        return [*keys, "source_documents"] if self.return_source_documents else keys

    @classmethod
    def from_chain_type(
        cls,
        llm: Any,
        chain_type: str = "stuff",
        chain_type_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> RetrievalQAWithSourcesChain:
        """The chain with :func:`load_qa_with_sources_chain`'s documents chain of
        ``chain_type`` (options from ``chain_type_kwargs``); ``kwargs`` are the chain's
        fields (``retriever=`` ...)."""
        combine = load_qa_with_sources_chain(llm, chain_type, **(chain_type_kwargs or {}))
        return cls(combine_documents_chain=combine, **kwargs)

    @classmethod
    def from_llm(
        cls,
        llm: Any,
        document_prompt: Any = DOCUMENT_PROMPT,
        question_prompt: Any = MAP_PROMPT,
        combine_prompt: Any = STUFF_PROMPT,
        **kwargs: Any,
    ) -> RetrievalQAWithSourcesChain:
        """The chain with a map-reduce documents chain over these prompts."""
        combine = load_qa_with_sources_chain(
            llm,
            "map_reduce",
            document_prompt=document_prompt,
            question_prompt=question_prompt,
            combine_prompt=combine_prompt,
        )
        return cls(combine_documents_chain=combine, **kwargs)

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        config = {"callbacks": run_manager.get_child()} if run_manager is not None else None
        docs = self._fitted(self.retriever.invoke(inputs[self.question_key], config))
        answer = self._answer(
            self.combine_documents_chain.invoke(self._chain_input(docs, inputs), config)
        )
        return self._result(answer, docs)

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        config = {"callbacks": run_manager.get_child()} if run_manager is not None else None
        docs = self._fitted(await self.retriever.ainvoke(inputs[self.question_key], config))
        answer = self._answer(
            await self.combine_documents_chain.ainvoke(self._chain_input(docs, inputs), config)
        )
        return self._result(answer, docs)

    def _chain_input(self, docs: list[Document], inputs: dict[str, Any]) -> dict[str, Any]:
        return {**inputs, self.combine_documents_chain.input_key: docs}

    def _answer(self, output: Any) -> str:
        chain = self.combine_documents_chain
        return output[chain.output_key] if isinstance(output, dict) else output  # type: ignore[no-any-return]

    def _result(self, answer: str, docs: list[Document]) -> dict[str, Any]:
        answer, sources = split_sources(answer)
        result: dict[str, Any] = {self.answer_key: answer, self.sources_answer_key: sources}
        if self.return_source_documents:
            result["source_documents"] = docs
        return result

    def _fitted(self, docs: list[Document]) -> list[Document]:
        chain = self.combine_documents_chain
        if not (self.reduce_k_below_max_tokens and isinstance(chain, StuffDocumentsChain)):
            return docs
        tokens = [chain.llm.get_num_tokens(doc.page_content) for doc in docs]
        kept, total = len(docs), sum(tokens)
        while total > self.max_tokens_limit:
            kept -= 1
            total -= tokens[kept]
        return docs[:kept]


def split_sources(answer: str) -> tuple[str, str]:
    """``(answer, sources)`` split at the ``SOURCES:`` label (module docstring)."""
    if not re.search(r"SOURCES?:", answer, re.IGNORECASE):
        return answer, ""
    before, after = re.split(r"SOURCES?:|QUESTION:\s", answer, flags=re.IGNORECASE)[:2]
    return before, after.split("\n")[0].strip()
