"""Parity: ``get_graph()`` and its drawings, against langchain_core's.

Each scenario builds the same chain from LangChain's classes and from ragline's and
compares what a program prints: ``draw_ascii()`` and ``draw_mermaid()`` character for
character, the node names and the edges between them in order, ``first_node()`` /
``last_node()``, ``to_json()`` and ``get_prompts()``.

Two things are normalised, because LangChain's own output varies or is not ragline's
to give: node ids (fresh uuids in both libraries, so edges are compared by node name
and position) and, in ``to_json()``, the ``id`` path of a runnable node (LangChain's
serialisation namespace, such as ``["langchain", "prompts", "chat", ...]``; ragline
gives its own module path).

LangChain lays out ``draw_ascii()`` with grandalf (a dev dependency here, for these
tests); ragline draws the same text with its own layout. Where a graph has two or more
edges that skip a layer (two passthrough branches beside a longer one), LangChain's
column order depends on set iteration order and changes from process to process;
the scenarios here have at most one such edge.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

import pytest
from langchain_classic.agents import AgentExecutor as LCAgentExecutor
from langchain_classic.agents import create_tool_calling_agent as lc_create_tool_calling_agent
from langchain_classic.chains import LLMChain as LCLLMChain
from langchain_classic.chains import create_retrieval_chain as lc_create_retrieval_chain
from langchain_classic.chains.combine_documents import (
    create_stuff_documents_chain as lc_create_stuff_documents_chain,
)
from langchain_core import documents as lc_documents
from langchain_core import language_models as lc_models
from langchain_core import messages as lc_messages
from langchain_core import output_parsers as lc_parsers
from langchain_core import prompts as lc_prompts
from langchain_core import retrievers as lc_retrievers
from langchain_core import runnables as lc_runnables
from langchain_core import tools as lc_tools

from ragline import agents, chains, core, tools

pytest.importorskip("grandalf")  # LangChain's draw_ascii needs it


def lib(which: str) -> dict[str, Any]:
    """The classes a scenario uses, from LangChain or from ragline, by the same names."""
    if which == "langchain":

        class Fixed(lc_retrievers.BaseRetriever):
            def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> Any:
                return [lc_documents.Document("Paris is in France.")]

        return {
            "ChatPromptTemplate": lc_prompts.ChatPromptTemplate,
            "PromptTemplate": lc_prompts.PromptTemplate,
            "FakeListChatModel": lc_models.FakeListChatModel,
            "FakeChat": lc_models.FakeMessagesListChatModel,
            "AIMessage": lc_messages.AIMessage,
            "StrOutputParser": lc_parsers.StrOutputParser,
            "RunnableLambda": lc_runnables.RunnableLambda,
            "RunnableParallel": lc_runnables.RunnableParallel,
            "RunnablePassthrough": lc_runnables.RunnablePassthrough,
            "RunnableBranch": lc_runnables.RunnableBranch,
            "chain": lc_runnables.chain,
            "RunnableGenerator": lc_runnables.RunnableGenerator,
            "ConfigurableField": lc_runnables.ConfigurableField,
            "Fixed": Fixed,
            "create_retrieval_chain": lc_create_retrieval_chain,
            "create_stuff_documents_chain": lc_create_stuff_documents_chain,
            "create_tool_calling_agent": lc_create_tool_calling_agent,
            "AgentExecutor": LCAgentExecutor,
            "LLMChain": LCLLMChain,
            "FakeListLLM": lc_models.FakeListLLM,
            "tool": lc_tools.tool,
        }

    class Fixed(core.BaseRetriever):
        def _get_relevant_documents(self, query: str) -> Any:
            return [core.Document("Paris is in France.")]

    return {
        "ChatPromptTemplate": core.ChatPromptTemplate,
        "PromptTemplate": core.PromptTemplate,
        "FakeListChatModel": core.FakeListChatModel,
        "FakeChat": core.FakeMessagesListChatModel,
        "AIMessage": core.AIMessage,
        "StrOutputParser": core.StrOutputParser,
        "RunnableLambda": core.RunnableLambda,
        "RunnableParallel": core.RunnableParallel,
        "RunnablePassthrough": core.RunnablePassthrough,
        "RunnableBranch": core.RunnableBranch,
        "chain": core.chain,
        "RunnableGenerator": core.RunnableGenerator,
        "ConfigurableField": core.ConfigurableField,
        "Fixed": Fixed,
        "create_retrieval_chain": chains.create_retrieval_chain,
        "create_stuff_documents_chain": chains.create_stuff_documents_chain,
        "create_tool_calling_agent": agents.create_tool_calling_agent,
        "AgentExecutor": agents.AgentExecutor,
        "LLMChain": chains.LLMChain,
        "FakeListLLM": core.FakeListLLM,
        "tool": tools.tool,
    }


def format_docs(docs: Any) -> str:
    return "\n\n".join(d.page_content for d in docs)


def is_short(x: Any) -> bool:
    return len(str(x)) < 5


def model(ns: dict[str, Any]) -> Any:
    return ns["FakeListChatModel"](responses=["Paris"])


def prompt_model_parser(ns: dict[str, Any]) -> Any:
    prompt = ns["ChatPromptTemplate"].from_template("Tell me about {topic}")
    return prompt | model(ns) | ns["StrOutputParser"]()


def lcel_rag(ns: dict[str, Any]) -> Any:
    prompt = ns["ChatPromptTemplate"].from_template("{context}\n\nQuestion: {question}")
    retrieval = {
        "context": ns["Fixed"]() | format_docs,
        "question": ns["RunnablePassthrough"](),
    }
    return retrieval | prompt | model(ns) | ns["StrOutputParser"]()


def rag_with_sources(ns: dict[str, Any]) -> Any:
    prompt = ns["ChatPromptTemplate"].from_template("{context}\n\nQuestion: {question}")
    answer = (
        ns["RunnablePassthrough"].assign(context=lambda x: format_docs(x["context"]))
        | prompt
        | model(ns)
        | ns["StrOutputParser"]()
    )
    parallel = ns["RunnableParallel"](
        {"context": ns["Fixed"](), "question": ns["RunnablePassthrough"]()}
    )
    return parallel.assign(answer=answer)


def stuff_chain(ns: dict[str, Any]) -> Any:
    prompt = ns["ChatPromptTemplate"].from_messages(
        [("system", "Answer from: {context}"), ("human", "{input}")]
    )
    return ns["create_stuff_documents_chain"](model(ns), prompt)


def retrieval_chain(ns: dict[str, Any]) -> Any:
    return ns["create_retrieval_chain"](ns["Fixed"](), stuff_chain(ns))


def parallel_of_three(ns: dict[str, Any]) -> Any:
    lam = ns["RunnableLambda"]
    return ns["RunnableParallel"](
        upper=lam(str.upper), lower=lam(str.lower), title=lam(str.title)
    ) | lam(format_docs, name="join")


def branch(ns: dict[str, Any]) -> Any:
    lam = ns["RunnableLambda"]
    return ns["RunnableBranch"]((is_short, lam(str.upper)), lam(str.lower)) | lam(len)


def lambdas_and_passthrough(ns: dict[str, Any]) -> Any:
    lam = ns["RunnableLambda"]
    return ns["RunnablePassthrough"]() | lam(lambda x: x) | lam(format_docs) | lam(str, name="s")


def fallbacks_and_retry(ns: dict[str, Any]) -> Any:
    prompt = ns["PromptTemplate"].from_template("{q}")
    backup = ns["FakeListChatModel"](responses=["b"])
    return prompt | model(ns).with_fallbacks([backup]) | ns["StrOutputParser"]().with_retry()


def bound_and_configured(ns: dict[str, Any]) -> Any:
    prompt = ns["ChatPromptTemplate"].from_template("{q}")
    chat = model(ns).bind(stop=["\n"]).with_config(tags=["t"], metadata={"who": "me"})
    fields = ns["FakeListChatModel"](responses=["c"]).configurable_fields(
        responses=ns["ConfigurableField"](id="responses")
    )
    return prompt | chat | fields | ns["StrOutputParser"]()


def nested_sequences(ns: dict[str, Any]) -> Any:
    lam = ns["RunnableLambda"]
    inner = lam(str.strip) | (lam(str.upper) | lam(str.lower))
    return (lam(str, name="first") | inner) | (lam(len) | lam(str, name="last"))


def single_prompt(ns: dict[str, Any]) -> Any:
    return ns["PromptTemplate"].from_template("Summarise {text} in {n} words")


def tool_calling_agent(ns: dict[str, Any]) -> Any:
    class Model(ns["FakeChat"]):  # type: ignore[misc,name-defined]
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=[t.name for t in tools])

    @ns["tool"]
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    prompt = ns["ChatPromptTemplate"].from_messages(
        [("system", "be brief"), ("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
    )
    chat = Model(responses=[ns["AIMessage"](content="hi")])
    return ns["create_tool_calling_agent"](chat, [echo], prompt)


def agent_executor(ns: dict[str, Any]) -> Any:
    agent = tool_calling_agent(ns)
    return ns["AgentExecutor"](agent=agent, tools=[])


def llm_chain(ns: dict[str, Any]) -> Any:
    prompt = ns["PromptTemplate"].from_template("Tell me about {topic} in {style}")
    return ns["LLMChain"](llm=ns["FakeListLLM"](responses=["x"]), prompt=prompt)


def function_using_runnables(ns: dict[str, Any]) -> Any:
    """A @chain function: the runnables it reads by closure (or global) name are drawn
    between its input and output nodes."""
    prompt = ns["PromptTemplate"].from_template("Say {x}")
    llm = ns["FakeListLLM"](responses=["a"])

    @ns["chain"]
    def custom(text: str) -> Any:
        return llm.invoke(prompt.invoke({"x": text})) + str(len(text))

    return custom | ns["RunnableLambda"](str.upper)


def itemgetter_rag(ns: dict[str, Any]) -> Any:
    """The RAG chain reading its question with itemgetter, and a lambda reading keys."""
    prompt = ns["ChatPromptTemplate"].from_template("{context}\n\nQuestion: {question}")
    retrieval = {
        "context": itemgetter("question") | ns["Fixed"]() | format_docs,
        "question": itemgetter("question"),
        "style": lambda x: x["style"] or x.get("tone"),
    }
    return retrieval | prompt | model(ns) | ns["StrOutputParser"]()


def shout(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk.upper()


def generator_step(ns: dict[str, Any]) -> Any:
    return ns["RunnableLambda"](format_docs) | ns["RunnableGenerator"](shout)


def a_tool(ns: dict[str, Any]) -> Any:
    @ns["tool"]
    def lookup(city: str, days: int = 1) -> str:
        """Look up the weather."""
        return city * days

    return lookup


def keys_of(row: dict) -> list:
    return sorted(row)


def count_items(items: list) -> int:
    return len(items)


def plain_container_lambdas(ns: dict[str, Any]) -> Any:
    """Lambdas annotated with a bare dict and a bare list: any keys, any items."""
    return ns["RunnableLambda"](keys_of) | ns["RunnableLambda"](count_items)


SCENARIOS = [
    prompt_model_parser,
    lcel_rag,
    rag_with_sources,
    stuff_chain,
    retrieval_chain,
    parallel_of_three,
    branch,
    lambdas_and_passthrough,
    fallbacks_and_retry,
    bound_and_configured,
    nested_sequences,
    single_prompt,
    tool_calling_agent,
    agent_executor,
    llm_chain,
    function_using_runnables,
    itemgetter_rag,
    generator_step,
    a_tool,
    plain_container_lambdas,
]


def both(build: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return build(lib("langchain")), build(lib("ragline"))


def named_edges(graph: Any) -> list[tuple[str, str, Any, bool]]:
    order = {node_id: i for i, node_id in enumerate(graph.nodes)}
    return [
        (
            f"{graph.nodes[e.source].name}#{order[e.source]}",
            f"{graph.nodes[e.target].name}#{order[e.target]}",
            e.data,
            e.conditional,
        )
        for e in graph.edges
    ]


def without_runnable_paths(data: dict[str, Any]) -> dict[str, Any]:
    nodes = []
    for node in data["nodes"]:
        node = dict(node)
        if node.get("type") == "runnable":
            node["data"] = {k: v for k, v in node["data"].items() if k != "id"}
        nodes.append(node)
    return {"nodes": nodes, "edges": data["edges"]}


@pytest.mark.parametrize("build", SCENARIOS, ids=lambda b: b.__name__)
def test_the_drawings_are_langchains(build: Any) -> None:
    lc, ours = both(build)
    lc_graph, our_graph = lc.get_graph(), ours.get_graph()
    assert our_graph.draw_mermaid() == lc_graph.draw_mermaid()
    assert our_graph.draw_mermaid(with_styles=False) == lc_graph.draw_mermaid(with_styles=False)
    assert our_graph.draw_ascii() == lc_graph.draw_ascii()


@pytest.mark.parametrize("build", SCENARIOS, ids=lambda b: b.__name__)
def test_the_nodes_and_edges_are_langchains(build: Any) -> None:
    lc, ours = both(build)
    lc_graph, our_graph = lc.get_graph(), ours.get_graph()
    assert [n.name for n in our_graph.nodes.values()] == [n.name for n in lc_graph.nodes.values()]
    assert named_edges(our_graph) == named_edges(lc_graph)
    assert our_graph.first_node().name == lc_graph.first_node().name
    assert our_graph.last_node().name == lc_graph.last_node().name
    assert without_runnable_paths(our_graph.to_json()) == without_runnable_paths(lc_graph.to_json())
    assert [type(p).__name__ for p in ours.get_prompts()] == [
        type(p).__name__ for p in lc.get_prompts()
    ]


def test_reid_names_nodes_and_numbers_repeated_names() -> None:
    lc, ours = both(parallel_of_three)
    assert (
        list(ours.get_graph().reid().nodes)
        == list(lc.get_graph().reid().nodes)
        == [
            "Parallel<upper,lower,title>Input",
            "Parallel<upper,lower,title>Output",
            "upper",
            "lower",
            "title",
            "join",
            "join_output",
        ]
    )
    lc2, ours2 = both(lambda ns: ns["RunnableParallel"](a=format_docs, b=format_docs))
    assert list(ours2.get_graph().reid().nodes) == list(lc2.get_graph().reid().nodes)
    assert list(ours2.get_graph().reid().nodes)[2:] == ["format_docs_1", "format_docs_2"]


def test_hand_built_graphs_draw_alike() -> None:
    """Graph's own API: named nodes, labelled and conditional edges, metadata."""
    from langchain_core.runnables.graph import Graph as LCGraph

    from ragline.core.runnables.graph import Graph

    drawings = []
    for graph_class, lam in ((LCGraph, lc_runnables.RunnableLambda), (Graph, core.RunnableLambda)):
        graph = graph_class()
        start = graph.add_node(None, id="__start__")
        step = graph.add_node(lam(str), metadata={"k": 1, "mode": "fast"})
        other = graph.add_node(lam(len), id="count it")
        end = graph.add_node(None, id="__end__")
        graph.add_edge(
            start, step, data="when the input is long enough to need it", conditional=True
        )
        graph.add_edge(step, other, data="then")
        graph.add_edge(other, end, conditional=True)
        graph.add_edge(start, end)
        drawings.append(
            (
                graph.draw_mermaid(),
                graph.draw_mermaid(with_styles=False, wrap_label_n_words=3),
                graph.draw_ascii(),
                graph.to_json(),
                [n.name for n in graph.nodes.values()],
            )
        )
    (lc_mermaid, lc_plain, lc_ascii, lc_json, lc_names), ours = drawings[0], drawings[1]
    assert ours[0] == lc_mermaid
    assert ours[1] == lc_plain
    assert ours[2] == lc_ascii
    assert without_runnable_paths(ours[3]) == without_runnable_paths(lc_json)
    assert ours[4] == lc_names == ["__start__", "str", "count it", "__end__"]


def test_graph_errors_are_langchains() -> None:
    from langchain_core.runnables.graph import Graph as LCGraph

    from ragline.core.runnables.graph import Graph

    for graph_class in (LCGraph, Graph):
        graph = graph_class()
        graph.add_node(None, id="a")
        with pytest.raises(ValueError, match="Node with id a already exists"):
            graph.add_node(None, id="a")
        stranger = graph_class().add_node(None, id="x")
        with pytest.raises(ValueError, match="Target node x not in graph"):
            graph.add_edge(graph.nodes["a"], stranger)
        with pytest.raises(ValueError, match="Source node x not in graph"):
            graph.add_edge(stranger, graph.nodes["a"])
        assert not graph_class() and graph_class().first_node() is None


# Schemas that still differ, and why (the other scenarios' schemas are equal):
SCHEMAS_DIFFER = {
    # message schemas in $defs: LangChain's carry its docstrings, ragline's do not
    "single_prompt": "output",
    "tool_calling_agent": "input and output",
}


@pytest.mark.parametrize(
    "build", [b for b in SCENARIOS if b.__name__ not in SCHEMAS_DIFFER], ids=lambda b: b.__name__
)
def test_the_schemas_are_langchains(build: Any) -> None:
    lc, ours = both(build)
    assert ours.get_input_jsonschema() == lc.get_input_jsonschema()
    assert ours.get_output_jsonschema() == lc.get_output_jsonschema()
    assert ours.input_schema.model_json_schema() == lc.input_schema.model_json_schema()
    assert ours.output_schema.model_json_schema() == lc.output_schema.model_json_schema()
    assert ours.input_schema.__name__ == lc.input_schema.__name__


@pytest.mark.parametrize(
    "front",
    [
        None,
        {"config": {"theme": "neutral", "flowchart": {"htmlLabels": False, "curve": "basis"}}},
        {
            "title": "RAG: answer",
            "config": {
                "look": "handDrawn",
                "themeVariables": {"primaryColor": "#ff0000", "fontSize": 16},
                "list": [1, "yes", None, {"k": "v", "j": 2.5}],
            },
        },
    ],
)
def test_mermaid_options_are_langchains(front: Any) -> None:
    from langchain_core.runnables.graph import CurveStyle as LCCurveStyle
    from langchain_core.runnables.graph import NodeStyles as LCNodeStyles

    from ragline.core.runnables.graph import CurveStyle, NodeStyles

    lc, ours = both(lcel_rag)
    lc_text = lc.get_graph().draw_mermaid(
        curve_style=LCCurveStyle.STEP,
        node_colors=LCNodeStyles(first="fill:#000", last="stroke:red"),
        frontmatter_config=front,
    )
    our_text = ours.get_graph().draw_mermaid(
        curve_style=CurveStyle.STEP,
        node_colors=NodeStyles(first="fill:#000", last="stroke:red"),
        frontmatter_config=front,
    )
    assert our_text == lc_text
