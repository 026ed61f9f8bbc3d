"""Text drawing of a :class:`~ragline.core.runnables.graph.Graph`: boxes in layers.

The layout is a layered (Sugiyama-style) one, written here so that ``draw_ascii()``
needs no drawing package and gives LangChain's text for the shapes chains have:

1. *Layers.* A node's layer is one below its lowest predecessor; then every node with
   successors moves down to just above its nearest successor, so a short branch of a
   fan sits beside the last node of a long one.
2. *Order.* Nodes enter their layers in depth-first order of the graph (from its first
   node, along edges in the order they were added, either direction); an edge that
   spans several layers gets one point per layer it crosses, added after the nodes.
3. *Columns.* Four compactions (leftmost and rightmost, aligning each node with the
   median of its upper or lower neighbours) place each column as far left (or right)
   as the boxes allow, keeping neighbouring boxes the narrowest box's width apart;
   a node's x is the mean of its two middle positions among the four.
4. *Drawing.* Edges are lines of ``*`` (``.`` when conditional) from box border to box
   border, drawn first; boxes (``| name |`` between ``+---+`` rules) are drawn over them.
   Three rows of box, three rows of edge, and so on down.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

__all__ = ["draw_boxes"]

_HEIGHT = 3  # rows of a box
_GAP = 3  # rows between layers


class _Item:
    """A node of the drawing, or a point where a long edge crosses a layer."""

    __slots__ = ("down", "label", "rank", "up", "width", "x")

    def __init__(self, label: str | None, rank: int = 0) -> None:
        self.label = label
        self.width = 0 if label is None else len(label) + 4
        self.rank = rank
        self.x = 0.0
        self.up: list[_Item] = []
        self.down: list[_Item] = []


def _visit_order(count: int, edges: Sequence[tuple[int, int, bool]]) -> list[int]:
    """The nodes joined to node 0 by edges in either direction, in depth-first order
    (neighbours in the order their edges were added)."""
    touching: list[list[int]] = [[] for _ in range(count)]
    for source, target, _ in edges:
        touching[source].append(target)
        touching[target].append(source)
    seen = [False] * count
    seen[0] = True
    order = [0]
    stack = [iter(touching[0])]
    while stack:
        for node in stack[-1]:
            if not seen[node]:
                seen[node] = True
                order.append(node)
                stack.append(iter(touching[node]))
                break
        else:
            stack.pop()
    return order


def _ranks(count: int, edges: Sequence[tuple[int, int]], order: list[int]) -> list[int]:
    """Each node's layer: below its predecessors, then moved down to its successors."""
    preds: list[list[int]] = [[] for _ in range(count)]
    succs: list[list[int]] = [[] for _ in range(count)]
    for source, target in edges:
        preds[target].append(source)
        succs[source].append(target)
    rank: list[int | None] = [None] * count

    def rank_of(node: int, path: set[int]) -> int:
        found = rank[node]
        if found is not None:
            return found
        if node in path:
            raise ValueError("graph has a cycle; cannot draw it")
        path.add(node)
        value = max((rank_of(p, path) + 1 for p in preds[node]), default=0)
        path.discard(node)
        rank[node] = value
        return value

    ranks = [rank_of(node, set()) for node in range(count)]
    for node in sorted(order, key=lambda n: -ranks[n]):
        if succs[node]:
            ranks[node] = max(ranks[node], min(ranks[s] for s in succs[node]) - 1)
    return ranks


def _layers(
    labels: Sequence[str], edges: Sequence[tuple[int, int]], order: list[int]
) -> tuple[list[list[_Item]], list[_Item], list[list[_Item]]]:
    """The items by layer, the nodes' items, and each edge's items from source to target
    (``order``: the nodes in the order they enter their layers)."""
    ranks = _ranks(len(labels), edges, order)
    nodes = [_Item(label, ranks[i]) for i, label in enumerate(labels)]
    # an edge's crossing points are as wide as the median box (the upper one of two)
    crossing = sorted(node.width for node in nodes)[len(nodes) // 2]
    layers: list[list[_Item]] = [[] for _ in range(max(ranks, default=-1) + 1)]
    for node in order:
        layers[nodes[node].rank].append(nodes[node])
    routes: list[list[_Item]] = []
    for source, target in edges:
        route = [nodes[source]]
        for rank in range(nodes[source].rank + 1, nodes[target].rank):
            point = _Item(None, rank)
            point.width = crossing
            layers[rank].append(point)
            route.append(point)
        route.append(nodes[target])
        for upper, lower in itertools.pairwise(route):
            upper.down.append(lower)
            lower.up.append(upper)
        routes.append(route)
    _untangle(layers)
    return layers, nodes, routes


def _untangle(layers: list[list[_Item]], sweeps: int = 8) -> None:
    """Sort layers by the mean position of their neighbours, down then up, a few times."""
    for _ in range(sweeps):
        for downward in (True, False):
            rows = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
            for r in rows:
                near = layers[r - 1] if downward else layers[r + 1]
                where = {id(item): i for i, item in enumerate(near)}

                def centre(
                    pair: tuple[int, _Item], where: dict[int, int] = where, down: bool = downward
                ) -> float:
                    index, item = pair
                    others = item.up if down else item.down
                    if not others:
                        return float(index)
                    return sum(where[id(o)] for o in others) / len(others)

                layers[r] = [item for _, item in sorted(enumerate(layers[r]), key=centre)]


def _compact(
    layers: list[list[_Item]], space: float, downward: bool, leftward: bool
) -> dict[int, float]:
    """One of the four placements: x of each item (keyed by id)."""
    rows = layers if downward else layers[::-1]
    rows = [row if leftward else row[::-1] for row in rows]
    position = {id(item): i for row in rows for i, item in enumerate(row)}
    root = {id(item): item for row in rows for item in row}
    align = {id(item): item for row in rows for item in row}
    for row in rows[1:]:
        reach = -1
        for item in row:
            near = item.up if downward else item.down
            near = sorted(near, key=lambda n: position[id(n)])
            if not near:
                continue
            count = len(near)
            for m in sorted({(count - 1) // 2, count // 2}):
                if align[id(item)] is not item:
                    break
                other = near[m]
                if reach < position[id(other)]:
                    align[id(other)] = item
                    root[id(item)] = root[id(other)]
                    align[id(item)] = root[id(item)]
                    reach = position[id(other)]
    # horizontal compaction
    left_of: dict[int, _Item | None] = {}
    for row in rows:
        previous = None
        for item in row:
            left_of[id(item)] = previous
            previous = item
    sink = {key: item for key, item in root.items()}
    shift = {key: math.inf for key in root}
    x: dict[int, float] = {}

    def place(v: _Item) -> None:
        if id(v) in x:
            return
        x[id(v)] = 0.0
        w = v
        while True:
            u_item = left_of[id(w)]
            if u_item is not None:
                u = root[id(u_item)]
                place(u)
                gap = (u_item.width + w.width) / 2 + space
                if sink[id(v)] is v:
                    sink[id(v)] = sink[id(u)]
                if sink[id(v)] is not sink[id(u)]:
                    key = id(sink[id(u)])
                    shift[key] = min(shift[key], x[id(v)] - x[id(u)] - gap)
                else:
                    x[id(v)] = max(x[id(v)], x[id(u)] + gap)
            w = align[id(w)]
            if w is v:
                break

    for row in rows:
        for item in row:
            if root[id(item)] is item:
                place(item)
    result: dict[int, float] = {}
    for row in rows:
        for item in row:
            top = root[id(item)]
            value = x[id(top)]
            moved = shift[id(sink[id(top)])]
            if moved < math.inf:
                value += moved
            result[id(item)] = value if leftward else -value
    return result


def _place(layers: list[list[_Item]], space: float) -> None:
    """Set every item's x from the four compactions."""
    runs = [
        _compact(layers, space, downward, leftward)
        for downward in (True, False)
        for leftward in (True, False)
    ]
    for item in (item for row in layers for item in row):
        values = sorted(xs[id(item)] for xs in runs)
        item.x = (values[1] + values[2]) / 2


def _clip(
    center: tuple[float, float], toward: tuple[float, float], width: int
) -> tuple[float, float]:
    """Where the line from a box's centre toward a point leaves the box."""
    cx, cy = center
    dx, dy = toward[0] - cx, toward[1] - cy
    half_w, half_h = width // 2, _HEIGHT // 2
    if dx == 0 and dy == 0:
        return center
    if half_h * abs(dx) > half_w * abs(dy):
        return cx + math.copysign(half_w, dx), cy + dy * half_w / abs(dx)
    return cx + dx * half_h / abs(dy), cy + math.copysign(half_h, dy)


def _line(canvas: list[list[str]], x0: int, y0: int, x1: int, y1: int, char: str) -> None:
    if x0 > x1:
        x0, y0, x1, y1 = x1, y1, x0, y0
    dx, dy = x1 - x0, y1 - y0
    if abs(dx) >= abs(dy):
        for x in range(x0, x1 + 1):
            y = y0 if dx == 0 else y0 + round((x - x0) * dy / dx)
            canvas[y][x] = char
    elif y0 < y1:
        for y in range(y0, y1 + 1):
            canvas[y][x0 + round((y - y0) * dx / dy)] = char
    else:
        for y in range(y1, y0 + 1):
            canvas[y][x1 + round((y - y1) * dx / dy)] = char


def draw_boxes(labels: Sequence[str], edges: Sequence[tuple[int, int, bool]]) -> str:
    """The text drawing of nodes ``labels`` joined by ``(source, target, conditional)``."""
    if not labels:
        return ""
    space = min(len(label) + 4 for label in labels)
    # only the first node's connected part is drawn
    order = _visit_order(len(labels), edges)
    keep = sorted(order)
    index = {old: new for new, old in enumerate(keep)}
    labels = [labels[old] for old in keep]
    edges = [(index[s], index[t], c) for s, t, c in edges if s in index and t in index]
    pairs = [(s, t) for s, t, _ in edges]
    layers, nodes, routes = _layers(labels, pairs, [index[old] for old in order])
    _place(layers, space)
    step = _HEIGHT + _GAP

    def y_of(item: _Item) -> float:
        return item.rank * step + _HEIGHT / 2

    lines: list[tuple[list[tuple[float, float]], str]] = []
    for route, (_, _, conditional) in zip(routes, edges, strict=True):
        points = [(item.x, y_of(item)) for item in route]
        points[0] = _clip(points[0], points[1], route[0].width)
        points[-1] = _clip(points[-1], points[-2], route[-1].width)
        lines.append((points, "." if conditional else "*"))
    xs = [v for n in nodes for v in (n.x - n.width / 2, n.x + n.width / 2)]
    ys = [v for n in nodes for v in (y_of(n), y_of(n) + _HEIGHT)]
    for points, _ in lines:
        xs.extend(p[0] for p in points)
        ys.extend(p[1] for p in points)
    left, top = min(xs), min(ys)
    columns = math.ceil(max(xs)) - math.floor(left) + 1
    rows = round(max(ys) - top)
    canvas = [[" "] * columns for _ in range(rows)]
    for points, char in lines:
        for (ax, ay), (bx, by) in itertools.pairwise(points):
            _line(
                canvas,
                round(ax - left),
                round(ay - top),
                round(bx - left),
                round(by - top),
                char,
            )
    for node in nodes:
        x = round(node.x - node.width / 2 - left)
        y = round(y_of(node) - top)
        rule = "+" + "-" * (node.width - 2) + "+"
        canvas[y][x : x + node.width] = rule
        canvas[y + 1][x : x + node.width] = f"| {node.label} |"
        canvas[y + 2][x : x + node.width] = rule
    return "\n".join("".join(row) for row in canvas)
