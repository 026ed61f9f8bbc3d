"""Lazy public names for subpackages: importing a subpackage loads nothing heavy."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def attach(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return ``__getattr__`` and ``__dir__`` for a package whose names load on first use.

    Args:
        package: the package's ``__name__``.
        exports: public name -> module path relative to the package (``".faiss"``).

    Example (in a package ``__init__``)::

        __all__ = ["FAISS"]
        __getattr__, __dir__ = attach(__name__, {"FAISS": ".faiss"})
    """

    def __getattr__(name: str) -> Any:
        try:
            module_name = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module_name, package), name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
