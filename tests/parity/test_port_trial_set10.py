"""Parity: differences found by the tenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.chains.base import Chain as LCChain

from ragline.chains import Chain

COVERS = {
    "agents.ConversationalAgent",
    "agents.ConversationalChatAgent",
    "agents.ConvoOutputParser",
}


def _chain_classes(base: type) -> dict[str, type]:
    """Chain subclasses written as in older tutorials: ``_call(self, inputs)``, no
    ``run_manager`` parameter (and one that raises, as a user's error chain does)."""

    class Upper(base):  # type: ignore[misc,valid-type]
        @property
        def input_keys(self) -> list[str]:
            return ["text"]

        @property
        def output_keys(self) -> list[str]:
            return ["upper"]

        def _call(self, inputs: dict[str, Any]) -> dict[str, Any]:
            return {"upper": inputs["text"].upper()}

    class Fails(base):  # type: ignore[misc,valid-type]
        error_message: str

        @property
        def input_keys(self) -> list[str]:
            return []

        @property
        def output_keys(self) -> list[str]:
            return []

        def _call(self, inputs: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError(self.error_message)

    return {"upper": Upper, "fails": Fails}


def _chain_view(base: type) -> list[Any]:
    classes = _chain_classes(base)
    upper = classes["upper"]()
    seen: list[Any] = [
        upper.invoke({"text": "ab"}),
        upper({"text": "cd"}),
        upper.run("ef"),
        upper.batch([{"text": "i"}, {"text": "j"}]),
    ]
    try:  # LangChain's default _acall hands _call the run manager positionally
        seen.append(asyncio.run(upper.ainvoke({"text": "gh"})))
    except TypeError as err:
        seen.append(("TypeError", "positional" in str(err)))
    fails = classes["fails"](error_message="no step")
    for call in (fails.invoke, fails):
        try:
            call({})
        except Exception as err:  # the class and message are what is compared
            seen.append((type(err).__name__, str(err)))
    try:
        asyncio.run(fails.ainvoke({}))
    except Exception as err:
        seen.append((type(err).__name__, str(err)))
    return seen


def test_chain_subclass_whose_call_takes_no_run_manager_runs_as_langchains() -> None:
    expected = _chain_view(LCChain)
    assert expected[0] == {"text": "ab", "upper": "AB"}
    assert expected.count(("RuntimeError", "no step")) == 2
    assert _chain_view(Chain) == expected


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_chain_call_with_run_manager_still_gets_it(kind: str) -> None:
    got: list[Any] = []

    class Seen(Chain):
        @property
        def input_keys(self) -> list[str]:
            return ["q"]

        @property
        def output_keys(self) -> list[str]:
            return ["a"]

        def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
            got.append(run_manager is not None)
            return {"a": inputs["q"]}

    chain = Seen()
    out = chain.invoke({"q": 1}) if kind == "sync" else asyncio.run(chain.ainvoke({"q": 1}))
    assert out == {"q": 1, "a": 1}
    assert got == [True]


def _conversational_run(agents: Any, memory_mod: Any, tool_cls: Any, models: Any,
                        chat: bool, agent: Any) -> list[Any]:  # fmt: skip
    """initialize_agent(tools, llm, agent=<chat-conversational>, verbose=True, memory=...)
    as tg_lila_bot's and AI-assistant-for-pdf's agent.py write it: one direct answer,
    then one tool call and its answer."""
    tool = tool_cls(
        name="PDF QA",
        func=lambda q: f"The PDF says: {q} is two years.",
        description="useful for answering questions about the uploaded PDF",
    )
    replies = [
        '```json\n{"action": "Final Answer", "action_input": "Fine, thanks!"}\n```',
        '```json\n{\n    "action": "PDF QA",\n    "action_input": "warranty"\n}\n```',
        '```json\n{"action": "Final Answer", "action_input": "Two years."}\n```',
    ]
    llm = (
        models.FakeListChatModel(responses=replies)
        if chat
        else models.FakeListLLM(responses=replies)
    )
    memory = memory_mod.ConversationBufferMemory(memory_key="chat_history", return_messages=True)
    executor = agents.initialize_agent([tool], llm, agent=agent, verbose=True, memory=memory)
    # LangChain orders the input keys as a set (by the hash seed): compare them sorted
    seen: list[Any] = [type(executor.agent).__name__, sorted(executor.input_keys)]
    seen.append(executor.run("Hello, how are you?"))
    out = executor.invoke({"input": "How long is the warranty?"})
    seen.append(sorted(out))
    seen.append(out["output"])
    seen.append([(type(m).__name__, m.content) for m in memory.chat_memory.messages])
    return seen


@pytest.mark.parametrize("chat", [True, False])
@pytest.mark.parametrize("by_enum", [True, False])
def test_chat_conversational_react_agent_runs_as_langchains(
    chat: bool, by_enum: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    import langchain_classic.agents as lc_agents
    import langchain_classic.memory as lc_memory
    import langchain_core.language_models as lc_models

    import ragline.agents as rl_agents
    import ragline.core as rl_models
    import ragline.memory as rl_memory
    import ragline.tools as rl_tools

    def kind(agents: Any) -> Any:
        name = "chat-conversational-react-description"
        return agents.AgentType.CHAT_CONVERSATIONAL_REACT_DESCRIPTION if by_enum else name

    expected = _conversational_run(
        lc_agents, lc_memory, lc_agents.Tool, lc_models, chat, kind(lc_agents)
    )
    expected_out = capsys.readouterr().out
    got = _conversational_run(rl_agents, rl_memory, rl_tools.Tool, rl_models, chat, kind(rl_agents))
    got_out = capsys.readouterr().out
    assert expected[0] == "ConversationalChatAgent"
    assert expected[-2] == "Two years."
    assert got == expected
    assert got_out == expected_out


def _binding_forwarding_view(models: Any, messages: Any, runnables: Any) -> list[Any]:
    """What a program reaches through a binding: ``model.with_config(...).bind_tools``
    (LangChain's RunnableBinding hands unknown attributes to the bound runnable) and a
    bound method that takes ``config`` (given the binding's config)."""

    class ToolChat(models.FakeMessagesListChatModel):  # type: ignore[misc,name-defined]
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=tools, **kwargs)

    reply = messages.AIMessage(content="done")
    configured = ToolChat(responses=[reply]).with_config({"tags": ["agent_llm"]})
    with_tools = configured.bind_tools(["a_tool"], tool_choice="auto")
    seen: list[Any] = [
        type(with_tools.bound).__name__,
        with_tools.kwargs,
        with_tools.config.get("tags"),  # LangChain's forwarded call drops the binding's config
        with_tools.invoke("hi").content,
        configured.responses == [reply],
        hasattr(configured, "bind_tools"),
        hasattr(configured, "no_such_thing"),
    ]

    class Tagged(runnables.RunnableLambda):  # type: ignore[misc,name-defined]
        def tags_of(self, x: Any, config: Any = None) -> Any:
            return (x, (config or {}).get("tags"))

        def tags_kw(self, *, config: Any = None) -> Any:
            return (config or {}).get("tags")

    bound = Tagged(lambda x: x).with_config(tags=["b"])
    seen += [bound.tags_of(1), bound.tags_of(2, {"tags": ["c"]}), bound.tags_of(3, config=None)]
    seen += [bound.tags_kw(), bound.tags_kw(config={"tags": ["d"]})]
    return seen


def test_a_binding_hands_unknown_attributes_to_the_bound_runnable_as_langchains() -> None:
    import langchain_core.language_models as lc_models
    import langchain_core.messages as lc_messages
    import langchain_core.runnables as lc_runnables

    import ragline.core as rl_core

    expected = _binding_forwarding_view(lc_models, lc_messages, lc_runnables)
    assert expected[:2] == ["ToolChat", {"tools": ["a_tool"], "tool_choice": "auto"}]
    got = _binding_forwarding_view(rl_core, rl_core, rl_core)
    assert got == expected


def _llm_chain_binding_view(models: Any, prompts: Any, callbacks: Any, chains: Any) -> list[Any]:
    """An LLMChain whose llm is a binding (``model.with_config(...)``): the model's runs
    carry the binding's tags and run name, sync and async."""

    class Recorder(callbacks.BaseCallbackHandler):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            self.seen.append((prompts, kwargs.get("tags"), kwargs.get("name")))

    recorder = Recorder()
    llm = models.FakeListLLM(responses=["one", "two", "three"]).with_config(
        tags=["bound_tag"], run_name="bound_name"
    )
    chain = chains.LLMChain(llm=llm, prompt=prompts.PromptTemplate.from_template("Say {word}"))
    seen: list[Any] = [chain.invoke({"word": "a"}, config={"callbacks": [recorder]})]
    seen.append(chain.run("b", callbacks=[recorder]))
    seen.append(asyncio.run(chain.ainvoke({"word": "c"}, config={"callbacks": [recorder]})))
    return [*seen, recorder.seen]


def test_llm_chain_over_a_binding_keeps_its_config_as_langchains() -> None:
    import warnings

    import langchain_classic.chains as lc_chains
    import langchain_core.callbacks as lc_callbacks
    import langchain_core.language_models as lc_models
    import langchain_core.prompts as lc_prompts

    import ragline.chains as rl_chains
    import ragline.core as rl_core

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's deprecation of LLMChain and run
        expected = _llm_chain_binding_view(lc_models, lc_prompts, lc_callbacks, lc_chains)
    assert expected[-1][0] == (["Say a"], ["bound_tag"], "bound_name")
    got = _llm_chain_binding_view(rl_core, rl_core, rl_core, rl_chains)
    assert got == expected


def _tool_schema_view(tools: Any, convert: Any) -> list[Any]:
    """A tool whose args_schema's fields carry Field extras (``required=True``, as older
    tutorials write it; ``examples``, ``json_schema_extra``, ``deprecated``, a title):
    what ``tool.args``, ``tool_call_schema`` and the OpenAI tool spec show."""
    import warnings

    from pydantic import BaseModel, Field

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic's deprecation of extra Field keywords

        class MultiplyInput(BaseModel):
            a: int = Field(required=True, description="The first number", ge=0, examples=[1])
            b: str = Field("d", json_schema_extra={"foo": 1}, title="Bee", deprecated=True)
            c: list[int] = Field(default_factory=list, max_length=3)

    def multiply(a: int, b: str = "d", c: Any = None) -> int:
        return a * 2

    tool = tools.StructuredTool.from_function(
        func=multiply, name="multiply", description="Multiply", args_schema=MultiplyInput
    )
    return [
        tool.args,
        tool.tool_call_schema.model_json_schema(),
        convert(tool),
        tool.invoke({"a": 3}),
    ]


def test_tool_args_show_fields_without_their_extras_as_langchains() -> None:
    import langchain_core.tools as lc_tools
    from langchain_core.utils.function_calling import convert_to_openai_tool as lc_convert

    import ragline.tools as rl_tools
    from ragline.core import convert_to_openai_tool as rl_convert

    expected = _tool_schema_view(lc_tools, lc_convert)
    assert "required" not in expected[0]["a"] and expected[0]["b"]["title"] == "B"
    assert _tool_schema_view(rl_tools, rl_convert) == expected


def _tool_extras_over_own_keys_view(tools: Any, convert: Any) -> list[Any]:
    """A tool whose args_schema's json_schema_extra sets keys the field has itself (its
    description, default, type): what the model is shown is the field's own."""
    from pydantic import BaseModel, Field

    class Options(BaseModel):
        query: str = Field(description="What to find", json_schema_extra={"description": "x"})
        limit: int = Field(3, ge=1, json_schema_extra={"default": 9, "title": "Top"})
        mode: str = Field("a", json_schema_extra={"type": "number", "format": "x"})

    def find(query: str, limit: int = 3, mode: str = "a") -> str:
        return f"{query}:{limit}:{mode}"

    tool = tools.StructuredTool.from_function(
        func=find, name="find", description="Find", args_schema=Options
    )
    return [
        tool.args,
        tool.tool_call_schema.model_json_schema(),
        convert(tool),
        tool.invoke({"query": "q"}),
    ]


def test_tool_args_show_a_fields_own_keys_under_its_extras_as_langchains() -> None:
    import langchain_core.tools as lc_tools
    from langchain_core.utils.function_calling import convert_to_openai_tool as lc_convert

    import ragline.tools as rl_tools
    from ragline.core import convert_to_openai_tool as rl_convert

    expected = _tool_extras_over_own_keys_view(lc_tools, lc_convert)
    assert expected[0]["query"]["description"] == "What to find"
    assert expected[0]["limit"]["default"] == 3
    assert expected[0]["mode"]["type"] == "string"
    got = _tool_extras_over_own_keys_view(rl_tools, rl_convert)
    assert got == expected


def test_load_and_split_without_a_splitter_splits_as_langchains(tmp_path: Any) -> None:
    """``loader.load_and_split()`` with no splitter (Satyamdixit6/RAG pdf_doc_rag.py):
    LangChain splits with a default ``RecursiveCharacterTextSplitter()``."""
    from langchain_community.document_loaders import TextLoader as LCTextLoader

    from ragline.loaders import TextLoader

    path = tmp_path / "long.txt"
    paragraphs = [f"Paragraph {i}. " + "word " * (150 + 37 * i) for i in range(12)]
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")

    def view(docs: list[Any]) -> list[tuple[str, dict[str, Any]]]:
        return [(d.page_content, d.metadata) for d in docs]

    expected = view(LCTextLoader(str(path)).load_and_split())
    assert len(expected) > 1
    assert view(TextLoader(str(path)).load_and_split()) == expected


def _retrieval_qa_view(chains: Any, models: Any, stores: Any, embeddings: Any, docs: Any) -> Any:
    """``RetrievalQA.from_chain_type(...).invoke(query)`` with the query as a plain str
    (Satyamdixit6/RAG pdf_doc_rag.py), and ``batch`` of plain strs."""
    store = stores.InMemoryVectorStore.from_documents(
        [docs.Document(page_content=t) for t in ("sleep helps memory", "forty adults")],
        embeddings.DeterministicFakeEmbedding(size=8),
    )
    qa = chains.RetrievalQA.from_chain_type(
        llm=models.FakeListLLM(responses=["a1", "a2", "a3"]),
        chain_type="stuff",
        retriever=store.as_retriever(search_kwargs={"k": 1}),
        return_source_documents=True,
    )
    first = qa.invoke("Summarize the key findings")
    batch = qa.batch(["q2", "q3"], config={"max_concurrency": 1})  # the fake answers in turn
    return [
        sorted(first),
        first["query"],
        first["result"],
        [d.page_content for d in first["source_documents"]],
        [(b["query"], b["result"]) for b in batch],
    ]


def test_retrieval_qa_takes_the_query_as_a_plain_string_as_langchains() -> None:
    import langchain_classic.chains as lc_chains
    import langchain_core.documents as lc_docs
    import langchain_core.embeddings as lc_embeddings
    import langchain_core.language_models as lc_models
    import langchain_core.vectorstores as lc_stores

    import ragline.chains as rl_chains
    import ragline.core as rl_core
    import ragline.embeddings as rl_embeddings
    import ragline.vectorstores as rl_stores

    expected = _retrieval_qa_view(lc_chains, lc_models, lc_stores, lc_embeddings, lc_docs)
    assert expected[1:3] == ["Summarize the key findings", "a1"]
    got = _retrieval_qa_view(rl_chains, rl_core, rl_stores, rl_embeddings, rl_core)
    assert got == expected


def _text_conversational_run(
    agents: Any, memory_mod: Any, models: Any, agent: Any, agent_kwargs: dict[str, Any]
) -> list[Any]:
    """initialize_agent(tools, llm, agent=CONVERSATIONAL_REACT_DESCRIPTION, memory=
    ConversationBufferMemory(memory_key="chat_history"), verbose=True): the text form
    ("Do I need to use a tool? ...", "AI: ..."), a direct answer then a tool call."""
    prefix = agent_kwargs.get("ai_prefix", "AI")
    tool = agents.Tool(
        name="Warranty",
        func=lambda q: f"{q}: two years",
        description="useful for warranty questions",
    )
    llm = models.FakeListLLM(
        responses=[
            f"Thought: Do I need to use a tool? No\n{prefix}: Hello Sam!",
            'Thought: Do I need to use a tool? Yes\nAction: Warranty\nAction Input: "laptop"',
            f"Do I need to use a tool? No\n{prefix}: The laptop has two years.",
        ]
    )
    memory = memory_mod.ConversationBufferMemory(memory_key="chat_history")
    executor = agents.initialize_agent(
        [tool], llm, agent=agent, verbose=True, memory=memory, agent_kwargs=agent_kwargs
    )
    seen: list[Any] = [type(executor.agent).__name__, executor.agent.ai_prefix]
    seen.append(executor.run(input="Hi, I am Sam"))
    out = executor.invoke({"input": "How long is the laptop warranty?"})
    seen += [sorted(out), out["output"], memory.buffer]
    parser = executor.agent.output_parser
    seen.append(type(parser).__name__)
    try:
        parser.parse("no format at all")
    except Exception as err:
        seen.append(type(err).__name__)
    return seen


@pytest.mark.parametrize("agent_kwargs", [{}, {"ai_prefix": "Bot"}])
def test_text_conversational_react_agent_runs_as_langchains(
    agent_kwargs: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    import langchain_classic.agents as lc_agents
    import langchain_classic.memory as lc_memory
    import langchain_core.language_models as lc_models

    import ragline.agents as rl_agents
    import ragline.core as rl_models
    import ragline.memory as rl_memory
    import ragline.tools as rl_tools

    lc_kind = lc_agents.AgentType.CONVERSATIONAL_REACT_DESCRIPTION
    expected = _text_conversational_run(lc_agents, lc_memory, lc_models, lc_kind, agent_kwargs)
    expected_out = capsys.readouterr().out
    rl_agents_view = type("A", (), {"Tool": rl_tools.Tool,
                                    "initialize_agent": rl_agents.initialize_agent})  # fmt: skip
    rl_kind = rl_agents.AgentType.CONVERSATIONAL_REACT_DESCRIPTION
    got = _text_conversational_run(rl_agents_view, rl_memory, rl_models, rl_kind, agent_kwargs)
    got_out = capsys.readouterr().out
    assert expected[0] == "ConversationalAgent"
    assert got == expected
    assert got_out == expected_out
