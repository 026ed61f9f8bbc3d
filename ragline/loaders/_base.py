"""The loader interface: one hook, ``lazy_load``, and everything else built on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Protocol

from ragline.core import Document

__all__ = ["BaseLoader"]

_DONE = object()


class _SplitsDocuments(Protocol):
    def split_documents(self, documents: list[Document]) -> list[Document]: ...


class BaseLoader:
    """Turns a source (a file, a directory, web pages) into Documents.

    Subclasses implement one hook, :meth:`lazy_load`, a generator that reads the
    source piece by piece; :meth:`load`, :meth:`aload` and :meth:`alazy_load` are
    built on it. Every document a loader yields carries ``metadata["source"]``.

    Example:
        >>> class Lines(BaseLoader):
        ...     def __init__(self, text: str) -> None:
        ...         self.text = text
        ...     def lazy_load(self):
        ...         for number, line in enumerate(self.text.splitlines(), start=1):
        ...             yield Document(line, metadata={"source": "memory", "line": number})
        >>> [d.page_content for d in Lines("a\\nb").load()]
        ['a', 'b']
    """

    def lazy_load(self) -> Iterator[Document]:
        """Yield documents one at a time, reading no more of the source than needed.

        The hook to implement. A loader written the older way, overriding only
        :meth:`load`, still works (as in LangChain): this then yields what ``load``
        returns.

        Raises:
            LoaderError: the source cannot be read or decoded (the message names it).
            NotImplementedError: the subclass implements neither ``lazy_load`` nor
                ``load``.
        """
        if type(self).load is BaseLoader.load:
            raise NotImplementedError(
                f"{type(self).__name__} must implement lazy_load() (or load())"
            )
        yield from self.load()

    def load(self) -> list[Document]:
        """Load every document into a list.

        Returns:
            The documents, in the order :meth:`lazy_load` yields them.

        Raises:
            LoaderError: the source cannot be read or decoded.
        """
        return list(self.lazy_load())

    async def alazy_load(self) -> AsyncIterator[Document]:
        """Yield documents without blocking the event loop.

        The default runs each step of :meth:`lazy_load` in a worker thread, so it stays
        as lazy as the synchronous generator. Loaders with real concurrency (web
        pages) override it.

        Raises:
            LoaderError: the source cannot be read or decoded.
        """
        import asyncio  # here, not at module level: most users of loaders never need it

        iterator = iter(self.lazy_load())
        while True:
            document: Any = await asyncio.to_thread(next, iterator, _DONE)
            if document is _DONE:
                return
            yield document

    async def aload(self) -> list[Document]:
        """Load every document into a list without blocking the event loop.

        Returns:
            The documents, in the order :meth:`alazy_load` yields them.
        """
        return [document async for document in self.alazy_load()]

    def load_and_split(self, text_splitter: _SplitsDocuments | None = None) -> list[Document]:
        """Load every document and split it with ``text_splitter``.

        Args:
            text_splitter: any object with ``split_documents(list[Document])``, such
                as ``ragline.splitters.RecursiveCharacterTextSplitter``; by default a
                ``RecursiveCharacterTextSplitter()`` (4000 characters, 200 overlap), as
                in LangChain.

        Returns:
            The chunks.
        """
        if text_splitter is None:
            # here, not at module level: loading needs no splitter
            from ragline.splitters import RecursiveCharacterTextSplitter

            text_splitter = RecursiveCharacterTextSplitter()
        return text_splitter.split_documents(self.load())
