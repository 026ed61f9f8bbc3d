"""``to_langchain``: a ragline object as its ``langchain_core`` equivalent."""

from __future__ import annotations

from typing import Any

from ragline.core.chat_history import BaseChatMessageHistory
from ragline.core.exceptions import InvalidInputError
from ragline.core.retrievers import BaseRetriever
from ragline.core.runnables.base import Runnable
from ragline.core.tools import BaseTool
from ragline.embeddings.base import Embeddings
from ragline.vectorstores import VectorStore

__all__ = ["to_langchain"]


def to_langchain(obj: Any) -> Any:
    """The ``langchain_core`` equivalent of a ragline object.

    Vector stores become a LangChain ``VectorStore``, retrievers a ``BaseRetriever``,
    embeddings ``Embeddings``, tools a ``BaseTool``, chat message histories a
    ``BaseChatMessageHistory``, and any other Runnable (chains, chat models, prompts,
    parsers) a LangChain ``Runnable``. An object ``from_langchain`` wrapped is given back
    unwrapped.

    Raises:
        InvalidInputError: ``obj`` is none of these (its type is named).
        MissingDependencyError: langchain-core is not installed.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> to_langchain(RunnableLambda(lambda x: x + 1)).invoke(1)
        2
    """
    inner = getattr(obj, "langchain_object", None)
    if inner is not None and type(obj).__module__ == "ragline.interop.langchain._from":
        return inner
    from ragline.interop.langchain import _to_classes as classes

    if isinstance(obj, VectorStore):
        return classes.RaglineVectorStore(obj)
    if isinstance(obj, Embeddings):
        return classes.RaglineEmbeddings(obj)
    if isinstance(obj, BaseChatMessageHistory):
        return classes.RaglineChatMessageHistory(obj)
    if isinstance(obj, BaseRetriever):
        return classes.RaglineRetriever(ragline_object=obj, name=obj.get_name())
    if isinstance(obj, BaseTool):
        schema = obj.tool_call_schema_json() if hasattr(obj, "tool_call_schema_json") else None
        return classes.RaglineTool(
            ragline_object=obj,
            name=obj.name,
            description=obj.description,
            args_schema=schema or _tool_parameters(obj),
            return_direct=obj.return_direct,
        )
    if isinstance(obj, Runnable):
        return classes.RaglineRunnable(obj)
    raise InvalidInputError(
        f"to_langchain cannot wrap {type(obj).__module__}.{type(obj).__name__}: it takes "
        "ragline vector stores, retrievers, embeddings, tools, chat message histories and "
        "Runnables"
    )


def _tool_parameters(tool: BaseTool) -> dict[str, Any]:
    from ragline.core.tools import convert_to_openai_tool

    parameters: dict[str, Any] = convert_to_openai_tool(tool)["function"]["parameters"]
    return parameters
