"""VectorStoreRetrieverMemory: remember exchanges in a vector store, recall the relevant.

Every exchange is saved as one Document in the retriever's vector store, one
``key: value`` line per input and then per output, as LangChain's memory saves it (seed
000 §5.4 shows ``"Human: ...\\nAI: ..."`` with a timestamp, which is not what LangChain
writes: the parity rule wins). Before a run, the exchanges most similar to the new input
are loaded. Any ragline vector store works (in-memory, FAISS, Redis), through its
``as_retriever()``; exchanges saved in the old layout are recalled as they are.
"""

from __future__ import annotations

from typing import Any

from ragline.core import Document, InvalidInputError, MissingVariableError
from ragline.memory._base import BaseMemory, input_key_of

__all__ = ["VectorStoreRetrieverMemory"]


class VectorStoreRetrieverMemory(BaseMemory):
    """Exchanges stored in a vector store and recalled by similarity to the input.

    Args:
        retriever: a vector store's retriever (``store.as_retriever(search_kwargs=...)``);
            exchanges are added to ``retriever.vectorstore``.
        memory_key: the chain input that receives what is recalled.
        input_key: the input used as the query (default: the only input that is not a
            memory variable).
        return_docs: load the Documents instead of their text joined by newlines.
        exclude_input_keys: inputs neither saved nor used as the query (the memory
            variable is never saved either).

    Raises:
        InvalidInputError: the retriever has no ``vectorstore`` to save into.

    ``clear`` does nothing: the store may hold other documents, delete them there.
    """

    retriever: Any
    memory_key: str = "history"
    input_key: str | None = None
    return_docs: bool = False
    exclude_input_keys: list[str] = []  # noqa: RUF012 - a field: copied per instance

    def __post_init__(self) -> None:
        if getattr(self.retriever, "vectorstore", None) is None:
            raise InvalidInputError(
                "VectorStoreRetrieverMemory needs a vector store retriever "
                f"(store.as_retriever()), got {type(self.retriever).__name__}"
            )

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _query(self, inputs: dict[str, Any]) -> str:
        usable = {k: v for k, v in inputs.items() if k not in self.exclude_input_keys}
        key = self.input_key or input_key_of(usable, self.memory_variables)
        if key not in inputs:
            # a KeyError too, as LangChain's memory raises
            raise MissingVariableError(f"input {key!r} is missing; inputs are {sorted(inputs)}")
        return str(inputs[key])

    def _variables(self, documents: list[Document]) -> dict[str, Any]:
        if self.return_docs:
            return {self.memory_key: documents}
        return {self.memory_key: "\n".join(d.page_content for d in documents)}

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The stored exchanges most similar to the input."""
        return self._variables(self.retriever.invoke(self._query(inputs)))

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return self._variables(await self.retriever.ainvoke(self._query(inputs)))

    def _document(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> Document:
        left_out = {*self.exclude_input_keys, self.memory_key}
        saved = [*((k, v) for k, v in inputs.items() if k not in left_out), *outputs.items()]
        return Document("\n".join(f"{key}: {value}" for key, value in saved))

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Add the exchange to the vector store as one Document."""
        self.retriever.vectorstore.add_documents([self._document(inputs, outputs)])

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        await self.retriever.vectorstore.aadd_documents([self._document(inputs, outputs)])

    def clear(self) -> None:
        """Nothing: the store's documents are deleted through the store."""
