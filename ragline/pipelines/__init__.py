"""ragline.pipelines: ready-made pipelines that join stages of different packages.

A pipeline here may use the splitters and the chains together, which neither of those
packages may do alone (splitters sit below chains, and chains never import splitters).
:class:`AnalyzeDocumentChain` is LangChain's chain of that kind: one long text is split
into chunks, and a documents chain (``load_qa_chain``, ``load_summarize_chain``) answers
from them. :class:`VectorstoreIndexCreator` is LangChain's one-call index: documents
split, stored in a new vector store, and wrapped for questions answered by
``RetrievalQA``.

Example:
    >>> from ragline.chains import load_summarize_chain
    >>> from ragline.core import FakeListLLM
    >>> from ragline.pipelines import AnalyzeDocumentChain
    >>> chain = AnalyzeDocumentChain(
    ...     combine_docs_chain=load_summarize_chain(FakeListLLM(responses=["Short."])))
    >>> chain.run("A very long text.")
    'Short.'
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "AnalyzeDocumentChain": "._analyze",
    "VectorStoreIndexWrapper": "._index_creator",
    "VectorstoreIndexCreator": "._index_creator",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
