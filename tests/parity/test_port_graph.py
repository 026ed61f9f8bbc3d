"""``ragline port`` rewrites imports from ``langchain_core.runnables.graph``.

LangChain is the oracle: the same program runs under LangChain, is ported, and runs
again under ragline; both print the same, and the ported one imports no LangChain.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from ragline.cli import main

COVERS = {
    "core.Graph",
    "core.runnables.CurveStyle",
    "core.runnables.Edge",
    "core.runnables.Node",
    "core.runnables.NodeStyles",
}

PROGRAM = textwrap.dedent(
    """\
    from langchain_core.runnables import RunnableLambda
    from langchain_core.runnables.graph import CurveStyle, Edge, Graph, Node, NodeStyles


    def double(x):
        return x * 2


    def add_one(x):
        return x + 1


    graph = (RunnableLambda(double) | RunnableLambda(add_one)).get_graph()
    print(isinstance(graph, Graph))
    print(all(isinstance(node, Node) for node in graph.nodes.values()))
    print(all(isinstance(edge, Edge) for edge in graph.edges))
    print([node.name for node in graph.nodes.values()])
    colors = NodeStyles(default="fill:#ffffff", first="fill:#000000", last="fill:#ff0000")
    print(graph.draw_mermaid(curve_style=CurveStyle.BASIS, node_colors=colors))
    """
)

RUNNER = (
    "import runpy, sys; runpy.run_path('app.py', run_name='__main__'); "
    "sys.stderr.write(repr(sorted({m.split('.')[0] for m in sys.modules "
    "if m.startswith('langchain')})))"
)


def run(folder) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout, done.stderr.strip().splitlines()[-1]


def test_graph_names_port_and_the_program_prints_the_same(tmp_path, capsys):
    path = tmp_path / "app.py"
    path.write_text(PROGRAM, encoding="utf-8")
    before, imported = run(tmp_path)
    assert imported == "['langchain_core']"
    assert "curve: basis" in before and "classDef last fill:#ff0000" in before

    assert main(["port", str(path)]) == 0
    assert capsys.readouterr().err == f"{path}: 2 import(s) rewritten\n"
    assert path.read_text().splitlines()[:3] == [
        "from ragline.core import RunnableLambda",
        "from ragline.core.runnables import CurveStyle, Edge, Node, NodeStyles",
        "from ragline.core import Graph",
    ]
    after, imported = run(tmp_path)
    assert after == before
    assert imported == "[]"
