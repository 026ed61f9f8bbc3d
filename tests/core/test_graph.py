"""Graph: nodes and edges of composed runnables, and their text renderings.

tests/parity/test_graph_drawing.py compares the same drawings with LangChain's; these
pin ragline's on shapes checked there once, and the layout's corner cases.
"""

from __future__ import annotations

import pytest

from ragline.core import RunnableLambda, RunnableParallel, RunnablePassthrough
from ragline.core.runnables.graph import Edge, Graph, Node


def step(name):
    return RunnableLambda(lambda x: x, name=name)


def rag_chain():
    retrieval = {
        "context": step("retriever") | step("format_docs"),
        "question": RunnablePassthrough(),
    }
    return retrieval | step("prompt") | step("model")


def names(graph):
    return [node.name for node in graph.nodes.values()]


def edge_names(graph):
    return [(graph.nodes[e.source].name, graph.nodes[e.target].name) for e in graph.edges]


def test_single_runnable_graph():
    graph = step("solo").get_graph()
    assert names(graph) == ["solo_input", "solo", "solo_output"]
    assert edge_names(graph) == [("solo_input", "solo"), ("solo", "solo_output")]
    assert graph.first_node().name == "solo_input"
    assert graph.last_node().name == "solo_output"
    assert graph.draw_ascii() == "\n".join(
        [
            "+------------+   ",
            "| solo_input |   ",
            "+------------+   ",
            "        *        ",
            "        *        ",
            "        *        ",
            "    +------+     ",
            "    | solo |     ",
            "    +------+     ",
            "        *        ",
            "        *        ",
            "        *        ",
            "+-------------+  ",
            "| solo_output |  ",
            "+-------------+  ",
        ]
    )


def test_sequence_with_parallel_nodes_and_edges():
    graph = rag_chain().get_graph()
    assert names(graph) == [
        "Parallel<context,question>Input",
        "Parallel<context,question>Output",
        "retriever",
        "format_docs",
        "Passthrough",
        "prompt",
        "model",
        "model_output",
    ]
    # a step's edges come before the edge joining it to the previous step
    assert edge_names(graph) == [
        ("retriever", "format_docs"),
        ("Parallel<context,question>Input", "retriever"),
        ("format_docs", "Parallel<context,question>Output"),
        ("Parallel<context,question>Input", "Passthrough"),
        ("Passthrough", "Parallel<context,question>Output"),
        ("Parallel<context,question>Output", "prompt"),
        ("model", "model_output"),
        ("prompt", "model"),
    ]


def test_sequence_with_parallel_ascii():
    # the passthrough sits beside format_docs, its edge passing the retriever's layer
    assert rag_chain().get_graph().draw_ascii() == "\n".join(
        [
            "  +---------------------------------+    ",
            "  | Parallel<context,question>Input |    ",
            "  +---------------------------------+    ",
            "             ***         ***             ",
            "            *               *            ",
            "          **                 ***         ",
            " +-----------+                  *        ",
            " | retriever |                  *        ",
            " +-----------+                  *        ",
            "        *                       *        ",
            "        *                       *        ",
            "        *                       *        ",
            "+-------------+         +-------------+  ",
            "| format_docs |         | Passthrough |  ",
            "+-------------+         +-------------+  ",
            "             ***         ***             ",
            "                *       *                ",
            "                 **   **                 ",
            "  +----------------------------------+   ",
            "  | Parallel<context,question>Output |   ",
            "  +----------------------------------+   ",
            "                    *                    ",
            "                    *                    ",
            "                    *                    ",
            "              +--------+                 ",
            "              | prompt |                 ",
            "              +--------+                 ",
            "                    *                    ",
            "                    *                    ",
            "                    *                    ",
            "               +-------+                 ",
            "               | model |                 ",
            "               +-------+                 ",
            "                    *                    ",
            "                    *                    ",
            "                    *                    ",
            "            +--------------+             ",
            "            | model_output |             ",
            "            +--------------+             ",
        ]
    )


def test_sequence_with_parallel_mermaid():
    assert rag_chain().get_graph().draw_mermaid() == "\n".join(
        [
            "---",
            "config:",
            "  flowchart:",
            "    curve: linear",
            "---",
            "graph TD;",
            "\tParallel\\3ccontext\\2cquestion\\3eInput([Parallel<context,question>Input]):::first",
            "\tParallel\\3ccontext\\2cquestion\\3eOutput(Parallel<context,question>Output)",
            "\tretriever(retriever)",
            "\tformat_docs(format_docs)",
            "\tPassthrough(Passthrough)",
            "\tprompt(prompt)",
            "\tmodel(model)",
            "\tmodel_output([model_output]):::last",
            "\tretriever --> format_docs;",
            "\tParallel\\3ccontext\\2cquestion\\3eInput --> retriever;",
            "\tformat_docs --> Parallel\\3ccontext\\2cquestion\\3eOutput;",
            "\tParallel\\3ccontext\\2cquestion\\3eInput --> Passthrough;",
            "\tPassthrough --> Parallel\\3ccontext\\2cquestion\\3eOutput;",
            "\tParallel\\3ccontext\\2cquestion\\3eOutput --> prompt;",
            "\tmodel --> model_output;",
            "\tprompt --> model;",
            "\tclassDef default fill:#f2f0ff,line-height:1.2",
            "\tclassDef first fill-opacity:0",
            "\tclassDef last fill:#bfb6fc",
            "",
        ]
    )


def test_wrappers_draw_the_wrapped_runnable():
    inner = step("core")
    for wrapped in (inner.bind(), inner.with_config(tags=["t"]), inner.with_retry()):
        graph = wrapped.get_graph()
        assert names(graph) == ["core_input", "core", "core_output"]
        assert graph.nodes[list(graph.nodes)[1]].metadata == {}
    fallbacks = inner.with_fallbacks([step("backup")]).get_graph()
    assert names(fallbacks) == ["core_input", "WithFallbacks", "core_output"]
    labelled = inner.with_config(metadata={"owner": "me"}).get_graph().draw_mermaid()
    assert "\tcore(core<hr/><small><em>owner = me</em></small>)" in labelled


def test_assign_adds_a_passthrough_branch_to_its_mappers_graph():
    graph = RunnablePassthrough.assign(answer=step("llm")).get_graph()
    assert names(graph) == [
        "Parallel<answer>Input",
        "Parallel<answer>Output",
        "llm",
        "Passthrough",
    ]
    assert edge_names(graph) == [
        ("Parallel<answer>Input", "llm"),
        ("llm", "Parallel<answer>Output"),
        ("Parallel<answer>Input", "Passthrough"),
        ("Passthrough", "Parallel<answer>Output"),
    ]


def test_a_parallel_in_the_middle_keeps_its_fan_nodes():
    graph = (step("a") | RunnableParallel(b=step("b"), c=step("c")) | step("d")).get_graph()
    assert ("a", "Parallel<b,c>Input") in edge_names(graph)
    assert ("Parallel<b,c>Output", "d") in edge_names(graph)


def test_reid_and_to_json():
    graph = RunnableParallel(a=step("x"), b=step("x")).get_graph()
    assert list(graph.reid().nodes) == [
        "Parallel<a,b>Input",
        "Parallel<a,b>Output",
        "x_1",
        "x_2",
    ]
    data = graph.to_json()
    assert data["nodes"][0] == {"id": 0, "type": "schema", "data": "Parallel<a,b>Input"}
    assert data["nodes"][2]["data"]["name"] == "x"
    assert data["edges"][:2] == [{"source": 0, "target": 2}, {"source": 2, "target": 1}]


def test_graph_building_api_and_errors():
    graph = Graph()
    a = graph.add_node(None, id="a")
    b = graph.add_node(None, id="b")
    assert a == Node(id="a", name="a", data=None, metadata=None)
    edge = graph.add_edge(a, b, data="if yes", conditional=True)
    assert edge == Edge(source="a", target="b", data="if yes", conditional=True)
    assert graph.draw_mermaid(with_styles=False) == "graph TD;\n\ta -. &nbsp;if yes&nbsp; .-> b;\n"
    with pytest.raises(ValueError, match="Target node x not in graph"):
        graph.add_edge(a, Graph().add_node(None, id="x"))
    with pytest.raises(ValueError, match="Node with id a already exists"):
        graph.add_node(None, id="a")
    graph.add_edge(b, a)
    with pytest.raises(ValueError, match="graph has a cycle"):
        graph.draw_ascii()
    assert not Graph() and Graph().draw_ascii() == ""
    assert repr(Graph()) == "Graph(nodes={}, edges=[])"


def test_ascii_conditional_edges_and_side_exits():
    graph = Graph()
    top = graph.add_node(None, id="I")
    for name in ("aaaaaa", "bbbbbb", "cccccc"):
        graph.add_edge(top, graph.add_node(None, id=name), conditional=name == "cccccc")
    # a narrow box: the outer lines leave through its sides; the conditional one is dots
    assert graph.draw_ascii().split("\n") == [
        "                  +---+                  ",
        "                 *| I |.                 ",
        "               ** +---+ ..               ",
        "            ***     *     ...            ",
        "          **        *        ..          ",
        "        **          *          ..        ",
        "+--------+     +--------+     +--------+ ",
        "| aaaaaa |     | bbbbbb |     | cccccc | ",
        "+--------+     +--------+     +--------+ ",
    ]


def test_png_drawing_is_refused_with_the_way_out():
    graph = step("solo").get_graph()
    for draw in (graph.draw_png, graph.draw_mermaid_png):
        with pytest.raises(NotImplementedError, match="draw_mermaid"):
            draw()


def test_get_prompts_uses_the_config():
    from ragline.core import ConfigurableField, PromptTemplate

    first = PromptTemplate.from_template("a {x}")
    chain = first.configurable_alternatives(
        ConfigurableField(id="p"), default_key="a", b=PromptTemplate.from_template("b {x}")
    )
    assert [p.template for p in chain.get_prompts()] == ["a {x}"]
    assert [p.template for p in chain.get_prompts({"configurable": {"p": "b"}})] == ["b {x}"]
