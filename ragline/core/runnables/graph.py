"""Graph: the nodes and edges of a composed runnable, drawn as text or Mermaid.

``chain.get_graph()`` returns one, as LangChain's does: an input-schema node (named
after the chain's input schema, such as ``PromptInput``), a node per runnable step
(its name without a leading ``Runnable``: ``Parallel<context,question>``,
``Passthrough``, ``Lambda``), and an output-schema node. Node ids are fresh uuids;
``reid()`` (which the drawings use) renames them after the nodes, numbering repeated
names ``fmt_1``, ``fmt_2``.

``draw_ascii()`` draws boxes in layers joined by ``*`` lines (see
:mod:`ragline.core.runnables._graph_layout`), ``draw_mermaid()`` returns Mermaid
flowchart source with LangChain's header and styles, ``to_json()`` the nodes and
edges as plain data.

Example:
    >>> from ragline.core import RunnableLambda
    >>> def first(x):
    ...     return x
    >>> def second(x):
    ...     return x
    >>> graph = (RunnableLambda(first) | RunnableLambda(second)).get_graph()
    >>> [node.name for node in graph.nodes.values()]
    ['first_input', 'first', 'second', 'second_output']
    >>> print(graph.draw_mermaid(with_styles=False))  # doctest: +NORMALIZE_WHITESPACE
    graph TD;
        first_input --> first;
        second --> second_output;
        first --> second;
    <BLANKLINE>
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ragline.core.runnables.base import Runnable

__all__ = ["CurveStyle", "Edge", "Graph", "Node", "NodeStyles"]


class CurveStyle:
    """Mermaid's edge curve names (``draw_mermaid(curve_style=CurveStyle.BASIS)``)."""

    BASIS = "basis"
    BUMP_X = "bumpX"
    BUMP_Y = "bumpY"
    CARDINAL = "cardinal"
    CATMULL_ROM = "catmullRom"
    LINEAR = "linear"
    MONOTONE_X = "monotoneX"
    MONOTONE_Y = "monotoneY"
    NATURAL = "natural"
    STEP = "step"
    STEP_AFTER = "stepAfter"
    STEP_BEFORE = "stepBefore"


@dataclass
class NodeStyles:
    """The Mermaid styles of ordinary, first and last nodes (``draw_mermaid(node_colors=)``)."""

    default: str = "fill:#f2f0ff,line-height:1.2"
    first: str = "fill-opacity:0"
    last: str = "fill:#bfb6fc"


class Node(NamedTuple):
    """A node: a runnable, a schema (the graph's input or output), or ``None``."""

    id: str
    name: str
    data: Any
    metadata: dict[str, Any] | None

    def copy(self, *, id: str | None = None, name: str | None = None) -> Node:
        """This node with another id and/or name."""
        return Node(
            id=self.id if id is None else id,
            name=self.name if name is None else name,
            data=self.data,
            metadata=self.metadata,
        )


class Edge(NamedTuple):
    """A directed edge between node ids, with an optional label."""

    source: str
    target: str
    data: Any = None
    conditional: bool = False

    def copy(self, *, source: str | None = None, target: str | None = None) -> Edge:
        """This edge between other node ids."""
        return Edge(
            source=self.source if source is None else source,
            target=self.target if target is None else target,
            data=self.data,
            conditional=self.conditional,
        )


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _is_schema(data: Any) -> bool:
    """A schema node's data: ragline's Schema, a tool's ArgsSchema, a pydantic class."""
    from ragline.core.runnables.base import Runnable

    return hasattr(data, "model_json_schema") and not isinstance(data, Runnable)


def _node_name(node_id: str, data: Any) -> str:
    """A node's name: a given (non-uuid) id, else its runnable's or schema's name."""
    from ragline.core.runnables.base import Runnable

    if data is None or not _is_uuid(node_id):
        return node_id
    if isinstance(data, Runnable):
        name = data.get_name()
    else:  # a schema: a class or Schema by __name__, a tool's ArgsSchema by its name
        found = getattr(data, "__name__", None) or getattr(data, "name", None)
        name = found if isinstance(found, str) else type(data).__name__
    return name[len("Runnable") :] if name.startswith("Runnable") else name


def _first(graph: Graph, exclude: Sequence[str] = ()) -> Node | None:
    targets = {e.target for e in graph.edges if e.source not in exclude}
    found = [n for n in graph.nodes.values() if n.id not in exclude and n.id not in targets]
    return found[0] if len(found) == 1 else None


def _last(graph: Graph, exclude: Sequence[str] = ()) -> Node | None:
    sources = {e.source for e in graph.edges if e.target not in exclude}
    found = [n for n in graph.nodes.values() if n.id not in exclude and n.id not in sources]
    return found[0] if len(found) == 1 else None


@dataclass
class Graph:
    """A directed graph of nodes; see the module docstring."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.nodes)

    # ---- building -------------------------------------------------------------------
    def next_id(self) -> str:
        """A fresh node id (a uuid's hex)."""
        return uuid.uuid4().hex

    def add_node(
        self,
        data: Any,
        id: str | None = None,
        *,
        metadata: dict[str, Any] | None = None,
    ) -> Node:
        """Add a node holding ``data`` (a runnable or a schema) and return it.

        Raises:
            ValueError: ``id`` is already a node's.
        """
        if id is not None and id in self.nodes:
            raise ValueError(f"Node with id {id} already exists")
        node_id = self.next_id() if id is None else id
        node = Node(id=node_id, name=_node_name(node_id, data), data=data, metadata=metadata)
        self.nodes[node_id] = node
        return node

    def remove_node(self, node: Node) -> None:
        """Remove ``node`` and its edges."""
        self.nodes.pop(node.id)
        self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]

    def add_edge(
        self, source: Node, target: Node, data: Any = None, conditional: bool = False
    ) -> Edge:
        """Add an edge ``source -> target`` and return it.

        Raises:
            ValueError: either node is not in this graph.
        """
        if source.id not in self.nodes:
            raise ValueError(f"Source node {source.id} not in graph")
        if target.id not in self.nodes:
            raise ValueError(f"Target node {target.id} not in graph")
        edge = Edge(source=source.id, target=target.id, data=data, conditional=conditional)
        self.edges.append(edge)
        return edge

    def extend(self, graph: Graph, *, prefix: str = "") -> tuple[Node | None, Node | None]:
        """Add every node and edge of ``graph`` (ids prefixed ``prefix:`` unless they are
        all uuids); return its first and last nodes as added."""
        if all(_is_uuid(node_id) for node_id in graph.nodes):
            prefix = ""

        def named(node_id: str) -> str:
            return f"{prefix}:{node_id}" if prefix else node_id

        for node_id, node in graph.nodes.items():
            self.nodes[named(node_id)] = node.copy(id=named(node_id))
        self.edges.extend(
            e.copy(source=named(e.source), target=named(e.target)) for e in graph.edges
        )
        first, last = graph.first_node(), graph.last_node()
        return (
            None if first is None else first.copy(id=named(first.id)),
            None if last is None else last.copy(id=named(last.id)),
        )

    def reid(self) -> Graph:
        """A copy whose uuid node ids are replaced by the node names (``name_1``,
        ``name_2`` where names repeat)."""
        by_name: dict[str, list[str]] = {}
        for node in self.nodes.values():
            by_name.setdefault(node.name, []).append(node.id)
        label: dict[str, str] = {}
        for name, ids in by_name.items():
            for number, node_id in enumerate(ids, start=1):
                label[node_id] = name if len(ids) == 1 else f"{name}_{number}"

        def new_id(node_id: str) -> str:
            return label[node_id] if _is_uuid(node_id) else node_id

        return Graph(
            nodes={new_id(k): n.copy(id=new_id(k)) for k, n in self.nodes.items()},
            edges=[e.copy(source=new_id(e.source), target=new_id(e.target)) for e in self.edges],
        )

    def first_node(self) -> Node | None:
        """The only node no edge leads to, or ``None`` if there is not exactly one."""
        return _first(self)

    def last_node(self) -> Node | None:
        """The only node no edge leaves, or ``None`` if there is not exactly one."""
        return _last(self)

    def trim_first_node(self) -> None:
        """Remove the first node if another node then becomes the only first one."""
        first = self.first_node()
        if first is not None and _first(self, exclude=[first.id]) is not None:
            self.remove_node(first)

    def trim_last_node(self) -> None:
        """Remove the last node if another node then becomes the only last one."""
        last = self.last_node()
        if last is not None and _last(self, exclude=[last.id]) is not None:
            self.remove_node(last)

    # ---- what runnables build -------------------------------------------------------
    @classmethod
    def single(cls, runnable: Runnable[Any, Any], metadata: dict[str, Any] | None = None) -> Graph:
        """``<input schema> -> runnable -> <output schema>``."""
        graph = cls()
        start = graph.add_node(runnable.get_input_schema())
        node = graph.add_node(runnable, metadata=metadata)
        end = graph.add_node(runnable.get_output_schema())
        graph.add_edge(start, node)
        graph.add_edge(node, end)
        return graph

    @classmethod
    def sequence(cls, steps: Sequence[Runnable[Any, Any]], config: Any = None) -> Graph:
        """The steps' graphs joined end to start. The first step keeps its input node and
        the last its output node (a step that is the same object as the first or last
        one keeps them too, as in LangChain)."""
        graph = cls()
        for step in steps:
            previous = graph.last_node()
            part = step.get_graph(config)
            if step is not steps[0]:
                part.trim_first_node()
            if step is not steps[-1]:
                part.trim_last_node()
            head, _ = graph.extend(part)
            if head is None:
                raise ValueError(f"Runnable {step} has no first node")
            if previous is not None:
                graph.add_edge(previous, head)
        return graph

    @classmethod
    def fan(cls, runnable: Runnable[Any, Any], branches: Sequence[Graph]) -> Graph:
        """The input schema fanning out to each branch, fanning in to the output schema."""
        graph = cls()
        first = graph.add_node(runnable.get_input_schema())
        end = graph.add_node(runnable.get_output_schema())
        for branch in branches:
            branch.trim_first_node()
            branch.trim_last_node()
            if not branch:
                graph.add_edge(first, end)
                continue
            head, tail = graph.extend(branch)
            if head is None or tail is None:
                raise ValueError("a branch has no single first and last node to draw")
            graph.add_edge(first, head)
            graph.add_edge(tail, end)
        return graph

    # ---- output ---------------------------------------------------------------------
    def to_json(self, *, with_schemas: bool = False) -> dict[str, list[dict[str, Any]]]:
        """The nodes and edges as plain data; uuid ids become their position."""
        from ragline.core.runnables.base import Runnable

        ids = {
            node_id: (index if _is_uuid(node_id) else node_id)
            for index, node_id in enumerate(self.nodes)
        }
        nodes: list[dict[str, Any]] = []
        for node_id, node in self.nodes.items():
            entry: dict[str, Any] = {"id": ids[node_id]}
            data = node.data
            if isinstance(data, Runnable):
                cls = type(data)
                path = [*cls.__module__.split("."), cls.__name__]
                entry.update(type="runnable", data={"id": path, "name": node.name})
            elif _is_schema(data):
                shown = data.model_json_schema() if with_schemas else node.name
                entry.update(type="schema", data=shown)
            elif data is not None:
                entry.update(type="unknown", data=node.name)
            if node.metadata is not None:
                entry["metadata"] = node.metadata
            nodes.append(entry)
        edges: list[dict[str, Any]] = []
        for edge in self.edges:
            item: dict[str, Any] = {"source": ids[edge.source], "target": ids[edge.target]}
            if edge.data is not None:
                item["data"] = edge.data
            if edge.conditional:
                item["conditional"] = True
            edges.append(item)
        return {"nodes": nodes, "edges": edges}

    def draw_ascii(self) -> str:
        """The graph as boxes in layers joined by lines of ``*`` (``.`` if conditional)."""
        from ragline.core.runnables._graph_layout import draw_boxes

        index = {node_id: i for i, node_id in enumerate(self.nodes)}
        return draw_boxes(
            [node.name for node in self.nodes.values()],
            [(index[e.source], index[e.target], e.conditional) for e in self.edges],
        )

    def print_ascii(self) -> None:
        """Print :meth:`draw_ascii`."""
        print(self.draw_ascii())

    def draw_png(self, *args: Any, **kwargs: Any) -> bytes:
        """Not drawn here: ragline makes no images (LangChain's needs pygraphviz).

        Raises:
            NotImplementedError: always; :meth:`draw_mermaid` gives the source to render.
        """
        raise NotImplementedError(
            "ragline does not draw PNG images; render draw_mermaid()'s text with a Mermaid "
            "renderer, or print draw_ascii()"
        )

    def draw_mermaid_png(self, *args: Any, **kwargs: Any) -> bytes:
        """Not drawn here: LangChain's sends the Mermaid text to a web service.

        Raises:
            NotImplementedError: always; :meth:`draw_mermaid` gives the source to render.
        """
        raise NotImplementedError(
            "ragline does not draw PNG images (LangChain's draw_mermaid_png calls a web "
            "service); render draw_mermaid()'s text with a Mermaid renderer instead"
        )

    def draw_mermaid(
        self,
        *,
        with_styles: bool = True,
        curve_style: Any = CurveStyle.LINEAR,
        node_colors: NodeStyles | None = None,
        wrap_label_n_words: int = 9,
        frontmatter_config: dict[str, Any] | None = None,
    ) -> str:
        """Mermaid flowchart source (top to bottom), as LangChain writes it.

        Args:
            with_styles: write the front matter, node shapes and class styles.
            curve_style: the edges' curve (a :class:`CurveStyle` name).
            node_colors: the class styles of ordinary, first and last nodes.
            wrap_label_n_words: break edge labels after this many words.
            frontmatter_config: more front matter (YAML), merged under the curve setting.
        """
        graph = self.reid()
        first, last = graph.first_node(), graph.last_node()
        curve = getattr(curve_style, "value", curve_style)
        lines: list[str] = []
        if with_styles:
            given = dict(frontmatter_config or {})
            config = dict(given.get("config") or {})
            config["flowchart"] = {**(config.get("flowchart") or {}), "curve": curve}
            lines += ["---", *_yaml_lines({**given, "config": config}, 0), "---"]
        lines.append("graph TD;")
        if with_styles:
            for node_id, node in graph.nodes.items():
                label = node.name
                if label in ("__start__", "__end__"):
                    label = f"<p>{label}</p>"
                if node.metadata:
                    shown = "\n".join(f"{k} = {v}" for k, v in node.metadata.items())
                    label += f"<hr/><small><em>{shown}</em></small>"
                if last is not None and node_id == last.id:
                    shape = f"([{label}]):::last"
                elif first is not None and node_id == first.id:
                    shape = f"([{label}]):::first"
                else:
                    shape = f"({label})"
                lines.append(f"\t{_mermaid_id(node_id)}{shape}")
        for edge in graph.edges:
            source, target = _mermaid_id(edge.source), _mermaid_id(edge.target)
            if edge.data is not None:
                words = str(edge.data).split()
                if len(words) > wrap_label_n_words:
                    groups = [
                        " ".join(words[i : i + wrap_label_n_words])
                        for i in range(0, len(words), wrap_label_n_words)
                    ]
                    text = "&nbsp<br>&nbsp".join(groups)
                else:
                    text = str(edge.data)
                arrow = (
                    f"-. &nbsp;{text}&nbsp; .->"
                    if edge.conditional
                    else f"-- &nbsp;{text}&nbsp; -->"
                )
            else:
                arrow = "-.->" if edge.conditional else "-->"
            lines.append(f"\t{source} {arrow} {target};")
        if with_styles:
            styles = node_colors or NodeStyles()
            lines += [
                f"\tclassDef default {styles.default}",
                f"\tclassDef first {styles.first}",
                f"\tclassDef last {styles.last}",
            ]
        return "\n".join(lines) + "\n"


def _mermaid_id(node_id: str) -> str:
    """A node id Mermaid accepts: other characters than letters, digits, ``_`` and
    ``-`` become ``\\`` and their code point in hex."""
    return "".join(
        c if (c.isascii() and (c.isalnum() or c in "_-")) else f"\\{ord(c):x}" for c in node_id
    )


_YAML_WORDS = {"", "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n"}


def _yaml_scalar(value: Any) -> str:
    """``value`` as a YAML scalar (quoted where plain text would read otherwise)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    try:
        float(text)
        numeric = True
    except ValueError:
        numeric = False
    if (
        numeric
        or text.lower() in _YAML_WORDS
        or text != text.strip()
        or text[0] in "-?:,[]{}#&*!|>'\"%@`"
        or ": " in text
        or " #" in text
        or "\n" in text
    ):
        return "'" + text.replace("'", "''") + "'"
    return text


def _yaml_lines(value: Any, indent: int) -> list[str]:
    """A dict (keys sorted) or list as block YAML lines, as ``yaml.dump`` writes it."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key in sorted(value):
            item = value[key]
            if isinstance(item, dict) and item:
                lines += [f"{pad}{key}:", *_yaml_lines(item, indent + 2)]
            elif isinstance(item, list) and item:
                lines += [f"{pad}{key}:", *_yaml_lines(item, indent)]
            else:
                shown = (
                    "{}"
                    if isinstance(item, dict)
                    else "[]"
                    if isinstance(item, list)
                    else _yaml_scalar(item)
                )
                lines.append(f"{pad}{key}: {shown}")
    else:
        for item in value:
            if isinstance(item, (dict, list)) and item:
                inner = _yaml_lines(item, indent + 2)
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines += inner[1:]
            else:
                lines.append(f"{pad}- {_yaml_scalar(item)}")
    return lines
