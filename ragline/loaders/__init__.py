"""ragline.loaders (public names are listed here and load lazily)."""

from ragline.core._lazy import attach

__all__: list[str] = []
__getattr__, __dir__ = attach(__name__, {})
