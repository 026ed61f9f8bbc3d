"""ragline.core's modules import one another one way only (issue 24's layering).

tests/test_package.py checks the direction between subpackages. This file checks
inside the package: no module imports, at load time, a module that imports it back
(directly or through others), and the core layers named in ARCHITECTURE.md keep their
order: messages and prompts, then language models, then output parsers, then
structured output. An import inside a function body runs only when the function is
called; those are listed separately, and an upward one must be named below.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "ragline"

# Layer of a module, by prefix (the first match wins); lower may not import higher.
LAYERS = (
    ("ragline.core.language_models._structured", 3),
    ("ragline.core.output_parsers", 2),
    ("ragline.core.language_models", 1),
    ("ragline.core.prompts", 0),
    ("ragline.core.messages", 0),
)

# Upward imports made inside a function, each with the method that needs it.
ALLOWED_DEFERRED_UPWARD = {
    # BaseChatModel.with_structured_output builds the structured-output runnable.
    ("ragline.core.language_models._chat", "ragline.core.language_models._structured"),
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE_ROOT.rglob("*.py"):
        parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _targets(node: ast.AST, module: str, is_package: bool, known: dict) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in known]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    out = []
    for alias in node.names:
        if f"{source}.{alias.name}" in known:
            out.append(f"{source}.{alias.name}")
        elif source in known:
            out.append(source)
    return out


def _is_type_checking_block(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(imports run at load time, imports inside function or method bodies) per module."""
    known = _modules()
    at_load: dict[str, set[str]] = {name: set() for name in known}
    deferred: dict[str, set[str]] = {name: set() for name in known}

    def visit(node: ast.AST, module: str, is_package: bool, in_function: bool) -> None:
        if isinstance(node, ast.stmt) and _is_type_checking_block(node):
            return
        into_function = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for target in _targets(node, module, is_package, known):
            (deferred if in_function else at_load)[module].add(target)
        for child in ast.iter_child_nodes(node):
            visit(child, module, is_package, into_function)

    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        visit(tree, name, path.name == "__init__.py", in_function=False)
    return at_load, deferred


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of two or more modules that reach one another (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return groups


def layer(module: str) -> int | None:
    for prefix, level in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return level
    return None


def upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    found = set()
    for module, targets in graph.items():
        here = layer(module)
        for target in targets:
            there = layer(target)
            if here is not None and there is not None and there > here:
                found.add((module, target))
    return found


def test_no_module_imports_itself_back_at_load_time() -> None:
    at_load, _ = import_graph()
    assert cycles(at_load) == []


def test_core_layers_import_downward_at_load_time() -> None:
    at_load, _ = import_graph()
    assert upward(at_load) == set()


def test_deferred_upward_imports_are_only_the_named_ones() -> None:
    _, deferred = import_graph()
    assert upward(deferred) == ALLOWED_DEFERRED_UPWARD


def test_the_checks_see_a_cycle_and_an_upward_import() -> None:
    """The helpers must catch what they look for, or the tests above prove nothing."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    messages_to_parsers = {
        "ragline.core.messages": {"ragline.core.output_parsers._json"},
        "ragline.core.output_parsers._json": {"ragline.core.messages"},
    }
    assert upward(messages_to_parsers) == {
        ("ragline.core.messages", "ragline.core.output_parsers._json")
    }
    source = "def f():\n    from ragline.core.messages import AIMessage\n"
    tree = ast.parse(source)
    known = {"ragline.core.messages": Path("x")}
    (function,) = tree.body
    (statement,) = function.body  # type: ignore[attr-defined]
    assert _targets(statement, "ragline.core.prompts._base", False, known) == [
        "ragline.core.messages"
    ]
