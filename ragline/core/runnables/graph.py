"""Graph: the nodes and edges of a composed runnable, drawn as text or Mermaid.

``chain.get_graph()`` returns one. ``draw_ascii()`` lays nodes out in layers (boxes,
with ``|``/``v`` connectors; fan-outs share a ``+---+`` bar), ``draw_mermaid()``
returns Mermaid flowchart source to paste into a Markdown file.

Example:
    >>> from ragline.core import RunnableLambda
    >>> first = RunnableLambda(lambda x: x, name="first")
    >>> chain = first | RunnableLambda(lambda x: x, name="second")
    >>> print(chain.get_graph().draw_mermaid())
    graph TD
        firstInput(["firstInput"])
        first["first"]
        second["second"]
        secondOutput(["secondOutput"])
        firstInput --> first
        first --> second
        second --> secondOutput
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragline.core.runnables.base import Runnable

__all__ = ["Edge", "Graph", "Node"]


@dataclass
class Node:
    """A node: a runnable, or the input/output marker of a graph.

    Attributes:
        id: unique within the graph.
        name: what is drawn.
        data: the runnable (``None`` for input/output markers).
        kind: ``"runnable"``, ``"input"`` or ``"output"``.
    """

    id: str
    name: str
    data: Any = None
    kind: str = "runnable"


@dataclass(frozen=True)
class Edge:
    """A directed edge between node ids, with an optional label."""

    source: str
    target: str
    data: str | None = None
    conditional: bool = False


class Graph:
    """A directed acyclic graph of nodes; see the module docstring."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.edges: list[Edge] = []

    def __repr__(self) -> str:
        return f"Graph(nodes={[n.name for n in self.nodes.values()]}, edges={len(self.edges)})"

    # ---- building -------------------------------------------------------------------
    def add_node(self, name: str, data: Any = None, kind: str = "runnable") -> Node:
        """Add a node and return it."""
        node = Node(uuid.uuid4().hex, name, data, kind)
        self.nodes[node.id] = node
        return node

    def add_edge(
        self, source: Node, target: Node, data: str | None = None, conditional: bool = False
    ) -> Edge:
        """Add an edge ``source -> target`` and return it."""
        for node in (source, target):
            if node.id not in self.nodes:
                raise ValueError(f"node {node.name!r} is not in this graph")
        edge = Edge(source.id, target.id, data, conditional)
        self.edges.append(edge)
        return edge

    def extend(self, other: Graph) -> None:
        """Add every node and edge of ``other``."""
        self.nodes.update(other.nodes)
        self.edges.extend(other.edges)

    def remove_node(self, node: Node) -> None:
        """Remove ``node`` and its edges."""
        del self.nodes[node.id]
        self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]

    def first_node(self) -> Node | None:
        """The only node without incoming edges, or ``None`` if there is not exactly one."""
        targets = {e.target for e in self.edges}
        found = [n for n in self.nodes.values() if n.id not in targets]
        return found[0] if len(found) == 1 else None

    def last_node(self) -> Node | None:
        """The only node without outgoing edges, or ``None`` if there is not exactly one."""
        sources = {e.source for e in self.edges}
        found = [n for n in self.nodes.values() if n.id not in sources]
        return found[0] if len(found) == 1 else None

    def trim_first_node(self) -> None:
        """Drop the input marker if it merely leads to one node."""
        first = self.first_node()
        if first and first.kind == "input" and sum(e.source == first.id for e in self.edges) == 1:
            self.remove_node(first)

    def trim_last_node(self) -> None:
        """Drop the output marker if it merely follows one node."""
        last = self.last_node()
        if last and last.kind == "output" and sum(e.target == last.id for e in self.edges) == 1:
            self.remove_node(last)

    @classmethod
    def single(cls, runnable: Runnable[Any, Any]) -> Graph:
        """``<name>Input -> <name> -> <name>Output``."""
        graph = cls()
        name = runnable.get_name()
        node = graph.add_node(name, runnable)
        graph.add_edge(graph.add_node(f"{name}Input", kind="input"), node)
        graph.add_edge(node, graph.add_node(f"{name}Output", kind="output"))
        return graph

    @classmethod
    def chain(cls, graphs: Sequence[Graph]) -> Graph:
        """Join graphs end to start, dropping the input/output markers in between."""
        result = cls()
        previous: Node | None = None
        for index, graph in enumerate(graphs):
            if index > 0:
                graph.trim_first_node()
            if index < len(graphs) - 1:
                graph.trim_last_node()
            first, last = graph.first_node(), graph.last_node()
            result.extend(graph)
            if previous is not None and first is not None:
                result.add_edge(previous, first)
            previous = last
        return result

    @classmethod
    def fan(cls, runnable: Runnable[Any, Any], branches: Sequence[Graph]) -> Graph:
        """``<name>Input`` fanning out to each branch, fanning in to ``<name>Output``."""
        graph = cls()
        name = runnable.get_name()
        start = graph.add_node(f"{name}Input", kind="input")
        end = graph.add_node(f"{name}Output", kind="output")
        for branch in branches:
            branch.trim_first_node()
            branch.trim_last_node()
            first, last = branch.first_node(), branch.last_node()
            graph.extend(branch)
            if first is not None:
                graph.add_edge(start, first)
            if last is not None:
                graph.add_edge(last, end)
        # keep the output marker last in drawing order
        graph.nodes[end.id] = graph.nodes.pop(end.id)
        return graph

    # ---- drawing --------------------------------------------------------------------
    def _layers(self) -> list[list[str]]:
        """Node ids by layer (longest path from a source), in insertion order."""
        incoming = {node_id: 0 for node_id in self.nodes}
        for edge in self.edges:
            incoming[edge.target] += 1
        layer = {node_id: 0 for node_id in self.nodes}
        ready = [node_id for node_id, count in incoming.items() if count == 0]
        order: list[str] = []
        while ready:
            node_id = ready.pop(0)
            order.append(node_id)
            for edge in self.edges:
                if edge.source == node_id:
                    layer[edge.target] = max(layer[edge.target], layer[node_id] + 1)
                    incoming[edge.target] -= 1
                    if incoming[edge.target] == 0:
                        ready.append(edge.target)
        if len(order) != len(self.nodes):
            raise ValueError("graph has a cycle; cannot draw it")
        layers: list[list[str]] = [[] for _ in range(max(layer.values(), default=-1) + 1)]
        for node_id in self.nodes:
            layers[layer[node_id]].append(node_id)
        return layers

    def draw_ascii(self) -> str:
        """Return the graph as text boxes in layers, connected top to bottom."""
        layers = self._layers()
        level = {node_id: i for i, ids in enumerate(layers) for node_id in ids}
        # Long edges pass through "virtual" one-column items in the layers they cross.
        items: list[list[tuple[str, str]]] = [
            [(nid, self.nodes[nid].name) for nid in ids] for ids in layers
        ]
        hops: list[tuple[str, str]] = []
        for edge in self.edges:
            source = edge.source
            for step in range(level[edge.source] + 1, level[edge.target]):
                virtual = f"{edge.source}->{edge.target}@{step}"
                items[step].append((virtual, ""))
                hops.append((source, virtual))
                source = virtual
            hops.append((source, edge.target))

        def width(label: str) -> int:
            return len(label) + 4 if label else 1

        row_widths = [sum(width(label) for _, label in row) + 3 * (len(row) - 1) for row in items]
        canvas = max(row_widths, default=0)
        center: dict[str, int] = {}
        lines: list[str] = []
        for index, row in enumerate(items):
            x = (canvas - row_widths[index]) // 2
            box = [[" "] * canvas for _ in range(3)]
            for item_id, label in row:
                w = width(label)
                # with this rounding, lone boxes in every layer share one centre column
                center[item_id] = x + ((w - 1) // 2 if canvas % 2 == 0 else w // 2)
                if label:
                    box[0][x : x + w] = "+" + "-" * (w - 2) + "+"
                    box[1][x : x + w] = "| " + label + " |"
                    box[2][x : x + w] = "+" + "-" * (w - 2) + "+"
                else:
                    for line in box:
                        line[x] = "|"
                x += w + 3
            if index > 0:
                lines.extend(self._connectors(items[index - 1], row, hops, center, canvas))
            lines.extend("".join(line).rstrip() for line in box)
        return "\n".join(lines)

    @staticmethod
    def _connectors(
        upper: list[tuple[str, str]],
        lower: list[tuple[str, str]],
        hops: list[tuple[str, str]],
        center: dict[str, int],
        canvas: int,
    ) -> list[str]:
        upper_ids = {item_id for item_id, _ in upper}
        lower_labels = dict(lower)
        pairs = [(s, t) for s, t in hops if s in upper_ids and t in lower_labels]
        rows = [[" "] * canvas for _ in range(3)]
        for source, target in pairs:
            xs, xt = center[source], center[target]
            rows[0][xs] = "|"
            rows[2][xt] = "v" if lower_labels[target] else "|"
            if abs(xs - xt) <= 1:  # boxes of odd and even width: a one-column jog
                rows[1][xt] = "|" if rows[1][xt] == " " else rows[1][xt]
                continue
            low, high = sorted((xs, xt))
            for x in range(low, high + 1):
                if rows[1][x] == " ":
                    rows[1][x] = "-"
            rows[1][xs] = rows[1][xt] = "+"
        return ["".join(row).rstrip() for row in rows]

    def print_ascii(self) -> None:
        """Print :meth:`draw_ascii`."""
        print(self.draw_ascii())

    def draw_mermaid(self) -> str:
        """Return Mermaid flowchart source (top to bottom)."""
        ids: dict[str, str] = {}
        used: set[str] = set()
        lines = ["graph TD"]
        order = [node_id for layer in self._layers() for node_id in layer]
        rank = {node_id: i for i, node_id in enumerate(order)}
        for node in (self.nodes[node_id] for node_id in order):
            base = re.sub(r"[^0-9A-Za-z_]", "_", node.name) or "node"
            readable, suffix = base, 2
            while readable in used:
                readable, suffix = f"{base}_{suffix}", suffix + 1
            used.add(readable)
            ids[node.id] = readable
            label = node.name.replace('"', "#quot;")
            shape = f'(["{label}"])' if node.kind != "runnable" else f'["{label}"]'
            lines.append(f"    {readable}{shape}")
        for edge in sorted(self.edges, key=lambda e: (rank[e.source], rank[e.target])):
            arrow = "-.->" if edge.conditional else "-->"
            if edge.data:
                arrow = f"-. {edge.data} .->" if edge.conditional else f"-- {edge.data} -->"
            lines.append(f"    {ids[edge.source]} {arrow} {ids[edge.target]}")
        return "\n".join(lines)
