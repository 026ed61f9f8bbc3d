"""Parity: the port trial's remaining differences (issue 24), one scenario each.

Every scenario runs the same program shape through LangChain's class and ragline's
class of the same name and compares what the program can observe.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_classic.retrievers import ParentDocumentRetriever as LCParentDocumentRetriever
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import DeterministicFakeEmbedding as LCFakeEmbedding
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.runnables import ConfigurableField as LCConfigurableField
from langchain_core.stores import InMemoryStore as LCInMemoryStore
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore
from langchain_text_splitters import CharacterTextSplitter as LCCharacterTextSplitter
from pydantic import BaseModel, Field, ValidationError

from ragline.core import ConfigurableField, Document, FakeListLLM, PromptTemplate
from ragline.core.stores import InMemoryStore
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.retrievers import ParentDocumentRetriever
from ragline.splitters import CharacterTextSplitter
from ragline.vectorstores import InMemoryVectorStore
from tests.parity._letters import letter_counts

COVERS = {"core.FakeChatModel", "core.ParrotFakeChatModel"}


def _stored_parents(
    parent_cls: Any, doc_cls: Any, store: Any, vs: Any, embedding: Any, splitter: Any
) -> Any:
    docstore = store()
    retriever = parent_cls(
        vectorstore=vs(embedding=embedding),
        docstore=docstore,
        child_splitter=splitter(separator=" ", chunk_size=10, chunk_overlap=0),
    )
    parents = [
        doc_cls(page_content="cats purr loudly", metadata={"n": 1}, id="own-id"),
        doc_cls(page_content="a bird sings", metadata={"n": 2}),
    ]
    retriever.add_documents(parents, ids=["k1", "k2"])
    stored = docstore.mget(["k1", "k2"])
    found = retriever.invoke("a bird sings")
    return [(d.id, d.page_content) for d in stored], sorted(
        (d.page_content, str(d.id)) for d in found
    )


def test_parent_document_retriever_keeps_each_parents_own_id():
    ours = _stored_parents(
        ParentDocumentRetriever,
        Document,
        InMemoryStore,
        InMemoryVectorStore,
        DeterministicFakeEmbedding(size=8),
        CharacterTextSplitter,
    )
    theirs = _stored_parents(
        LCParentDocumentRetriever,
        LCDocument,
        LCInMemoryStore,
        LCInMemoryVectorStore,
        LCFakeEmbedding(size=8),
        LCCharacterTextSplitter,
    )
    assert ours == theirs
    assert ours[0] == [("own-id", "cats purr loudly"), (None, "a bird sings")]


def _configurable_errors(prompt_cls: Any, llm_cls: Any, field_cls: Any) -> list[str]:
    """The exception class names a program sees for a configurable mistake."""
    names = []
    llm = llm_cls(responses=["x"])
    try:
        llm.configurable_fields(respnses=field_cls(id="r"))
    except Exception as err:
        names.append(type(err).__name__)
    chooser = prompt_cls.from_template("joke {a}").configurable_alternatives(
        field_cls(id="prompt"), default_key="joke", poem=prompt_cls.from_template("poem {a}")
    )
    try:
        chooser.with_config(configurable={"prompt": "limerick"}).invoke({"a": 1})
    except Exception as err:
        names.append(type(err).__name__)
    return names


def test_configurable_mistakes_raise_langchains_classes():
    ours = _configurable_errors(PromptTemplate, FakeListLLM, ConfigurableField)
    theirs = _configurable_errors(LCPromptTemplate, LCFakeListLLM, LCConfigurableField)
    assert ours == theirs == ["ValueError", "ValueError"]


def _stops_received(llm_base: Any, chat_base: Any, chat_result: Any) -> list[Any]:
    """What a program's own model hooks receive as ``stop``, for a str and a list."""
    seen: list[Any] = []

    class Scripted(llm_base):  # type: ignore[misc, valid-type]
        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _call(self, prompt: str, stop: Any = None, run_manager: Any = None, **kw: Any) -> str:
            seen.append(("_call", stop))
            return "EQUATION: x\nSOLUTION: y"

    class Chat(chat_base):  # type: ignore[misc, valid-type]
        @property
        def _llm_type(self) -> str:
            return "chat"

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
            seen.append(("_generate", stop))
            return chat_result("ok")

    seen.append(Scripted().bind(stop="SOLUTION").invoke("q"))
    Scripted().invoke("q", stop=["EQ", "SOL"])
    Scripted().batch(["a", "b"], stop="x")
    Chat().bind(stop="SOLUTION").invoke("q")
    Chat().invoke("q", stop=["a"])
    return seen


def test_a_str_stop_reaches_a_programs_own_model_as_the_str():
    from langchain_core.language_models import LLM as LCLLM
    from langchain_core.language_models import BaseChatModel as LCBaseChatModel
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.outputs import ChatGeneration as LCChatGeneration
    from langchain_core.outputs import ChatResult as LCChatResult

    from ragline.core import LLM, AIMessage, BaseChatModel, ChatGeneration, ChatResult

    def ours_result(text: str) -> Any:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def their_result(text: str) -> Any:
        return LCChatResult(generations=[LCChatGeneration(message=LCAIMessage(content=text))])

    ours = _stops_received(LLM, BaseChatModel, ours_result)
    theirs = _stops_received(LCLLM, LCBaseChatModel, their_result)
    assert ours == theirs
    assert ours[:3] == [("_call", "SOLUTION"), "EQUATION: x\nSOLUTION: y", ("_call", ["EQ", "SOL"])]


def _events_seen(ns: dict[str, Any], **filters: Any) -> list[tuple[Any, ...]]:
    """(event, name, data keys, input) of each non-stream event of one astream_events."""

    async def note(x: Any) -> Any:
        await ns["adispatch_custom_event"]("note", {"n": 1})
        return x

    chain = (
        ns["ChatPromptTemplate"].from_messages([("human", "tell {topic}")])
        | ns["FakeListChatModel"](responses=["ab"]).with_config(tags=["model"])
        | ns["StrOutputParser"]()
        | ns["RunnableLambda"](note, name="note_step")
    )

    def plain(value: Any) -> Any:
        if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
            return value
        return type(value).__name__

    async def collect() -> list[tuple[Any, ...]]:
        return [
            (e["event"], e["name"], sorted(e["data"]), plain(e["data"].get("input")))
            async for e in chain.astream_events({"topic": "cats"}, version="v2", **filters)
            if not e["event"].endswith("_stream")
        ]

    return asyncio.run(collect())


def test_astream_events_filters_give_the_first_shown_event_the_input():
    from langchain_core.callbacks.manager import adispatch_custom_event as lc_dispatch
    from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
    from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
    from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda

    from ragline.core import ChatPromptTemplate, FakeListChatModel, RunnableLambda, StrOutputParser
    from ragline.core.callbacks import adispatch_custom_event

    ours_ns = {
        "adispatch_custom_event": adispatch_custom_event,
        "ChatPromptTemplate": ChatPromptTemplate,
        "FakeListChatModel": FakeListChatModel,
        "StrOutputParser": StrOutputParser,
        "RunnableLambda": RunnableLambda,
    }
    their_ns = {
        "adispatch_custom_event": lc_dispatch,
        "ChatPromptTemplate": LCChatPromptTemplate,
        "FakeListChatModel": LCFakeListChatModel,
        "StrOutputParser": LCStrOutputParser,
        "RunnableLambda": LCRunnableLambda,
    }
    cases: list[dict[str, Any]] = [
        {},
        {"include_types": ["chat_model"]},
        {"include_names": ["StrOutputParser"]},
        {"exclude_types": ["chain"]},
        {"include_tags": ["model"]},
        {"include_names": ["note", "note_step"]},
        {"include_names": ["note"]},
        {"include_types": ["prompt", "parser"]},
    ]
    for filters in cases:
        assert _events_seen(ours_ns, **filters) == _events_seen(their_ns, **filters), filters
    assert _events_seen(ours_ns, include_types=["chat_model"]) == [
        ("on_chat_model_start", "FakeListChatModel", ["input"], {"topic": "cats"}),
        ("on_chat_model_end", "FakeListChatModel", ["output"], "NoneType"),
    ]


class _AddArgs(BaseModel):
    a: int = Field(description="first")
    b: int


def _tool_errors(tool_decorator: Any, structured: Any) -> list[tuple[str, bool, str]]:
    """(class name, is pydantic's ValidationError, text for a pydantic model's schema) of
    each bad call."""

    @tool_decorator
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def plus(a: int, b: int) -> int:
        return a + b

    modelled = structured.from_function(
        func=plus, name="plus", description="Add.", args_schema=_AddArgs
    )
    calls = [
        (add, {"a": 1}, False),
        (add, {"a": 1, "b": "two"}, False),
        (add, {"type": "tool_call", "name": "add", "args": {"a": 1}, "id": "c1"}, False),
        (modelled, {"a": 1}, True),
        (modelled, {"a": "one", "b": 2}, True),
    ]
    seen = []
    for one, args, modelled_schema in calls:
        try:
            one.invoke(args)
        except Exception as err:
            text = str(err) if modelled_schema else ""
            seen.append((type(err).__name__, isinstance(err, ValidationError), text))
    return seen


def test_bad_tool_arguments_raise_pydantics_validation_error():
    from langchain_core.tools import StructuredTool as LCStructuredTool
    from langchain_core.tools import tool as lc_tool

    from ragline.tools import StructuredTool, tool

    ours = _tool_errors(tool, StructuredTool)
    theirs = _tool_errors(lc_tool, LCStructuredTool)
    assert ours == theirs
    assert [name for name, _, _ in ours] == ["ValidationError"] * 5
    assert ours[3][2].startswith("1 validation error for _AddArgs\nb\n  Field required")


def _letter_counts(base: Any) -> Any:
    class LetterCounts(base):  # type: ignore[misc, valid-type]
        """Unit vectors of letter counts: float64 numbers float32 cannot hold exactly."""

        def _one(self, text: str) -> list[float]:
            return letter_counts(text)

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [self._one(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return self._one(text)

    return LetterCounts()


def _in_memory_scores(store_cls: Any, embeddings: Any) -> list[Any]:
    store = store_cls(embeddings)
    store.add_texts(["foo", "thud", "quux waltz", "the cat sat on the mat"], ids=list("abcd"))
    store.delete(["c"])
    seen = []
    for query, k in (("foo", 2), ("qux", 1), ("a cat on a mat", 3), ("thud", 4)):
        found = store.similarity_search_with_score(query, k=k)
        seen.append([(d.id, type(s).__name__, repr(s)) for d, s in found])
    return seen


def test_in_memory_vector_store_scores_are_langchains_float64_cosines():
    from langchain_core.embeddings import Embeddings as LCEmbeddings

    from ragline.embeddings import Embeddings

    ours = _in_memory_scores(InMemoryVectorStore, _letter_counts(Embeddings))
    theirs = _in_memory_scores(LCInMemoryVectorStore, _letter_counts(LCEmbeddings))
    assert ours == theirs
    assert ours[0][0] == ("a", "float", "1.0000000000000002")  # float32 gives 1.0000001192...


def _faiss_score_types(faiss_cls: Any, strategies: Any, embeddings: Any) -> list[Any]:
    seen = []
    for name in ("EUCLIDEAN_DISTANCE", "COSINE", "MAX_INNER_PRODUCT"):
        for normalize in (False, True):
            store = faiss_cls.from_texts(
                ["foo", "bar", "baz"],
                embeddings,
                distance_strategy=getattr(strategies, name),
                normalize_L2=normalize,
            )
            scored = store.similarity_search_with_score("foo", k=2)
            seen.append([(d.page_content, repr(s)) for d, s in scored])
            relevant = store.similarity_search_with_relevance_scores("foo", k=2)
            seen.append([type(s).__name__ for _, s in relevant])
            if name != "MAX_INNER_PRODUCT":  # ragline's own relevance there (documented)
                seen.append(repr(relevant[0][1]))
    store = faiss_cls.from_texts(["foo", "bar"], embeddings, relevance_score_fn=lambda d: 0.5)
    seen.append([repr(s) for _, s in store.similarity_search_with_relevance_scores("foo", k=2)])
    return seen


def test_faiss_scores_are_numpy_float32_under_langchains_strategies():
    import warnings

    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_community.vectorstores.utils import DistanceStrategy as LCDistanceStrategy

    from ragline.vectorstores import FAISS
    from ragline.vectorstores.utils import DistanceStrategy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # relevance out of [0, 1], MAX_INNER_PRODUCT notes
        ours = _faiss_score_types(FAISS, DistanceStrategy, DeterministicFakeEmbedding(size=8))
        theirs = _faiss_score_types(LCFAISS, LCDistanceStrategy, LCFakeEmbedding(size=8))
    assert ours == theirs
    assert ours[0] == [("foo", "np.float32(0.0)"), ("bar", "np.float32(33.84858)")]
    assert ours[-1] == ["0.5", "0.5"]  # a relevance_score_fn's own type


def test_merge_configs_sorts_the_united_tags():
    from langchain_core.runnables.config import merge_configs as lc_merge_configs

    from ragline.core.config import merge_configs

    cases = [
        ({"tags": ["b", "z"]}, {"tags": ["c", "a", "b"]}),
        ({"tags": ["z", "z", "a"]},),
        ({"tags": ["m"]}, {"metadata": {"k": 1}}, {"tags": ["a"]}),
    ]
    for configs in cases:
        assert merge_configs(*configs)["tags"] == lc_merge_configs(*configs)["tags"]
    assert merge_configs(*cases[0])["tags"] == ["a", "b", "c", "z"]


def _fake_replies(fake: Any, human: Any, system: Any) -> list[Any]:
    """What a program sees of a fake model's replies: kind, text and id form."""

    def shown(message: Any) -> tuple[str, Any, str]:
        made = isinstance(message.id, str) and message.id.startswith("lc_run--")
        return type(message).__name__, message.content, "run id" if made else str(message.id)

    model = fake()
    seen = [
        shown(model.invoke("hi there")),
        shown(model.invoke([system(content="s"), human(content="last one", id="h1")])),
        [shown(piece) for piece in model.stream("yo")],
        [shown(reply) for reply in model.batch(["a", "b"])],
        shown(asyncio.run(model.ainvoke("async"))),
    ]
    try:
        seen.append(shown(model.invoke([])))
    except ValueError as err:
        seen.append(type(err).__mro__[-3].__name__)  # ValueError for both
    return seen


def test_fake_chat_model_and_parrot_fake_chat_model():
    from langchain_core.language_models.fake_chat_models import FakeChatModel as LCFake
    from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel as LCParrot
    from langchain_core.messages import HumanMessage as LCHuman
    from langchain_core.messages import SystemMessage as LCSystem

    from ragline.core import FakeChatModel, HumanMessage, ParrotFakeChatModel, SystemMessage

    for ours, theirs in ((FakeChatModel, LCFake), (ParrotFakeChatModel, LCParrot)):
        assert _fake_replies(ours, HumanMessage, SystemMessage) == _fake_replies(
            theirs, LCHuman, LCSystem
        )
    parrot = _fake_replies(ParrotFakeChatModel, HumanMessage, SystemMessage)
    assert parrot[:2] == [
        ("HumanMessage", "hi there", "run id"),
        ("HumanMessage", "last one", "h1"),
    ]
    assert _fake_replies(FakeChatModel, HumanMessage, SystemMessage)[0] == (
        "AIMessage",
        "fake response",
        "run id",
    )


def test_a_str_stop_reaches_a_simple_chat_models_call_as_the_str():
    from langchain_core.language_models import SimpleChatModel as LCSimpleChatModel

    from ragline.core import SimpleChatModel

    def received(base: Any) -> list[Any]:
        seen: list[Any] = []

        class Echo(base):  # type: ignore[misc, valid-type]
            @property
            def _llm_type(self) -> str:
                return "echo"

            def _call(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
                seen.append(stop)
                return "ok"

        Echo().bind(stop="END").invoke("q")
        asyncio.run(Echo().ainvoke("q", stop=["a", "b"]))
        return seen

    assert received(SimpleChatModel) == received(LCSimpleChatModel) == ["END", ["a", "b"]]
