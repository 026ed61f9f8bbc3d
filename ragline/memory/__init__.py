"""ragline.memory: conversation state that outlives one call.

Persistent chat message histories, each passing the contract suite of
``ragline.core``'s ``BaseChatMessageHistory``: ``FileChatMessageHistory`` (a JSON file,
atomic writes, safe across processes), ``SQLChatMessageHistory`` (one SQLite table keyed
by session id) and ``RedisChatMessageHistory`` (a Redis list per session). Their stored
form is LangChain's, so histories move between the two libraries.

The memories of legacy chains (``Chain(memory=...)``): ``ConversationBufferMemory``,
``ConversationBufferWindowMemory``, ``ConversationTokenBufferMemory``,
``ConversationSummaryMemory``, ``ConversationSummaryBufferMemory``,
``VectorStoreRetrieverMemory``, ``CombinedMemory``, ``ReadOnlySharedMemory``,
``SimpleMemory``, ``ConversationStringBufferMemory`` (a transcript string) and
``ConversationEntityMemory`` (a model-kept summary of each entity,
in an ``InMemoryEntityStore``). Chat memories keep the conversation in any of the histories above.

``SemanticCache``: an LLM cache over any vector store that also answers paraphrases
(a cached prompt of the same model within a relevance threshold).
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "BaseMemory": "._base",
    "BaseChatMemory": "._base",
    "ConversationBufferMemory": "._buffer",
    "ConversationBufferWindowMemory": "._buffer",
    "ConversationTokenBufferMemory": "._buffer",
    "ConversationStringBufferMemory": "._buffer",
    "ConversationSummaryMemory": "._summary",
    "ConversationSummaryBufferMemory": "._summary",
    "SUMMARY_PROMPT": "._summary",
    "VectorStoreRetrieverMemory": "._vectorstore",
    "CombinedMemory": "._combined",
    "ReadOnlySharedMemory": "._combined",
    "SimpleMemory": "._combined",
    "ConversationEntityMemory": "._entity",
    "BaseEntityStore": "._entity",
    "InMemoryEntityStore": "._entity",
    "ENTITY_MEMORY_CONVERSATION_TEMPLATE": "._entity",
    "SemanticCache": "._semantic_cache",
    "FileChatMessageHistory": "._file_history",
    "SQLChatMessageHistory": "._sql_history",
    "RedisChatMessageHistory": "._redis_history",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
