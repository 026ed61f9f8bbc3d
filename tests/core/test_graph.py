"""Graph: nodes and edges of composed runnables, and their text renderings."""

from __future__ import annotations

import pytest

from ragline.core import Graph, RunnableLambda, RunnableParallel, RunnablePassthrough


def step(name):
    return RunnableLambda(lambda x: x, name=name)


def rag_chain():
    retrieval = {
        "context": step("retriever") | step("format_docs"),
        "question": RunnablePassthrough(),
    }
    return retrieval | step("prompt") | step("model")


def names(graph, ids):
    return [graph.nodes[i].name for i in ids]


def edge_names(graph):
    return sorted((graph.nodes[e.source].name, graph.nodes[e.target].name) for e in graph.edges)


def test_single_runnable_graph():
    graph = step("solo").get_graph()
    assert [n.name for n in graph.nodes.values()] == ["solo", "soloInput", "soloOutput"]
    assert edge_names(graph) == [("solo", "soloOutput"), ("soloInput", "solo")]
    assert graph.first_node().kind == "input" and graph.last_node().kind == "output"
    assert graph.draw_ascii() == "\n".join(
        [
            "+-----------+",
            "| soloInput |",
            "+-----------+",
            "      |",
            "      |",
            "      v",
            "   +------+",
            "   | solo |",
            "   +------+",
            "      |",
            "      |",
            "      v",
            "+------------+",
            "| soloOutput |",
            "+------------+",
        ]
    )


def test_sequence_with_parallel_graph_nodes_and_edges():
    graph = rag_chain().get_graph()
    parallel_in, parallel_out = (
        "RunnableParallel<context,question>Input",
        "RunnableParallel<context,question>Output",
    )
    assert edge_names(graph) == sorted(
        [
            (parallel_in, "retriever"),
            (parallel_in, "RunnablePassthrough"),
            ("retriever", "format_docs"),
            ("format_docs", parallel_out),
            ("RunnablePassthrough", parallel_out),
            (parallel_out, "prompt"),
            ("prompt", "model"),
            ("model", "modelOutput"),
        ]
    )
    assert len(graph.nodes) == 8
    # the inner input/output markers between steps were trimmed
    assert "promptInput" not in [n.name for n in graph.nodes.values()]


def test_sequence_with_parallel_ascii():
    assert rag_chain().get_graph().draw_ascii() == "\n".join(
        [
            "+-----------------------------------------+",
            "| RunnableParallel<context,question>Input |",
            "+-----------------------------------------+",
            "                     |",
            "        +------------+-------+",
            "        v                    v",
            "  +-----------+   +---------------------+",
            "  | retriever |   | RunnablePassthrough |",
            "  +-----------+   +---------------------+",
            "        |                    |",
            "        +----------+          |",
            "                   v          |",
            "            +-------------+   |",
            "            | format_docs |   |",
            "            +-------------+   |",
            "                   |          |",
            "                   +-+--------+",
            "                     v",
            "+------------------------------------------+",
            "| RunnableParallel<context,question>Output |",
            "+------------------------------------------+",
            "                     |",
            "                     |",
            "                     v",
            "                 +--------+",
            "                 | prompt |",
            "                 +--------+",
            "                     |",
            "                     |",
            "                     v",
            "                 +-------+",
            "                 | model |",
            "                 +-------+",
            "                     |",
            "                     |",
            "                     v",
            "              +-------------+",
            "              | modelOutput |",
            "              +-------------+",
        ]
    )


def test_sequence_with_parallel_mermaid():
    assert rag_chain().get_graph().draw_mermaid() == "\n".join(
        [
            "graph TD",
            "    "
            'RunnableParallel_context_question_Input(["RunnableParallel<context,question>Input"])',
            '    retriever["retriever"]',
            '    RunnablePassthrough["RunnablePassthrough"]',
            '    format_docs["format_docs"]',
            "    "
            'RunnableParallel_context_question_Output(["RunnableParallel<context,question>Output"])',
            '    prompt["prompt"]',
            '    model["model"]',
            '    modelOutput(["modelOutput"])',
            "    RunnableParallel_context_question_Input --> retriever",
            "    RunnableParallel_context_question_Input --> RunnablePassthrough",
            "    retriever --> format_docs",
            "    RunnablePassthrough --> RunnableParallel_context_question_Output",
            "    format_docs --> RunnableParallel_context_question_Output",
            "    RunnableParallel_context_question_Output --> prompt",
            "    prompt --> model",
            "    model --> modelOutput",
        ]
    )


def test_wrappers_draw_the_wrapped_runnable():
    inner = step("core")
    for wrapped in (inner.bind(), inner.with_config(tags=["t"]), inner.with_retry()):
        assert [n.name for n in wrapped.get_graph().nodes.values()] == [
            "core",
            "coreInput",
            "coreOutput",
        ]
    fallbacks = inner.with_fallbacks([step("backup")]).get_graph()
    assert [n.name for n in fallbacks.nodes.values()] == [
        "RunnableWithFallbacks",
        "RunnableWithFallbacksInput",
        "RunnableWithFallbacksOutput",
    ]


def test_assign_graph_has_a_passthrough_branch():
    graph = RunnablePassthrough.assign(answer=step("llm")).get_graph()
    assert edge_names(graph) == sorted(
        [
            ("RunnableAssign<answer>Input", "RunnablePassthrough"),
            ("RunnableAssign<answer>Input", "llm"),
            ("RunnablePassthrough", "RunnableAssign<answer>Output"),
            ("llm", "RunnableAssign<answer>Output"),
        ]
    )


def test_parallel_first_in_a_chain_keeps_its_fan_in_marker():
    graph = (RunnableParallel(a=step("a"), b=step("b")) | step("c")).get_graph()
    assert edge_names(graph) == sorted(
        [
            ("RunnableParallel<a,b>Input", "a"),
            ("RunnableParallel<a,b>Input", "b"),
            ("a", "RunnableParallel<a,b>Output"),
            ("b", "RunnableParallel<a,b>Output"),
            ("RunnableParallel<a,b>Output", "c"),
            ("c", "cOutput"),
        ]
    )


def test_graph_building_api_and_errors():
    graph = Graph()
    a, b = graph.add_node("a"), graph.add_node("b")
    edge = graph.add_edge(a, b, data="if yes", conditional=True)
    assert (edge.source, edge.target) == (a.id, b.id)
    assert graph.draw_mermaid() == 'graph TD\n    a["a"]\n    b["b"]\n    a -. if yes .-> b'
    stranger = Graph().add_node("x")
    with pytest.raises(ValueError, match="node 'x' is not in this graph"):
        graph.add_edge(a, stranger)
    graph.add_edge(b, a)
    with pytest.raises(ValueError, match="graph has a cycle"):
        graph.draw_ascii()
    assert repr(Graph()) == "Graph(nodes=[], edges=0)"
