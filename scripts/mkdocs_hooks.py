"""MkDocs hook: the API reference pages, written at build time from the packages' exports.

Each public subpackage of ragline lists its names in ``_EXPORTS`` (name -> module) and
loads them lazily, so a static reader of ``__init__.py`` sees no members. This hook reads
those tables (importing the subpackages' ``__init__`` only, which loads nothing heavy)
and writes ``reference/<package>.md``: the package's docstring, then one mkdocstrings
entry per public name, pointing at the module that defines it. A name added to a
package's exports appears in the reference at the next build, with no page to edit.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from mkdocs.structure.files import File, Files

# The packages of the reference, in the pipeline's order (the nav in mkdocs.yml lists
# the same pages). The CLI is documented by its guide, not here.
PACKAGES = [
    "core",
    "loaders",
    "splitters",
    "embeddings",
    "chat_models",
    "vectorstores",
    "retrievers",
    "tools",
    "memory",
    "chains",
    "agents",
    "indexing",
    "store_folder",
    "evaluation",
    "pipelines",
    "sql",
    "serve",
    "tracing",
]


def exports(package: str) -> list[tuple[str, str]]:
    """``(name, defining module)`` for each public name of ``ragline.<package>``."""
    module = importlib.import_module(f"ragline.{package}")
    table: dict[str, str] = getattr(module, "_EXPORTS", None) or {}
    names = list(table) or list(getattr(module, "__all__", []))
    missing = sorted(set(getattr(module, "__all__", names)) - set(names))
    if missing:
        raise ValueError(f"ragline.{package}: names in __all__ but not in _EXPORTS: {missing}")
    return [(name, _defining_module(module.__name__, name)) for name in names]


def _defining_module(package: str, name: str) -> str:
    """The module that defines ``name``: a class's or function's ``__module__``, else the
    module at the end of the ``_EXPORTS`` tables (``ragline.core`` -> ``.runnables`` ->
    ``.base``) for a constant."""
    value = getattr(importlib.import_module(package), name)
    home = getattr(value, "__module__", None)
    if (
        isinstance(home, str)
        and home.startswith("ragline.")
        and hasattr(importlib.import_module(home), name)
    ):
        return home
    table = getattr(importlib.import_module(package), "_EXPORTS", None) or {}
    if name not in table:
        return package
    return _defining_module(importlib.util.resolve_name(table[name], package), name)


def reference_page(package: str, documented: dict[str, str]) -> str:
    """The Markdown of ``reference/<package>.md``. A name documented on an earlier page
    (``documented``: identifier -> package) is a link to it, not a second entry."""
    lines = [
        f"# ragline.{package}",
        "",
        f"::: ragline.{package}",
        "    options:",
        "      show_root_heading: false",
        "      members: false",
        "",
    ]
    elsewhere = []
    for name, module in exports(package):
        identifier = f"{module}.{name}"
        if identifier in documented:
            elsewhere.append(f"[`{name}`][{identifier}] (ragline.{documented[identifier]})")
            continue
        documented[identifier] = package
        lines += [f"::: {identifier}", "    options:", "      heading_level: 2", ""]
    if elsewhere:
        lines += ["## Also exported here", "", ", ".join(elsewhere), ""]
    return "\n".join(lines)


def on_files(files: Files, config: Any) -> Files:
    documented: dict[str, str] = {}
    for package in PACKAGES:
        page = reference_page(package, documented)
        files.append(File.generated(config, f"reference/{package}.md", content=page))
    return files
