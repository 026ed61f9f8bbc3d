"""``to_langchain(retriever)`` takes its shortcut (no LangChain run at all) only when
``surely_unheard`` says no handler could hear the run; it reads what LangChain's
``configure`` reads without building a manager. So each way a LangChain program can
listen must make it unsure, and the run must then reach the listener: LangSmith's
tracing context, its run tree, its global switch and its environment variables,
``with_listeners``, configure hooks (a context variable, an environment variable),
``verbose``, the old tracing variables (which make LangChain raise), and a callback
manager constructor wrapped the way tracing instrumentations do it, before or after the
first call. (``tests/interop/test_bridge_listeners.py`` has the handlers in the config,
those of an enclosing run, ``collect_runs``, ``set_debug``, ``tracing_v2_enabled`` and
``astream_events``.) With nothing listening, both paths give the same documents and
errors.
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ClassVar

import langsmith as ls
import pytest
from langchain_core.callbacks import BaseCallbackManager, CallbackManager
from langchain_core.callbacks.usage import get_usage_metadata_callback
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from langchain_core.tracers.context import _configure_hooks, register_configure_hook
from langsmith import Client
from langsmith import utils as ls_utils
from langsmith.run_trees import RunTree

from ragline.core import BaseRetriever, Document
from ragline.core.exceptions import InvalidInputError
from ragline.embeddings import HashingEmbeddings
from ragline.interop.langchain import (
    _unheard,
    document_from_langchain,
    from_langchain,
    to_langchain,
)
from ragline.vectorstores import FAISS
from tests.interop.test_bridge_listeners import (
    SHOUTED,
    _assert_retriever_then_shout,
    _Heard,
    _LCShouting,
    _Shouting,
    _traced,
)

Runs = tuple[Client, dict[str, dict[str, Any]]]
TRACED = [("_Shouting", "retriever", None), ("shout", "chain", "_Shouting")]


@pytest.fixture(autouse=True)
def _fresh_environment_reads() -> Iterator[None]:
    """LangSmith caches what it read from the environment; tests here change it."""
    ls_utils.get_env_var.cache_clear()
    yield
    ls_utils.get_env_var.cache_clear()


def _unsure() -> bool:
    return not _unheard.surely_unheard(None, {}, False)


# ---- nothing listening: the shortcut, and the same answers as LangChain's path ----------


def test_the_shortcut_is_trusted_for_the_installed_langchain_and_langsmith() -> None:
    """Fails after an upgrade of langchain-core or langsmith: re-read the functions named
    in _unheard._COMMON and _SIDES, check that surely_unheard still reads what they read,
    and put the new mirrored_digest() in _MIRRORED_DIGEST."""
    assert _unheard.mirrored_digest() == _unheard._MIRRORED_DIGEST
    assert _unheard.surely_unheard(None, {}, False)
    assert _unheard.surely_unheard({"tags": ["t"], "metadata": {"a": 1}}, {}, True)


def test_with_nothing_listening_the_shortcut_finds_what_langchain_s_invoke_finds() -> None:
    embeddings = HashingEmbeddings(dimension=64)
    texts = [f"note {i} on topic {i % 7}" for i in range(50)]
    store = FAISS.from_texts(texts, embeddings, metadatas=[{"i": i} for i in range(50)])
    for retriever in (store.as_retriever(search_kwargs={"k": 4}), _Shouting()):
        bridged = to_langchain(retriever)
        for query in ("topic 3", "note 12"):
            found = bridged.invoke(query)
            assert found == LCBaseRetriever.invoke(bridged, query)  # LangChain's own path
            assert found == asyncio.run(bridged.ainvoke(query))
            assert found == asyncio.run(LCBaseRetriever.ainvoke(bridged, query))
            assert [d.page_content for d in found] == [
                d.page_content for d in retriever.invoke(query)
            ]


class _Failing(BaseRetriever):
    def _get_relevant_documents(self, query: str) -> list[Document]:
        raise KeyError(f"no index for {query}")


def test_with_nothing_listening_both_paths_raise_the_same() -> None:
    bridged = to_langchain(_Failing())
    for call in (bridged.invoke, lambda q: LCBaseRetriever.invoke(bridged, q)):
        with pytest.raises(KeyError, match="no index for q"):
            call("q")
    shouting = to_langchain(_Shouting())
    for call in (shouting.invoke, lambda q: LCBaseRetriever.invoke(shouting, q)):
        with pytest.raises(InvalidInputError, match="needs a str query, got int"):
            call(3)


# ---- LangSmith tracing, each way it can be switched on --------------------------------


def test_langsmith_s_tracing_context_traces_the_bridged_retriever(langsmith: Runs) -> None:
    client, runs = langsmith
    with ls.tracing_context(enabled=True, client=client, project_name="bridge"):
        assert _unsure()
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
    client.flush()
    assert _traced(runs) == TRACED


async def test_langsmith_s_tracing_context_traces_the_bridged_retriever_async(
    langsmith: Runs,
) -> None:
    client, runs = langsmith
    with ls.tracing_context(enabled=True, client=client, project_name="bridge"):
        assert await to_langchain(_Shouting()).ainvoke("hi") == SHOUTED
    client.flush()
    assert _traced(runs) == TRACED


def test_a_langsmith_parent_run_traces_the_bridged_retriever_under_it(
    langsmith: Runs,
) -> None:
    client, runs = langsmith
    outer = RunTree(name="outer", run_type="chain", client=client, project_name="bridge")
    outer.post()
    with ls.tracing_context(parent=outer):  # tracing itself left unset: the parent says
        assert _unsure()
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
    outer.end()
    outer.patch()
    client.flush()
    assert _traced(runs) == [
        ("_Shouting", "retriever", "outer"),
        ("outer", "chain", None),
        ("shout", "chain", "_Shouting"),
    ]


def test_langsmith_s_global_switch_traces_the_bridged_retriever(langsmith: Runs) -> None:
    client, runs = langsmith
    found: list[Any] = []

    def in_a_fresh_context() -> None:  # a new thread: the context variables unset
        found.append((_unsure(), to_langchain(_Shouting()).invoke("hi")))

    ls.configure(enabled=True, client=client)
    try:
        thread = threading.Thread(target=in_a_fresh_context)
        thread.start()
        thread.join()
    finally:
        ls.configure(enabled=None, client=None)
    assert found == [(True, SHOUTED)]
    client.flush()
    assert _traced(runs) == TRACED


@pytest.mark.parametrize("variable", ["LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2"])
def test_a_tracing_environment_variable_traces_the_bridged_retriever(
    langsmith: Runs, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    client, runs = langsmith
    monkeypatch.setenv(variable, "true")
    ls_utils.get_env_var.cache_clear()
    with ls.tracing_context(client=client, project_name="bridge"):  # only the client
        assert _unsure()
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
    client.flush()
    assert _traced(runs) == TRACED


def test_tracing_switched_off_in_the_context_leaves_the_shortcut_sure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    ls_utils.get_env_var.cache_clear()
    assert _unsure()
    with ls.tracing_context(enabled=False):
        assert not _unsure()
        assert CallbackManager.configure().handlers == []


@pytest.mark.parametrize(
    ("variable", "value"), [("LANGCHAIN_HANDLER", "langchain"), ("LANGCHAIN_TRACING", "1")]
)
def test_the_old_tracing_variables_raise_through_the_bridge_as_in_langchain(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    ls_utils.get_env_var.cache_clear()
    bridged = to_langchain(_Shouting())
    for call in (
        bridged.invoke,
        lambda q: LCBaseRetriever.invoke(bridged, q),
        lambda q: asyncio.run(bridged.ainvoke(q)),
    ):
        with pytest.raises(RuntimeError, match="LangChainTracerV1 is no longer supported"):
            call("hi")


# ---- other LangChain listeners --------------------------------------------------------


def test_with_listeners_sees_the_bridged_retriever_run_and_its_inner_run() -> None:
    seen: list[tuple[str, Any, list[str]]] = []
    bridged = to_langchain(_Shouting()).with_listeners(
        on_start=lambda run: seen.append(("start", run.name, [])),
        on_end=lambda run: seen.append(("end", run.name, [c.name for c in run.child_runs])),
    )
    assert bridged.invoke("hi") == SHOUTED
    assert seen == [("start", "_Shouting", []), ("end", "_Shouting", ["shout"])]


@contextmanager
def _hook(variable: ContextVar[Any], handler_class: Any = None, env: str | None = None) -> Any:
    register_configure_hook(variable, True, handler_class, env)
    try:
        yield
    finally:
        _configure_hooks.remove((variable, True, handler_class, env))


def test_a_configure_hook_s_handler_hears_the_bridged_retriever() -> None:
    variable: ContextVar[Any] = ContextVar("ragline_test_hook", default=None)
    handler = _Heard()
    with _hook(variable):
        assert not _unsure()  # registered, unset: still sure
        token = variable.set(handler)
        try:
            assert _unsure()
            assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
        finally:
            variable.reset(token)
    _assert_retriever_then_shout(handler.events, "_Shouting", None)


class _HeardByHook(_Heard):
    made: ClassVar[list[_Heard]] = []

    def __init__(self) -> None:
        super().__init__()
        self.made.append(self)


def test_a_configure_hook_switched_on_by_its_environment_variable_hears_the_bridged_retriever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    variable: ContextVar[Any] = ContextVar("ragline_test_env_hook", default=None)
    with _hook(variable, _HeardByHook, "RAGLINE_TEST_HOOK"):
        assert not _unsure()  # registered, its environment variable unset: still sure
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
        assert _HeardByHook.made == []
        monkeypatch.setenv("RAGLINE_TEST_HOOK", "false")
        assert _unsure()  # set (even to a false value): LangChain's own path decides
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
        assert _HeardByHook.made == []
        monkeypatch.setenv("RAGLINE_TEST_HOOK", "1")
        # LangChain's configure makes a handler each time it runs (and keeps the first
        # one of a run): a LangChain retriever with one inner run makes as many
        assert _LCShouting().invoke("hi") == SHOUTED
        native = len(_HeardByHook.made)
        _HeardByHook.made.clear()
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
    assert len(_HeardByHook.made) == native
    _assert_retriever_then_shout(_HeardByHook.made[0].events, "_Shouting", None)


def test_langchain_community_s_callback_hooks_leave_the_shortcut_sure_until_switched_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Importing langchain_community's callbacks registers hooks that its Weights &
    Biases and Comet tracers' environment variables switch on; unset, nothing listens."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # langchain_community warns that it is being sunset
        import langchain_community.callbacks.manager  # noqa: F401

    switched_by = {env for _variable, _inheritable, _cls, env in _configure_hooks if env}
    assert {"LANGCHAIN_WANDB_TRACING", "LANGCHAIN_COMET_TRACING"} <= switched_by
    for name in switched_by:
        monkeypatch.delenv(name, raising=False)
    assert not _unsure()
    monkeypatch.setenv("LANGCHAIN_COMET_TRACING", "true")
    assert _unsure()


def test_verbose_and_usage_callbacks_make_the_shortcut_unsure() -> None:
    assert not _unheard.surely_unheard(None, {"verbose": True}, False)
    with get_usage_metadata_callback():
        assert _unsure()
    assert to_langchain(_Shouting()).invoke("hi", verbose=True) == SHOUTED


# ---- a tracing instrumentation wrapping the manager's constructor ----------------------


@contextmanager
def _instrumented(handler: _Heard) -> Iterator[None]:
    """Every LangChain callback manager gets ``handler``, as tracing instrumentations
    do it (wrapping ``BaseCallbackManager.__init__``)."""
    original: Callable[..., None] = BaseCallbackManager.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if handler not in self.handlers:
            self.add_handler(handler, True)

    BaseCallbackManager.__init__ = init  # type: ignore[method-assign]
    try:
        yield
    finally:
        BaseCallbackManager.__init__ = original  # type: ignore[method-assign]


def test_an_instrumentation_wrapping_the_manager_after_the_first_call_hears_the_run() -> None:
    bridged = to_langchain(_Shouting())
    assert bridged.invoke("hi") == SHOUTED  # the shortcut's state is read here
    handler = _Heard()
    with _instrumented(handler):
        assert _unsure()
        assert bridged.invoke("hi") == SHOUTED
    _assert_retriever_then_shout(handler.events, "_Shouting", None)
    assert not _unsure()


def test_an_instrumentation_wrapping_the_manager_before_the_first_call_hears_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_unheard, "_UNHEARD", {})  # as in a process where it is the first
    handler = _Heard()
    with _instrumented(handler):
        assert _unsure()
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
    _assert_retriever_then_shout(handler.events, "_Shouting", None)
    assert _unheard._UNHEARD["ready"] is False  # found wrapped: never sure in this process


# ---- from_langchain: a LangChain retriever's run, skipped the same way ----------------


def _lc_faiss_retriever() -> Any:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # langchain-community's notice
        from langchain_community.vectorstores import FAISS as LCFAISS

    texts = [f"note {i} on topic {i % 7}" for i in range(50)]
    embeddings = to_langchain(HashingEmbeddings(dimension=64))
    store = LCFAISS.from_texts(texts, embeddings, metadatas=[{"i": i} for i in range(50)])
    return store.as_retriever(search_kwargs={"k": 4})


def test_with_nothing_listening_a_wrapped_langchain_retriever_finds_what_its_invoke_finds() -> None:
    for retriever in (_lc_faiss_retriever(), _LCShouting()):
        wrapped = from_langchain(retriever)
        for query in ("topic 3", "note 12"):
            expected = [document_from_langchain(d) for d in retriever.invoke(query)]
            assert wrapped.invoke(query) == expected
            assert asyncio.run(wrapped.ainvoke(query)) == expected


def test_langsmith_s_tracing_context_traces_a_wrapped_langchain_retriever(
    langsmith: Runs,
) -> None:
    client, runs = langsmith
    with ls.tracing_context(enabled=True, client=client, project_name="bridge"):
        from_langchain(_LCShouting()).invoke("hi")
    client.flush()
    assert _traced(runs) == [("_LCShouting", "retriever", None), ("shout", "chain", "_LCShouting")]


def test_a_configure_hook_s_handler_hears_a_wrapped_langchain_retriever() -> None:
    variable: ContextVar[Any] = ContextVar("ragline_test_from_hook", default=None)
    handler = _Heard()
    with _hook(variable):
        token = variable.set(handler)
        try:
            assert from_langchain(_LCShouting()).invoke("hi") == [
                Document("HI", metadata={"n": 1}, id="x")
            ]
        finally:
            variable.reset(token)
    _assert_retriever_then_shout(handler.events, "_LCShouting", None)


def test_a_configure_hook_by_environment_variable_makes_as_many_handlers_through_the_bridge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    variable: ContextVar[Any] = ContextVar("ragline_test_from_env_hook", default=None)
    with _hook(variable, _HeardByHook, "RAGLINE_TEST_FROM_HOOK"):
        monkeypatch.setenv("RAGLINE_TEST_FROM_HOOK", "1")
        _HeardByHook.made.clear()
        _LCShouting().invoke("hi")
        native = len(_HeardByHook.made)
        _HeardByHook.made.clear()
        from_langchain(_LCShouting()).invoke("hi")
    assert len(_HeardByHook.made) == native
    _assert_retriever_then_shout(_HeardByHook.made[0].events, "_LCShouting", None)


def test_an_instrumentation_wrapping_the_manager_hears_a_wrapped_langchain_retriever() -> None:
    wrapped = from_langchain(_LCShouting())
    wrapped.invoke("hi")
    handler = _Heard()
    with _instrumented(handler):
        wrapped.invoke("hi")
    _assert_retriever_then_shout(handler.events, "_LCShouting", None)
