"""The path table: LangChain import paths to ragline's (generated; do not edit by hand).

``PATHS[langchain_module][ragline_module]`` is the space-separated list of the names
that ``from langchain_module import Name`` gives and ``from ragline_module import Name``
gives too: the same behaviour under the same name, which the parity tests check
(``tests/parity``). ``ragline port`` rewrites imports with it; ``langchain.X`` (the
package before it became ``langchain_classic``) is read as ``langchain_classic.X``.

``MISSING[langchain_module]`` lists that module's other public names (its ``__all__``,
or the names it defines): ragline lacks them, so when ``port`` writes out a star import
the ones a program uses stay imported from LangChain, and are reported.

Regenerate with ``scripts/gen_port_table.py`` (it reads the installed LangChain).
"""

PATHS: dict[str, dict[str, str]] = {
    "langchain_classic": {
        "ragline.chains": "ConversationChain LLMChain LLMCheckerChain",
        "ragline.core": "BasePromptTemplate FewShotPromptTemplate PromptTemplate",
        "ragline.sql": "SQLDatabase",
        "ragline.vectorstores": "FAISS InMemoryDocstore",
    },
    "langchain_classic.agents": {
        "ragline.agents": (
            "Agent AgentExecutor AgentExecutorIterator AgentOutputParser AgentType "
            "BaseMultiActionAgent BaseSingleActionAgent ConversationalAgent "
            "ConversationalChatAgent LLMSingleActionAgent ZeroShotAgent "
            "create_json_chat_agent create_openai_functions_agent "
            "create_openai_tools_agent create_react_agent create_self_ask_with_search_agent "
            "create_structured_chat_agent create_tool_calling_agent create_xml_agent "
            "initialize_agent"
        ),
        "ragline.sql": "create_sql_agent",
        "ragline.tools": "Tool tool",
    },
    "langchain_classic.agents.agent": {
        "ragline.agents": (
            "Agent AgentExecutor AgentExecutorIterator AgentOutputParser AgentType "
            "BaseMultiActionAgent BaseSingleActionAgent ExceptionTool "
            "LLMSingleActionAgent RunnableAgent RunnableMultiActionAgent"
        ),
    },
    "langchain_classic.agents.agent_iterator": {
        "ragline.agents": "AgentExecutorIterator",
    },
    "langchain_classic.agents.agent_toolkits": {
        "ragline.sql": "SQLDatabaseToolkit create_sql_agent",
        "ragline.tools": "FileManagementToolkit create_retriever_tool",
    },
    "langchain_classic.agents.agent_toolkits.conversational_retrieval.tool": {
        "ragline.tools": "create_retriever_tool",
    },
    "langchain_classic.agents.agent_toolkits.file_management": {
        "ragline.tools": "FileManagementToolkit",
    },
    "langchain_classic.agents.agent_toolkits.file_management.toolkit": {
        "ragline.tools": "FileManagementToolkit",
    },
    "langchain_classic.agents.agent_toolkits.sql.base": {
        "ragline.sql": "create_sql_agent",
    },
    "langchain_classic.agents.agent_toolkits.sql.toolkit": {
        "ragline.sql": "SQLDatabaseToolkit",
    },
    "langchain_classic.agents.agent_types": {
        "ragline.agents": "AgentType",
    },
    "langchain_classic.agents.conversational.base": {
        "ragline.agents": "ConversationalAgent",
    },
    "langchain_classic.agents.conversational.output_parser": {
        "ragline.agents": "ConvoOutputParser",
    },
    "langchain_classic.agents.conversational_chat.base": {
        "ragline.agents": "ConversationalChatAgent",
    },
    "langchain_classic.agents.format_scratchpad": {
        "ragline.agents": (
            "format_log_to_messages format_log_to_str format_to_openai_function_messages "
            "format_to_openai_functions format_to_tool_messages format_xml"
        ),
    },
    "langchain_classic.agents.format_scratchpad.log": {
        "ragline.agents": "format_log_to_str",
    },
    "langchain_classic.agents.format_scratchpad.log_to_messages": {
        "ragline.agents": "format_log_to_messages",
    },
    "langchain_classic.agents.format_scratchpad.openai_functions": {
        "ragline.agents": "format_to_openai_function_messages format_to_openai_functions",
    },
    "langchain_classic.agents.format_scratchpad.openai_tools": {
        "ragline.agents": "format_to_openai_tool_messages",
    },
    "langchain_classic.agents.format_scratchpad.tools": {
        "ragline.agents": "format_to_tool_messages",
    },
    "langchain_classic.agents.format_scratchpad.xml": {
        "ragline.agents": "format_xml",
    },
    "langchain_classic.agents.initialize": {
        "ragline.agents": "initialize_agent",
    },
    "langchain_classic.agents.json_chat.base": {
        "ragline.agents": "create_json_chat_agent",
    },
    "langchain_classic.agents.mrkl.base": {
        "ragline.agents": "ZeroShotAgent",
    },
    "langchain_classic.agents.mrkl.output_parser": {
        "ragline.agents": "MRKLOutputParser",
    },
    "langchain_classic.agents.openai_functions_agent.base": {
        "ragline.agents": "create_openai_functions_agent",
    },
    "langchain_classic.agents.openai_tools.base": {
        "ragline.agents": "create_openai_tools_agent",
    },
    "langchain_classic.agents.output_parsers": {
        "ragline.agents": (
            "JSONAgentOutputParser OpenAIFunctionsAgentOutputParser "
            "ReActSingleInputOutputParser SelfAskOutputParser ToolsAgentOutputParser "
            "XMLAgentOutputParser"
        ),
    },
    "langchain_classic.agents.output_parsers.json": {
        "ragline.agents": "JSONAgentOutputParser",
    },
    "langchain_classic.agents.output_parsers.openai_functions": {
        "ragline.agents": "OpenAIFunctionsAgentOutputParser",
    },
    "langchain_classic.agents.output_parsers.openai_tools": {
        "ragline.agents": "OpenAIToolsAgentOutputParser",
    },
    "langchain_classic.agents.output_parsers.react_single_input": {
        "ragline.agents": "ReActSingleInputOutputParser",
    },
    "langchain_classic.agents.output_parsers.self_ask": {
        "ragline.agents": "SelfAskOutputParser",
    },
    "langchain_classic.agents.output_parsers.tools": {
        "ragline.agents": "ToolAgentAction ToolsAgentOutputParser",
    },
    "langchain_classic.agents.output_parsers.xml": {
        "ragline.agents": "XMLAgentOutputParser",
    },
    "langchain_classic.agents.react.agent": {
        "ragline.agents": "create_react_agent",
    },
    "langchain_classic.agents.self_ask_with_search.base": {
        "ragline.agents": "create_self_ask_with_search_agent",
    },
    "langchain_classic.agents.structured_chat.base": {
        "ragline.agents": "create_structured_chat_agent",
    },
    "langchain_classic.agents.tool_calling_agent.base": {
        "ragline.agents": "create_tool_calling_agent",
    },
    "langchain_classic.agents.tools": {
        "ragline.agents": "InvalidTool",
        "ragline.tools": "BaseTool tool",
    },
    "langchain_classic.agents.xml.base": {
        "ragline.agents": "create_xml_agent",
    },
    "langchain_classic.base_memory": {
        "ragline.memory": "BaseMemory",
    },
    "langchain_classic.cache": {
        "ragline.core": "InMemoryCache RedisCache SQLiteCache",
        "ragline.core.caches": "FullLLMCache SQLAlchemyCache",
    },
    "langchain_classic.callbacks": {
        "ragline.core": "StdOutCallbackHandler",
        "ragline.core.callbacks": (
            "AsyncIteratorCallbackHandler FileCallbackHandler "
            "FinalStreamingStdOutCallbackHandler OpenAICallbackHandler "
            "StreamingStdOutCallbackHandler collect_runs get_openai_callback"
        ),
    },
    "langchain_classic.callbacks.base": {
        "ragline.core": "AsyncCallbackHandler BaseCallbackHandler",
        "ragline.core.callbacks": "BaseCallbackManager",
    },
    "langchain_classic.callbacks.manager": {
        "ragline.core": "CallbackManager CallbackManagerForToolRun",
        "ragline.core.callbacks": (
            "AsyncCallbackManager AsyncCallbackManagerForChainGroup "
            "AsyncCallbackManagerForChainRun AsyncCallbackManagerForLLMRun "
            "AsyncCallbackManagerForRetrieverRun AsyncCallbackManagerForToolRun "
            "BaseRunManager CallbackManagerForChainGroup CallbackManagerForChainRun "
            "CallbackManagerForLLMRun CallbackManagerForRetrieverRun "
            "atrace_as_chain_group collect_runs get_openai_callback trace_as_chain_group"
        ),
    },
    "langchain_classic.callbacks.openai_info": {
        "ragline.core.callbacks": "OpenAICallbackHandler",
    },
    "langchain_classic.callbacks.streaming_aiter": {
        "ragline.core.callbacks": "AsyncIteratorCallbackHandler",
    },
    "langchain_classic.callbacks.streaming_stdout": {
        "ragline.core.callbacks": "StreamingStdOutCallbackHandler",
    },
    "langchain_classic.callbacks.streaming_stdout_final_only": {
        "ragline.core.callbacks": "FinalStreamingStdOutCallbackHandler",
    },
    "langchain_classic.chains": {
        "ragline.chains": (
            "ConversationChain ConversationalRetrievalChain HypotheticalDocumentEmbedder "
            "LLMChain LLMCheckerChain LLMRouterChain MapReduceChain "
            "MapReduceDocumentsChain MapRerankDocumentsChain MultiPromptChain "
            "MultiRetrievalQAChain MultiRouteChain ReduceDocumentsChain "
            "RefineDocumentsChain RetrievalQA RetrievalQAWithSourcesChain RouterChain "
            "SequentialChain SimpleSequentialChain StuffDocumentsChain TransformChain "
            "create_history_aware_retriever create_retrieval_chain "
            "create_structured_output_runnable load_summarize_chain"
        ),
        "ragline.pipelines": "AnalyzeDocumentChain",
        "ragline.sql": "create_sql_query_chain",
    },
    "langchain_classic.chains.base": {
        "ragline.chains": "Chain",
    },
    "langchain_classic.chains.combine_documents": {
        "ragline.chains": (
            "acollapse_docs collapse_docs create_stuff_documents_chain split_list_of_docs"
        ),
    },
    "langchain_classic.chains.combine_documents.base": {
        "ragline.chains": "BaseCombineDocumentsChain",
        "ragline.pipelines": "AnalyzeDocumentChain",
    },
    "langchain_classic.chains.combine_documents.map_reduce": {
        "ragline.chains": "MapReduceDocumentsChain",
    },
    "langchain_classic.chains.combine_documents.map_rerank": {
        "ragline.chains": "MapRerankDocumentsChain",
    },
    "langchain_classic.chains.combine_documents.reduce": {
        "ragline.chains": (
            "AsyncCombineDocsProtocol CombineDocsProtocol ReduceDocumentsChain "
            "acollapse_docs collapse_docs split_list_of_docs"
        ),
    },
    "langchain_classic.chains.combine_documents.refine": {
        "ragline.chains": "RefineDocumentsChain",
    },
    "langchain_classic.chains.combine_documents.stuff": {
        "ragline.chains": "StuffDocumentsChain create_stuff_documents_chain",
    },
    "langchain_classic.chains.conversation.base": {
        "ragline.chains": "ConversationChain",
    },
    "langchain_classic.chains.conversation.memory": {
        "ragline.memory": (
            "CombinedMemory ConversationBufferMemory ConversationBufferWindowMemory "
            "ConversationEntityMemory ConversationStringBufferMemory "
            "ConversationSummaryBufferMemory ConversationSummaryMemory"
        ),
    },
    "langchain_classic.chains.conversational_retrieval.base": {
        "ragline.chains": "ConversationalRetrievalChain",
    },
    "langchain_classic.chains.history_aware_retriever": {
        "ragline.chains": "create_history_aware_retriever",
    },
    "langchain_classic.chains.hyde.base": {
        "ragline.chains": "HypotheticalDocumentEmbedder",
    },
    "langchain_classic.chains.llm": {
        "ragline.chains": "LLMChain",
    },
    "langchain_classic.chains.llm_checker.base": {
        "ragline.chains": "LLMCheckerChain",
    },
    "langchain_classic.chains.mapreduce": {
        "ragline.chains": (
            "LLMChain MapReduceChain MapReduceDocumentsChain ReduceDocumentsChain "
            "StuffDocumentsChain"
        ),
    },
    "langchain_classic.chains.openai_functions": {
        "ragline.chains": "create_structured_output_runnable",
        "ragline.core": "convert_to_openai_function",
    },
    "langchain_classic.chains.openai_functions.base": {
        "ragline.chains": "create_structured_output_runnable",
        "ragline.core": "convert_to_openai_function",
    },
    "langchain_classic.chains.qa_with_sources": {
        "ragline.chains": "load_qa_with_sources_chain",
    },
    "langchain_classic.chains.qa_with_sources.loading": {
        "ragline.chains": "load_qa_with_sources_chain",
    },
    "langchain_classic.chains.qa_with_sources.retrieval": {
        "ragline.chains": "RetrievalQAWithSourcesChain",
    },
    "langchain_classic.chains.query_constructor": {
        "ragline.retrievers": "load_query_constructor_runnable",
    },
    "langchain_classic.chains.query_constructor.base": {
        "ragline.retrievers": (
            "AttributeInfo StructuredQueryOutputParser construct_examples "
            "fix_filter_directive get_query_constructor_prompt "
            "load_query_constructor_runnable"
        ),
    },
    "langchain_classic.chains.query_constructor.ir": {
        "ragline.core.structured_query": (
            "Comparator Comparison Expr FilterDirective Operation Operator StructuredQuery Visitor"
        ),
    },
    "langchain_classic.chains.query_constructor.parser": {
        "ragline.retrievers": "get_parser",
    },
    "langchain_classic.chains.query_constructor.schema": {
        "ragline.retrievers": "AttributeInfo",
    },
    "langchain_classic.chains.question_answering": {
        "ragline.chains": "load_qa_chain",
    },
    "langchain_classic.chains.question_answering.chain": {
        "ragline.chains": "load_qa_chain",
    },
    "langchain_classic.chains.retrieval": {
        "ragline.chains": "create_retrieval_chain",
    },
    "langchain_classic.chains.retrieval_qa.base": {
        "ragline.chains": "RetrievalQA",
    },
    "langchain_classic.chains.router": {
        "ragline.chains": (
            "LLMRouterChain MultiPromptChain MultiRetrievalQAChain MultiRouteChain RouterChain"
        ),
    },
    "langchain_classic.chains.router.base": {
        "ragline.chains": "MultiRouteChain RouterChain",
    },
    "langchain_classic.chains.router.llm_router": {
        "ragline.chains": "LLMRouterChain RouterOutputParser",
    },
    "langchain_classic.chains.router.multi_prompt": {
        "ragline.chains": "MULTI_PROMPT_ROUTER_TEMPLATE MultiPromptChain",
    },
    "langchain_classic.chains.router.multi_prompt_prompt": {
        "ragline.chains": "MULTI_PROMPT_ROUTER_TEMPLATE",
    },
    "langchain_classic.chains.router.multi_retrieval_prompt": {
        "ragline.chains": "MULTI_RETRIEVAL_ROUTER_TEMPLATE",
    },
    "langchain_classic.chains.router.multi_retrieval_qa": {
        "ragline.chains": "MULTI_RETRIEVAL_ROUTER_TEMPLATE MultiRetrievalQAChain",
    },
    "langchain_classic.chains.sequential": {
        "ragline.chains": "SequentialChain SimpleSequentialChain",
    },
    "langchain_classic.chains.sql_database.query": {
        "ragline.sql": "create_sql_query_chain",
    },
    "langchain_classic.chains.structured_output": {
        "ragline.chains": "create_structured_output_runnable",
    },
    "langchain_classic.chains.structured_output.base": {
        "ragline.chains": "create_structured_output_runnable",
    },
    "langchain_classic.chains.summarize": {
        "ragline.chains": "load_summarize_chain",
    },
    "langchain_classic.chains.summarize.chain": {
        "ragline.chains": "load_summarize_chain",
    },
    "langchain_classic.chains.transform": {
        "ragline.chains": "TransformChain",
    },
    "langchain_classic.chat_models": {
        "ragline.chat_models": "ChatOpenAI",
        "ragline.core": "FakeListChatModel",
    },
    "langchain_classic.docstore": {
        "ragline.vectorstores": "InMemoryDocstore",
    },
    "langchain_classic.docstore.document": {
        "ragline.core": "Document",
    },
    "langchain_classic.document_loaders": {
        "ragline.loaders": (
            "BSHTMLLoader Blob BlobLoader CSVLoader DirectoryLoader FileSystemBlobLoader "
            "JSONLoader MergedDataLoader PyPDFDirectoryLoader PyPDFLoader PythonLoader "
            "TextLoader WebBaseLoader"
        ),
    },
    "langchain_classic.document_transformers": {
        "ragline.loaders": "BeautifulSoupTransformer",
        "ragline.retrievers": (
            "EmbeddingsClusteringFilter EmbeddingsRedundantFilter LongContextReorder"
        ),
    },
    "langchain_classic.document_transformers.embeddings_redundant_filter": {
        "ragline.retrievers": "EmbeddingsClusteringFilter EmbeddingsRedundantFilter",
    },
    "langchain_classic.embeddings": {
        "ragline.chains": "HypotheticalDocumentEmbedder",
        "ragline.embeddings": (
            "CacheBackedEmbeddings DeterministicFakeEmbedding FakeEmbeddings "
            "HuggingFaceBgeEmbeddings HuggingFaceEmbeddings OpenAIEmbeddings "
            "SentenceTransformerEmbeddings"
        ),
    },
    "langchain_classic.embeddings.base": {
        "ragline.embeddings": "Embeddings",
    },
    "langchain_classic.embeddings.cache": {
        "ragline.embeddings": "CacheBackedEmbeddings",
    },
    "langchain_classic.embeddings.fake": {
        "ragline.embeddings": "DeterministicFakeEmbedding FakeEmbeddings",
    },
    "langchain_classic.embeddings.huggingface": {
        "ragline.embeddings": "HuggingFaceBgeEmbeddings HuggingFaceEmbeddings",
    },
    "langchain_classic.embeddings.openai": {
        "ragline.embeddings": "OpenAIEmbeddings",
    },
    "langchain_classic.embeddings.sentence_transformer": {
        "ragline.embeddings": "SentenceTransformerEmbeddings",
    },
    "langchain_classic.evaluation": {
        "ragline.evaluation": (
            "AgentTrajectoryEvaluator ContextQAEvalChain CotQAEvalChain Criteria "
            "CriteriaEvalChain EmbeddingDistance EmbeddingDistanceEvalChain EvaluatorType "
            "ExactMatchStringEvaluator JsonEditDistanceEvaluator JsonEqualityEvaluator "
            "JsonSchemaEvaluator JsonValidityEvaluator LabeledCriteriaEvalChain "
            "LabeledPairwiseStringEvalChain LabeledScoreStringEvalChain "
            "PairwiseEmbeddingDistanceEvalChain PairwiseStringDistanceEvalChain "
            "PairwiseStringEvalChain PairwiseStringEvaluator QAEvalChain "
            "RegexMatchStringEvaluator ScoreStringEvalChain StringDistance "
            "StringDistanceEvalChain StringEvaluator TrajectoryEvalChain load_evaluator "
            "load_evaluators"
        ),
    },
    "langchain_classic.evaluation.agents": {
        "ragline.evaluation": "TrajectoryEvalChain",
    },
    "langchain_classic.evaluation.agents.trajectory_eval_chain": {
        "ragline.evaluation": "TrajectoryEvalChain",
    },
    "langchain_classic.evaluation.comparison": {
        "ragline.evaluation": "LabeledPairwiseStringEvalChain PairwiseStringEvalChain",
    },
    "langchain_classic.evaluation.comparison.eval_chain": {
        "ragline.evaluation": "LabeledPairwiseStringEvalChain PairwiseStringEvalChain",
    },
    "langchain_classic.evaluation.criteria": {
        "ragline.evaluation": "Criteria CriteriaEvalChain LabeledCriteriaEvalChain",
    },
    "langchain_classic.evaluation.criteria.eval_chain": {
        "ragline.evaluation": "Criteria CriteriaEvalChain LabeledCriteriaEvalChain",
    },
    "langchain_classic.evaluation.embedding_distance": {
        "ragline.evaluation": (
            "EmbeddingDistance EmbeddingDistanceEvalChain PairwiseEmbeddingDistanceEvalChain"
        ),
    },
    "langchain_classic.evaluation.embedding_distance.base": {
        "ragline.evaluation": (
            "EmbeddingDistance EmbeddingDistanceEvalChain PairwiseEmbeddingDistanceEvalChain"
        ),
    },
    "langchain_classic.evaluation.exact_match.base": {
        "ragline.evaluation": "ExactMatchStringEvaluator",
    },
    "langchain_classic.evaluation.loading": {
        "ragline.evaluation": "load_evaluator load_evaluators",
    },
    "langchain_classic.evaluation.parsing.base": {
        "ragline.evaluation": "JsonEqualityEvaluator JsonValidityEvaluator",
    },
    "langchain_classic.evaluation.parsing.json_distance": {
        "ragline.evaluation": "JsonEditDistanceEvaluator",
    },
    "langchain_classic.evaluation.parsing.json_schema": {
        "ragline.evaluation": "JsonSchemaEvaluator",
    },
    "langchain_classic.evaluation.qa": {
        "ragline.evaluation": "ContextQAEvalChain CotQAEvalChain QAEvalChain QAGenerateChain",
    },
    "langchain_classic.evaluation.qa.eval_chain": {
        "ragline.evaluation": "ContextQAEvalChain CotQAEvalChain QAEvalChain",
    },
    "langchain_classic.evaluation.qa.generate_chain": {
        "ragline.evaluation": "QAGenerateChain",
    },
    "langchain_classic.evaluation.regex_match.base": {
        "ragline.evaluation": "RegexMatchStringEvaluator",
    },
    "langchain_classic.evaluation.schema": {
        "ragline.evaluation": (
            "AgentTrajectoryEvaluator EvaluatorType PairwiseStringEvaluator StringEvaluator"
        ),
    },
    "langchain_classic.evaluation.scoring": {
        "ragline.evaluation": "LabeledScoreStringEvalChain ScoreStringEvalChain",
    },
    "langchain_classic.evaluation.scoring.eval_chain": {
        "ragline.evaluation": "LabeledScoreStringEvalChain ScoreStringEvalChain",
    },
    "langchain_classic.evaluation.string_distance": {
        "ragline.evaluation": (
            "PairwiseStringDistanceEvalChain StringDistance StringDistanceEvalChain"
        ),
    },
    "langchain_classic.evaluation.string_distance.base": {
        "ragline.evaluation": (
            "PairwiseStringDistanceEvalChain StringDistance StringDistanceEvalChain"
        ),
    },
    "langchain_classic.globals": {
        "ragline.core": "get_debug get_llm_cache get_verbose set_debug set_llm_cache set_verbose",
    },
    "langchain_classic.indexes": {
        "ragline.indexing": "IndexingResult SQLRecordManager aindex index",
        "ragline.pipelines": "VectorstoreIndexCreator",
    },
    "langchain_classic.indexes.vectorstore": {
        "ragline.pipelines": "VectorStoreIndexWrapper VectorstoreIndexCreator",
    },
    "langchain_classic.llms": {
        "ragline.core": "FakeListLLM",
    },
    "langchain_classic.llms.base": {
        "ragline.core": "BaseLLM BaseLanguageModel LLM",
    },
    "langchain_classic.memory": {
        "ragline.core": "ChatMessageHistory",
        "ragline.memory": (
            "CombinedMemory ConversationBufferMemory ConversationBufferWindowMemory "
            "ConversationEntityMemory ConversationStringBufferMemory "
            "ConversationSummaryBufferMemory ConversationSummaryMemory "
            "ConversationTokenBufferMemory FileChatMessageHistory InMemoryEntityStore "
            "ReadOnlySharedMemory RedisChatMessageHistory SQLChatMessageHistory "
            "SimpleMemory VectorStoreRetrieverMemory"
        ),
    },
    "langchain_classic.memory.buffer": {
        "ragline.memory": "ConversationBufferMemory ConversationStringBufferMemory",
    },
    "langchain_classic.memory.buffer_window": {
        "ragline.memory": "ConversationBufferWindowMemory",
    },
    "langchain_classic.memory.chat_memory": {
        "ragline.memory": "BaseChatMemory",
    },
    "langchain_classic.memory.chat_message_histories": {
        "ragline.core": "ChatMessageHistory",
        "ragline.memory": "FileChatMessageHistory RedisChatMessageHistory SQLChatMessageHistory",
    },
    "langchain_classic.memory.chat_message_histories.file": {
        "ragline.memory": "FileChatMessageHistory",
    },
    "langchain_classic.memory.chat_message_histories.in_memory": {
        "ragline.core": "ChatMessageHistory",
    },
    "langchain_classic.memory.chat_message_histories.redis": {
        "ragline.memory": "RedisChatMessageHistory",
    },
    "langchain_classic.memory.chat_message_histories.sql": {
        "ragline.memory": "SQLChatMessageHistory",
    },
    "langchain_classic.memory.combined": {
        "ragline.memory": "CombinedMemory",
    },
    "langchain_classic.memory.entity": {
        "ragline.memory": "BaseEntityStore ConversationEntityMemory InMemoryEntityStore",
    },
    "langchain_classic.memory.readonly": {
        "ragline.memory": "ReadOnlySharedMemory",
    },
    "langchain_classic.memory.simple": {
        "ragline.memory": "SimpleMemory",
    },
    "langchain_classic.memory.summary": {
        "ragline.memory": "ConversationSummaryMemory",
    },
    "langchain_classic.memory.summary_buffer": {
        "ragline.memory": "ConversationSummaryBufferMemory",
    },
    "langchain_classic.memory.token_buffer": {
        "ragline.memory": "ConversationTokenBufferMemory",
    },
    "langchain_classic.memory.vectorstore": {
        "ragline.memory": "VectorStoreRetrieverMemory",
    },
    "langchain_classic.output_parsers": {
        "ragline.core": (
            "CommaSeparatedListOutputParser JsonOutputKeyToolsParser "
            "JsonOutputToolsParser OutputFixingParser PydanticOutputParser "
            "PydanticToolsParser RetryOutputParser RetryWithErrorOutputParser"
        ),
        "ragline.core.output_parsers": (
            "BooleanOutputParser CombiningOutputParser DatetimeOutputParser "
            "EnumOutputParser ListOutputParser MarkdownListOutputParser "
            "NumberedListOutputParser RegexDictParser RegexParser ResponseSchema "
            "StructuredOutputParser XMLOutputParser YamlOutputParser"
        ),
    },
    "langchain_classic.output_parsers.boolean": {
        "ragline.core.output_parsers": "BooleanOutputParser",
    },
    "langchain_classic.output_parsers.combining": {
        "ragline.core.output_parsers": "CombiningOutputParser",
    },
    "langchain_classic.output_parsers.datetime": {
        "ragline.core.output_parsers": "DatetimeOutputParser",
    },
    "langchain_classic.output_parsers.enum": {
        "ragline.core.output_parsers": "EnumOutputParser",
    },
    "langchain_classic.output_parsers.ernie_functions": {
        "ragline.core.output_parsers": (
            "JsonKeyOutputFunctionsParser JsonOutputFunctionsParser OutputFunctionsParser "
            "PydanticAttrOutputFunctionsParser PydanticOutputFunctionsParser"
        ),
    },
    "langchain_classic.output_parsers.format_instructions": {
        "ragline.core.output_parsers": (
            "PYDANTIC_FORMAT_INSTRUCTIONS STRUCTURED_FORMAT_INSTRUCTIONS "
            "STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS YAML_FORMAT_INSTRUCTIONS"
        ),
    },
    "langchain_classic.output_parsers.fix": {
        "ragline.core": "OutputFixingParser",
        "ragline.core.output_parsers": "NAIVE_FIX_PROMPT",
    },
    "langchain_classic.output_parsers.json": {
        "ragline.core.output_parsers": (
            "SimpleJsonOutputParser parse_and_check_json_markdown parse_json_markdown "
            "parse_partial_json"
        ),
    },
    "langchain_classic.output_parsers.list": {
        "ragline.core": "CommaSeparatedListOutputParser",
        "ragline.core.output_parsers": (
            "ListOutputParser MarkdownListOutputParser NumberedListOutputParser"
        ),
    },
    "langchain_classic.output_parsers.openai_functions": {
        "ragline.core.output_parsers": (
            "JsonKeyOutputFunctionsParser JsonOutputFunctionsParser "
            "PydanticAttrOutputFunctionsParser PydanticOutputFunctionsParser"
        ),
    },
    "langchain_classic.output_parsers.openai_tools": {
        "ragline.core": "JsonOutputKeyToolsParser JsonOutputToolsParser PydanticToolsParser",
    },
    "langchain_classic.output_parsers.pydantic": {
        "ragline.core": "PydanticOutputParser",
    },
    "langchain_classic.output_parsers.regex": {
        "ragline.core.output_parsers": "RegexParser",
    },
    "langchain_classic.output_parsers.regex_dict": {
        "ragline.core.output_parsers": "RegexDictParser",
    },
    "langchain_classic.output_parsers.prompts": {
        "ragline.core.output_parsers": "NAIVE_FIX_PROMPT",
    },
    "langchain_classic.output_parsers.retry": {
        "ragline.core": "RetryOutputParser RetryWithErrorOutputParser",
        "ragline.core.output_parsers": "NAIVE_RETRY_PROMPT NAIVE_RETRY_WITH_ERROR_PROMPT",
    },
    "langchain_classic.output_parsers.structured": {
        "ragline.core.output_parsers": (
            "ResponseSchema StructuredOutputParser parse_and_check_json_markdown"
        ),
    },
    "langchain_classic.output_parsers.xml": {
        "ragline.core.output_parsers": "XMLOutputParser",
    },
    "langchain_classic.output_parsers.yaml": {
        "ragline.core.output_parsers": "YamlOutputParser",
    },
    "langchain_classic.prompts": {
        "ragline.core": (
            "AIMessagePromptTemplate BasePromptTemplate ChatMessagePromptTemplate "
            "ChatPromptTemplate FewShotChatMessagePromptTemplate FewShotPromptTemplate "
            "HumanMessagePromptTemplate LengthBasedExampleSelector "
            "MaxMarginalRelevanceExampleSelector MessagesPlaceholder PromptTemplate "
            "SemanticSimilarityExampleSelector SystemMessagePromptTemplate load_prompt"
        ),
        "ragline.core.prompts": (
            "BaseChatPromptTemplate FewShotPromptWithTemplates StringPromptTemplate"
        ),
    },
    "langchain_classic.prompts.base": {
        "ragline.core": "BasePromptTemplate StringPromptValue",
        "ragline.core.prompts": "StringPromptTemplate get_template_variables",
    },
    "langchain_classic.prompts.chat": {
        "ragline.core": (
            "AIMessagePromptTemplate BaseMessagePromptTemplate ChatMessagePromptTemplate "
            "ChatPromptTemplate ChatPromptValue HumanMessagePromptTemplate "
            "MessagesPlaceholder SystemMessagePromptTemplate"
        ),
        "ragline.core.messages": "MessageLike",
        "ragline.core.prompts": "BaseChatPromptTemplate",
    },
    "langchain_classic.prompts.example_selector": {
        "ragline.core": (
            "LengthBasedExampleSelector MaxMarginalRelevanceExampleSelector "
            "SemanticSimilarityExampleSelector"
        ),
    },
    "langchain_classic.prompts.example_selector.base": {
        "ragline.core": "BaseExampleSelector",
    },
    "langchain_classic.prompts.example_selector.length_based": {
        "ragline.core": "LengthBasedExampleSelector",
    },
    "langchain_classic.prompts.example_selector.semantic_similarity": {
        "ragline.core": "MaxMarginalRelevanceExampleSelector SemanticSimilarityExampleSelector",
    },
    "langchain_classic.prompts.few_shot": {
        "ragline.core": "FewShotChatMessagePromptTemplate FewShotPromptTemplate",
    },
    "langchain_classic.prompts.few_shot_with_templates": {
        "ragline.core.prompts": "FewShotPromptWithTemplates",
    },
    "langchain_classic.prompts.loading": {
        "ragline.core": "load_prompt load_prompt_from_config",
    },
    "langchain_classic.prompts.prompt": {
        "ragline.core": "PromptTemplate",
    },
    "langchain_classic.retrievers": {
        "ragline.retrievers": (
            "BM25Retriever ContextualCompressionRetriever EnsembleRetriever KNNRetriever "
            "MergerRetriever MultiQueryRetriever MultiVectorRetriever "
            "ParentDocumentRetriever RePhraseQueryRetriever SelfQueryRetriever "
            "TFIDFRetriever TimeWeightedVectorStoreRetriever"
        ),
    },
    "langchain_classic.retrievers.bm25": {
        "ragline.retrievers": "BM25Retriever default_preprocessing_func",
    },
    "langchain_classic.retrievers.contextual_compression": {
        "ragline.retrievers": "ContextualCompressionRetriever",
    },
    "langchain_classic.retrievers.document_compressors": {
        "ragline.retrievers": (
            "DocumentCompressorPipeline EmbeddingsFilter LLMChainExtractor LLMChainFilter "
            "LLMListwiseRerank"
        ),
    },
    "langchain_classic.retrievers.document_compressors.base": {
        "ragline.retrievers": "DocumentCompressorPipeline",
    },
    "langchain_classic.retrievers.document_compressors.chain_extract": {
        "ragline.retrievers": "LLMChainExtractor NoOutputParser",
    },
    "langchain_classic.retrievers.document_compressors.chain_filter": {
        "ragline.retrievers": "LLMChainFilter",
    },
    "langchain_classic.retrievers.document_compressors.embeddings_filter": {
        "ragline.retrievers": "EmbeddingsFilter",
    },
    "langchain_classic.retrievers.document_compressors.listwise_rerank": {
        "ragline.retrievers": "LLMListwiseRerank",
    },
    "langchain_classic.retrievers.ensemble": {
        "ragline.retrievers": "EnsembleRetriever",
    },
    "langchain_classic.retrievers.knn": {
        "ragline.retrievers": "KNNRetriever",
    },
    "langchain_classic.retrievers.merger_retriever": {
        "ragline.retrievers": "MergerRetriever",
    },
    "langchain_classic.retrievers.multi_query": {
        "ragline.retrievers": "LineListOutputParser MultiQueryRetriever",
    },
    "langchain_classic.retrievers.multi_vector": {
        "ragline.retrievers": "MultiVectorRetriever SearchType",
    },
    "langchain_classic.retrievers.parent_document_retriever": {
        "ragline.retrievers": "ParentDocumentRetriever",
    },
    "langchain_classic.retrievers.re_phraser": {
        "ragline.retrievers": "RePhraseQueryRetriever",
    },
    "langchain_classic.retrievers.self_query.base": {
        "ragline.retrievers": "SelfQueryRetriever",
    },
    "langchain_classic.retrievers.self_query.redis": {
        "ragline.retrievers": "RedisTranslator",
    },
    "langchain_classic.retrievers.tfidf": {
        "ragline.retrievers": "TFIDFRetriever",
    },
    "langchain_classic.retrievers.time_weighted_retriever": {
        "ragline.retrievers": "TimeWeightedVectorStoreRetriever",
    },
    "langchain_classic.schema": {
        "ragline.core": (
            "AIMessage AgentAction AgentFinish BaseCache BaseChatMessageHistory "
            "BaseDocumentTransformer BaseMessage BaseOutputParser BasePromptTemplate "
            "BaseRetriever BaseStore ChatGeneration ChatMessage ChatResult Document "
            "FunctionMessage Generation HumanMessage LLMResult OutputParserException "
            "PromptValue StrOutputParser SystemMessage format_document get_buffer_string "
            "message_to_dict messages_from_dict messages_to_dict"
        ),
        "ragline.memory": "BaseMemory",
    },
    "langchain_classic.schema.agent": {
        "ragline.core": "AgentAction AgentActionMessageLog AgentFinish",
    },
    "langchain_classic.schema.cache": {
        "ragline.core": "BaseCache",
        "ragline.core.caches": "RETURN_VAL_TYPE",
    },
    "langchain_classic.schema.callbacks.base": {
        "ragline.core": "AsyncCallbackHandler BaseCallbackHandler",
        "ragline.core.callbacks": "BaseCallbackManager",
    },
    "langchain_classic.schema.callbacks.manager": {
        "ragline.core": "CallbackManager CallbackManagerForToolRun",
        "ragline.core.callbacks": (
            "AsyncCallbackManager AsyncCallbackManagerForChainGroup "
            "AsyncCallbackManagerForChainRun AsyncCallbackManagerForLLMRun "
            "AsyncCallbackManagerForRetrieverRun AsyncCallbackManagerForToolRun "
            "BaseRunManager CallbackManagerForChainGroup CallbackManagerForChainRun "
            "CallbackManagerForLLMRun CallbackManagerForRetrieverRun collect_runs "
            "trace_as_chain_group"
        ),
    },
    "langchain_classic.schema.callbacks.stdout": {
        "ragline.core": "StdOutCallbackHandler",
    },
    "langchain_classic.schema.callbacks.streaming_stdout": {
        "ragline.core.callbacks": "StreamingStdOutCallbackHandler",
    },
    "langchain_classic.schema.callbacks.tracers.base": {
        "ragline.core.callbacks": "BaseTracer",
    },
    "langchain_classic.schema.callbacks.tracers.langchain": {
        "ragline.core.callbacks": "wait_for_all_tracers",
    },
    "langchain_classic.schema.callbacks.tracers.log_stream": {
        "ragline.core": "RunLog RunLogPatch",
    },
    "langchain_classic.schema.callbacks.tracers.run_collector": {
        "ragline.core": "RunCollectorCallbackHandler",
    },
    "langchain_classic.schema.callbacks.tracers.schemas": {
        "ragline.core": "Run",
    },
    "langchain_classic.schema.callbacks.tracers.stdout": {
        "ragline.core.callbacks": "ConsoleCallbackHandler FunctionCallbackHandler",
    },
    "langchain_classic.schema.chat_history": {
        "ragline.core": "BaseChatMessageHistory",
    },
    "langchain_classic.schema.document": {
        "ragline.core": "BaseDocumentTransformer Document",
    },
    "langchain_classic.schema.embeddings": {
        "ragline.embeddings": "Embeddings",
    },
    "langchain_classic.schema.language_model": {
        "ragline.core": "BaseLanguageModel",
        "ragline.core.language_models": "LanguageModelInput",
    },
    "langchain_classic.schema.memory": {
        "ragline.memory": "BaseMemory",
    },
    "langchain_classic.schema.messages": {
        "ragline.core": (
            "AIMessage AIMessageChunk BaseMessage BaseMessageChunk ChatMessage "
            "ChatMessageChunk FunctionMessage FunctionMessageChunk HumanMessage "
            "HumanMessageChunk SystemMessage SystemMessageChunk ToolMessage "
            "ToolMessageChunk get_buffer_string message_to_dict messages_from_dict "
            "messages_to_dict"
        ),
        "ragline.core.messages": "AnyMessage",
    },
    "langchain_classic.schema.output": {
        "ragline.core": (
            "ChatGeneration ChatGenerationChunk ChatResult Generation GenerationChunk LLMResult"
        ),
    },
    "langchain_classic.schema.output_parser": {
        "ragline.core": (
            "BaseCumulativeTransformOutputParser BaseOutputParser "
            "BaseTransformOutputParser OutputParserException StrOutputParser"
        ),
        "ragline.core.output_parsers": "BaseGenerationOutputParser",
    },
    "langchain_classic.schema.prompt": {
        "ragline.core": "PromptValue",
    },
    "langchain_classic.schema.prompt_template": {
        "ragline.core": "BasePromptTemplate format_document",
    },
    "langchain_classic.schema.retriever": {
        "ragline.core": "BaseRetriever",
    },
    "langchain_classic.schema.runnable": {
        "ragline.core": (
            "ConfigurableField ConfigurableFieldMultiOption ConfigurableFieldSingleOption "
            "Runnable RunnableBinding RunnableBranch RunnableConfig RunnableGenerator "
            "RunnableLambda RunnableParallel RunnablePassthrough RunnableSequence "
            "RunnableSerializable RunnableWithFallbacks"
        ),
        "ragline.core.config": "patch_config",
        "ragline.core.runnables": "RouterInput RouterRunnable RunnableMap",
    },
    "langchain_classic.schema.runnable.base": {
        "ragline.core": (
            "Runnable RunnableBinding RunnableBindingBase RunnableEach RunnableEachBase "
            "RunnableGenerator RunnableLambda RunnableParallel RunnableSequence "
            "RunnableSerializable"
        ),
        "ragline.core.runnables": "Input Output RunnableMap coerce_to_runnable",
    },
    "langchain_classic.schema.runnable.branch": {
        "ragline.core": "RunnableBranch",
    },
    "langchain_classic.schema.runnable.config": {
        "ragline.core": "RunnableConfig ensure_config",
        "ragline.core.config": "get_config_list merge_configs patch_config",
    },
    "langchain_classic.schema.runnable.configurable": {
        "ragline.core.runnables": "RunnableConfigurableAlternatives RunnableConfigurableFields",
    },
    "langchain_classic.schema.runnable.fallbacks": {
        "ragline.core": "RunnableWithFallbacks",
    },
    "langchain_classic.schema.runnable.history": {
        "ragline.core": "RunnableWithMessageHistory",
    },
    "langchain_classic.schema.runnable.passthrough": {
        "ragline.core": "RunnableAssign RunnablePassthrough",
    },
    "langchain_classic.schema.runnable.retry": {
        "ragline.core": "RunnableRetry",
    },
    "langchain_classic.schema.runnable.router": {
        "ragline.core.runnables": "RouterInput RouterRunnable",
    },
    "langchain_classic.schema.runnable.utils": {
        "ragline.core": (
            "AddableDict ConfigurableField ConfigurableFieldMultiOption "
            "ConfigurableFieldSingleOption ConfigurableFieldSpec"
        ),
        "ragline.core.runnables": "Input Output",
    },
    "langchain_classic.schema.storage": {
        "ragline.core": "BaseStore",
    },
    "langchain_classic.schema.vectorstore": {
        "ragline.vectorstores": "VST VectorStore VectorStoreRetriever",
    },
    "langchain_classic.storage": {
        "ragline.core": "InMemoryByteStore LocalFileStore RedisStore",
        "ragline.core.stores": "EncoderBackedStore InMemoryStore",
        "ragline.retrievers": "create_kv_docstore",
    },
    "langchain_classic.storage._lc_store": {
        "ragline.retrievers": "create_kv_docstore",
    },
    "langchain_classic.storage.encoder_backed": {
        "ragline.core.stores": "EncoderBackedStore",
    },
    "langchain_classic.storage.file_system": {
        "ragline.core": "LocalFileStore",
    },
    "langchain_classic.storage.in_memory": {
        "ragline.core": "InMemoryByteStore",
        "ragline.core.stores": "InMemoryStore",
    },
    "langchain_classic.storage.redis": {
        "ragline.core": "RedisStore",
    },
    "langchain_classic.text_splitter": {
        "ragline.splitters": (
            "CharacterTextSplitter HTMLHeaderTextSplitter Language LatexTextSplitter "
            "MarkdownHeaderTextSplitter MarkdownTextSplitter PythonCodeTextSplitter "
            "RecursiveCharacterTextSplitter RecursiveJsonSplitter "
            "SentenceTransformersTokenTextSplitter TextSplitter TokenTextSplitter "
            "Tokenizer split_text_on_tokens"
        ),
    },
    "langchain_classic.tools": {
        "ragline.sql": (
            "InfoSQLDatabaseTool ListSQLDatabaseTool QuerySQLCheckerTool QuerySQLDataBaseTool"
        ),
        "ragline.tools": (
            "BaseTool CopyFileTool DeleteFileTool FileSearchTool ListDirectoryTool "
            "MoveFileTool ReadFileTool StructuredTool Tool WriteFileTool tool"
        ),
    },
    "langchain_classic.tools.base": {
        "ragline.tools": (
            "BaseTool StructuredTool Tool ToolException create_schema_from_function tool"
        ),
    },
    "langchain_classic.tools.file_management": {
        "ragline.tools": (
            "CopyFileTool DeleteFileTool FileSearchTool ListDirectoryTool MoveFileTool "
            "ReadFileTool WriteFileTool"
        ),
    },
    "langchain_classic.tools.file_management.copy": {
        "ragline.tools": "CopyFileTool",
    },
    "langchain_classic.tools.file_management.delete": {
        "ragline.tools": "DeleteFileTool",
    },
    "langchain_classic.tools.file_management.file_search": {
        "ragline.tools": "FileSearchTool",
    },
    "langchain_classic.tools.file_management.list_dir": {
        "ragline.tools": "ListDirectoryTool",
    },
    "langchain_classic.tools.file_management.move": {
        "ragline.tools": "MoveFileTool",
    },
    "langchain_classic.tools.file_management.read": {
        "ragline.tools": "ReadFileTool",
    },
    "langchain_classic.tools.file_management.write": {
        "ragline.tools": "WriteFileTool",
    },
    "langchain_classic.tools.render": {
        "ragline.tools": "render_text_description render_text_description_and_args",
    },
    "langchain_classic.tools.retriever": {
        "ragline.tools": (
            "create_retriever_tool render_text_description render_text_description_and_args"
        ),
    },
    "langchain_classic.tools.sql_database.tool": {
        "ragline.sql": (
            "InfoSQLDatabaseTool ListSQLDatabaseTool QuerySQLCheckerTool QuerySQLDataBaseTool"
        ),
    },
    "langchain_classic.utils.openai_functions": {
        "ragline.core": "convert_pydantic_to_openai_function convert_pydantic_to_openai_tool",
    },
    "langchain_classic.vectorstores": {
        "ragline.vectorstores": "FAISS Redis VectorStore",
    },
    "langchain_classic.vectorstores.faiss": {
        "ragline.vectorstores": "FAISS",
    },
    "langchain_community.agent_toolkits": {
        "ragline.sql": "SQLDatabaseToolkit create_sql_agent",
        "ragline.tools": "FileManagementToolkit",
    },
    "langchain_community.agent_toolkits.file_management": {
        "ragline.tools": "FileManagementToolkit",
    },
    "langchain_community.agent_toolkits.file_management.toolkit": {
        "ragline.tools": "FileManagementToolkit",
    },
    "langchain_community.agent_toolkits.sql.base": {
        "ragline.sql": "SQLDatabaseToolkit create_sql_agent",
    },
    "langchain_community.agent_toolkits.sql.toolkit": {
        "ragline.sql": "SQLDatabaseToolkit",
    },
    "langchain_community.cache": {
        "ragline.core": "InMemoryCache RedisCache SQLiteCache",
        "ragline.core.caches": "FullLLMCache SQLAlchemyCache",
    },
    "langchain_community.callbacks": {
        "ragline.core.callbacks": "OpenAICallbackHandler get_openai_callback",
    },
    "langchain_community.callbacks.manager": {
        "ragline.core.callbacks": "get_openai_callback",
    },
    "langchain_community.callbacks.openai_info": {
        "ragline.core.callbacks": "OpenAICallbackHandler",
    },
    "langchain_community.chat_message_histories": {
        "ragline.core": "ChatMessageHistory",
        "ragline.memory": "FileChatMessageHistory RedisChatMessageHistory SQLChatMessageHistory",
    },
    "langchain_community.chat_message_histories.file": {
        "ragline.memory": "FileChatMessageHistory",
    },
    "langchain_community.chat_message_histories.in_memory": {
        "ragline.core": "ChatMessageHistory",
    },
    "langchain_community.chat_message_histories.redis": {
        "ragline.memory": "RedisChatMessageHistory",
    },
    "langchain_community.chat_message_histories.sql": {
        "ragline.memory": "SQLChatMessageHistory",
    },
    "langchain_community.chat_models": {
        "ragline.core": "FakeListChatModel",
    },
    "langchain_community.chat_models.fake": {
        "ragline.core": "FakeListChatModel FakeMessagesListChatModel",
    },
    "langchain_community.chat_models.openai": {
        "ragline.chat_models": "ChatOpenAI",
    },
    "langchain_community.docstore": {
        "ragline.vectorstores": "InMemoryDocstore",
    },
    "langchain_community.docstore.document": {
        "ragline.core": "Document",
    },
    "langchain_community.docstore.in_memory": {
        "ragline.vectorstores": "InMemoryDocstore",
    },
    "langchain_community.document_loaders": {
        "ragline.loaders": (
            "BSHTMLLoader Blob BlobLoader CSVLoader DirectoryLoader FileSystemBlobLoader "
            "JSONLoader MergedDataLoader PyPDFDirectoryLoader PyPDFLoader PythonLoader "
            "TextLoader WebBaseLoader"
        ),
    },
    "langchain_community.document_loaders.base": {
        "ragline.loaders": "BaseBlobParser BaseLoader",
    },
    "langchain_community.document_loaders.blob_loaders": {
        "ragline.loaders": "Blob BlobLoader FileSystemBlobLoader",
    },
    "langchain_community.document_loaders.blob_loaders.file_system": {
        "ragline.loaders": "FileSystemBlobLoader",
    },
    "langchain_community.document_loaders.csv_loader": {
        "ragline.loaders": "CSVLoader",
    },
    "langchain_community.document_loaders.directory": {
        "ragline.loaders": "DirectoryLoader",
    },
    "langchain_community.document_loaders.generic": {
        "ragline.loaders": "GenericLoader",
    },
    "langchain_community.document_loaders.html_bs": {
        "ragline.loaders": "BSHTMLLoader",
    },
    "langchain_community.document_loaders.json_loader": {
        "ragline.loaders": "JSONLoader",
    },
    "langchain_community.document_loaders.parsers.generic": {
        "ragline.loaders": "MimeTypeBasedParser",
    },
    "langchain_community.document_loaders.parsers.txt": {
        "ragline.loaders": "TextParser",
    },
    "langchain_community.document_loaders.pdf": {
        "ragline.loaders": "PyPDFDirectoryLoader PyPDFLoader",
    },
    "langchain_community.document_loaders.text": {
        "ragline.loaders": "TextLoader",
    },
    "langchain_community.document_loaders.web_base": {
        "ragline.loaders": "WebBaseLoader",
    },
    "langchain_community.document_transformers": {
        "ragline.loaders": "BeautifulSoupTransformer",
        "ragline.retrievers": (
            "EmbeddingsClusteringFilter EmbeddingsRedundantFilter LongContextReorder"
        ),
    },
    "langchain_community.document_transformers.embeddings_redundant_filter": {
        "ragline.retrievers": "EmbeddingsClusteringFilter EmbeddingsRedundantFilter",
    },
    "langchain_community.document_transformers.long_context_reorder": {
        "ragline.retrievers": "LongContextReorder",
    },
    "langchain_community.embeddings": {
        "ragline.embeddings": (
            "DeterministicFakeEmbedding FakeEmbeddings HuggingFaceBgeEmbeddings "
            "HuggingFaceEmbeddings OpenAIEmbeddings SentenceTransformerEmbeddings"
        ),
    },
    "langchain_community.embeddings.huggingface": {
        "ragline.embeddings": "HuggingFaceBgeEmbeddings HuggingFaceEmbeddings",
    },
    "langchain_community.embeddings.openai": {
        "ragline.embeddings": "OpenAIEmbeddings",
    },
    "langchain_community.embeddings.sentence_transformer": {
        "ragline.embeddings": "HuggingFaceEmbeddings SentenceTransformerEmbeddings",
    },
    "langchain_community.llms": {
        "ragline.core": "FakeListLLM",
    },
    "langchain_community.llms.fake": {
        "ragline.core": "FakeListLLM FakeStreamingListLLM",
    },
    "langchain_community.query_constructors.redis": {
        "ragline.retrievers": "RedisTranslator",
    },
    "langchain_community.retrievers": {
        "ragline.retrievers": "BM25Retriever KNNRetriever TFIDFRetriever",
    },
    "langchain_community.retrievers.bm25": {
        "ragline.retrievers": "BM25Retriever default_preprocessing_func",
    },
    "langchain_community.storage": {
        "ragline.core": "RedisStore",
    },
    "langchain_community.storage.redis": {
        "ragline.core": "RedisStore",
    },
    "langchain_community.tools": {
        "ragline.sql": (
            "InfoSQLDatabaseTool ListSQLDatabaseTool QuerySQLCheckerTool "
            "QuerySQLDataBaseTool QuerySQLDatabaseTool"
        ),
        "ragline.tools": (
            "BaseTool CopyFileTool DeleteFileTool FileSearchTool ListDirectoryTool "
            "MoveFileTool ReadFileTool StructuredTool Tool WriteFileTool tool"
        ),
    },
    "langchain_community.tools.file_management": {
        "ragline.tools": (
            "CopyFileTool DeleteFileTool FileSearchTool ListDirectoryTool MoveFileTool "
            "ReadFileTool WriteFileTool"
        ),
    },
    "langchain_community.tools.file_management.copy": {
        "ragline.tools": "CopyFileTool",
    },
    "langchain_community.tools.file_management.delete": {
        "ragline.tools": "DeleteFileTool",
    },
    "langchain_community.tools.file_management.file_search": {
        "ragline.tools": "FileSearchTool",
    },
    "langchain_community.tools.file_management.list_dir": {
        "ragline.tools": "ListDirectoryTool",
    },
    "langchain_community.tools.file_management.move": {
        "ragline.tools": "MoveFileTool",
    },
    "langchain_community.tools.file_management.read": {
        "ragline.tools": "ReadFileTool",
    },
    "langchain_community.tools.file_management.write": {
        "ragline.tools": "WriteFileTool",
    },
    "langchain_community.tools.sql_database.tool": {
        "ragline.sql": (
            "InfoSQLDatabaseTool ListSQLDatabaseTool QuerySQLCheckerTool "
            "QuerySQLDataBaseTool QuerySQLDatabaseTool"
        ),
    },
    "langchain_community.utilities": {
        "ragline.sql": "SQLDatabase",
    },
    "langchain_community.utilities.sql_database": {
        "ragline.sql": "SQLDatabase",
    },
    "langchain_community.utils.math": {
        "ragline.vectorstores": "cosine_similarity cosine_similarity_top_k",
    },
    "langchain_community.utils.openai_functions": {
        "ragline.core": "convert_pydantic_to_openai_function convert_pydantic_to_openai_tool",
    },
    "langchain_community.vectorstores": {
        "ragline.vectorstores": "DistanceStrategy FAISS InMemoryVectorStore Redis VectorStore",
    },
    "langchain_community.vectorstores.faiss": {
        "ragline.vectorstores": "FAISS",
    },
    "langchain_community.vectorstores.inmemory": {
        "ragline.vectorstores": "InMemoryVectorStore",
    },
    "langchain_community.vectorstores.redis": {
        "ragline.vectorstores": "Redis RedisFilter RedisNum RedisTag RedisText",
    },
    "langchain_community.vectorstores.redis.base": {
        "ragline.vectorstores": "Redis",
    },
    "langchain_community.vectorstores.redis.filters": {
        "ragline.vectorstores": "RedisFilter RedisFilterExpression RedisNum RedisTag RedisText",
    },
    "langchain_community.vectorstores.utils": {
        "ragline.vectorstores": "DistanceStrategy maximal_marginal_relevance",
    },
    "langchain_core.agents": {
        "ragline.agents": "AgentAction AgentActionMessageLog AgentFinish AgentStep",
    },
    "langchain_core.caches": {
        "ragline.core": "BaseCache InMemoryCache",
        "ragline.core.caches": "RETURN_VAL_TYPE",
    },
    "langchain_core.callbacks": {
        "ragline.core": (
            "AsyncCallbackHandler BaseCallbackHandler CallbackManager "
            "CallbackManagerForToolRun StdOutCallbackHandler"
        ),
        "ragline.core.callbacks": (
            "AsyncCallbackManager AsyncCallbackManagerForChainGroup "
            "AsyncCallbackManagerForChainRun AsyncCallbackManagerForLLMRun "
            "AsyncCallbackManagerForRetrieverRun AsyncCallbackManagerForToolRun "
            "BaseCallbackManager BaseRunManager CallbackManagerForChainGroup "
            "CallbackManagerForChainRun CallbackManagerForLLMRun "
            "CallbackManagerForRetrieverRun Callbacks FileCallbackHandler "
            "StreamingStdOutCallbackHandler UsageMetadataCallbackHandler "
            "adispatch_custom_event dispatch_custom_event get_usage_metadata_callback"
        ),
    },
    "langchain_core.callbacks.base": {
        "ragline.core": "AsyncCallbackHandler BaseCallbackHandler",
        "ragline.core.callbacks": "BaseCallbackManager Callbacks",
    },
    "langchain_core.callbacks.file": {
        "ragline.core.callbacks": "FileCallbackHandler",
    },
    "langchain_core.callbacks.manager": {
        "ragline.core": "CallbackManager CallbackManagerForToolRun",
        "ragline.core.callbacks": (
            "AsyncCallbackManager AsyncCallbackManagerForChainGroup "
            "AsyncCallbackManagerForChainRun AsyncCallbackManagerForLLMRun "
            "AsyncCallbackManagerForRetrieverRun AsyncCallbackManagerForToolRun "
            "BaseRunManager CallbackManagerForChainGroup CallbackManagerForChainRun "
            "CallbackManagerForLLMRun CallbackManagerForRetrieverRun Callbacks "
            "adispatch_custom_event atrace_as_chain_group dispatch_custom_event "
            "trace_as_chain_group"
        ),
    },
    "langchain_core.callbacks.stdout": {
        "ragline.core": "StdOutCallbackHandler",
    },
    "langchain_core.callbacks.streaming_stdout": {
        "ragline.core.callbacks": "StreamingStdOutCallbackHandler",
    },
    "langchain_core.callbacks.usage": {
        "ragline.core.callbacks": "UsageMetadataCallbackHandler get_usage_metadata_callback",
    },
    "langchain_core.chat_history": {
        "ragline.core": "BaseChatMessageHistory InMemoryChatMessageHistory",
    },
    "langchain_core.document_loaders": {
        "ragline.loaders": "BaseBlobParser BaseLoader Blob BlobLoader",
    },
    "langchain_core.document_loaders.base": {
        "ragline.loaders": "BaseBlobParser BaseLoader",
    },
    "langchain_core.document_loaders.blob_loaders": {
        "ragline.loaders": "Blob BlobLoader",
    },
    "langchain_core.documents": {
        "ragline.core": "BaseDocumentTransformer Document",
        "ragline.retrievers": "BaseDocumentCompressor",
    },
    "langchain_core.documents.base": {
        "ragline.core": "Document",
        "ragline.loaders": "Blob",
    },
    "langchain_core.documents.compressor": {
        "ragline.retrievers": "BaseDocumentCompressor",
    },
    "langchain_core.documents.transformers": {
        "ragline.core": "BaseDocumentTransformer",
    },
    "langchain_core.embeddings": {
        "ragline.embeddings": "DeterministicFakeEmbedding Embeddings FakeEmbeddings",
    },
    "langchain_core.embeddings.embeddings": {
        "ragline.embeddings": "Embeddings",
    },
    "langchain_core.embeddings.fake": {
        "ragline.embeddings": "DeterministicFakeEmbedding FakeEmbeddings",
    },
    "langchain_core.example_selectors": {
        "ragline.core": (
            "BaseExampleSelector LengthBasedExampleSelector "
            "MaxMarginalRelevanceExampleSelector SemanticSimilarityExampleSelector"
        ),
    },
    "langchain_core.example_selectors.base": {
        "ragline.core": "BaseExampleSelector",
    },
    "langchain_core.example_selectors.length_based": {
        "ragline.core": "LengthBasedExampleSelector",
    },
    "langchain_core.example_selectors.semantic_similarity": {
        "ragline.core": "MaxMarginalRelevanceExampleSelector SemanticSimilarityExampleSelector",
    },
    "langchain_core.exceptions": {
        "ragline.core": "OutputParserException",
    },
    "langchain_core.globals": {
        "ragline.core": "get_debug get_llm_cache get_verbose set_debug set_llm_cache set_verbose",
    },
    "langchain_core.indexing": {
        "ragline.indexing": "InMemoryRecordManager IndexingResult RecordManager aindex index",
    },
    "langchain_core.indexing.api": {
        "ragline.indexing": "IndexingException IndexingResult aindex index",
    },
    "langchain_core.indexing.base": {
        "ragline.indexing": "InMemoryRecordManager RecordManager",
    },
    "langchain_core.language_models": {
        "ragline.core": (
            "BaseChatModel BaseLLM BaseLanguageModel FakeListChatModel FakeListLLM "
            "FakeMessagesListChatModel FakeStreamingListLLM GenericFakeChatModel LLM "
            "ParrotFakeChatModel SimpleChatModel"
        ),
        "ragline.core.language_models": "LanguageModelInput",
    },
    "langchain_core.language_models.base": {
        "ragline.core": "BaseLanguageModel",
        "ragline.core.language_models": "LanguageModelInput",
    },
    "langchain_core.language_models.chat_models": {
        "ragline.core": "BaseChatModel SimpleChatModel",
    },
    "langchain_core.language_models.fake": {
        "ragline.core": "FakeListLLM FakeListLLMError FakeStreamingListLLM",
    },
    "langchain_core.language_models.fake_chat_models": {
        "ragline.core": (
            "FakeChatModel FakeListChatModel FakeListChatModelError "
            "FakeMessagesListChatModel GenericFakeChatModel ParrotFakeChatModel"
        ),
    },
    "langchain_core.language_models.llms": {
        "ragline.core": "BaseLLM LLM",
    },
    "langchain_core.load": {
        "ragline.core.load": "dumpd dumps load loads",
    },
    "langchain_core.load.dump": {
        "ragline.core.load": "dumpd dumps",
    },
    "langchain_core.load.load": {
        "ragline.core.load": "load loads",
    },
    "langchain_core.messages": {
        "ragline.core": (
            "AIMessage AIMessageChunk BaseMessage BaseMessageChunk ChatMessage "
            "ChatMessageChunk FunctionMessage FunctionMessageChunk HumanMessage "
            "HumanMessageChunk InvalidToolCall RemoveMessage SystemMessage "
            "SystemMessageChunk ToolCall ToolCallChunk ToolMessage ToolMessageChunk "
            "UsageMetadata convert_to_messages convert_to_openai_messages filter_messages "
            "get_buffer_string merge_message_runs message_to_dict messages_from_dict "
            "messages_to_dict trim_messages"
        ),
        "ragline.core.messages": "AnyMessage message_chunk_to_message",
    },
    "langchain_core.messages.ai": {
        "ragline.core": "AIMessage AIMessageChunk UsageMetadata",
        "ragline.core.messages": "add_usage",
    },
    "langchain_core.messages.base": {
        "ragline.core": "BaseMessage BaseMessageChunk message_to_dict messages_to_dict",
    },
    "langchain_core.messages.chat": {
        "ragline.core": "ChatMessage ChatMessageChunk",
    },
    "langchain_core.messages.content": {
        "ragline.core": "InvalidToolCall ToolCall ToolCallChunk",
    },
    "langchain_core.messages.function": {
        "ragline.core": "FunctionMessage FunctionMessageChunk",
    },
    "langchain_core.messages.human": {
        "ragline.core": "HumanMessage HumanMessageChunk",
    },
    "langchain_core.messages.modifier": {
        "ragline.core": "RemoveMessage",
    },
    "langchain_core.messages.system": {
        "ragline.core": "SystemMessage SystemMessageChunk",
    },
    "langchain_core.messages.tool": {
        "ragline.core": "ToolCall ToolCallChunk ToolMessage ToolMessageChunk",
        "ragline.core.messages": "invalid_tool_call tool_call tool_call_chunk",
    },
    "langchain_core.messages.utils": {
        "ragline.core": (
            "convert_to_messages convert_to_openai_messages count_tokens_approximately "
            "filter_messages get_buffer_string merge_message_runs messages_from_dict "
            "trim_messages"
        ),
        "ragline.core.messages": "AnyMessage message_chunk_to_message",
    },
    "langchain_core.output_parsers": {
        "ragline.core": (
            "BaseCumulativeTransformOutputParser BaseOutputParser "
            "BaseTransformOutputParser CommaSeparatedListOutputParser "
            "JsonOutputKeyToolsParser JsonOutputParser JsonOutputToolsParser "
            "PydanticOutputParser PydanticToolsParser StrOutputParser"
        ),
        "ragline.core.output_parsers": (
            "BaseGenerationOutputParser ListOutputParser MarkdownListOutputParser "
            "NumberedListOutputParser SimpleJsonOutputParser XMLOutputParser"
        ),
    },
    "langchain_core.output_parsers.base": {
        "ragline.core": "BaseOutputParser",
        "ragline.core.output_parsers": "BaseGenerationOutputParser",
    },
    "langchain_core.output_parsers.format_instructions": {
        "ragline.core.output_parsers": "JSON_FORMAT_INSTRUCTIONS",
    },
    "langchain_core.output_parsers.json": {
        "ragline.core": "JsonOutputParser",
        "ragline.core.output_parsers": (
            "SimpleJsonOutputParser parse_and_check_json_markdown parse_json_markdown "
            "parse_partial_json"
        ),
    },
    "langchain_core.output_parsers.list": {
        "ragline.core": "CommaSeparatedListOutputParser",
        "ragline.core.output_parsers": (
            "ListOutputParser MarkdownListOutputParser NumberedListOutputParser"
        ),
    },
    "langchain_core.output_parsers.openai_functions": {
        "ragline.core.output_parsers": (
            "JsonKeyOutputFunctionsParser JsonOutputFunctionsParser OutputFunctionsParser "
            "PydanticAttrOutputFunctionsParser PydanticOutputFunctionsParser parse_partial_json"
        ),
    },
    "langchain_core.output_parsers.openai_tools": {
        "ragline.core": "JsonOutputKeyToolsParser JsonOutputToolsParser PydanticToolsParser",
        "ragline.core.output_parsers": "parse_partial_json",
    },
    "langchain_core.output_parsers.pydantic": {
        "ragline.core": "PydanticOutputParser",
    },
    "langchain_core.output_parsers.string": {
        "ragline.core": "StrOutputParser",
    },
    "langchain_core.output_parsers.transform": {
        "ragline.core": "BaseCumulativeTransformOutputParser BaseTransformOutputParser",
    },
    "langchain_core.output_parsers.xml": {
        "ragline.core.output_parsers": "XMLOutputParser",
    },
    "langchain_core.outputs": {
        "ragline.core": (
            "ChatGeneration ChatGenerationChunk ChatResult Generation GenerationChunk LLMResult"
        ),
    },
    "langchain_core.outputs.chat_generation": {
        "ragline.core": "ChatGeneration ChatGenerationChunk",
    },
    "langchain_core.outputs.chat_result": {
        "ragline.core": "ChatResult",
    },
    "langchain_core.outputs.generation": {
        "ragline.core": "Generation GenerationChunk",
    },
    "langchain_core.outputs.llm_result": {
        "ragline.core": "LLMResult",
    },
    "langchain_core.prompt_values": {
        "ragline.core": "ChatPromptValue PromptValue StringPromptValue",
        "ragline.core.prompts": "ImagePromptValue",
    },
    "langchain_core.prompts": {
        "ragline.core": (
            "AIMessagePromptTemplate BasePromptTemplate ChatMessagePromptTemplate "
            "ChatPromptTemplate FewShotChatMessagePromptTemplate FewShotPromptTemplate "
            "HumanMessagePromptTemplate MessagesPlaceholder PromptTemplate "
            "SystemMessagePromptTemplate format_document load_prompt"
        ),
        "ragline.core.prompts": (
            "BaseChatPromptTemplate FewShotPromptWithTemplates StringPromptTemplate "
            "get_template_variables"
        ),
    },
    "langchain_core.prompts.base": {
        "ragline.core": "BasePromptTemplate format_document",
        "ragline.core.prompts": "FormatOutputType",
    },
    "langchain_core.prompts.chat": {
        "ragline.core": (
            "AIMessagePromptTemplate ChatMessagePromptTemplate ChatPromptTemplate "
            "HumanMessagePromptTemplate MessagesPlaceholder SystemMessagePromptTemplate"
        ),
        "ragline.core.messages": "MessageLike",
        "ragline.core.prompts": "BaseChatPromptTemplate",
    },
    "langchain_core.prompts.few_shot": {
        "ragline.core": "FewShotChatMessagePromptTemplate FewShotPromptTemplate",
    },
    "langchain_core.prompts.few_shot_with_templates": {
        "ragline.core.prompts": "FewShotPromptWithTemplates",
    },
    "langchain_core.prompts.image": {
        "ragline.core.prompts": "ImagePromptTemplate",
    },
    "langchain_core.prompts.loading": {
        "ragline.core": "load_prompt load_prompt_from_config",
    },
    "langchain_core.prompts.message": {
        "ragline.core": "BaseMessagePromptTemplate",
    },
    "langchain_core.prompts.prompt": {
        "ragline.core": "PromptTemplate",
    },
    "langchain_core.prompts.string": {
        "ragline.core.prompts": "StringPromptTemplate get_template_variables",
    },
    "langchain_core.rate_limiters": {
        "ragline.core": "BaseRateLimiter InMemoryRateLimiter",
    },
    "langchain_core.retrievers": {
        "ragline.core": "BaseRetriever",
    },
    "langchain_core.runnables": {
        "ragline.core": (
            "AddableDict ConfigurableField ConfigurableFieldMultiOption "
            "ConfigurableFieldSingleOption ConfigurableFieldSpec Runnable RunnableAssign "
            "RunnableBinding RunnableBranch RunnableConfig RunnableGenerator "
            "RunnableLambda RunnableParallel RunnablePassthrough RunnablePick "
            "RunnableSequence RunnableSerializable RunnableWithFallbacks "
            "RunnableWithMessageHistory chain ensure_config"
        ),
        "ragline.core.config": "get_config_list patch_config run_in_executor",
        "ragline.core.runnables": "RouterInput RouterRunnable RunnableMap",
    },
    "langchain_core.runnables.base": {
        "ragline.core": (
            "Runnable RunnableBinding RunnableBindingBase RunnableEach RunnableEachBase "
            "RunnableGenerator RunnableLambda RunnableParallel RunnableSequence "
            "RunnableSerializable chain"
        ),
        "ragline.core.runnables": "RunnableMap coerce_to_runnable",
    },
    "langchain_core.runnables.branch": {
        "ragline.core": "RunnableBranch",
    },
    "langchain_core.runnables.config": {
        "ragline.core": "RunnableConfig ensure_config",
        "ragline.core.config": "get_config_list merge_configs patch_config run_in_executor",
    },
    "langchain_core.runnables.configurable": {
        "ragline.core.runnables": "RunnableConfigurableAlternatives RunnableConfigurableFields",
    },
    "langchain_core.runnables.fallbacks": {
        "ragline.core": "RunnableWithFallbacks",
    },
    "langchain_core.runnables.graph": {
        "ragline.core": "Graph",
        "ragline.core.runnables": "CurveStyle Edge Node NodeStyles",
    },
    "langchain_core.runnables.history": {
        "ragline.core": "RunnablePassthrough RunnableWithMessageHistory",
    },
    "langchain_core.runnables.passthrough": {
        "ragline.core": "RunnableAssign RunnablePassthrough RunnablePick",
    },
    "langchain_core.runnables.retry": {
        "ragline.core": "RunnableRetry",
    },
    "langchain_core.runnables.router": {
        "ragline.core.runnables": "RouterInput RouterRunnable",
    },
    "langchain_core.runnables.utils": {
        "ragline.core": (
            "AddableDict ConfigurableField ConfigurableFieldMultiOption "
            "ConfigurableFieldSingleOption ConfigurableFieldSpec"
        ),
        "ragline.core.runnables": "Input Output",
    },
    "langchain_core.stores": {
        "ragline.core": "BaseStore InMemoryByteStore",
        "ragline.core.stores": "ByteStore InMemoryStore",
    },
    "langchain_core.structured_query": {
        "ragline.core.structured_query": (
            "Comparator Comparison Expr FilterDirective Operation Operator StructuredQuery Visitor"
        ),
    },
    "langchain_core.tools": {
        "ragline.tools": (
            "ArgsSchema BaseTool InjectedToolArg InjectedToolCallId StructuredTool Tool "
            "ToolException create_retriever_tool create_schema_from_function "
            "render_text_description render_text_description_and_args tool"
        ),
    },
    "langchain_core.tools.base": {
        "ragline.tools": (
            "ArgsSchema BaseTool InjectedToolArg InjectedToolCallId ToolException "
            "create_schema_from_function"
        ),
    },
    "langchain_core.tools.convert": {
        "ragline.tools": "tool",
    },
    "langchain_core.tools.render": {
        "ragline.tools": "render_text_description render_text_description_and_args",
    },
    "langchain_core.tools.retriever": {
        "ragline.tools": "create_retriever_tool",
    },
    "langchain_core.tools.simple": {
        "ragline.tools": "Tool",
    },
    "langchain_core.tools.structured": {
        "ragline.tools": "StructuredTool",
    },
    "langchain_core.tracers": {
        "ragline.core": "Run RunLog RunLogPatch",
        "ragline.core.callbacks": "BaseTracer ConsoleCallbackHandler",
    },
    "langchain_core.tracers.base": {
        "ragline.core.callbacks": "BaseTracer",
    },
    "langchain_core.tracers.context": {
        "ragline.core.callbacks": "collect_runs",
    },
    "langchain_core.tracers.langchain": {
        "ragline.core.callbacks": "wait_for_all_tracers",
    },
    "langchain_core.tracers.log_stream": {
        "ragline.core": "RunLog RunLogPatch",
    },
    "langchain_core.tracers.run_collector": {
        "ragline.core": "RunCollectorCallbackHandler",
    },
    "langchain_core.tracers.schemas": {
        "ragline.core": "Run",
    },
    "langchain_core.tracers.stdout": {
        "ragline.core.callbacks": "ConsoleCallbackHandler FunctionCallbackHandler",
    },
    "langchain_core.utils": {
        "ragline.core": "mock_now",
        "ragline.core.callbacks": "print_text",
    },
    "langchain_core.utils.function_calling": {
        "ragline.core": (
            "convert_to_openai_function convert_to_openai_tool tool_example_to_messages"
        ),
    },
    "langchain_core.utils.input": {
        "ragline.core.callbacks": "print_text",
    },
    "langchain_core.utils.json": {
        "ragline.core.output_parsers": (
            "parse_and_check_json_markdown parse_json_markdown parse_partial_json"
        ),
    },
    "langchain_core.utils.utils": {
        "ragline.core": "mock_now",
    },
    "langchain_core.vectorstores": {
        "ragline.vectorstores": "InMemoryVectorStore VST VectorStore VectorStoreRetriever",
    },
    "langchain_core.vectorstores.base": {
        "ragline.vectorstores": "VST VectorStore VectorStoreRetriever",
    },
    "langchain_core.vectorstores.in_memory": {
        "ragline.vectorstores": "InMemoryVectorStore",
    },
    "langchain_core.vectorstores.utils": {
        "ragline.vectorstores": "maximal_marginal_relevance",
    },
    "langchain_text_splitters": {
        "ragline.splitters": (
            "CharacterTextSplitter HTMLHeaderTextSplitter Language LatexTextSplitter "
            "MarkdownHeaderTextSplitter MarkdownTextSplitter PythonCodeTextSplitter "
            "RecursiveCharacterTextSplitter RecursiveJsonSplitter "
            "SentenceTransformersTokenTextSplitter TextSplitter TokenTextSplitter "
            "Tokenizer split_text_on_tokens"
        ),
    },
    "langchain_text_splitters.base": {
        "ragline.splitters": (
            "Language TextSplitter TokenTextSplitter Tokenizer split_text_on_tokens"
        ),
    },
    "langchain_text_splitters.character": {
        "ragline.splitters": "CharacterTextSplitter RecursiveCharacterTextSplitter",
    },
    "langchain_text_splitters.html": {
        "ragline.splitters": "HTMLHeaderTextSplitter",
    },
    "langchain_text_splitters.json": {
        "ragline.splitters": "RecursiveJsonSplitter",
    },
    "langchain_text_splitters.latex": {
        "ragline.splitters": "LatexTextSplitter",
    },
    "langchain_text_splitters.markdown": {
        "ragline.splitters": "MarkdownHeaderTextSplitter MarkdownTextSplitter",
    },
    "langchain_text_splitters.python": {
        "ragline.splitters": "PythonCodeTextSplitter",
    },
    "langchain_text_splitters.sentence_transformers": {
        "ragline.splitters": "SentenceTransformersTokenTextSplitter",
    },
    "langserve": {
        "ragline.serve": "RemoteRunnable add_routes",
    },
}

MISSING: dict[str, str] = {
    "langchain_classic": (
        "Anthropic ArxivAPIWrapper Banana CerebriumAI Cohere ElasticVectorSearch "
        "ForefrontAI GoldenQueryAPIWrapper GoogleSearchAPIWrapper GoogleSerperAPIWrapper "
        "GooseAI HuggingFaceHub HuggingFacePipeline HuggingFaceTextGenInference "
        "LLMMathChain LlamaCpp MRKLChain Modal OpenAI Petals PipelineAI PowerBIDataset "
        "Prompt QAWithSourcesChain ReActChain SagemakerEndpoint SearxSearchWrapper "
        "SelfAskWithSearchChain SerpAPIChain SerpAPIWrapper StochasticAI VectorDBQA "
        "VectorDBQAWithSourcesChain Wikipedia WikipediaAPIWrapper WolframAlphaAPIWrapper "
        "Writer"
    ),
    "langchain_classic.agents": (
        "MRKLChain OpenAIFunctionsAgent OpenAIMultiFunctionsAgent ReActChain "
        "ReActTextWorldAgent SelfAskWithSearchChain StructuredChatAgent XMLAgent "
        "create_json_agent create_openapi_agent create_pbi_agent create_pbi_chat_agent "
        "create_spark_sql_agent "
        "create_vectorstore_agent create_vectorstore_router_agent get_all_tool_names "
        "load_agent load_huggingface_tool load_tools"
    ),
    "langchain_classic.agents.agent": "MultiActionAgentOutputParser",
    "langchain_classic.agents.agent_toolkits": (
        "AINetworkToolkit AmadeusToolkit AzureCognitiveServicesToolkit GmailToolkit "
        "JiraToolkit JsonToolkit MultionToolkit NLAToolkit NasaToolkit O365Toolkit "
        "OpenAPIToolkit PlayWrightBrowserToolkit PowerBIToolkit SlackToolkit "
        "SparkSQLToolkit SteamToolkit VectorStoreInfo VectorStoreRouterToolkit "
        "VectorStoreToolkit ZapierToolkit create_conversational_retrieval_agent "
        "create_json_agent create_openapi_agent create_pbi_agent create_pbi_chat_agent "
        "create_spark_sql_agent create_vectorstore_agent create_vectorstore_router_agent"
    ),
    "langchain_classic.agents.mrkl.base": "ChainConfig MRKLChain",
    "langchain_classic.agents.openai_functions_agent.base": "OpenAIFunctionsAgent",
    "langchain_classic.agents.output_parsers": "ReActJsonSingleInputOutputParser",
    "langchain_classic.agents.output_parsers.openai_tools": (
        "parse_ai_message_to_openai_tool_action"
    ),
    "langchain_classic.agents.output_parsers.tools": "parse_ai_message_to_tool_action",
    "langchain_classic.agents.structured_chat.base": "StructuredChatAgent",
    "langchain_classic.agents.xml.base": "XMLAgent",
    "langchain_classic.cache": (
        "AstraDBCache AstraDBSemanticCache AzureCosmosDBSemanticCache CassandraCache "
        "CassandraSemanticCache FullMd5LLMCache GPTCache MomentoCache RedisSemanticCache "
        "SQLAlchemyMd5Cache UpstashRedisCache"
    ),
    "langchain_classic.callbacks": (
        "AimCallbackHandler ArgillaCallbackHandler ArizeCallbackHandler "
        "ArthurCallbackHandler ClearMLCallbackHandler CometCallbackHandler "
        "ContextCallbackHandler FlyteCallbackHandler HumanApprovalCallbackHandler "
        "InfinoCallbackHandler LLMThoughtLabeler LLMonitorCallbackHandler "
        "LabelStudioCallbackHandler LangChainTracer MlflowCallbackHandler "
        "PromptLayerCallbackHandler SageMakerCallbackHandler StreamlitCallbackHandler "
        "TrubricsCallbackHandler WandbCallbackHandler WhyLabsCallbackHandler "
        "tracing_v2_enabled wandb_tracing_enabled"
    ),
    "langchain_classic.callbacks.base": (
        "CallbackManagerMixin Callbacks ChainManagerMixin LLMManagerMixin "
        "RetrieverManagerMixin RunManagerMixin ToolManagerMixin"
    ),
    "langchain_classic.callbacks.manager": (
        "AsyncParentRunManager AsyncRunManager Callbacks ParentRunManager RunManager "
        "ahandle_event env_var_is_set handle_event tracing_v2_enabled "
        "wandb_tracing_enabled"
    ),
    "langchain_classic.chains": (
        "APIChain ArangoGraphQAChain ChatVectorDBChain ConstitutionalChain "
        "FalkorDBQAChain FlareChain GraphCypherQAChain GraphQAChain GraphSparqlQAChain "
        "HugeGraphQAChain KuzuQAChain LLMMathChain LLMRequestsChain "
        "LLMSummarizationCheckerChain NatBotChain NebulaGraphQAChain "
        "NeptuneOpenCypherQAChain NeptuneSparqlQAChain OntotextGraphDBQAChain "
        "OpenAIModerationChain OpenAPIEndpointChain QAGenerationChain QAWithSourcesChain "
        "VectorDBQA VectorDBQAWithSourcesChain create_citation_fuzzy_match_chain "
        "create_citation_fuzzy_match_runnable create_extraction_chain "
        "create_extraction_chain_pydantic create_qa_with_sources_chain "
        "create_qa_with_structure_chain create_tagging_chain "
        "create_tagging_chain_pydantic generate_example load_chain"
    ),
    "langchain_classic.chains.conversation.memory": "ConversationKGMemory",
    "langchain_classic.chains.conversational_retrieval.base": (
        "BaseConversationalRetrievalChain ChatVectorDBChain InputType"
    ),
    "langchain_classic.chains.openai_functions": (
        "create_citation_fuzzy_match_chain create_citation_fuzzy_match_runnable "
        "create_extraction_chain create_extraction_chain_pydantic create_openai_fn_chain "
        "create_openai_fn_runnable create_qa_with_sources_chain "
        "create_qa_with_structure_chain create_structured_output_chain "
        "create_tagging_chain create_tagging_chain_pydantic get_openai_output_parser"
    ),
    "langchain_classic.chains.openai_functions.base": (
        "PYTHON_TO_JSON_TYPES create_openai_fn_chain create_openai_fn_runnable "
        "create_structured_output_chain get_openai_output_parser"
    ),
    "langchain_classic.chains.qa_with_sources.loading": "LoadingCallable",
    "langchain_classic.chains.query_constructor.base": "load_query_constructor_chain",
    "langchain_classic.chains.query_constructor.parser": (
        "ISO8601Date ISO8601DateTime QueryTransformer"
    ),
    "langchain_classic.chains.question_answering": "LoadingCallable",
    "langchain_classic.chains.question_answering.chain": "LoadingCallable",
    "langchain_classic.chains.retrieval_qa.base": "BaseRetrievalQA VectorDBQA",
    "langchain_classic.chains.router.base": "Route",
    "langchain_classic.chains.sql_database.query": "SQLInput SQLInputWithTables",
    "langchain_classic.chains.structured_output": "create_openai_fn_runnable",
    "langchain_classic.chains.structured_output.base": (
        "create_openai_fn_runnable get_openai_output_parser"
    ),
    "langchain_classic.chains.summarize": "LoadingCallable",
    "langchain_classic.chains.summarize.chain": "LoadingCallable",
    "langchain_classic.chat_models": (
        "AzureChatOpenAI BedrockChat ChatAnthropic ChatAnyscale ChatBaichuan ChatCohere "
        "ChatDatabricks ChatEverlyAI ChatFireworks ChatGooglePalm ChatHunyuan "
        "ChatJavelinAIGateway ChatKonko ChatLiteLLM ChatMLflowAIGateway ChatMlflow "
        "ChatOllama ChatVertexAI ChatYandexGPT ErnieBotChat GigaChat HumanInputChatModel "
        "JinaChat MiniMaxChat PaiEasChatEndpoint PromptLayerChatOpenAI "
        "QianfanChatEndpoint VolcEngineMaasChat init_chat_model"
    ),
    "langchain_classic.docstore": "DocstoreFn Wikipedia",
    "langchain_classic.document_loaders": (
        "AZLyricsLoader AcreomLoader AirbyteCDKLoader AirbyteGongLoader "
        "AirbyteHubspotLoader AirbyteJSONLoader AirbyteSalesforceLoader "
        "AirbyteShopifyLoader AirbyteStripeLoader AirbyteTypeformLoader "
        "AirbyteZendeskSupportLoader AirtableLoader AmazonTextractPDFLoader "
        "ApifyDatasetLoader ArcGISLoader ArxivLoader AssemblyAIAudioTranscriptLoader "
        "AsyncChromiumLoader AsyncHtmlLoader AzureAIDataLoader "
        "AzureBlobStorageContainerLoader AzureBlobStorageFileLoader BibtexLoader "
        "BigQueryLoader BiliBiliLoader BlackboardLoader BlockchainDocumentLoader "
        "BraveSearchLoader BrowserlessLoader ChatGPTLoader CoNLLULoader "
        "CollegeConfidentialLoader ConcurrentLoader ConfluenceLoader CouchbaseLoader "
        "CubeSemanticLoader DataFrameLoader DatadogLogsLoader DiffbotLoader "
        "DiscordChatLoader DocugamiLoader DocusaurusLoader Docx2txtLoader DropboxLoader "
        "DuckDBLoader EtherscanLoader EverNoteLoader FacebookChatLoader FaunaLoader "
        "FigmaFileLoader GCSDirectoryLoader GCSFileLoader GeoDataFrameLoader "
        "GitHubIssuesLoader GitLoader GitbookLoader GithubFileLoader GoogleApiClient "
        "GoogleApiYoutubeLoader GoogleDriveLoader GoogleSpeechToTextLoader "
        "GutenbergLoader HNLoader HuggingFaceDatasetLoader IFixitLoader IMSDbLoader "
        "ImageCaptionLoader IuguLoader JoplinLoader LakeFSLoader LarkSuiteDocLoader "
        "MHTMLLoader MWDumpLoader MastodonTootsLoader MathpixPDFLoader MaxComputeLoader "
        "ModernTreasuryLoader MongodbLoader NewsURLLoader NotebookLoader NotionDBLoader "
        "NotionDirectoryLoader OBSDirectoryLoader OBSFileLoader ObsidianLoader "
        "OneDriveFileLoader OneDriveLoader OnlinePDFLoader OpenCityDataLoader "
        "OutlookMessageLoader PDFMinerLoader PDFMinerPDFasHTMLLoader PDFPlumberLoader "
        "PagedPDFSplitter PlaywrightURLLoader PolarsDataFrameLoader PsychicLoader "
        "PubMedLoader PyMuPDFLoader PyPDFium2Loader PySparkDataFrameLoader RSSFeedLoader "
        "ReadTheDocsLoader RecursiveUrlLoader RedditPostsLoader RoamLoader RocksetLoader "
        "S3DirectoryLoader S3FileLoader SRTLoader SeleniumURLLoader SharePointLoader "
        "SitemapLoader SlackDirectoryLoader SnowflakeLoader SpreedlyLoader StripeLoader "
        "TelegramChatApiLoader TelegramChatFileLoader TelegramChatLoader "
        "TencentCOSDirectoryLoader TencentCOSFileLoader TensorflowDatasetLoader "
        "ToMarkdownLoader TomlLoader TrelloLoader TwitterTweetLoader "
        "UnstructuredAPIFileIOLoader UnstructuredAPIFileLoader UnstructuredCSVLoader "
        "UnstructuredEPubLoader UnstructuredEmailLoader UnstructuredExcelLoader "
        "UnstructuredFileIOLoader UnstructuredFileLoader UnstructuredHTMLLoader "
        "UnstructuredImageLoader UnstructuredMarkdownLoader UnstructuredODTLoader "
        "UnstructuredOrgModeLoader UnstructuredPDFLoader UnstructuredPowerPointLoader "
        "UnstructuredRSTLoader UnstructuredRTFLoader UnstructuredTSVLoader "
        "UnstructuredURLLoader UnstructuredWordDocumentLoader UnstructuredXMLLoader "
        "WeatherDataLoader WhatsAppChatLoader WikipediaLoader XorbitsLoader "
        "YoutubeAudioLoader YoutubeLoader YuqueLoader"
    ),
    "langchain_classic.document_transformers": (
        "DoctranPropertyExtractor DoctranQATransformer DoctranTextTranslator "
        "GoogleTranslateTransformer Html2TextTransformer NucliaTextTransformer "
        "OpenAIMetadataTagger get_stateful_documents"
    ),
    "langchain_classic.document_transformers.embeddings_redundant_filter": "get_stateful_documents",
    "langchain_classic.embeddings": (
        "AlephAlphaAsymmetricSemanticEmbedding AlephAlphaSymmetricSemanticEmbedding "
        "AwaEmbeddings AzureOpenAIEmbeddings BedrockEmbeddings BookendEmbeddings "
        "ClarifaiEmbeddings CohereEmbeddings DashScopeEmbeddings DatabricksEmbeddings "
        "DeepInfraEmbeddings EdenAiEmbeddings ElasticsearchEmbeddings EmbaasEmbeddings "
        "ErnieEmbeddings FastEmbedEmbeddings GPT4AllEmbeddings GooglePalmEmbeddings "
        "GradientEmbeddings HuggingFaceHubEmbeddings HuggingFaceInferenceAPIEmbeddings "
        "HuggingFaceInstructEmbeddings InfinityEmbeddings JavelinAIGatewayEmbeddings "
        "JinaEmbeddings JohnSnowLabsEmbeddings LlamaCppEmbeddings LocalAIEmbeddings "
        "MiniMaxEmbeddings MlflowAIGatewayEmbeddings MlflowEmbeddings "
        "ModelScopeEmbeddings MosaicMLInstructorEmbeddings NLPCloudEmbeddings "
        "OctoAIEmbeddings OllamaEmbeddings OpenVINOEmbeddings QianfanEmbeddingsEndpoint "
        "SagemakerEndpointEmbeddings SelfHostedEmbeddings SelfHostedHuggingFaceEmbeddings "
        "SelfHostedHuggingFaceInstructEmbeddings SpacyEmbeddings TensorflowHubEmbeddings "
        "VertexAIEmbeddings VoyageEmbeddings XinferenceEmbeddings init_embeddings"
    ),
    "langchain_classic.embeddings.base": "init_embeddings",
    "langchain_classic.embeddings.huggingface": (
        "HuggingFaceInferenceAPIEmbeddings HuggingFaceInstructEmbeddings"
    ),
    "langchain_classic.evaluation": "load_dataset",
    "langchain_classic.evaluation.agents.trajectory_eval_chain": (
        "TrajectoryEval TrajectoryOutputParser"
    ),
    "langchain_classic.evaluation.comparison.eval_chain": (
        "PairwiseStringResultOutputParser resolve_pairwise_criteria"
    ),
    "langchain_classic.evaluation.criteria.eval_chain": (
        "CriteriaResultOutputParser resolve_criteria"
    ),
    "langchain_classic.evaluation.loading": "load_dataset",
    "langchain_classic.evaluation.schema": "LLMEvalChain",
    "langchain_classic.evaluation.scoring.eval_chain": (
        "ScoreStringResultOutputParser resolve_criteria"
    ),
    "langchain_classic.indexes": "GraphIndexCreator",
    "langchain_classic.llms": (
        "AI21 AlephAlpha AmazonAPIGateway Anthropic Anyscale Arcee Aviary "
        "AzureMLOnlineEndpoint AzureOpenAI Banana Baseten Beam Bedrock CTransformers "
        "CTranslate2 CerebriumAI ChatGLM Clarifai Cohere Databricks DeepInfra DeepSparse "
        "EdenAI Fireworks ForefrontAI GPT4All GigaChat GooglePalm GooseAI GradientLLM "
        "HuggingFaceEndpoint HuggingFaceHub HuggingFacePipeline "
        "HuggingFaceTextGenInference HumanInputLLM JavelinAIGateway KoboldApiLLM LlamaCpp "
        "ManifestWrapper Minimax MlflowAIGateway Modal MosaicML NIBittensorLLM NLPCloud "
        "Nebula OctoAIEndpoint Ollama OpaquePrompts OpenAI OpenAIChat OpenLLM OpenLM "
        "PaiEasEndpoint Petals PipelineAI Predibase PredictionGuard PromptLayerOpenAI "
        "PromptLayerOpenAIChat QianfanLLMEndpoint RWKV Replicate SagemakerEndpoint "
        "SelfHostedHuggingFaceLLM SelfHostedPipeline StochasticAI TextGen TitanTakeoff "
        "TitanTakeoffPro Tongyi VLLM VLLMOpenAI VertexAI VertexAIModelGarden "
        "VolcEngineMaasLLM WatsonxLLM Writer Xinference YandexGPT"
    ),
    "langchain_classic.memory": (
        "AstraDBChatMessageHistory CassandraChatMessageHistory ConversationKGMemory "
        "ConversationVectorStoreTokenBufferMemory CosmosDBChatMessageHistory "
        "DynamoDBChatMessageHistory ElasticsearchChatMessageHistory "
        "MomentoChatMessageHistory MongoDBChatMessageHistory MotorheadMemory "
        "PostgresChatMessageHistory RedisEntityStore SQLiteEntityStore "
        "SingleStoreDBChatMessageHistory StreamlitChatMessageHistory "
        "UpstashRedisChatMessageHistory UpstashRedisEntityStore XataChatMessageHistory "
        "ZepChatMessageHistory ZepMemory"
    ),
    "langchain_classic.memory.chat_message_histories": (
        "AstraDBChatMessageHistory CassandraChatMessageHistory CosmosDBChatMessageHistory "
        "DynamoDBChatMessageHistory ElasticsearchChatMessageHistory "
        "FirestoreChatMessageHistory MomentoChatMessageHistory MongoDBChatMessageHistory "
        "Neo4jChatMessageHistory PostgresChatMessageHistory RocksetChatMessageHistory "
        "SingleStoreDBChatMessageHistory StreamlitChatMessageHistory "
        "UpstashRedisChatMessageHistory XataChatMessageHistory ZepChatMessageHistory"
    ),
    "langchain_classic.memory.chat_message_histories.sql": (
        "BaseMessageConverter DefaultMessageConverter"
    ),
    "langchain_classic.memory.entity": "RedisEntityStore SQLiteEntityStore UpstashRedisEntityStore",
    "langchain_classic.memory.summary": "SummarizerMixin",
    "langchain_classic.output_parsers": "GuardrailsOutputParser PandasDataFrameOutputParser",
    "langchain_classic.output_parsers.fix": "OutputFixingParserRetryChainInput T",
    "langchain_classic.output_parsers.retry": (
        "RetryOutputParserRetryChainInput RetryWithErrorOutputParserRetryChainInput T"
    ),
    "langchain_classic.output_parsers.yaml": "T",
    "langchain_classic.prompts": "NGramOverlapExampleSelector Prompt",
    "langchain_classic.prompts.base": "check_valid_template jinja2_formatter validate_jinja2",
    "langchain_classic.prompts.chat": (
        "BaseStringMessagePromptTemplate ChatPromptValueConcrete "
        "MessageLikeRepresentation MessagePromptTemplateT"
    ),
    "langchain_classic.prompts.example_selector": "NGramOverlapExampleSelector",
    "langchain_classic.prompts.example_selector.semantic_similarity": "sorted_values",
    "langchain_classic.prompts.prompt": "Prompt",
    "langchain_classic.retrievers": (
        "AmazonKendraRetriever AmazonKnowledgeBasesRetriever ArceeRetriever "
        "ArxivRetriever AzureAISearchRetriever AzureCognitiveSearchRetriever "
        "ChaindeskRetriever ChatGPTPluginRetriever CohereRagRetriever DocArrayRetriever "
        "DriaRetriever ElasticSearchBM25Retriever EmbedchainRetriever "
        "GoogleCloudEnterpriseSearchRetriever GoogleDocumentAIWarehouseRetriever "
        "GoogleVertexAIMultiTurnSearchRetriever GoogleVertexAISearchRetriever "
        "KayAiRetriever LlamaIndexGraphRetriever LlamaIndexRetriever MetalRetriever "
        "MilvusRetriever NeuralDBRetriever OutlineRetriever PineconeHybridSearchRetriever "
        "PubMedRetriever RemoteLangChainRetriever SVMRetriever TavilySearchAPIRetriever "
        "VespaRetriever WeaviateHybridSearchRetriever WebResearchRetriever "
        "WikipediaRetriever ZepRetriever ZillizRetriever"
    ),
    "langchain_classic.retrievers.document_compressors": (
        "CohereRerank CrossEncoderReranker FlashrankRerank"
    ),
    "langchain_classic.retrievers.document_compressors.chain_extract": "default_get_input",
    "langchain_classic.retrievers.document_compressors.chain_filter": "default_get_input",
    "langchain_classic.retrievers.ensemble": "H T unique_by_key",
    "langchain_classic.schema": "BaseLLMOutputParser LangChainException Memory RUN_KEY RunInfo",
    "langchain_classic.schema.callbacks.base": (
        "CallbackManagerMixin ChainManagerMixin LLMManagerMixin RetrieverManagerMixin "
        "RunManagerMixin ToolManagerMixin"
    ),
    "langchain_classic.schema.callbacks.manager": (
        "AsyncParentRunManager AsyncRunManager ParentRunManager RunManager env_var_is_set "
        "handle_event register_configure_hook tracing_v2_enabled"
    ),
    "langchain_classic.schema.callbacks.tracers.base": "TracerException",
    "langchain_classic.schema.callbacks.tracers.langchain": (
        "LangChainTracer get_client log_error_once"
    ),
    "langchain_classic.schema.callbacks.tracers.log_stream": (
        "LogEntry LogStreamCallbackHandler RunState"
    ),
    "langchain_classic.schema.callbacks.tracers.stdout": "elapsed try_json_stringify",
    "langchain_classic.schema.language_model": "LanguageModelOutput get_tokenizer",
    "langchain_classic.schema.messages": "merge_content",
    "langchain_classic.schema.output": "RunInfo",
    "langchain_classic.schema.output_parser": "BaseLLMOutputParser NoOpOutputParser T",
    "langchain_classic.schema.runnable.base": "Other RunnableLike",
    "langchain_classic.schema.runnable.config": (
        "EmptyDict acall_func_with_variable_args call_func_with_variable_args "
        "get_async_callback_manager_for_config get_callback_manager_for_config "
        "get_executor_for_config"
    ),
    "langchain_classic.schema.runnable.configurable": "DynamicRunnable StrEnum make_options_spec",
    "langchain_classic.schema.runnable.history": (
        "GetSessionHistoryCallable MessagesOrDictWithMessages"
    ),
    "langchain_classic.schema.runnable.passthrough": "aidentity identity",
    "langchain_classic.schema.runnable.retry": "U",
    "langchain_classic.schema.runnable.utils": (
        "Addable AnyConfigurableField GetLambdaSource IsFunctionArgDict IsLocalDict "
        "SupportsAdd aadd accepts_config accepts_run_manager add gated_coro "
        "gather_with_concurrency get_function_first_arg_dict_keys get_lambda_source "
        "get_unique_config_specs indent_lines_after_first"
    ),
    "langchain_classic.schema.storage": "K V",
    "langchain_classic.storage": (
        "InvalidKeyException UpstashRedisByteStore UpstashRedisStore create_lc_store"
    ),
    "langchain_classic.storage._lc_store": "create_lc_store",
    "langchain_classic.storage.encoder_backed": "K V",
    "langchain_classic.storage.in_memory": "InMemoryBaseStore",
    "langchain_classic.text_splitter": (
        "ElementType HeaderType KonlpyTextSplitter LineType NLTKTextSplitter SpacyTextSplitter"
    ),
    "langchain_classic.tools": (
        "AINAppOps AINOwnerOps AINRuleOps AINTransfer AINValueOps AIPluginTool "
        "APIOperation ArxivQueryRun AzureCogsFormRecognizerTool "
        "AzureCogsImageAnalysisTool AzureCogsSpeech2TextTool AzureCogsText2SpeechTool "
        "AzureCogsTextAnalyticsHealthTool BaseGraphQLTool BaseRequestsTool "
        "BaseSQLDatabaseTool BaseSparkSQLTool BearlyInterpreterTool BingSearchResults "
        "BingSearchRun BraveSearch ClickTool CurrentWebPageTool DuckDuckGoSearchResults "
        "DuckDuckGoSearchRun E2BDataAnalysisTool EdenAiExplicitImageTool "
        "EdenAiObjectDetectionTool EdenAiParsingIDTool EdenAiParsingInvoiceTool "
        "EdenAiSpeechToTextTool EdenAiTextModerationTool EdenAiTextToSpeechTool "
        "EdenaiTool ElevenLabsText2SpeechTool ExtractHyperlinksTool ExtractTextTool "
        "GetElementsTool GmailCreateDraft GmailGetMessage GmailGetThread GmailSearch "
        "GmailSendMessage GoogleCloudTextToSpeechTool GooglePlacesTool "
        "GoogleSearchResults GoogleSearchRun GoogleSerperResults GoogleSerperRun "
        "HumanInputRun IFTTTWebhook InfoPowerBITool InfoSparkSQLTool JiraAction "
        "JsonGetValueTool JsonListKeysTool ListPowerBITool ListSparkSQLTool "
        "MerriamWebsterQueryRun MetaphorSearchResults NasaAction NavigateBackTool "
        "NavigateTool O365CreateDraftMessage O365SearchEmails O365SearchEvents "
        "O365SendEvent O365SendMessage OpenAPISpec OpenWeatherMapQueryRun PubmedQueryRun "
        "QueryCheckerTool QueryPowerBITool QuerySparkSQLTool RedditSearchRun "
        "RequestsDeleteTool RequestsGetTool RequestsPatchTool RequestsPostTool "
        "RequestsPutTool SceneXplainTool SearchAPIResults SearchAPIRun SearxSearchResults "
        "SearxSearchRun ShellTool SlackGetChannel SlackGetMessage SlackScheduleMessage "
        "SlackSendMessage SleepTool StackExchangeTool StdInInquireTool "
        "SteamWebAPIQueryRun SteamshipImageGenerationTool VectorStoreQATool "
        "VectorStoreQAWithSourcesTool WikipediaQueryRun WolframAlphaQueryRun "
        "YahooFinanceNewsTool YouTubeSearchTool ZapierNLAListActions ZapierNLARunAction "
        "format_tool_to_openai_function"
    ),
    "langchain_classic.tools.base": "SchemaAnnotationError",
    "langchain_classic.tools.file_management.copy": "FileCopyInput",
    "langchain_classic.tools.file_management.delete": "FileDeleteInput",
    "langchain_classic.tools.file_management.file_search": "FileSearchInput",
    "langchain_classic.tools.file_management.list_dir": "DirectoryListingInput",
    "langchain_classic.tools.file_management.move": "FileMoveInput",
    "langchain_classic.tools.file_management.read": "ReadFileInput",
    "langchain_classic.tools.file_management.write": "WriteFileInput",
    "langchain_classic.tools.render": "format_tool_to_openai_function format_tool_to_openai_tool",
    "langchain_classic.tools.sql_database.tool": "BaseSQLDatabaseTool",
    "langchain_classic.utils.openai_functions": "FunctionDescription ToolDescription",
    "langchain_classic.vectorstores": (
        "AlibabaCloudOpenSearch AlibabaCloudOpenSearchSettings AnalyticDB Annoy AstraDB "
        "AtlasDB AwaDB AzureCosmosDBVectorSearch AzureSearch Bagel Cassandra Chroma "
        "Clarifai Clickhouse ClickhouseSettings DashVector DatabricksVectorSearch "
        "DeepLake Dingo DocArrayHnswSearch DocArrayInMemorySearch DuckDB "
        "EcloudESVectorStore ElasticKnnSearch ElasticVectorSearch ElasticsearchStore "
        "Epsilla Hologres LLMRails LanceDB Marqo MatchingEngine Meilisearch Milvus "
        "MomentoVectorIndex MongoDBAtlasVectorSearch MyScale MyScaleSettings Neo4jVector "
        "NeuralDBClientVectorStore NeuralDBVectorStore OpenSearchVectorSearch PGEmbedding "
        "PGVector Pinecone Qdrant Rockset SKLearnVectorStore SQLiteVSS ScaNN SemaDB "
        "SingleStoreDB StarRocks SupabaseVectorStore Tair TencentVectorDB TileDB "
        "TimescaleVector Typesense USearch Vald Vearch Vectara VespaStore Weaviate "
        "Yellowbrick ZepVectorStore Zilliz"
    ),
    "langchain_community.agent_toolkits": (
        "AINetworkToolkit AmadeusToolkit AzureAiServicesToolkit "
        "AzureCognitiveServicesToolkit CogniswitchToolkit ConneryToolkit GmailToolkit "
        "JiraToolkit JsonToolkit MultionToolkit NLAToolkit NasaToolkit O365Toolkit "
        "OpenAPIToolkit PlayWrightBrowserToolkit PolygonToolkit PowerBIToolkit "
        "SlackToolkit SparkSQLToolkit SteamToolkit ZapierToolkit create_json_agent "
        "create_openapi_agent create_pbi_agent create_pbi_chat_agent "
        "create_spark_sql_agent"
    ),
    "langchain_community.cache": (
        "AsyncRedisCache AzureCosmosDBNoSqlSemanticCache AzureCosmosDBSemanticCache "
        "CassandraCache CassandraSemanticCache FullMd5LLMCache GPTCache MemcachedCache "
        "MomentoCache OpenSearchSemanticCache RedisSemanticCache SQLAlchemyMd5Cache "
        "SingleStoreDBSemanticCache UpstashRedisCache"
    ),
    "langchain_community.callbacks": (
        "AimCallbackHandler ArgillaCallbackHandler ArizeCallbackHandler "
        "ArthurCallbackHandler ClearMLCallbackHandler CometCallbackHandler "
        "ContextCallbackHandler FiddlerCallbackHandler FlyteCallbackHandler "
        "HumanApprovalCallbackHandler InfinoCallbackHandler LLMThoughtLabeler "
        "LLMonitorCallbackHandler LabelStudioCallbackHandler MlflowCallbackHandler "
        "PromptLayerCallbackHandler SageMakerCallbackHandler StreamlitCallbackHandler "
        "TrubricsCallbackHandler UpTrainCallbackHandler UpstashRatelimitError "
        "UpstashRatelimitHandler WandbCallbackHandler WhyLabsCallbackHandler "
        "wandb_tracing_enabled"
    ),
    "langchain_community.callbacks.manager": "get_bedrock_anthropic_callback wandb_tracing_enabled",
    "langchain_community.callbacks.openai_info": (
        "TokenType get_openai_token_cost_for_model standardize_model_name"
    ),
    "langchain_community.chat_message_histories": (
        "CassandraChatMessageHistory CosmosDBChatMessageHistory "
        "DynamoDBChatMessageHistory ElasticsearchChatMessageHistory "
        "FirestoreChatMessageHistory KafkaChatMessageHistory MomentoChatMessageHistory "
        "PostgresChatMessageHistory RocksetChatMessageHistory "
        "SingleStoreDBChatMessageHistory StreamlitChatMessageHistory "
        "TiDBChatMessageHistory UpstashRedisChatMessageHistory XataChatMessageHistory "
        "ZepChatMessageHistory ZepCloudChatMessageHistory"
    ),
    "langchain_community.chat_message_histories.sql": (
        "BaseMessageConverter DefaultMessageConverter create_message_model"
    ),
    "langchain_community.chat_models": (
        "ChatAnyscale ChatBaichuan ChatClovaX ChatCoze ChatDeepInfra ChatEdenAI "
        "ChatEverlyAI ChatFriendli ChatGooglePalm ChatHunyuan ChatJavelinAIGateway "
        "ChatKinetica ChatKonko ChatLlamaCpp ChatMLX ChatMLflowAIGateway ChatMaritalk "
        "ChatMlflow ChatNebula ChatOCIGenAI ChatOCIModelDeployment "
        "ChatOCIModelDeploymentTGI ChatOCIModelDeploymentVLLM ChatOctoAI ChatOutlines "
        "ChatPremAI ChatReka ChatSnowflakeCortex ChatSparkLLM ChatTongyi ChatYandexGPT "
        "ChatYi ChatYuan2 ChatZhipuAI ErnieBotChat GPTRouter HumanInputChatModel JinaChat "
        "LlamaEdgeChatService MiniMaxChat MoonshotChat PaiEasChatEndpoint "
        "PromptLayerChatOpenAI QianfanChatEndpoint VolcEngineMaasChat"
    ),
    "langchain_community.chat_models.openai": "acompletion_with_retry",
    "langchain_community.docstore": "DocstoreFn Wikipedia",
    "langchain_community.document_loaders": (
        "AZLyricsLoader AcreomLoader AirbyteCDKLoader AirbyteGongLoader "
        "AirbyteHubspotLoader AirbyteJSONLoader AirbyteSalesforceLoader "
        "AirbyteShopifyLoader AirbyteStripeLoader AirbyteTypeformLoader "
        "AirbyteZendeskSupportLoader AirtableLoader AmazonTextractPDFLoader "
        "ApifyDatasetLoader ArcGISLoader ArxivLoader AssemblyAIAudioLoaderById "
        "AssemblyAIAudioTranscriptLoader AstraDBLoader AsyncChromiumLoader "
        "AsyncHtmlLoader AthenaLoader AzureAIDataLoader AzureAIDocumentIntelligenceLoader "
        "AzureBlobStorageContainerLoader AzureBlobStorageFileLoader BibtexLoader "
        "BigQueryLoader BiliBiliLoader BlackboardLoader BlockchainDocumentLoader "
        "BraveSearchLoader BrowserbaseLoader BrowserlessLoader CassandraLoader "
        "ChatGPTLoader CloudBlobLoader CoNLLULoader CollegeConfidentialLoader "
        "ConcurrentLoader ConfluenceLoader CouchbaseLoader CubeSemanticLoader "
        "DataFrameLoader DatadogLogsLoader DedocAPIFileLoader DedocFileLoader "
        "DedocPDFLoader DiffbotLoader DiscordChatLoader DocugamiLoader DocusaurusLoader "
        "Docx2txtLoader DropboxLoader DuckDBLoader EtherscanLoader EverNoteLoader "
        "FacebookChatLoader FaunaLoader FigmaFileLoader FireCrawlLoader "
        "GCSDirectoryLoader GCSFileLoader GeoDataFrameLoader GitHubIssuesLoader GitLoader "
        "GitbookLoader GithubFileLoader GlueCatalogLoader GoogleApiClient "
        "GoogleApiYoutubeLoader GoogleDriveLoader GoogleSpeechToTextLoader "
        "GutenbergLoader HNLoader HuggingFaceDatasetLoader HuggingFaceModelLoader "
        "IFixitLoader IMSDbLoader ImageCaptionLoader IuguLoader JoplinLoader "
        "KineticaLoader LLMSherpaFileLoader LakeFSLoader LarkSuiteDocLoader MHTMLLoader "
        "MWDumpLoader MastodonTootsLoader MathpixPDFLoader MaxComputeLoader "
        "ModernTreasuryLoader MongodbLoader NeedleLoader NewsURLLoader NotebookLoader "
        "NotionDBLoader NotionDirectoryLoader OBSDirectoryLoader OBSFileLoader "
        "ObsidianLoader OneDriveFileLoader OneDriveLoader OnlinePDFLoader "
        "OpenCityDataLoader OracleAutonomousDatabaseLoader OracleDocLoader "
        "OracleTextSplitter OutlookMessageLoader PDFMinerLoader PDFMinerPDFasHTMLLoader "
        "PDFPlumberLoader PagedPDFSplitter PebbloSafeLoader PebbloTextLoader "
        "PlaywrightURLLoader PolarsDataFrameLoader PsychicLoader PubMedLoader "
        "PyMuPDFLoader PyPDFium2Loader PySparkDataFrameLoader RSSFeedLoader "
        "ReadTheDocsLoader RecursiveUrlLoader RedditPostsLoader RoamLoader RocksetLoader "
        "S3DirectoryLoader S3FileLoader SQLDatabaseLoader SRTLoader ScrapflyLoader "
        "ScrapingAntLoader SeleniumURLLoader SharePointLoader SitemapLoader "
        "SlackDirectoryLoader SnowflakeLoader SpiderLoader SpreedlyLoader StripeLoader "
        "SurrealDBLoader TelegramChatApiLoader TelegramChatFileLoader TelegramChatLoader "
        "TencentCOSDirectoryLoader TencentCOSFileLoader TensorflowDatasetLoader "
        "TiDBLoader ToMarkdownLoader TomlLoader TrelloLoader TwitterTweetLoader "
        "UnstructuredAPIFileIOLoader UnstructuredAPIFileLoader UnstructuredCHMLoader "
        "UnstructuredCSVLoader UnstructuredEPubLoader UnstructuredEmailLoader "
        "UnstructuredExcelLoader UnstructuredFileIOLoader UnstructuredFileLoader "
        "UnstructuredHTMLLoader UnstructuredImageLoader UnstructuredMarkdownLoader "
        "UnstructuredODTLoader UnstructuredOrgModeLoader UnstructuredPDFLoader "
        "UnstructuredPowerPointLoader UnstructuredRSTLoader UnstructuredRTFLoader "
        "UnstructuredTSVLoader UnstructuredURLLoader UnstructuredWordDocumentLoader "
        "UnstructuredXMLLoader VsdxLoader WeatherDataLoader WhatsAppChatLoader "
        "WikipediaLoader XorbitsLoader YoutubeAudioLoader YoutubeLoader YuqueLoader"
    ),
    "langchain_community.document_loaders.blob_loaders": "CloudBlobLoader YoutubeAudioLoader",
    "langchain_community.document_loaders.blob_loaders.file_system": "T",
    "langchain_community.document_loaders.csv_loader": "UnstructuredCSVLoader",
    "langchain_community.document_loaders.pdf": (
        "AmazonTextractPDFLoader BasePDFLoader DedocPDFLoader DocumentIntelligenceLoader "
        "MathpixPDFLoader OnlinePDFLoader PDFMinerLoader PDFMinerPDFasHTMLLoader "
        "PDFPlumberLoader PagedPDFSplitter PyMuPDFLoader PyPDFium2Loader "
        "UnstructuredPDFLoader ZeroxPDFLoader"
    ),
    "langchain_community.document_transformers": (
        "DoctranPropertyExtractor DoctranQATransformer DoctranTextTranslator "
        "GoogleTranslateTransformer Html2TextTransformer MarkdownifyTransformer "
        "NucliaTextTransformer OpenAIMetadataTagger get_stateful_documents"
    ),
    "langchain_community.document_transformers.embeddings_redundant_filter": (
        "get_stateful_documents"
    ),
    "langchain_community.embeddings": (
        "AlephAlphaAsymmetricSemanticEmbedding AlephAlphaSymmetricSemanticEmbedding "
        "AnyscaleEmbeddings AscendEmbeddings AwaEmbeddings AzureOpenAIEmbeddings "
        "BaichuanTextEmbeddings BedrockEmbeddings BookendEmbeddings ClarifaiEmbeddings "
        "ClovaEmbeddings ClovaXEmbeddings CohereEmbeddings DashScopeEmbeddings "
        "DatabricksEmbeddings DeepInfraEmbeddings EdenAiEmbeddings "
        "ElasticsearchEmbeddings EmbaasEmbeddings ErnieEmbeddings FastEmbedEmbeddings "
        "GPT4AllEmbeddings GigaChatEmbeddings GooglePalmEmbeddings GradientEmbeddings "
        "HuggingFaceHubEmbeddings HuggingFaceInferenceAPIEmbeddings "
        "HuggingFaceInstructEmbeddings HunyuanEmbeddings InfinityEmbeddings "
        "InfinityEmbeddingsLocal IpexLLMBgeEmbeddings JavelinAIGatewayEmbeddings "
        "JinaEmbeddings JohnSnowLabsEmbeddings LLMRailsEmbeddings LaserEmbeddings "
        "LlamaCppEmbeddings LlamafileEmbeddings LocalAIEmbeddings MiniMaxEmbeddings "
        "MlflowAIGatewayEmbeddings MlflowCohereEmbeddings MlflowEmbeddings "
        "Model2vecEmbeddings ModelScopeEmbeddings MosaicMLInstructorEmbeddings "
        "NLPCloudEmbeddings NeMoEmbeddings OCIGenAIEmbeddings OVHCloudEmbeddings "
        "OctoAIEmbeddings OllamaEmbeddings OpenVINOBgeEmbeddings OpenVINOEmbeddings "
        "OracleEmbeddings PremAIEmbeddings QianfanEmbeddingsEndpoint "
        "QuantizedBgeEmbeddings QuantizedBiEncoderEmbeddings SagemakerEndpointEmbeddings "
        "SambaStudioEmbeddings SelfHostedEmbeddings SelfHostedHuggingFaceEmbeddings "
        "SelfHostedHuggingFaceInstructEmbeddings SolarEmbeddings SpacyEmbeddings "
        "SparkLLMTextEmbeddings TensorflowHubEmbeddings TextEmbedEmbeddings "
        "TitanTakeoffEmbed VertexAIEmbeddings VolcanoEmbeddings VoyageEmbeddings "
        "XinferenceEmbeddings YandexGPTEmbeddings ZhipuAIEmbeddings"
    ),
    "langchain_community.embeddings.huggingface": (
        "HuggingFaceInferenceAPIEmbeddings HuggingFaceInstructEmbeddings"
    ),
    "langchain_community.embeddings.openai": "async_embed_with_retry embed_with_retry",
    "langchain_community.llms": (
        "AI21 AlephAlpha AmazonAPIGateway Anthropic Anyscale Aphrodite Arcee Aviary "
        "AzureMLOnlineEndpoint AzureOpenAI BaichuanLLM Banana Beam Bedrock CTransformers "
        "CTranslate2 CerebriumAI ChatGLM Clarifai Cohere Databricks DeepInfra DeepSparse "
        "EdenAI Fireworks ForefrontAI Friendli GPT4All GigaChat GooglePalm GooseAI "
        "GradientLLM HuggingFaceEndpoint HuggingFaceHub HuggingFacePipeline "
        "HuggingFaceTextGenInference HumanInputLLM IpexLLM JavelinAIGateway KoboldApiLLM "
        "Konko LlamaCpp Llamafile MLXPipeline ManifestWrapper Minimax Mlflow "
        "MlflowAIGateway Modal MosaicML NIBittensorLLM NLPCloud Nebula OCIGenAI "
        "OCIModelDeploymentLLM OCIModelDeploymentTGI OCIModelDeploymentVLLM "
        "OctoAIEndpoint Ollama OpaquePrompts OpenAI OpenAIChat OpenLLM OpenLM Outlines "
        "PaiEasEndpoint Petals PipelineAI Predibase PredictionGuard PromptLayerOpenAI "
        "PromptLayerOpenAIChat QianfanLLMEndpoint RWKV Replicate SagemakerEndpoint "
        "SambaNovaCloud SambaStudio SelfHostedHuggingFaceLLM SelfHostedPipeline SparkLLM "
        "StochasticAI TextGen TitanTakeoff TitanTakeoffPro Together Tongyi VLLM "
        "VLLMOpenAI VertexAI VertexAIModelGarden VolcEngineMaasLLM WatsonxLLM "
        "WeightOnlyQuantPipeline Writer Xinference YandexGPT YiLLM You Yuan2"
    ),
    "langchain_community.retrievers": (
        "AmazonKendraRetriever AmazonKnowledgeBasesRetriever ArceeRetriever "
        "ArxivRetriever AskNewsRetriever AzureAISearchRetriever "
        "AzureCognitiveSearchRetriever BreebsRetriever ChaindeskRetriever "
        "ChatGPTPluginRetriever CohereRagRetriever DocArrayRetriever DriaRetriever "
        "ElasticSearchBM25Retriever EmbedchainRetriever "
        "GoogleCloudEnterpriseSearchRetriever GoogleDocumentAIWarehouseRetriever "
        "GoogleVertexAIMultiTurnSearchRetriever GoogleVertexAISearchRetriever "
        "KayAiRetriever LlamaIndexGraphRetriever LlamaIndexRetriever MetalRetriever "
        "MilvusRetriever NanoPQRetriever NeedleRetriever NeuralDBRetriever "
        "OutlineRetriever PineconeHybridSearchRetriever PubMedRetriever "
        "RememberizerRetriever RemoteLangChainRetriever SVMRetriever "
        "TavilySearchAPIRetriever VespaRetriever WeaviateHybridSearchRetriever "
        "WebResearchRetriever WikipediaRetriever YouRetriever ZepCloudRetriever "
        "ZepRetriever ZillizRetriever"
    ),
    "langchain_community.storage": (
        "AstraDBByteStore AstraDBStore CassandraByteStore MongoDBByteStore MongoDBStore "
        "SQLStore UpstashRedisByteStore UpstashRedisStore"
    ),
    "langchain_community.tools": (
        "AINAppOps AINOwnerOps AINRuleOps AINTransfer AINValueOps AIPluginTool "
        "APIOperation ArxivQueryRun AskNewsSearch AzureAiServicesDocumentIntelligenceTool "
        "AzureAiServicesImageAnalysisTool AzureAiServicesSpeechToTextTool "
        "AzureAiServicesTextAnalyticsForHealthTool AzureAiServicesTextToSpeechTool "
        "AzureCogsFormRecognizerTool AzureCogsImageAnalysisTool AzureCogsSpeech2TextTool "
        "AzureCogsText2SpeechTool AzureCogsTextAnalyticsHealthTool BalanceSheets "
        "BaseGraphQLTool BaseRequestsTool BaseSQLDatabaseTool BaseSparkSQLTool "
        "BearlyInterpreterTool BingSearchResults BingSearchRun BraveSearch "
        "CashFlowStatements ClickTool CogniswitchKnowledgeRequest "
        "CogniswitchKnowledgeSourceFile CogniswitchKnowledgeSourceURL "
        "CogniswitchKnowledgeStatus ConneryAction CurrentWebPageTool DataheraldTextToSQL "
        "Detector DuckDuckGoSearchResults DuckDuckGoSearchRun E2BDataAnalysisTool "
        "EdenAiExplicitImageTool EdenAiObjectDetectionTool EdenAiParsingIDTool "
        "EdenAiParsingInvoiceTool EdenAiSpeechToTextTool EdenAiTextModerationTool "
        "EdenAiTextToSpeechTool EdenaiTool ElevenLabsText2SpeechTool "
        "ExtractHyperlinksTool ExtractTextTool GetElementsTool GmailCreateDraft "
        "GmailGetMessage GmailGetThread GmailSearch GmailSendMessage GoogleBooksQueryRun "
        "GoogleCloudTextToSpeechTool GoogleSerperResults GoogleSerperRun HumanInputRun "
        "IFTTTWebhook IncomeStatements InfoPowerBITool InfoSparkSQLTool JinaSearch "
        "JiraAction JsonGetValueTool JsonListKeysTool ListPowerBITool ListSparkSQLTool "
        "MerriamWebsterQueryRun MetaphorSearchResults MojeekSearch NasaAction "
        "NavigateBackTool NavigateTool O365CreateDraftMessage O365SearchEmails "
        "O365SearchEvents O365SendEvent O365SendMessage OpenAPISpec "
        "OpenWeatherMapQueryRun PolygonAggregates PolygonFinancials PolygonLastQuote "
        "PolygonTickerNews PubmedQueryRun QueryCheckerTool QueryPowerBITool "
        "QuerySparkSQLTool RedditSearchRun RedditSearchSchema RequestsDeleteTool "
        "RequestsGetTool RequestsPatchTool RequestsPostTool RequestsPutTool "
        "SceneXplainTool SearchAPIResults SearchAPIRun SearxSearchResults SearxSearchRun "
        "ShellTool SlackGetChannel SlackGetMessage SlackScheduleMessage SlackSendMessage "
        "SleepTool StackExchangeTool StdInInquireTool SteamWebAPIQueryRun "
        "SteamshipImageGenerationTool TavilyAnswer TavilySearchResults VectorStoreQATool "
        "VectorStoreQAWithSourcesTool WikipediaQueryRun WolframAlphaQueryRun "
        "YahooFinanceNewsTool YouSearchTool YouTubeSearchTool ZapierNLAListActions "
        "ZapierNLARunAction ZenGuardInput ZenGuardTool authenticate "
        "format_tool_to_openai_function"
    ),
    "langchain_community.tools.file_management.copy": "FileCopyInput",
    "langchain_community.tools.file_management.delete": "FileDeleteInput",
    "langchain_community.tools.file_management.file_search": "FileSearchInput",
    "langchain_community.tools.file_management.list_dir": "DirectoryListingInput",
    "langchain_community.tools.file_management.move": "FileMoveInput",
    "langchain_community.tools.file_management.read": "ReadFileInput",
    "langchain_community.tools.file_management.write": "WriteFileInput",
    "langchain_community.tools.sql_database.tool": "BaseSQLDatabaseTool",
    "langchain_community.utilities": (
        "AlphaVantageAPIWrapper ApifyWrapper ArceeWrapper ArxivAPIWrapper "
        "AskNewsAPIWrapper AudioStream BibtexparserWrapper BingSearchAPIWrapper "
        "BraveSearchWrapper DataheraldAPIWrapper DriaAPIWrapper "
        "DuckDuckGoSearchAPIWrapper GoldenQueryAPIWrapper GoogleBooksAPIWrapper "
        "GoogleFinanceAPIWrapper GoogleJobsAPIWrapper GoogleLensAPIWrapper "
        "GoogleScholarAPIWrapper GoogleSerperAPIWrapper GoogleTrendsAPIWrapper "
        "GraphQLAPIWrapper InfobipAPIWrapper JiraAPIWrapper LambdaWrapper "
        "MaxComputeAPIWrapper MerriamWebsterAPIWrapper MetaphorSearchAPIWrapper "
        "MojeekSearchAPIWrapper NVIDIARivaASR NVIDIARivaStream NVIDIARivaTTS "
        "NasaAPIWrapper NutritionAIAPI OpenWeatherMapAPIWrapper OutlineAPIWrapper Portkey "
        "PowerBIDataset PubMedAPIWrapper RememberizerAPIWrapper Requests RequestsWrapper "
        "RivaASR RivaTTS SceneXplainAPIWrapper SearchApiAPIWrapper SearxSearchWrapper "
        "SerpAPIWrapper SparkSQL StackExchangeAPIWrapper SteamWebAPIWrapper "
        "TensorflowDatasets TextRequestsWrapper TwilioAPIWrapper WikipediaAPIWrapper "
        "WolframAlphaAPIWrapper YouSearchAPIWrapper ZapierNLAWrapper"
    ),
    "langchain_community.utilities.sql_database": "sanitize_schema truncate_word",
    "langchain_community.utils.openai_functions": "FunctionDescription ToolDescription",
    "langchain_community.vectorstores": (
        "Aerospike AlibabaCloudOpenSearch AlibabaCloudOpenSearchSettings AnalyticDB Annoy "
        "ApacheDoris ApertureDB AstraDB AtlasDB AwaDB AzureCosmosDBNoSqlVectorSearch "
        "AzureCosmosDBVectorSearch AzureSearch BESVectorStore Bagel BaiduVectorDB "
        "BigQueryVectorSearch Cassandra Chroma Clarifai Clickhouse ClickhouseSettings "
        "CouchbaseVectorStore DashVector Dingo DocArrayHnswSearch DocArrayInMemorySearch "
        "DocumentDBVectorSearch DuckDB EcloudESVectorStore ElasticKnnSearch "
        "ElasticVectorSearch ElasticsearchStore Epsilla Hologres InfinispanVS KDBAI "
        "Kinetica KineticaSettings LLMRails LanceDB Lantern ManticoreSearch "
        "ManticoreSearchSettings Marqo Meilisearch MomentoVectorIndex MyScale "
        "MyScaleSettings NeuralDBClientVectorStore NeuralDBVectorStore "
        "OpenSearchVectorSearch PGEmbedding PGVector PathwayVectorClient Relyt Rockset "
        "SKLearnVectorStore SQLiteVSS SQLiteVec ScaNN SemaDB SingleStoreDB StarRocks "
        "SupabaseVectorStore SurrealDBStore TablestoreVectorStore Tair TencentVectorDB "
        "TiDBVectorStore TileDB TimescaleVector Typesense USearch UpstashVectorStore "
        "VLite Vald Vearch Vectara VespaStore Yellowbrick ZepCloudVectorStore "
        "ZepVectorStore Zilliz"
    ),
    "langchain_community.vectorstores.faiss": "dependable_faiss_import",
    "langchain_community.vectorstores.redis": "RedisVectorStoreRetriever",
    "langchain_community.vectorstores.redis.base": "RedisVectorStoreRetriever check_index_exists",
    "langchain_community.vectorstores.redis.filters": (
        "RedisFilterField RedisFilterOperator check_operator_misuse"
    ),
    "langchain_community.vectorstores.utils": "filter_complex_metadata",
    "langchain_core.callbacks": (
        "AsyncParentRunManager AsyncRunManager CallbackManagerMixin ChainManagerMixin "
        "LLMManagerMixin ParentRunManager RetrieverManagerMixin RunManager "
        "RunManagerMixin ToolManagerMixin"
    ),
    "langchain_core.callbacks.base": (
        "CallbackManagerMixin ChainManagerMixin LLMManagerMixin "
        "RetrieverManagerMixin RunManagerMixin ToolManagerMixin"
    ),
    "langchain_core.callbacks.manager": (
        "AsyncParentRunManager AsyncRunManager Func ParentRunManager RunManager T "
        "ahandle_event handle_event shielded"
    ),
    "langchain_core.document_loaders": "LangSmithLoader PathLike",
    "langchain_core.document_loaders.blob_loaders": "PathLike",
    "langchain_core.documents.base": "BaseMedia",
    "langchain_core.example_selectors": "sorted_values",
    "langchain_core.example_selectors.semantic_similarity": "sorted_values",
    "langchain_core.exceptions": (
        "ContextOverflowError ErrorCode LangChainException ModelAPIError "
        "ModelAuthenticationError ModelConnectionError ModelError "
        "ModelInvalidRequestError ModelNotFoundError ModelPermissionDeniedError "
        "ModelRateLimitError ModelRefusalError ModelTimeoutError TracerException "
        "create_message"
    ),
    "langchain_core.indexing": "DeleteResponse DocumentIndex UpsertResponse",
    "langchain_core.indexing.api": "T",
    "langchain_core.indexing.base": "DeleteResponse DocumentIndex UpsertResponse",
    "langchain_core.language_models": (
        "LangSmithParams LanguageModelLike LanguageModelOutput ModelProfile "
        "ModelProfileRegistry get_tokenizer is_openai_data_block"
    ),
    "langchain_core.language_models.base": "LangSmithParams LanguageModelOutputVar get_tokenizer",
    "langchain_core.language_models.chat_models": "agenerate_from_stream generate_from_stream",
    "langchain_core.language_models.llms": (
        "aget_prompts aupdate_cache create_base_retry_decorator get_prompts update_cache"
    ),
    "langchain_core.load": "InitValidator Serializable",
    "langchain_core.load.dump": "default",
    "langchain_core.load.load": "Reviver default_init_validator",
    "langchain_core.messages": (
        "Annotation AudioContentBlock Citation ContentBlock DataContentBlock "
        "FileContentBlock ImageContentBlock InputTokenDetails LC_AUTO_PREFIX LC_ID_PREFIX "
        "MessageLikeRepresentation NonStandardAnnotation NonStandardContentBlock "
        "NotificationMetadata OutputTokenDetails PlainTextContentBlock "
        "ReasoningContentBlock RefusalContentBlock ServerToolCall ServerToolCallChunk "
        "ServerToolResult TextContentBlock VideoContentBlock add_notification_metadata "
        "convert_to_openai_data_block convert_to_openai_image_block ensure_id "
        "get_notification_metadata is_data_content_block merge_content"
    ),
    "langchain_core.messages.ai": (
        "InputTokenDetails OutputTokenDetails add_ai_message_chunks subtract_usage"
    ),
    "langchain_core.messages.base": "TextAccessor get_msg_title_repr merge_content",
    "langchain_core.messages.content": (
        "AudioContentBlock Citation FileContentBlock ImageContentBlock "
        "NonStandardAnnotation NonStandardContentBlock PlainTextContentBlock "
        "ReasoningContentBlock RefusalContentBlock ServerToolCall ServerToolCallChunk "
        "ServerToolResult TextContentBlock VideoContentBlock create_audio_block "
        "create_citation create_file_block create_image_block create_non_standard_block "
        "create_plaintext_block create_reasoning_block create_text_block create_tool_call "
        "create_video_block is_data_content_block"
    ),
    "langchain_core.messages.tool": "ToolOutputMixin default_tool_chunk_parser default_tool_parser",
    "langchain_core.output_parsers": "BaseLLMOutputParser",
    "langchain_core.output_parsers.base": "BaseLLMOutputParser T",
    "langchain_core.output_parsers.list": "T droplastn",
    "langchain_core.output_parsers.openai_tools": (
        "make_invalid_tool_call parse_tool_call parse_tool_calls"
    ),
    "langchain_core.output_parsers.pydantic": "PydanticBaseModel TBaseModel",
    "langchain_core.output_parsers.xml": "nested_element",
    "langchain_core.outputs": "RunInfo",
    "langchain_core.outputs.chat_generation": "merge_chat_generation_chunks",
    "langchain_core.prompt_values": "ChatPromptValueConcrete ImageURL",
    "langchain_core.prompts": (
        "DictPromptTemplate aformat_document check_valid_template jinja2_formatter validate_jinja2"
    ),
    "langchain_core.prompts.base": "aformat_document",
    "langchain_core.prompts.chat": "BaseStringMessagePromptTemplate MessagePromptTemplateT",
    "langchain_core.prompts.string": (
        "check_valid_template is_subsequence jinja2_formatter mustache_formatter "
        "mustache_schema mustache_template_vars validate_f_string_template "
        "validate_jinja2"
    ),
    "langchain_core.retrievers": "LangSmithRetrieverParams",
    "langchain_core.runnables": "aadd add",
    "langchain_core.runnables.base": "Other",
    "langchain_core.runnables.config": (
        "ContextThreadPoolExecutor EmptyDict P T acall_func_with_variable_args "
        "call_func_with_variable_args get_async_callback_manager_for_config "
        "get_callback_manager_for_config get_executor_for_config set_config_context"
    ),
    "langchain_core.runnables.configurable": (
        "DynamicRunnable StrEnum make_options_spec prefix_config_spec"
    ),
    "langchain_core.runnables.graph": (
        "Branch LabelsDict MermaidDrawMethod Stringifiable is_uuid node_data_json node_data_str"
    ),
    "langchain_core.runnables.passthrough": "aidentity identity",
    "langchain_core.runnables.retry": "ExponentialJitterParams U",
    "langchain_core.runnables.utils": (
        "Addable FunctionNonLocals GetLambdaSource IsFunctionArgDict IsLocalDict "
        "NonLocals SupportsAdd aadd accepts_config accepts_context accepts_run_manager "
        "add asyncio_accepts_context coro_with_context gated_coro gather_with_concurrency "
        "get_function_first_arg_dict_keys get_function_nonlocals get_lambda_source "
        "get_unique_config_specs indent_lines_after_first is_async_callable "
        "is_async_generator"
    ),
    "langchain_core.stores": "InMemoryBaseStore InvalidKeyException K V",
    "langchain_core.tools": (
        "BaseToolkit FILTERED_ARGS RetrieverInput SchemaAnnotationError ToolsRenderer "
        "convert_runnable_to_tool"
    ),
    "langchain_core.tools.base": "BaseToolkit SchemaAnnotationError get_all_basemodel_annotations",
    "langchain_core.tools.convert": "convert_runnable_to_tool",
    "langchain_core.tools.retriever": "RetrieverInput",
    "langchain_core.tracers": "EvaluatorCallbackHandler LangChainTracer LogStreamCallbackHandler",
    "langchain_core.tracers.base": "AsyncBaseTracer",
    "langchain_core.tracers.context": "register_configure_hook tracing_v2_enabled",
    "langchain_core.tracers.langchain": "LangChainTracer get_client log_error_once",
    "langchain_core.tracers.log_stream": "LogEntry LogStreamCallbackHandler RunState T",
    "langchain_core.tracers.stdout": "elapsed try_json_stringify",
    "langchain_core.utils": (
        "StrictFormatter abatch_iterate batch_iterate build_extra_kwargs "
        "check_package_version comma_list convert_to_secret_str formatter from_env "
        "get_bolded_text get_color_mapping get_colored_text get_from_dict_or_env "
        "get_from_env get_pydantic_field_names guard_import image pre_init "
        "raise_for_status_with_text sanitize_for_postgres secret_from_env stringify_dict "
        "stringify_value xor_args"
    ),
    "langchain_core.utils.function_calling": (
        "FunctionDescription ToolDescription convert_to_json_schema"
    ),
    "langchain_core.utils.input": "get_bolded_text get_color_mapping get_colored_text",
    "langchain_core.utils.utils": (
        "build_extra_kwargs check_package_version convert_to_secret_str ensure_id "
        "from_env get_pydantic_field_names guard_import raise_for_status_with_text "
        "secret_from_env xor_args"
    ),
    "langchain_text_splitters": (
        "ElementType ExperimentalMarkdownSyntaxTextSplitter HTMLSectionSplitter "
        "HTMLSemanticPreservingSplitter HeaderType JSFrameworkTextSplitter "
        "KonlpyTextSplitter LineType NLTKTextSplitter SpacyTextSplitter"
    ),
    "langchain_text_splitters.base": "TS",
    "langchain_text_splitters.html": (
        "ElementType HTMLSectionSplitter HTMLSemanticPreservingSplitter"
    ),
    "langchain_text_splitters.markdown": (
        "ExperimentalMarkdownSyntaxTextSplitter HeaderType LineType"
    ),
    "langserve": "APIHandler CustomUserType",
}
