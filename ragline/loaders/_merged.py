"""MergedDataLoader: the documents of several loaders, one loader after another
(LangChain's loader of the same name)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from ragline.core import Document
from ragline.loaders._base import BaseLoader

__all__ = ["MergedDataLoader"]


class MergedDataLoader(BaseLoader):
    """Load with each of ``loaders`` in turn: all documents of the first, then of the
    second, and so on. A loader without ``lazy_load`` (it raises
    ``NotImplementedError``) is read with ``load``.

    Args:
        loaders: the loaders (any objects with ``lazy_load`` / ``load``).

    Example:
        >>> from ragline.loaders import TextLoader
        >>> merged = MergedDataLoader([TextLoader("a.txt"), TextLoader("b.txt")])
        >>> len(merged.loaders)
        2
    """

    def __init__(self, loaders: Sequence[Any]) -> None:
        self.loaders = loaders

    def lazy_load(self) -> Iterator[Document]:
        for loader in self.loaders:
            try:
                documents = loader.lazy_load()
            except NotImplementedError:
                documents = loader.load()
            yield from documents

    async def alazy_load(self) -> AsyncIterator[Document]:
        for loader in self.loaders:
            async for document in loader.alazy_load():
                yield document
