"""ragline.interop.langchain: LangChain objects inside ragline, ragline's inside LangChain.

``from_langchain(obj)`` wraps a LangChain chat model, LLM, embeddings, vector store,
retriever, document loader, text splitter, tool, chat message history or any Runnable
as its ragline equivalent; ``to_langchain(obj)`` wraps ragline's stores, retrievers,
embeddings, tools, chat models and runnables (chains) as ``langchain_core`` objects.
Runs inside a wrapped object reach the caller's callback handlers under the wrapper's
run, in both directions. Messages, documents and configs convert field for field; a
conversion that would drop something raises ``InvalidInputError`` naming the field.

Needs ``langchain-core`` (``pip install 'ragline[langchain]'``); it is imported on
first use, so importing this package loads nothing.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "config_from_langchain": "._convert",
    "config_to_langchain": "._convert",
    "document_from_langchain": "._convert",
    "document_to_langchain": "._convert",
    "from_langchain": "._from",
    "message_from_langchain": "._convert",
    "message_to_langchain": "._convert",
    "to_langchain": "._to",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
