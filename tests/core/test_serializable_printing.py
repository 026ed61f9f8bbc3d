"""str() of a RunnableSerializable subclass: a user's class prints pydantic's str (its
fields) even when it writes its own __repr__, as LangChain's; ragline's own classes
with a repr of their own print it (ed73473)."""

from __future__ import annotations

from typing import Any

from langchain_core.retrievers import BaseRetriever as LcBaseRetriever

from ragline.core.retrievers import BaseRetriever


def _with_own_repr(base: type) -> Any:
    class Mine(base):  # type: ignore[valid-type, misc]
        k: int = 3

        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list:
            return []

        def __repr__(self) -> str:
            return f"Mine<{self.k}>"

    return Mine(k=5)


def test_a_users_class_with_its_own_repr_prints_its_fields_as_langchains() -> None:
    ours, theirs = _with_own_repr(BaseRetriever), _with_own_repr(LcBaseRetriever)
    assert (str(ours), repr(ours)) == (str(theirs), repr(theirs)) == ("k=5", "Mine<5>")
    assert f"{ours}" == f"{theirs}" == "k=5"


def test_a_ragline_class_with_its_own_repr_prints_it() -> None:
    from ragline.core.documents import Document
    from ragline.retrievers import BM25Retriever

    retriever = BM25Retriever.from_documents([Document("a b")])
    assert type(retriever).__repr__ is not object.__repr__
    assert str(retriever) == repr(retriever)
