"""ragline.chains: turn retrieved documents into answers.

``create_stuff_documents_chain`` and ``create_retrieval_chain`` compose with any
retriever; ``load_qa_chain``, ``load_summarize_chain`` and ``RetrievalQA`` keep
LangChain's classic shapes. The
four document chains (stuff, map-reduce, refine, map-rerank) share one base.

The legacy Chain API (``Chain``, ``LLMChain``, ``SequentialChain``,
``SimpleSequentialChain``, ``TransformChain``, ``ConversationChain``,
``ConversationalRetrievalChain``) runs LangChain's older code with memory from
``ragline.memory``; ``create_history_aware_retriever`` is the LCEL way to chat over
documents. ``create_structured_output_runnable`` binds a model to answer in a schema's
shape (LangChain's older helper). ``HypotheticalDocumentEmbedder`` (HyDE) embeds a query
as the passage a model writes for it. ``RetrievalQAWithSourcesChain`` and
``load_qa_with_sources_chain`` answer with a ``SOURCES:`` line, split out of the answer;
``MapReduceChain`` splits one text and map-reduces its pieces.
The router chains (``MultiPromptChain``, ``MultiRetrievalQAChain``, ``LLMRouterChain``,
``MultiRouteChain``) let a model pick which chain (or retriever) answers
(``MULTI_PROMPT_ROUTER_TEMPLATE``, ``MULTI_RETRIEVAL_ROUTER_TEMPLATE``: the router
prompts, in ragline's words with LangChain's variables and reply format).
``LLMCheckerChain`` drafts an answer, lists and checks its claims, and answers again.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "Chain": "._chain",
    "LegacyChainAPI": "._chain",
    "RUN_KEY": "._chain",
    "RunInfo": "._chain",
    "LLMChain": "._llm_chain",
    "SequentialChain": "._sequential",
    "SimpleSequentialChain": "._sequential",
    "TransformChain": "._sequential",
    "ConversationChain": "._conversation",
    "ConversationalRetrievalChain": "._conversation",
    "create_history_aware_retriever": "._conversation",
    "create_conversational_retrieval_chain": "._conversation",
    "BaseCombineDocumentsChain": "._base",
    "StuffDocumentsChain": "._base",
    "create_stuff_documents_chain": "._base",
    "format_document": "._base",
    "MapReduceChain": "._mapreduce",
    "MapReduceDocumentsChain": "._map_reduce",
    "ReduceDocumentsChain": "._map_reduce",
    "split_list_of_docs": "._map_reduce",
    "collapse_docs": "._map_reduce",
    "acollapse_docs": "._map_reduce",
    "CombineDocsProtocol": "._map_reduce",
    "AsyncCombineDocsProtocol": "._map_reduce",
    "RefineDocumentsChain": "._refine",
    "MapRerankDocumentsChain": "._map_rerank",
    "CHAIN_TYPES": "._retrieval",
    "RetrievalQA": "._retrieval",
    "create_documents_chain": "._retrieval",
    "create_retrieval_chain": "._retrieval",
    "load_qa_chain": "._retrieval",
    "load_summarize_chain": "._summarize",
    "create_structured_output_runnable": "._structured_output",
    "HypotheticalDocumentEmbedder": "._hyde",
    "RetrievalQAWithSourcesChain": "._qa_with_sources",
    "load_qa_with_sources_chain": "._qa_with_sources",
    "LLMCheckerChain": "._llm_checker",
    "MULTI_PROMPT_ROUTER_TEMPLATE": "._router",
    "MULTI_RETRIEVAL_ROUTER_TEMPLATE": "._router",
    "MultiPromptChain": "._router",
    "MultiRetrievalQAChain": "._router",
    "LLMRouterChain": "._router",
    "MultiRouteChain": "._router",
    "RouterChain": "._router",
    "RouterOutputParser": "._router",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
