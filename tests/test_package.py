"""Package-level guarantees: light imports, public names, dependency direction."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ragline
from tests._architecture import dependency_table, top_level_units

PACKAGE_ROOT = Path(ragline.__file__).parent
SUBPACKAGES = [
    "core",
    "loaders",
    "splitters",
    "embeddings",
    "chat_models",
    "vectorstores",
    "retrievers",
    "tools",
    "agents",
    "memory",
    "chains",
    "indexing",
    "evaluation",
    "pipelines",
    "sql",
    "tracing",
    "store_folder",
    "serve",
    "interop",
    "cli",
]
HEAVY_MODULES = [
    "mcp",
    "sqlalchemy",
    "faiss",
    "redis",
    "torch",
    "sentence_transformers",
    "transformers",
    "tiktoken",
    "bs4",
    "openai",
    "pypdf",
    "httpx",
    "onnxruntime",
    "onnx",
    "tokenizers",
    "Stemmer",
    "fastapi",
    "starlette",
    "uvicorn",
    "ray",
    "pyarrow",
    "pandas",
    "opentelemetry",
]

# What each package (or top-level module, e.g. "cli") may import of ours: the dependency
# table in ARCHITECTURE.md, read from there so the page and the rule cannot drift apart.
# A new package gets its row there (tests/test_architecture.py says which row is missing).
ALLOWED_IMPORTS = dependency_table()


def _run_python(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_importing_every_public_name_loads_no_heavy_dependency() -> None:
    """Touching every name in every subpackage's __all__ must not import faiss, torch ...

    If this fails, a module imports a heavy package at module level: move the import
    into the function that needs it (ragline.core._optional.require).
    """
    code = f"""
import importlib, json, sys
import ragline
for name in {SUBPACKAGES!r}:
    package = importlib.import_module("ragline." + name)
    for public in package.__all__:
        getattr(package, public)
print(json.dumps(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules)))
"""
    assert json.loads(_run_python(code)) == []


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_subpackage_lists_its_public_names(name: str) -> None:
    """__all__ is sorted, has no duplicates and every name resolves."""
    package = __import__(f"ragline.{name}", fromlist=["__all__"])
    assert list(package.__all__) == sorted(set(package.__all__))
    for public in package.__all__:
        assert getattr(package, public) is not None
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        package.NoSuchName  # noqa: B018


def _ragline_imports(source: str, location: tuple[str, ...]) -> set[str]:
    """The ragline subpackages a module imports (absolute and relative imports).

    ``location`` is the module's path inside the package, e.g. ``("core", "config.py")``.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if not node.level:
                names = [node.module or ""]
            elif node.level < len(location):
                continue  # stays inside its own subpackage
            elif node.module:  # from ..chains import x
                names = [f"ragline.{node.module}"]
            else:  # from .. import chains
                names = [f"ragline.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "ragline" and len(parts) > 1:
                found.add(parts[1])
    return found


def test_subpackages_lists_every_package() -> None:
    """SUBPACKAGES (above) names every subpackage on disk, so the checks here see them all."""
    on_disk = {name for name in top_level_units() if (PACKAGE_ROOT / name).is_dir()}
    missing, gone = sorted(on_disk - set(SUBPACKAGES)), sorted(set(SUBPACKAGES) - on_disk)
    assert not missing, f"add {missing} to SUBPACKAGES in tests/test_package.py"
    assert not gone, f"SUBPACKAGES names packages that do not exist: {gone}"


@pytest.mark.parametrize(
    "name", sorted(name for name, allowed in ALLOWED_IMPORTS.items() if allowed is not None)
)
def test_dependency_direction(name: str) -> None:
    """A package (or top-level module) imports only what ARCHITECTURE.md's table allows.

    If this fails, the named module reaches 'up' the pipeline: move the shared piece
    down (usually into ragline.core) instead of importing upwards. (A new package whose
    imports really are right needs its row in the dependency table of ARCHITECTURE.md.)
    """
    allowed = (ALLOWED_IMPORTS[name] or set()) | {name}
    folder = PACKAGE_ROOT / name
    paths = sorted(folder.rglob("*.py")) if folder.is_dir() else [PACKAGE_ROOT / f"{name}.py"]
    bad = {}
    for path in paths:
        location = path.relative_to(PACKAGE_ROOT).parts
        extra = _ragline_imports(path.read_text(encoding="utf-8"), location) - allowed
        if extra:
            bad[str(path.relative_to(PACKAGE_ROOT))] = sorted(extra)
    assert bad == {}


def test_the_direction_check_sees_every_form_of_import() -> None:
    """The AST walk itself must catch upward imports, or the test above proves nothing."""
    source = (
        "import ragline.loaders\n"
        "from ragline.vectorstores import FAISS\n"
        "from .. import chains\n"
        "from ..splitters import base\n"
        "from . import sibling_module\n"
        "from .runnables import Runnable\n"
    )
    found = _ragline_imports(source, ("core", "module.py"))
    assert found == {"loaders", "vectorstores", "chains", "splitters"}


def test_package_ships_type_information() -> None:
    assert (PACKAGE_ROOT / "py.typed").exists()


# The public names of packages whose own tests do not pin them (loaders, splitters,
# embeddings, retrievers and core's runnables/callbacks pin theirs beside their tests).
# A change here is a change of the public API: make it on purpose.
PINNED_EXPORTS = {
    "cli": ["COMMANDS", "CommandError", "build_parser", "main", "search_kwargs"],
    "pipelines": ["AnalyzeDocumentChain", "VectorStoreIndexWrapper", "VectorstoreIndexCreator"],
    "sql": [
        "InfoSQLDatabaseTool",
        "ListSQLDatabaseTool",
        "QuerySQLCheckerTool",
        "QuerySQLDataBaseTool",
        "QuerySQLDatabaseTool",
        "SQLDatabase",
        "SQLDatabaseToolkit",
        "SQLReadOnlyError",
        "SQL_AGENT_PREFIX",
        "SQL_AGENT_SUFFIX",
        "SQL_AGENT_TOOLS_SUFFIX",
        "SQL_PROMPTS",
        "SQL_QUERY_PROMPT",
        "create_sql_agent",
        "create_sql_query_chain",
    ],
    "serve": [
        "BackgroundServer",
        "FolderSearch",
        "RemoteRunnable",
        "add_routes",
        "create_app",
        "create_store_app",
        "dumpd",
        "loadd",
        "run_server",
    ],
    "agents": [
        "Agent",
        "AgentAction",
        "AgentActionMessageLog",
        "AgentExecutor",
        "AgentExecutorIterator",
        "AgentFinish",
        "AgentOutputParser",
        "AgentStep",
        "AgentType",
        "BaseMultiActionAgent",
        "BaseSingleActionAgent",
        "ConversationalAgent",
        "ConversationalChatAgent",
        "ConvoOutputParser",
        "ExceptionTool",
        "FORMAT_INSTRUCTIONS",
        "InvalidTool",
        "JSONAgentOutputParser",
        "LLMSingleActionAgent",
        "MRKLOutputParser",
        "OpenAIFunctionsAgentOutputParser",
        "OpenAIToolsAgentOutputParser",
        "PREFIX",
        "REACT_PROMPT",
        "ReActSingleInputOutputParser",
        "RunnableAgent",
        "RunnableMultiActionAgent",
        "SUFFIX",
        "SelfAskOutputParser",
        "ToolAgentAction",
        "ToolsAgentOutputParser",
        "XMLAgentOutputParser",
        "ZeroShotAgent",
        "create_json_chat_agent",
        "create_openai_functions_agent",
        "create_openai_tools_agent",
        "create_react_agent",
        "create_self_ask_with_search_agent",
        "create_structured_chat_agent",
        "create_tool_calling_agent",
        "create_xml_agent",
        "format_log_to_messages",
        "format_log_to_str",
        "format_to_openai_function_messages",
        "format_to_openai_functions",
        "format_to_openai_tool_messages",
        "format_to_tool_messages",
        "format_xml",
        "initialize_agent",
    ],
    "tools": [
        "ArgsSchema",
        "BaseTool",
        "CopyFileTool",
        "DeleteFileTool",
        "FileManagementToolkit",
        "FileSearchTool",
        "InjectedToolArg",
        "InjectedToolCallId",
        "ListDirectoryTool",
        "MCPTools",
        "MoveFileTool",
        "RETRIEVER_INPUT",
        "ReadFileTool",
        "StructuredTool",
        "Tool",
        "ToolException",
        "ToolValidationError",
        "WriteFileTool",
        "convert_to_openai_function",
        "convert_to_openai_tool",
        "create_retriever_tool",
        "create_schema_from_function",
        "load_mcp_tools",
        "render_text_description",
        "render_text_description_and_args",
        "tool",
    ],
    "store_folder": [
        "Corpus",
        "DEFAULT_CHUNK_OVERLAP",
        "DEFAULT_CHUNK_SIZE",
        "EmbeddingBackend",
        "FolderArtifact",
        "FolderIndexingResult",
        "FolderWriter",
        "Manifest",
        "SkippedFile",
        "StoreFolder",
        "artifact_names",
        "embedding_names",
        "index_paths",
        "load_paths",
        "make_embeddings",
        "open_store",
        "register_artifact",
        "register_embedding",
        "source_filter",
        "split_documents",
    ],
    "chat_models": ["ChatOpenAI", "convert_to_openai_tool"],
    "vectorstores": [
        "DistanceStrategy",
        "FAISS",
        "InMemoryDocstore",
        "InMemoryVectorStore",
        "Redis",
        "RedisFilter",
        "RedisFilterExpression",
        "RedisNum",
        "RedisStore",
        "RedisTag",
        "RedisText",
        "VST",
        "VectorStore",
        "VectorStoreRetriever",
        "cosine_similarity",
        "cosine_similarity_top_k",
        "maximal_marginal_relevance",
    ],
    "chains": [
        "AsyncCombineDocsProtocol",
        "BaseCombineDocumentsChain",
        "CHAIN_TYPES",
        "Chain",
        "CombineDocsProtocol",
        "ConversationChain",
        "ConversationalRetrievalChain",
        "HypotheticalDocumentEmbedder",
        "LLMChain",
        "LLMCheckerChain",
        "LLMRouterChain",
        "LegacyChainAPI",
        "MULTI_PROMPT_ROUTER_TEMPLATE",
        "MULTI_RETRIEVAL_ROUTER_TEMPLATE",
        "MapReduceChain",
        "MapReduceDocumentsChain",
        "MapRerankDocumentsChain",
        "MultiPromptChain",
        "MultiRetrievalQAChain",
        "MultiRouteChain",
        "RUN_KEY",
        "ReduceDocumentsChain",
        "RefineDocumentsChain",
        "RetrievalQA",
        "RetrievalQAWithSourcesChain",
        "RouterChain",
        "RouterOutputParser",
        "RunInfo",
        "SequentialChain",
        "SimpleSequentialChain",
        "StuffDocumentsChain",
        "TransformChain",
        "acollapse_docs",
        "collapse_docs",
        "create_conversational_retrieval_chain",
        "create_documents_chain",
        "create_history_aware_retriever",
        "create_retrieval_chain",
        "create_structured_output_runnable",
        "create_stuff_documents_chain",
        "format_document",
        "load_qa_chain",
        "load_qa_with_sources_chain",
        "load_summarize_chain",
        "split_list_of_docs",
    ],
    "core": [
        "AIMessage",
        "AIMessageChunk",
        "AIMessagePromptTemplate",
        "AddableDict",
        "AgentAction",
        "AgentActionMessageLog",
        "AgentFinish",
        "AgentStep",
        "ArgsSchema",
        "AsyncCallbackHandler",
        "BaseCache",
        "BaseCallbackHandler",
        "BaseChatMessageHistory",
        "BaseChatModel",
        "BaseCumulativeTransformOutputParser",
        "BaseDocumentTransformer",
        "BaseExampleSelector",
        "BaseLLM",
        "BaseLanguageModel",
        "BaseMessage",
        "BaseMessageChunk",
        "BaseMessagePromptTemplate",
        "BaseOutputParser",
        "BasePromptTemplate",
        "BaseRateLimiter",
        "BaseRetriever",
        "BaseStore",
        "BaseTool",
        "BaseTransformOutputParser",
        "CallbackManager",
        "CallbackManagerForToolRun",
        "ChainStepError",
        "ChatGeneration",
        "ChatGenerationChunk",
        "ChatMessage",
        "ChatMessageChunk",
        "ChatMessageHistory",
        "ChatMessagePromptTemplate",
        "ChatPromptTemplate",
        "ChatPromptValue",
        "ChatResult",
        "CommaSeparatedListOutputParser",
        "ConfigurableField",
        "ConfigurableFieldMultiOption",
        "ConfigurableFieldSingleOption",
        "ConfigurableFieldSpec",
        "ConfigurationError",
        "DimensionError",
        "Document",
        "FakeChatModel",
        "FakeListChatModel",
        "FakeListChatModelError",
        "FakeListLLM",
        "FakeListLLMError",
        "FakeMessagesListChatModel",
        "FakeStreamingListLLM",
        "FewShotChatMessagePromptTemplate",
        "FewShotPromptTemplate",
        "Field",
        "Fields",
        "FilterError",
        "FunctionMessage",
        "FunctionMessageChunk",
        "Generation",
        "GenerationChunk",
        "GenericFakeChatModel",
        "Graph",
        "HumanMessage",
        "HumanMessageChunk",
        "HumanMessagePromptTemplate",
        "InMemoryByteStore",
        "InMemoryCache",
        "InMemoryChatMessageHistory",
        "InMemoryRateLimiter",
        "IndexingInterrupted",
        "InvalidInputError",
        "InvalidToolCall",
        "JsonOutputKeyToolsParser",
        "JsonOutputParser",
        "JsonOutputToolsParser",
        "LLM",
        "LLMResult",
        "LengthBasedExampleSelector",
        "LoaderError",
        "LocalFileStore",
        "MaxMarginalRelevanceExampleSelector",
        "MessagesPlaceholder",
        "MissingDependencyError",
        "MissingVariableError",
        "OutputFixingParser",
        "OutputParserException",
        "ParrotFakeChatModel",
        "PersistenceError",
        "PromptTemplate",
        "PromptValue",
        "PydanticOutputParser",
        "PydanticToolsParser",
        "RaglineError",
        "RecursionLimitError",
        "RedisCache",
        "RedisStore",
        "RemoveMessage",
        "RetryOutputParser",
        "RetryWithErrorOutputParser",
        "Run",
        "RunCollectorCallbackHandler",
        "RunInfo",
        "RunLog",
        "RunLogPatch",
        "Runnable",
        "RunnableAssign",
        "RunnableBinding",
        "RunnableBindingBase",
        "RunnableBranch",
        "RunnableConfig",
        "RunnableEach",
        "RunnableEachBase",
        "RunnableGenerator",
        "RunnableLambda",
        "RunnableParallel",
        "RunnablePassthrough",
        "RunnablePick",
        "RunnableRetry",
        "RunnableSequence",
        "RunnableSerializable",
        "RunnableWithFallbacks",
        "RunnableWithMessageHistory",
        "SQLiteCache",
        "SemanticSimilarityExampleSelector",
        "ServerError",
        "ServerTimeoutError",
        "SimpleChatModel",
        "StdOutCallbackHandler",
        "StoreConnectionError",
        "StoreLockedError",
        "StrOutputParser",
        "StringPromptValue",
        "SystemMessage",
        "SystemMessageChunk",
        "SystemMessagePromptTemplate",
        "ToolAgentAction",
        "ToolCall",
        "ToolCallChunk",
        "ToolException",
        "ToolMessage",
        "ToolMessageChunk",
        "ToolValidationError",
        "UsageMetadata",
        "chain",
        "convert_pydantic_to_openai_function",
        "convert_pydantic_to_openai_tool",
        "convert_to_messages",
        "convert_to_openai_function",
        "convert_to_openai_messages",
        "convert_to_openai_tool",
        "count_tokens_approximately",
        "ensure_config",
        "filter_messages",
        "format_document",
        "get_buffer_string",
        "get_current_config",
        "get_debug",
        "get_llm_cache",
        "get_verbose",
        "load_prompt",
        "load_prompt_from_config",
        "merge_message_runs",
        "message_to_dict",
        "messages_from_dict",
        "messages_to_dict",
        "mock_now",
        "set_debug",
        "set_llm_cache",
        "set_verbose",
        "tool_example_to_messages",
        "trim_messages",
    ],
    "memory": [
        "BaseChatMemory",
        "BaseEntityStore",
        "BaseMemory",
        "CombinedMemory",
        "ConversationBufferMemory",
        "ConversationBufferWindowMemory",
        "ConversationEntityMemory",
        "ConversationStringBufferMemory",
        "ConversationSummaryBufferMemory",
        "ConversationSummaryMemory",
        "ConversationTokenBufferMemory",
        "ENTITY_MEMORY_CONVERSATION_TEMPLATE",
        "FileChatMessageHistory",
        "InMemoryEntityStore",
        "ReadOnlySharedMemory",
        "RedisChatMessageHistory",
        "SQLChatMessageHistory",
        "SUMMARY_PROMPT",
        "SemanticCache",
        "SimpleMemory",
        "VectorStoreRetrieverMemory",
    ],
}


@pytest.mark.parametrize("name", sorted(PINNED_EXPORTS))
def test_public_names_are_pinned(name: str) -> None:
    package = __import__(f"ragline.{name}", fromlist=["__all__"])
    assert package.__all__ == PINNED_EXPORTS[name]
