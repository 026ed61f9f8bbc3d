"""Parity: how ragline's runnables stream, against LangChain's (langchain_core).

Each scenario runs the same chain built from LangChain's classes and from ragline's
classes of the same names (a scripted fake chat model stands in for a hosted one) and
compares the streamed chunks in order, the final outputs, what a user function was
called with, and the astream_events a program sees.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables import RunnableParallel as LCRunnableParallel
from langchain_core.runnables import RunnablePassthrough as LCRunnablePassthrough

from ragline.core import RunnableLambda, RunnableParallel, RunnablePassthrough
from ragline.core.fake_models import FakeListChatModel
from ragline.core.output_parsers import JsonOutputParser, StrOutputParser
from tests.parity._observe import observe, per_key

COVERS = {
    "core.RunnableLambda",
    "core.RunnableParallel",
    "core.RunnablePassthrough",
    "core.AddableDict",
}

REPLY = '{"name": "Ada", "langs": ["en", "fr"], "age": 36}'


def _both(build: Any) -> tuple[Any, Any]:
    """(LangChain's chain, ragline's chain) from one builder over a namespace of classes."""
    lc = build(
        model=LCFakeListChatModel,
        lam=LCRunnableLambda,
        par=LCRunnableParallel,
        passthrough=LCRunnablePassthrough,
        json=LCJsonOutputParser,
        text=LCStrOutputParser,
    )
    ours = build(
        model=FakeListChatModel,
        lam=RunnableLambda,
        par=RunnableParallel,
        passthrough=RunnablePassthrough,
        json=JsonOutputParser,
        text=StrOutputParser,
    )
    return lc, ours


# ---- a function after a streaming step ----------------------------------------------------
def test_a_function_after_a_json_parser_is_called_once_with_the_last_whole_object():
    """The parser streams growing partial objects (plain dicts, which do not add): the
    function gets the last one, once, not the key-wise sum of all of them."""
    seen: dict[str, list[Any]] = {"lc": [], "ours": []}

    def build(side: str):
        def pick(model, lam, json, **_):
            def summary(person):
                seen[side].append(person)
                return f"{person['name']} speaks {len(person['langs'])}"

            return model(responses=[REPLY]) | json() | summary

        return pick

    lc = _both(build("lc"))[0]
    ours = _both(build("ours"))[1]
    assert list(ours.stream("who?")) == list(lc.stream("who?")) == ["Ada speaks 2"]
    expected = {"name": "Ada", "langs": ["en", "fr"], "age": 36}
    assert seen["ours"] == seen["lc"] == [expected]


def test_a_function_after_a_text_stream_gets_the_chunks_added_up():
    """Strings add: the function sees the whole text once."""

    def build(model, text, lam, **_):
        return model(responses=["hello"]) | text() | lam(lambda s: [s, len(s)])

    lc, ours = _both(build)
    assert list(ours.stream("x")) == list(lc.stream("x")) == [["hello", 5]]


async def test_astream_of_a_function_after_a_json_parser_matches():
    def build(model, json, lam, **_):
        return model(responses=[REPLY]) | json() | lam(lambda p: sorted(p))

    lc, ours = _both(build)
    lc_chunks = [c async for c in lc.astream("q")]
    assert [c async for c in ours.astream("q")] == lc_chunks == [["age", "langs", "name"]]


# ---- generator functions in RunnableLambda ------------------------------------------------
def _words(text: str) -> Iterator[str]:
    for word in text.split():
        yield word + "|"


async def _awords(text: str) -> AsyncIterator[str]:
    for word in text.split():
        yield word + "|"


@pytest.mark.parametrize("call", ["stream", "invoke", "batch"])
def test_a_sync_generator_function_streams_its_items(call: str):
    lc, ours = LCRunnableLambda(_words), RunnableLambda(_words)

    def run(r: Any) -> Any:
        if call == "stream":
            return list(r.stream("a bb ccc"))
        if call == "invoke":
            return r.invoke("a bb ccc")
        return r.batch(["a b", "c"])

    assert run(ours) == run(lc)
    if call == "stream":
        assert run(ours) == ["a|", "bb|", "ccc|"]


async def test_an_async_generator_function_streams_its_items_and_events():
    lc, ours = LCRunnableLambda(_awords), RunnableLambda(_awords)
    assert [c async for c in ours.astream("a bb")] == [c async for c in lc.astream("a bb")]
    assert await ours.ainvoke("a bb") == await lc.ainvoke("a bb") == "a|bb|"

    async def events(r: Any) -> list[tuple[str, str, Any]]:
        return [
            (e["event"], e["name"], e["data"]) async for e in r.astream_events("a bb", version="v2")
        ]

    lc_events = await events(lc)
    assert await events(ours) == lc_events
    assert lc_events[-1] == ("on_chain_end", "_awords", {"output": "a|bb|"})


def test_a_generator_function_after_a_model_streams_each_item():
    def build(model, text, lam, **_):
        def letters(s):
            yield from s.upper()

        return model(responses=["abc"]) | text() | lam(letters)

    lc, ours = _both(build)
    assert list(ours.stream("q")) == list(lc.stream("q")) == ["A", "B", "C"]
    assert ours.invoke("q") == lc.invoke("q") == "ABC"


# ---- keyword arguments bound to a lambda --------------------------------------------------
def test_keyword_arguments_bound_to_a_lambda_reach_the_function():
    def scale(x: int, factor: int = 1, offset: int = 0) -> int:
        return x * factor + offset

    lc = LCRunnableLambda(scale).bind(factor=3, offset=1)
    ours = RunnableLambda(scale).bind(factor=3, offset=1)
    assert ours.invoke(2) == lc.invoke(2) == 7
    assert ours.batch([1, 2]) == lc.batch([1, 2]) == [4, 7]
    assert list(ours.stream(5)) == list(lc.stream(5)) == [16]


async def test_keyword_arguments_bound_to_an_async_lambda_reach_the_function():
    async def scale(x: int, factor: int = 1) -> int:
        return x * factor

    lc, ours = LCRunnableLambda(scale).bind(factor=4), RunnableLambda(scale).bind(factor=4)
    assert await ours.ainvoke(2) == await lc.ainvoke(2) == 8


def test_an_unknown_bound_keyword_fails_as_in_langchain():
    lc = LCRunnableLambda(lambda x: x).bind(nope=1)
    ours = RunnableLambda(lambda x: x).bind(nope=1)
    with pytest.raises(TypeError) as lc_error:
        lc.invoke(1)
    with pytest.raises(TypeError) as our_error:
        ours.invoke(1)
    assert type(our_error.value) is type(lc_error.value)


# ---- RunnableParallel streams each branch's chunks -----------------------------------------
def test_parallel_stream_yields_each_branch_chunk_keyed_by_branch():
    """After a streaming model, a chunk-wise branch streams the model's chunks one by
    one; each yielded chunk is a one-key dict. The order between branches depends on
    thread timing in both libraries, so each branch's own sequence is compared."""

    def build(model, par, text, passthrough, **_):
        return model(responses=["xyz"]) | par(text=text(), raw=passthrough())

    lc, ours = _both(build)
    lc_chunks, our_chunks = list(lc.stream("q")), list(ours.stream("q"))
    assert len(our_chunks) == len(lc_chunks) == 6
    assert per_key(our_chunks) == per_key(lc_chunks)
    assert per_key(our_chunks)["text"] == ["x", "y", "z"]
    assert observe(ours.invoke("q")) == observe(lc.invoke("q"))


async def test_parallel_astream_yields_each_branch_chunk_keyed_by_branch():
    def build(model, par, text, lam, **_):
        return model(responses=["ab"]) | par(text=text(), size=lam(lambda m: len(m.content)))

    lc, ours = _both(build)
    lc_chunks = [c async for c in lc.astream("q")]
    our_chunks = [c async for c in ours.astream("q")]
    assert per_key(our_chunks) == per_key(lc_chunks) == {"text": ["a", "b"], "size": [2]}


def test_parallel_chunks_add_up_to_the_invoke_output():
    def build(par, lam, **_):
        return par(a=lam(lambda x: x + 1), b=lam(lambda x: [x])) | lam(lambda d: sorted(d))

    lc, ours = _both(build)
    assert list(ours.stream(1)) == list(lc.stream(1)) == [["a", "b"]]


def test_assign_streams_the_input_keys_then_each_new_chunk():
    def build(model, par, passthrough, text, **_):
        answer = passthrough.assign(answer=(lambda d: d["q"]) | model(responses=["ok"]) | text())
        return answer

    lc, ours = _both(build)
    assert list(ours.stream({"q": "hi"})) == list(lc.stream({"q": "hi"}))
    assert ours.invoke({"q": "hi"}) == lc.invoke({"q": "hi"}) == {"q": "hi", "answer": "ok"}
