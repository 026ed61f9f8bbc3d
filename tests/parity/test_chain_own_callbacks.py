"""Parity: a legacy chain's own ``callbacks``, ``tags`` and ``metadata`` (given when it is
built) are for its own run only, against langchain_classic's chains.

The handlers given to a chain see that chain's run, not the model, retriever or chain
runs inside it; the chain's tags and metadata mark its own run and do not pass down. A
call's handlers (``config``) see every run. The same scenarios run through both
libraries with a handler that writes down what it is told; the notes must be equal.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains import LLMChain as LCLLMChain
    from langchain_classic.chains import RetrievalQA as LCRetrievalQA
    from langchain_classic.chains import SimpleSequentialChain as LCSimpleSequentialChain
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

from ragline.chains import LLMChain, RetrievalQA, SimpleSequentialChain
from ragline.core import (
    BaseCallbackHandler,
    BaseRetriever,
    Document,
    FakeListLLM,
    PromptTemplate,
)

COVERS: set[str] = set()  # the chains are listed by their own parity modules


def _notes(base: type) -> Any:
    class Notes(base):  # type: ignore[misc,valid-type]
        """Writes down each start and end: (event, tags, metadata without ls_/lc_ keys)."""

        def __init__(self) -> None:
            self.seen: list[tuple[Any, ...]] = []

        def _note(self, event: str, kwargs: dict[str, Any]) -> None:
            metadata = {
                key: value
                for key, value in (kwargs.get("metadata") or {}).items()
                if not key.startswith(("ls_", "lc_"))
            }
            self.seen.append((event, list(kwargs.get("tags") or []), metadata))

        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            self._note("chain_start", kwargs)

        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            self.seen.append(("chain_end",))

        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            self._note("llm_start", kwargs)

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            self.seen.append(("llm_end",))

        def on_retriever_start(self, serialized: Any, query: Any, **kwargs: Any) -> None:
            self._note("retriever_start", kwargs)

        def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
            self.seen.append(("retriever_end",))

    return Notes


class LCOne(LCBaseRetriever):
    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[LCDocument]:
        return [LCDocument(page_content="Etna is in Sicily.")]


class One(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Document]:
        return [Document("Etna is in Sicily.")]


LC = {
    "LLMChain": LCLLMChain,
    "RetrievalQA": LCRetrievalQA,
    "SimpleSequentialChain": LCSimpleSequentialChain,
    "llm": LCFakeListLLM,
    "prompt": LCPromptTemplate.from_template,
    "retriever": LCOne,
    "Notes": _notes(LCBaseCallbackHandler),
}
RL = {
    "LLMChain": LLMChain,
    "RetrievalQA": RetrievalQA,
    "SimpleSequentialChain": SimpleSequentialChain,
    "llm": FakeListLLM,
    "prompt": PromptTemplate.from_template,
    "retriever": One,
    "Notes": _notes(BaseCallbackHandler),
}


def both(run: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(LC), run(RL)


def test_an_llm_chains_own_handlers_tags_and_metadata_stay_on_its_run() -> None:
    def run(m: dict[str, Any]) -> Any:
        own, call = m["Notes"](), m["Notes"]()
        chain = m["LLMChain"](
            llm=m["llm"](responses=["ok"]),
            prompt=m["prompt"]("Say {word}"),
            callbacks=[own],
            tags=["chain-tag"],
            metadata={"owner": "chain"},
        )
        config = {"callbacks": [call], "tags": ["call-tag"], "metadata": {"by": "call"}}
        chain.invoke({"word": "ok"}, config)
        return [own.seen, call.seen]

    theirs, ours = both(run)
    assert ours == theirs
    chain_start = ("chain_start", ["call-tag", "chain-tag"], {"by": "call", "owner": "chain"})
    assert ours == [
        [chain_start, ("chain_end",)],
        [chain_start, ("llm_start", ["call-tag"], {"by": "call"}), ("llm_end",), ("chain_end",)],
    ]


@pytest.mark.parametrize("build", ["from_chain_type", "from_llm"])
def test_retrieval_qa_handlers_see_the_chains_they_were_given_to(build: str) -> None:
    def run(m: dict[str, Any]) -> Any:
        own = m["Notes"]()
        qa = getattr(m["RetrievalQA"], build)(
            m["llm"](responses=["Sicily."]),
            retriever=m["retriever"](),
            callbacks=[own],
            tags=["qa"],
        )
        qa.invoke({"query": "Where is Etna?"})
        return own.seen

    theirs, ours = both(run)
    assert ours == theirs
    # from_llm gives the handlers to the LLMChain and the stuff chain inside too
    starts = 1 if build == "from_chain_type" else 3
    assert [note[0] for note in ours] == ["chain_start"] * starts + ["chain_end"] * starts


def test_an_inner_chains_own_handlers_see_its_run_only() -> None:
    def run(m: dict[str, Any]) -> Any:
        own, call = m["Notes"](), m["Notes"]()
        inner = m["LLMChain"](
            llm=m["llm"](responses=["two"]),
            prompt=m["prompt"]("{text} again"),
            callbacks=[own],
            tags=["inner"],
        )
        outer = m["SimpleSequentialChain"](chains=[inner], tags=["outer"])
        outer.invoke({"input": "one"}, {"callbacks": [call]})
        return [own.seen, call.seen]

    theirs, ours = both(run)
    assert ours == theirs
    # the outer chain's tag stays on its run; LangChain tags each step's run step_<n>
    assert ours[0] == [("chain_start", ["step_1", "inner"], {}), ("chain_end",)]
