"""AnalyzeDocumentChain: split one text, then run a documents chain on the chunks."""

from __future__ import annotations

from typing import Any

from ragline.chains import BaseCombineDocumentsChain, Chain
from ragline.core import Field, InvalidInputError
from ragline.splitters import RecursiveCharacterTextSplitter

__all__ = ["AnalyzeDocumentChain"]


class AnalyzeDocumentChain(Chain):
    """Split the text under ``input_key`` and hand the chunks to ``combine_docs_chain``.

    LangChain's chain (``langchain_classic.chains``): the other inputs (a question, say)
    go to the documents chain with the chunks, under its documents key; the outputs are
    the documents chain's. The run is ``AnalyzeDocumentChain`` with the documents chain's
    run inside it.

    Args:
        combine_docs_chain: a documents chain in LangChain's classic shape
            (``load_qa_chain(...)``, ``load_summarize_chain(...)``).
        text_splitter: cuts the text (``create_documents([text])``); by default a
            ``RecursiveCharacterTextSplitter()`` (4,000 characters, 200 overlap).
        input_key: the input that holds the text.

    Raises:
        InvalidInputError: ``combine_docs_chain`` has no documents key (a chain from
            ``create_stuff_documents_chain``: use ``load_qa_chain`` here).

    Example:
        >>> from ragline.chains import load_qa_chain
        >>> from ragline.core import FakeListLLM
        >>> qa = load_qa_chain(FakeListLLM(responses=["Paris."]), chain_type="stuff")
        >>> chain = AnalyzeDocumentChain(combine_docs_chain=qa)
        >>> chain.invoke({"input_document": "Paris is...", "question": "Capital?"})["output_text"]
        'Paris.'
    """

    combine_docs_chain: BaseCombineDocumentsChain
    text_splitter: Any = Field(default_factory=RecursiveCharacterTextSplitter)
    input_key: str = "input_document"

    def __post_init__(self) -> None:
        if getattr(self.combine_docs_chain, "input_key", None) is None:
            raise InvalidInputError(
                "AnalyzeDocumentChain needs a documents chain that takes its documents under "
                "a key (load_qa_chain(...) or load_summarize_chain(...)); "
                f"{self.combine_docs_chain.get_name()} has none"
            )

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    @property
    def output_keys(self) -> list[str]:
        return list(self.combine_docs_chain.output_keys)

    def _chain_inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        chunks = self.text_splitter.create_documents([inputs[self.input_key]])
        others = {key: value for key, value in inputs.items() if key != self.input_key}
        return {**others, self.combine_docs_chain.input_key: chunks}

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        children = None if run_manager is None else run_manager.get_child()
        return self.combine_docs_chain(  # type: ignore[no-any-return]
            self._chain_inputs(inputs), return_only_outputs=True, callbacks=children
        )

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        children = None if run_manager is None else run_manager.get_child()
        return await self.combine_docs_chain.acall(  # type: ignore[no-any-return]
            self._chain_inputs(inputs), return_only_outputs=True, callbacks=children
        )
