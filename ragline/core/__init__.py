"""ragline.core: the shared Runnable core.

Imports no sibling package and no heavy dependency. Public names load lazily.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    # documents and errors
    "Document": ".documents",
    "RaglineError": ".exceptions",
    "InvalidInputError": ".exceptions",
    "MissingVariableError": ".exceptions",
    "FilterError": ".exceptions",
    "DimensionError": ".exceptions",
    "ConfigurationError": ".exceptions",
    "MissingDependencyError": ".exceptions",
    "StoreConnectionError": ".exceptions",
    "PersistenceError": ".exceptions",
    "LoaderError": ".exceptions",
    "ChainStepError": ".exceptions",
    "RecursionLimitError": ".exceptions",
    # declared fields (keyword constructors without pydantic)
    "Field": ".fields",
    "Fields": ".fields",
    # config
    "RunnableConfig": ".config",
    "ensure_config": ".config",
    "get_current_config": ".config",
    # runnables
    "Runnable": ".runnables",
    "RunnableSequence": ".runnables",
    "RunnableParallel": ".runnables",
    "RunnableLambda": ".runnables",
    "RunnablePassthrough": ".runnables",
    "RunnableAssign": ".runnables",
    "RunnablePick": ".runnables",
    "RunnableBinding": ".runnables",
    "RunnableRetry": ".runnables",
    "RunnableWithFallbacks": ".runnables",
    "RunnableBranch": ".runnables",
    "ConfigurableField": ".runnables",
    "Graph": ".runnables",
    "chain": ".runnables",
    "RunnableGenerator": ".runnables",
    "RunnableEach": ".runnables",
    # callbacks
    "BaseCallbackHandler": ".callbacks",
    "AsyncCallbackHandler": ".callbacks",
    "CallbackManager": ".callbacks",
    "StdOutCallbackHandler": ".callbacks",
    "RunCollectorCallbackHandler": ".callbacks",
    "Run": ".callbacks",
    # messages
    "BaseMessage": ".messages",
    "BaseMessageChunk": ".messages",
    "SystemMessage": ".messages",
    "HumanMessage": ".messages",
    "AIMessage": ".messages",
    "AIMessageChunk": ".messages",
    "ToolMessage": ".messages",
    "ToolCall": ".messages",
    "UsageMetadata": ".messages",
    "ChatMessage": ".messages",
    "SystemMessageChunk": ".messages",
    "HumanMessageChunk": ".messages",
    "ToolMessageChunk": ".messages",
    "ToolCallChunk": ".messages",
    "InvalidToolCall": ".messages",
    "convert_to_messages": ".messages",
    "get_buffer_string": ".messages",
    # prompts
    "PromptValue": ".prompts",
    "StringPromptValue": ".prompts",
    "ChatPromptValue": ".prompts",
    "BasePromptTemplate": ".prompts",
    "PromptTemplate": ".prompts",
    "ChatPromptTemplate": ".prompts",
    "MessagesPlaceholder": ".prompts",
    "BaseMessagePromptTemplate": ".prompts",
    "SystemMessagePromptTemplate": ".prompts",
    "HumanMessagePromptTemplate": ".prompts",
    "AIMessagePromptTemplate": ".prompts",
    # output parsers
    "BaseOutputParser": ".output_parsers",
    "StrOutputParser": ".output_parsers",
    "JsonOutputParser": ".output_parsers",
    "BaseTransformOutputParser": ".output_parsers",
    "CommaSeparatedListOutputParser": ".output_parsers",
    # language models
    "BaseLanguageModel": ".language_models",
    "BaseChatModel": ".language_models",
    "BaseLLM": ".language_models",
    "LLMResult": ".language_models",
    "Generation": ".language_models",
    "ChatGeneration": ".language_models",
    "GenerationChunk": ".language_models",
    "ChatGenerationChunk": ".language_models",
    "FakeListLLM": ".fake_models",
    "FakeListChatModel": ".fake_models",
    # retrievers and stores
    "BaseRetriever": ".retrievers",
    "BaseStore": ".stores",
    "InMemoryByteStore": ".stores",
    "LocalFileStore": ".stores",
    "RedisStore": ".stores",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)
