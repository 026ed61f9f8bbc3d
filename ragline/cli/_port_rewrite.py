"""Rewrite a program's LangChain imports as ragline's, with the path table.

Only import statements change, and the names of LangChain loggers ragline writes the
same records to (``logging.getLogger("langchain.retrievers.multi_query")``): the
source is parsed with :mod:`ast`, each import of a LangChain module (and each such
logger name) is replaced in place (its exact span, found by byte offsets), and every
other byte of the file stays as it was. A name the table cannot map stays imported from
LangChain, and is reported with the reason; a program that keeps such a name and also
imports ragline's gets one more line, ``import ragline.interop.langchain.compose``
(before its first import from LangChain), so LangChain's runnables join ragline's chains.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ragline.cli._port_table import MISSING, PATHS

LANGCHAIN_ROOTS = (
    "langchain",
    "langchain_core",
    "langchain_classic",
    "langchain_community",
    "langchain_text_splitters",
    "langserve",
)
MAX_LINE = 100
# What stands for an import statement whose LangChain modules the program never reads
# (a statement, so that an indented block keeps one).
DROPPED = "pass  # ragline port: an unused LangChain import was dropped"
COMPOSE_LINE = (
    "import ragline.interop.langchain.compose  # ragline port: LangChain objects join chains\n"
)
LACKS = "ragline lacks it"
# LangChain loggers (by module, ``langchain.X`` read as ``langchain_classic.X``) whose
# records ragline writes under a logger of its own
LOGGERS = {
    "langchain_classic.retrievers.multi_query": "ragline.retrievers.multi_query",
}
# the gaps may be line continuations too (``from x \\`` newline ``import y``)
_FROM_MODULE = re.compile(r"^from(?:\s|\\\r?\n)+[\w.]+(?:\s|\\\r?\n)+import")
# Settings that LangChain's root package once read (``langchain.debug = True``). In
# LangChain 1.x nothing reads them: they are plain module attributes, and setting one
# changes nothing. The root imported for them alone becomes ``import ragline as NAME``,
# where setting them changes nothing either (``set_debug`` / ``set_verbose`` /
# ``set_llm_cache`` are the switches, in both libraries).
ROOT_SETTINGS = frozenset({"debug", "verbose", "llm_cache"})
# Libraries built on langchain_core that check for its classes: once a program's LangChain
# imports are ragline's, the runnables, tools and messages it hands them are refused.
CORE_ONLY = ("langgraph",)
CORE_ONLY_WARNING = (
    "{module} takes only langchain_core's objects, and this program's are now ragline's: "
    "hand it plain functions, or cross with ragline.interop.langchain.to_langchain "
    "(runnables, tools) and message_to_langchain (messages)"
)


@dataclass(frozen=True)
class Unmapped:
    """A LangChain import ``port`` left as it was: where, what, and why."""

    line: int
    module: str
    name: str | None
    reason: str

    def describe(self) -> str:
        what = f"{self.module}.{self.name}" if self.name else self.module
        return f"{self.line}: cannot map {what}: {self.reason}"


@dataclass
class PortResult:
    """The rewritten source and what could not be mapped."""

    source: str
    unmapped: list[Unmapped] = field(default_factory=list)
    changed: int = 0
    """How many import statements were rewritten."""
    compose_added: bool = False
    """Whether :data:`COMPOSE_LINE` was added (names stay imported from LangChain)."""
    warnings: list[tuple[int, str]] = field(default_factory=list)
    """``(line, text)`` for each :data:`CORE_ONLY` library the program imports, when
    imports were rewritten (that library will meet ragline's objects)."""


def is_langchain(module: str) -> bool:
    return module.split(".", 1)[0] in LANGCHAIN_ROOTS


def is_integration(module: str) -> bool:
    """A LangChain integration package (``langchain_qdrant``, ``langchain_chroma``...):
    never rewritten, and its classes may be handed ragline's objects."""
    root = module.split(".", 1)[0]
    return root.startswith("langchain_") and root not in LANGCHAIN_ROOTS


def table_module(module: str) -> str:
    """The table's key for ``module``: ``langchain.X`` is ``langchain_classic.X``."""
    if module == "langchain" or module.startswith("langchain."):
        return "langchain_classic" + module[len("langchain") :]
    return module


def lookup(module: str, name: str) -> tuple[str | None, str]:
    """The ragline module that exports ``name`` of LangChain's ``module``, or None and why."""
    entries = PATHS.get(table_module(module))
    if entries is None:
        return None, "unknown module (the path table has no entry for it)"
    for package, names in entries.items():
        if name in names.split():
            return package, ""
    return None, LACKS


def module_target(module: str, used: set[str]) -> tuple[str | None, str]:
    """The ragline module that can stand for LangChain's ``module`` imported whole.

    ``used`` are the attributes the program reads through it; all must live in the
    chosen ragline module.
    """
    if table_module(module) == "langchain_classic":
        if used and used <= ROOT_SETTINGS:
            return "ragline", ""
        used = used - ROOT_SETTINGS
    entries = PATHS.get(table_module(module))
    if entries is None:
        return None, "unknown module (the path table has no entry for it)"
    homes = {}
    for attribute in sorted(used):
        home, reason = lookup(module, attribute)
        if home is None:
            return None, f"it is used for {attribute}, which {reason}"
        homes[attribute] = home
    packages = set(homes.values())
    if len(packages) > 1:
        spread = ", ".join(f"{a} ({p})" for a, p in homes.items())
        return None, f"its names live in several ragline modules: {spread}; import them by name"
    if packages:
        return packages.pop(), ""
    # Nothing read through it: the ragline module holding most of its names.
    return max(entries, key=lambda package: len(entries[package].split())), ""


class _Statement:
    """One import statement's replacement, built name by name."""

    def __init__(self, node: ast.Import | ast.ImportFrom) -> None:
        self.node = node
        self.parts: list[tuple[str, list[str]]] = []  # (from-module or "", names)
        self.plain: list[str] = []  # `import a.b as c` pieces
        self.mapped = 0  # names and modules moved to ragline
        self.expanded = False  # a star import written out as the names the program uses

    def add_from(self, module: str, alias: str) -> None:
        for existing, names in self.parts:
            if existing == module:
                names.append(alias)
                return
        self.parts.append((module, [alias]))

    def render(self, original: str, indent: str) -> str:
        """The new statement; ``original`` is its text, ``indent`` what precedes it."""
        if (
            isinstance(self.node, ast.ImportFrom)
            and not self.plain
            and len(self.parts) == 1
            and self.mapped == len(self.node.names)
            and not self.expanded
        ):
            # One ragline module for every name: only the module changes, so the
            # names' layout and comments stay as written.
            return _FROM_MODULE.sub(f"from {self.parts[0][0]} import", original, count=1)
        if not self.plain and not self.parts:  # only unused LangChain imports: dropped
            return DROPPED
        multiline = "\n" in original
        lines = [f"import {', '.join(self.plain)}"] if self.plain else []
        for module, names in self.parts:
            one = f"from {module} import {', '.join(names)}"
            if (multiline and len(names) > 1) or len(indent) + len(one) > MAX_LINE:
                inner = "".join(f"{indent}    {name},\n" for name in names)
                lines.append(f"from {module} import (\n{inner}{indent})")
            else:
                lines.append(one)
        if indent.strip():  # the statement follows other code on its line (after `;`)
            return "; ".join(lines)
        return ("\n" + indent).join(lines)


def _alias(name: str, asname: str | None) -> str:
    return f"{name} as {asname}" if asname else name


def _attributes_read(tree: ast.AST) -> dict[str, set[str]]:
    """``{name: {attribute, ...}}`` for every ``name.attribute`` the program reads."""
    read: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            read.setdefault(node.value.id, set()).add(node.attr)
    return read


def _listed_in_all(tree: ast.Module) -> set[str]:
    """The strings of the module-level ``__all__ = [...]`` / ``+= [...]`` literals."""
    listed: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            continue
        if isinstance(node.value, (ast.List, ast.Tuple, ast.Set)):
            listed.update(
                item.value
                for item in node.value.elts
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            )
    return listed


def _port_import(
    node: ast.Import, read: dict[str, set[str]], names: set[str], out: PortResult
) -> _Statement:
    statement = _Statement(node)
    for alias in node.names:
        if not is_langchain(alias.name):
            statement.plain.append(_alias(alias.name, alias.asname))
            continue
        if alias.asname is None and alias.name.split(".", 1)[0] not in names:
            # `import langchain` that nothing reads: only loads LangChain, so it goes
            statement.mapped += 1
            continue
        root = table_module(alias.name) == "langchain_classic"
        if alias.asname is None and root and read.get(alias.name, set()) <= ROOT_SETTINGS:
            # `import langchain; langchain.debug = True`
            statement.plain.append(f"ragline as {alias.name}")
            statement.mapped += 1
            continue
        if alias.asname is None:
            out.unmapped.append(
                Unmapped(
                    node.lineno,
                    alias.name,
                    None,
                    "a plain `import` is used by its dotted LangChain name; write "
                    f"`import {alias.name} as NAME` or import the names from it",
                )
            )
            statement.plain.append(alias.name)
            continue
        target, reason = module_target(alias.name, read.get(alias.asname, set()))
        if target is None:
            out.unmapped.append(Unmapped(node.lineno, alias.name, None, reason))
            statement.plain.append(_alias(alias.name, alias.asname))
        else:
            statement.plain.append(f"{target} as {alias.asname}")
            statement.mapped += 1
    return statement


def _port_from(
    node: ast.ImportFrom, read: dict[str, set[str]], names: set[str], out: PortResult
) -> _Statement:
    statement = _Statement(node)
    module = node.module or ""
    for alias in node.names:
        if alias.name == "*":
            entries = PATHS.get(table_module(module), {})
            # the module's names the program uses, from each ragline module holding them
            used = [
                (package, name)
                for package, listed in entries.items()
                for name in listed.split()
                if name in names
            ]
            if len(entries) == 1 or used:
                if len(entries) == 1:
                    statement.add_from(next(iter(entries)), "*")
                else:
                    for package, name in used:
                        statement.add_from(package, name)
                    statement.expanded = True
                statement.mapped += 1
                # the module's names ragline lacks that the program uses: kept from
                # LangChain and reported, as an explicit import of them is
                for name in MISSING.get(table_module(module), "").split():
                    if name in names:
                        out.unmapped.append(Unmapped(node.lineno, module, name, LACKS))
                        statement.add_from(module, name)
            else:
                reason = (
                    "a star import of a module whose names live in several ragline "
                    "modules, none of them named in the program; import the names"
                    if entries
                    else "unknown module (the path table has no entry for it)"
                )
                out.unmapped.append(Unmapped(node.lineno, module, "*", reason))
                statement.add_from(module, "*")
            continue
        # A name the package itself binds wins over its submodule of that name, as in
        # Python: `from langchain_core.load import load` is the function, not the module.
        target, reason = lookup(module, alias.name)
        submodule = f"{module}.{alias.name}"
        if target is None and table_module(submodule) in PATHS:
            local = alias.asname or alias.name  # `from langchain_core import documents`
            target, reason = module_target(submodule, read.get(local, set()))
            if target is not None:
                statement.plain.append(f"{target} as {local}")
                statement.mapped += 1
                continue
        elif target is not None:
            statement.add_from(target, _alias(alias.name, alias.asname))
            statement.mapped += 1
            continue
        out.unmapped.append(Unmapped(node.lineno, module, alias.name, reason))
        statement.add_from(module, _alias(alias.name, alias.asname))
    return statement


def port_source(source: str) -> PortResult:
    """Rewrite the LangChain imports of one Python source text.

    Args:
        source: the program's text.

    Returns:
        The new text (unchanged where nothing maps) and each name left unmapped.

    Raises:
        SyntaxError: the text is not Python this interpreter can parse.
    """
    tree = ast.parse(source)
    read = _attributes_read(tree)
    # what a star import must still give: the names read as variables, and the ones a
    # module-level __all__ hands on as strings
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names.update(_listed_in_all(tree))
    out = PortResult(source)
    data = source.encode("utf-8")
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits: list[tuple[int, int, bytes]] = []
    top_level = {id(node) for node in tree.body}
    first_top: int | None = None  # where the first module-level LangChain import begins
    integration: int | None = None  # the first module-level import of an integration
    core_only: dict[str, int] = {}  # each CORE_ONLY library the program imports: first line
    for node in ast.walk(tree):
        library = _core_only_import(node)
        if library is not None:
            line = node.lineno  # type: ignore[attr-defined]  # an import statement
            core_only[library] = min(core_only.get(library, line), line)
        if _imports_integration(node) and id(node) in top_level:
            line = node.lineno  # type: ignore[attr-defined]  # an import statement
            integration = line if integration is None else min(integration, line)
        if isinstance(node, ast.Import):
            if not any(is_langchain(alias.name) for alias in node.names):
                continue
            statement = _port_import(node, read, names, out)
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module or not is_langchain(node.module):
                continue
            statement = _port_from(node, read, names, out)
        else:
            continue
        if id(node) in top_level and (first_top is None or node.lineno < first_top):
            first_top = node.lineno
        if not statement.mapped:  # left exactly as written, comments and all
            continue
        assert node.end_lineno is not None and node.end_col_offset is not None
        begin = starts[node.lineno - 1] + node.col_offset
        end = starts[node.end_lineno - 1] + node.end_col_offset
        indent = data[starts[node.lineno - 1] : begin].decode("utf-8")
        text = statement.render(data[begin:end].decode("utf-8"), indent)
        after = data[end : starts[node.end_lineno]].strip()
        if text == DROPPED and after and not after.startswith(b"#"):
            text = "pass"  # more code follows on the line (after `;`): no comment
        if text.encode("utf-8") != data[begin:end]:
            edits.append((begin, end, text.encode("utf-8")))
    out.changed = len(edits)
    if edits:
        out.warnings = sorted(
            (line, CORE_ONLY_WARNING.format(module=library)) for library, line in core_only.items()
        )
    logger_edits = [_logger_edit(node, data, starts) for node in ast.walk(tree)]
    # Names left imported from LangChain (or an integration package's classes) meet
    # ragline's objects: let LangChain's runnables join ragline's chains (prompt | model |
    # a LangChain-only parser) and LangChain's code take ragline's embeddings.
    where = [line for line in (first_top, integration) if line]  # module-level imports
    if edits and where and ((out.unmapped and first_top) or integration):
        line_start = starts[min(where) - 1]
        edits.append((line_start, line_start, COMPOSE_LINE.encode("utf-8")))
        out.compose_added = True
    edits += [edit for edit in logger_edits if edit is not None]
    for begin, end, new in sorted(edits, reverse=True):
        data = data[:begin] + new + data[end:]
    out.source = data.decode("utf-8")
    out.unmapped.sort(key=lambda item: item.line)
    return out


def _logger_edit(node: ast.AST, data: bytes, starts: list[int]) -> tuple[int, int, bytes] | None:
    """``getLogger("langchain....")`` naming a LangChain logger ragline has a twin of:
    the edit that names ragline's (so a program that turns that logger up still sees
    the records, e.g. MultiQueryRetriever's generated queries)."""
    if not (isinstance(node, ast.Call) and node.args):
        return None
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    argument = node.args[0]
    if name != "getLogger" or not isinstance(argument, ast.Constant):
        return None
    if not isinstance(argument.value, str) or argument.lineno != argument.end_lineno:
        return None
    target = LOGGERS.get(table_module(argument.value))
    assert argument.end_col_offset is not None
    begin = starts[argument.lineno - 1] + argument.col_offset
    end = starts[argument.lineno - 1] + argument.end_col_offset
    quote = data[begin:end][:1]
    if target is None or quote not in (b"'", b'"') or data[end - 1 : end] != quote:
        return None  # not a twin, or a prefixed / implicitly joined literal: left alone
    return begin, end, quote + target.encode("utf-8") + quote


def _core_only_import(node: ast.AST) -> str | None:
    """The :data:`CORE_ONLY` library ``node`` imports, if it is such an import."""
    if isinstance(node, ast.Import):
        modules = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
        modules = [node.module]
    else:
        return None
    return next((root for m in modules if (root := m.split(".", 1)[0]) in CORE_ONLY), None)


def _imports_integration(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(is_integration(alias.name) for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return not node.level and bool(node.module) and is_integration(node.module or "")
    return False
