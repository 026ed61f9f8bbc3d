"""Importing this module lets LangChain's runnables join ragline's chains.

``prompt | model | parser`` with a ragline prompt and model and a LangChain parser
(one ragline lacks, so ``ragline port`` left its import from LangChain) would raise
``TypeError``; once this module is imported, the LangChain object is wrapped with
:func:`~ragline.interop.langchain.from_langchain` wherever a chain takes a step (``|``,
dict steps, fallbacks), its input and output converted and its runs reported under the
chain's. ragline's embeddings also count as LangChain's ``Embeddings`` then, for
integration packages that check it. ``ragline port`` adds ``import
ragline.interop.langchain.compose`` to a program that keeps a LangChain import or
imports an integration package (``langchain_qdrant``...).

Example:
    >>> import ragline.interop.langchain.compose
    >>> from langchain_core.output_parsers import CommaSeparatedListOutputParser
    >>> from ragline.core import RunnableLambda
    >>> (RunnableLambda(lambda x: x) | CommaSeparatedListOutputParser()).invoke("a, b")
    ['a', 'b']
"""

from __future__ import annotations

import sys
from typing import Any

from ragline.core.runnables.base import Runnable, register_foreign_runnables

__all__ = ["adapt"]


def adapt(thing: Any) -> Runnable[Any, Any] | None:
    """``thing`` as a ragline Runnable if it is a LangChain Runnable, else ``None``."""
    core = sys.modules.get("langchain_core.runnables")
    if core is None or not isinstance(thing, core.Runnable):
        return None  # nothing of LangChain's loaded: it cannot be one of its runnables
    from ragline.interop.langchain._from import from_langchain

    adapted: Runnable[Any, Any] = from_langchain(thing)
    return adapted


register_foreign_runnables(adapt)


def _register_embeddings() -> None:
    """Make ragline's embeddings count as LangChain's ``Embeddings`` (a virtual
    subclass of that ABC), so an integration package that checks ``isinstance(embedding,
    Embeddings)`` (``langchain_qdrant``'s ``QdrantVectorStore``) takes them: they have the
    same four methods (``embed_documents``, ``embed_query`` and their async forms)."""
    try:
        from langchain_core.embeddings import Embeddings as LangChainEmbeddings
    except ImportError:  # no LangChain here: nothing of LangChain's can check
        return
    from ragline.embeddings.base import Embeddings

    LangChainEmbeddings.register(Embeddings)  # type: ignore[type-abstract]


_register_embeddings()
