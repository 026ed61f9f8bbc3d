"""Import optional heavy dependencies where a feature is switched on."""

from __future__ import annotations

import importlib
from types import ModuleType

from ragline.core.exceptions import MissingDependencyError


def require(module: str, extra: str, *, package: str | None = None) -> ModuleType:
    """Import ``module`` or raise an ImportError that names the extra to install.

    Args:
        module: dotted module name, e.g. ``"faiss"``.
        extra: the ragline extra that provides it, e.g. ``"faiss"``.
        package: the PyPI distribution name when it differs from ``module``.

    Raises:
        MissingDependencyError: the module cannot be imported.

    Example:
        >>> np = require("numpy", "core")
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        name = package or module.split(".")[0]
        raise MissingDependencyError(
            f"{name} is required for this feature but is not installed; "
            f"install it with: pip install 'ragline[{extra}]'"
        ) from err
