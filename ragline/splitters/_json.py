"""RecursiveJsonSplitter: cut a JSON object into smaller JSON objects, as LangChain's.

Keys are taken in order and added to the current chunk (at their full path, so each
chunk keeps the nesting it came from) while the chunk's JSON text stays under
``max_chunk_size`` characters. A key that does not fit starts a new chunk (unless the
current one is still under ``min_chunk_size``) and, when its value is an object, is
split further key by key; a value that is not an object is kept whole, so a chunk may
exceed the limit. Lists stay whole unless ``convert_lists=True`` turns them into
objects keyed ``"0"``, ``"1"`` ...

Example:
    >>> splitter = RecursiveJsonSplitter(max_chunk_size=30, min_chunk_size=5)
    >>> splitter.split_json({"a": {"x": 1, "y": 2}, "b": "a longer value here"})
    [{'a': {'x': 1, 'y': 2}}, {'b': 'a longer value here'}]
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ragline.core import Document, InvalidInputError

__all__ = ["RecursiveJsonSplitter"]


class RecursiveJsonSplitter:
    """Split JSON objects into chunks of at most about ``max_chunk_size`` characters.

    Args:
        max_chunk_size: the target size of a chunk's JSON text, in characters.
        min_chunk_size: a chunk smaller than this takes the next key even when that
            key makes it too big (default: ``max_chunk_size - 200``, at least 50).

    Raises:
        InvalidInputError: a size that is not a positive int.
    """

    def __init__(self, max_chunk_size: int = 2000, min_chunk_size: int | None = None) -> None:
        for name, value in (("max_chunk_size", max_chunk_size), ("min_chunk_size", min_chunk_size)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise InvalidInputError(
                    f"RecursiveJsonSplitter {name} must be an int, got {value!r}"
                )
        if max_chunk_size < 1:
            raise InvalidInputError(
                f"RecursiveJsonSplitter max_chunk_size must be >= 1, got {max_chunk_size}"
            )
        self.max_chunk_size = max_chunk_size
        self.min_chunk_size = (
            min_chunk_size if min_chunk_size is not None else max(max_chunk_size - 200, 50)
        )

    def split_json(
        self, json_data: dict[str, Any], convert_lists: bool = False
    ) -> list[dict[str, Any]]:
        """The chunks of ``json_data``, as dicts (the input is not changed)."""
        if not isinstance(json_data, dict):
            raise InvalidInputError(
                "RecursiveJsonSplitter splits a dict (a JSON object), got "
                f"{type(json_data).__name__}"
            )
        data = _objects_for_lists(json_data) if convert_lists else json_data
        chunks: list[dict[str, Any]] = [{}]
        self._add(data, [], chunks)
        if not chunks[-1]:
            chunks.pop()
        return chunks

    def _add(self, data: Any, path: list[str], chunks: list[dict[str, Any]]) -> None:
        if not isinstance(data, dict) or not data:  # an empty object is kept as a value
            _put(chunks[-1], path, data)
            return
        for key, value in data.items():
            where = [*path, key]
            current = _size(chunks[-1])
            if _size({key: value}) < self.max_chunk_size - current:
                _put(chunks[-1], where, value)
                continue
            if current >= self.min_chunk_size:
                chunks.append({})
            self._add(value, where, chunks)

    def split_text(
        self, json_data: dict[str, Any], convert_lists: bool = False, ensure_ascii: bool = True
    ) -> list[str]:
        """The chunks of ``json_data`` as JSON texts."""
        return [
            json.dumps(chunk, ensure_ascii=ensure_ascii)
            for chunk in self.split_json(json_data, convert_lists)
        ]

    def create_documents(
        self,
        texts: list[dict[str, Any]],
        convert_lists: bool = False,
        ensure_ascii: bool = True,
        metadatas: list[dict[Any, Any]] | None = None,
    ) -> list[Document]:
        """One Document per chunk of each JSON object in ``texts``; each gets a copy of
        its object's entry in ``metadatas``."""
        if metadatas is not None and len(metadatas) != len(texts):
            raise InvalidInputError(
                f"RecursiveJsonSplitter.create_documents got {len(metadatas)} metadatas for "
                f"{len(texts)} texts"
            )
        documents = []
        for index, data in enumerate(texts):
            for chunk in self.split_text(data, convert_lists, ensure_ascii):
                metadata = copy.deepcopy(metadatas[index]) if metadatas is not None else {}
                documents.append(Document(page_content=chunk, metadata=metadata))
        return documents


def _size(data: Any) -> int:
    return len(json.dumps(data))


def _put(chunk: dict[str, Any], path: list[str], value: Any) -> None:
    for key in path[:-1]:
        chunk = chunk.setdefault(key, {})
    chunk[path[-1]] = value


def _objects_for_lists(data: Any) -> Any:
    if isinstance(data, dict):
        return {key: _objects_for_lists(value) for key, value in data.items()}
    if isinstance(data, list):
        return {str(i): _objects_for_lists(item) for i, item in enumerate(data)}
    return data
