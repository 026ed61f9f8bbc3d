"""Every name ragline exports under a LangChain name has a parity scenario.

The names come from the path table (``ragline/cli/_port_table.py``, what ``ragline
port`` uses): one source of truth for "ragline has LangChain's X". A name is covered
when some ``tests/parity/test_*.py`` module lists it in its module-level ``COVERS`` set,
written ``"subpackage.Name"`` (``"chains.RetrievalQA"``, ``"core.RunnableLambda"``). Two
spellings of the same object (``core.BaseTool`` and ``tools.BaseTool``) are one name.

PENDING lists the names without a scenario yet. Issue 24 stays open until it is empty;
it may only shrink: a test fails when a pending name gains a scenario (take it out) or
names something ragline no longer exports under a LangChain name.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any

from ragline.cli._port_table import PATHS

HERE = Path(__file__).parent
# LangChain's packages in the order a listing prefers their paths.
ROOT_ORDER = (
    "langchain_core",
    "langchain_text_splitters",
    "langchain_community",
    "langchain_classic",
    "langserve",
)


def ragline_object(key: str) -> Any:
    """The object ``"subpackage.Name"`` names: ``ragline.<subpackage>.<Name>``, or the
    name in one of that package's public subpackages (``core.AddableDict`` is
    ``ragline.core.runnables.AddableDict``)."""
    package, _, name = key.rpartition(".")
    module = importlib.import_module(f"ragline.{package}")
    if name in getattr(module, "__all__", ()):
        return getattr(module, name)
    subpackages = _subpackages(module) if hasattr(module, "__path__") else []
    for sub in sorted(subpackages):
        inner = importlib.import_module(sub)
        if name in getattr(inner, "__all__", ()):
            return getattr(inner, name)
    raise LookupError(f"{key!r}: ragline.{package} exports no {name}")


def _subpackages(module: Any) -> list[str]:
    import pkgutil

    return [
        info.name
        for info in pkgutil.iter_modules(module.__path__, module.__name__ + ".")
        if not info.name.rpartition(".")[2].startswith("_")
    ]


def langchain_names() -> dict[str, list[str]]:
    """``{"subpackage.Name": [LangChain import paths, preferred first]}``: each ragline
    export the path table maps a LangChain name to, once per object."""
    paths: dict[str, list[str]] = {}
    for lc_module, targets in PATHS.items():
        for ragline_module, names in targets.items():
            for name in names.split():
                key = f"{ragline_module.removeprefix('ragline.')}.{name}"
                paths.setdefault(key, []).append(f"{lc_module}.{name}")
    by_object: dict[int, str] = {}
    merged: dict[str, list[str]] = {}
    for key in sorted(paths):
        canonical = by_object.setdefault(id(ragline_object(key)), key)
        merged.setdefault(canonical, []).extend(paths[key])

    def rank(path: str) -> tuple[int, int, str]:
        root = path.split(".", 1)[0]
        return (ROOT_ORDER.index(root), path.count("."), path)

    return {key: sorted(found, key=rank) for key, found in merged.items()}


def declared_covers() -> dict[str, set[str]]:
    """``{module file name: COVERS}`` of every parity module, read without importing it."""
    covers: dict[str, set[str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
                "COVERS"
            ]:
                covers[path.name] = set(ast.literal_eval(node.value))
    return covers


def covered_keys() -> set[str]:
    """The canonical keys (as in :func:`langchain_names`) some module's COVERS reaches."""
    names = langchain_names()
    objects = {id(ragline_object(key)): key for key in names}
    reached = set()
    for entries in declared_covers().values():
        for entry in entries:
            key = objects.get(id(ragline_object(entry)))
            if key is not None:
                reached.add(key)
    return reached


def test_the_listing_pairs_ragline_names_with_langchain_paths():
    names = langchain_names()
    assert "langchain_classic.chains.RetrievalQA" in names["chains.RetrievalQA"]
    assert names["core.Document"][0] == "langchain_core.documents.Document"
    assert "langchain_community.vectorstores.FAISS" in names["vectorstores.FAISS"]
    assert len(names) > 200


def test_every_covers_entry_names_a_ragline_export():
    for module, entries in declared_covers().items():
        for entry in sorted(entries):
            try:
                ragline_object(entry)
            except (LookupError, ImportError) as err:
                raise AssertionError(f"{module}: COVERS entry {entry!r}: {err}") from err


def test_every_langchain_name_has_a_parity_scenario():
    names = langchain_names()
    missing = sorted(set(names) - covered_keys() - PENDING)
    listing = "\n".join(f"  {key}  ({names[key][0]})" for key in missing)
    assert not missing, (
        f"{len(missing)} ragline names exported under a LangChain name have no parity "
        f"scenario (add one under tests/parity/ and list it in COVERS):\n{listing}"
    )


def test_pending_only_shrinks():
    gained = sorted(PENDING & covered_keys())
    assert not gained, f"these have a parity scenario now: take them out of PENDING: {gained}"
    stale = sorted(PENDING - set(langchain_names()))
    assert not stale, (
        f"PENDING names what ragline does not export under a LangChain name "
        f"(or a second spelling of a listed name): take them out: {stale}"
    )


# Names exported under a LangChain name that have no parity scenario yet. Issue 24 stays
# open until this set is empty; it may only shrink (see test_pending_only_shrinks).
PENDING: set[str] = set()
