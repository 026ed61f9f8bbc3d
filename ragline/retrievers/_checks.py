"""Checks shared by the retrievers: documents lists and option dicts (numbers and ints go
through ragline.core._checks, named "Owner option" so each error names the retriever)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragline.core import ConfigurationError, Document, InvalidInputError
from ragline.core._checks import not_a_document

__all__ = ["check_documents", "check_keys", "copy_document"]


def check_keys(
    owner: str, name: str, options: Mapping[str, Any] | None, allowed: tuple[str, ...]
) -> dict[str, Any]:
    """Return a copy of the dict option ``name``, raising on keys outside ``allowed``."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InvalidInputError(f"{owner} {name} must be a dict, got {type(options).__name__}")
    unknown = [key for key in options if key not in allowed]
    if unknown:
        raise ConfigurationError(
            f"{owner} {name} has unknown key(s) {', '.join(map(repr, unknown))}; "
            f"valid keys are {', '.join(map(repr, allowed))}"
        )
    return dict(options)


def check_documents(owner: str, documents: Any) -> list[Document]:
    """Return ``documents`` as a list after checking every item is a Document."""
    if isinstance(documents, (str, Document)) or not hasattr(documents, "__iter__"):
        raise InvalidInputError(f"{owner} needs a list of Document, got {type(documents).__name__}")
    items = list(documents)
    for position, item in enumerate(items):
        if not isinstance(item, Document):
            raise InvalidInputError(
                f"{owner} documents[{position}] must be a Document, got {not_a_document(item)}"
            )
    return items


def copy_document(document: Document) -> Document:
    """A copy the caller may mutate without touching what a retriever holds."""
    return Document(document.page_content, dict(document.metadata), document.id)
