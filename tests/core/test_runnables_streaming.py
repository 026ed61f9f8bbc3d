"""Real streaming: chunks flow through a sequence as they are produced."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ragline.core import (
    CallbackManager,
    RunCollectorCallbackHandler,
    Runnable,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    ensure_config,
)
from ragline.core.runnables import RunnableGenerator


class TokenModel(Runnable[str, str]):
    """A streaming 'model' built on the CallbackManager API: one token per word.

    ``log`` records when each token is produced, so tests can see interleaving.
    """

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def invoke(self, input, config=None, **kwargs):
        return "".join(self.stream(input, config))

    def stream(self, input, config=None, **kwargs):
        config = ensure_config(config)
        (run,) = CallbackManager.configure(config).on_llm_start(None, [input], name="TokenModel")
        for word in input.split():
            token = word + " "
            self.log.append(f"produce {token.strip()}")
            run.on_llm_new_token(token)
            yield token
        self.log.append("model done")
        run.on_llm_end(input)


def upper_parser(chunks):
    """A parser that transforms chunk by chunk."""
    for chunk in chunks:
        yield chunk.upper()


def test_sequence_streams_each_token_through_the_parser_before_the_model_finishes():
    log: list[str] = []
    prompt = RunnableLambda(lambda topic: f"tell me about {topic}", name="prompt")
    chain = prompt | TokenModel(log) | upper_parser
    for chunk in chain.stream("cats"):
        log.append(f"got {chunk.strip()}")
    assert log == [
        "produce tell",
        "got TELL",
        "produce me",
        "got ME",
        "produce about",
        "got ABOUT",
        "produce cats",
        "got CATS",
        "model done",
    ]


def test_streamed_chunk_count_and_combined_invoke():
    chain = RunnableLambda(lambda x: x) | TokenModel([]) | upper_parser
    assert list(chain.stream("a b c")) == ["A ", "B ", "C "]
    assert chain.invoke("a b c") == "A B C "


def test_a_step_that_cannot_transform_buffers_its_input():
    log: list[str] = []
    chain = TokenModel(log) | RunnableLambda(lambda text: text.strip().replace(" ", "+"))
    assert list(chain.stream("x y z")) == ["x+y+z"]
    assert log[-1] == "model done"


def test_first_chunk_arrives_while_upstream_is_still_producing():
    release = threading.Event()

    def slow_source(chunks):
        for _ in chunks:
            yield "first"
            # the consumer must have seen "first" before we produce more
            assert release.wait(5), "consumer never saw the first chunk"
            yield "second"

    chain = RunnableLambda(lambda x: x) | slow_source | RunnablePassthrough()
    stream = chain.stream("go")
    assert next(stream) == "first"
    release.set()
    assert list(stream) == ["second"]


def test_stream_reports_runs_with_combined_inputs_and_outputs():
    collector = RunCollectorCallbackHandler()
    chain = RunnableLambda(lambda x: x, name="prompt") | TokenModel([]) | upper_parser
    assert list(chain.stream("hi there", {"callbacks": [collector]})) == ["HI ", "THERE "]
    (root,) = collector.traced_runs
    assert root.tree() == (
        "RunnableSequence",
        [("prompt", []), ("TokenModel", []), ("upper_parser", [])],
    )
    assert (root.inputs, root.outputs) == ({"input": "hi there"}, {"output": "HI THERE "})
    parser = root.children[2]
    assert (parser.inputs, parser.outputs) == ({"input": "hi there "}, {"output": "HI THERE "})
    model = root.children[1]
    tokens = [e["kwargs"]["token"] for e in model.events if e["name"] == "new_token"]
    assert tokens == ["hi ", "there "]
    # tokens are reported before the parser run ends, and the sequence ends last
    events = collector.timeline()
    assert events[-1] == ("chain_end", "RunnableSequence", None)
    assert events.index(("llm_new_token", "TokenModel", "RunnableSequence")) < events.index(
        ("chain_end", "upper_parser", "RunnableSequence")
    )


def test_closing_a_stream_early_ends_the_open_runs():
    collector = RunCollectorCallbackHandler()
    chain = RunnableLambda(lambda x: x) | TokenModel([]) | upper_parser
    stream = chain.stream("one two three", {"callbacks": [collector]})
    assert next(stream) == "ONE "
    stream.close()
    root = collector.traced_runs[0]
    assert root.end_time is not None and root.outputs == {"output": "ONE "}
    assert root.find("upper_parser").end_time is not None


def test_an_error_mid_stream_is_reported_and_raised():
    collector = RunCollectorCallbackHandler()

    def breaks(chunks):
        for chunk in chunks:
            yield chunk
            raise RuntimeError("stream broke")

    chain = RunnableLambda(lambda x: x) | breaks
    stream = chain.stream("a", {"callbacks": [collector]})
    assert next(stream) == "a"
    with pytest.raises(RuntimeError, match="stream broke"):
        next(stream)
    assert [(e, n) for e, n, _ in collector.timeline()][-2:] == [
        ("chain_error", "breaks"),
        ("chain_error", "RunnableSequence"),
    ]


def test_transform_takes_an_input_stream():
    chain = RunnablePassthrough() | upper_parser
    assert list(chain.transform(iter(["a", "b"]))) == ["A", "B"]


def test_parallel_streams_keyed_chunks_from_every_branch():
    chain = RunnableParallel(words=TokenModel([]), loud=TokenModel([]) | upper_parser)
    chunks = list(chain.stream("x y"))
    assert sorted(map(str, chunks)) == sorted(
        map(str, [{"words": "x "}, {"words": "y "}, {"loud": "X "}, {"loud": "Y "}])
    )
    assert [c for c in chunks if "words" in c] == [{"words": "x "}, {"words": "y "}]
    assert chain.invoke("x y") == {"words": "x y ", "loud": "X Y "}


def test_a_transformer_that_is_not_a_generator_ends_its_run_with_the_error():
    collector = RunCollectorCallbackHandler()
    not_a_stream = RunnableGenerator(lambda chunks: 5, name="not_a_stream")
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        list(not_a_stream.stream(1, {"callbacks": [collector]}))
    assert [(event, name) for event, name, _ in collector.timeline()] == [
        ("chain_start", "not_a_stream"),
        ("chain_error", "not_a_stream"),
    ]


def test_closing_a_parallel_stream_does_not_start_branches_still_queued():
    started, proceed = [], threading.Event()

    def branch(name):
        def stream(chunks):
            for _ in chunks:
                started.append(name)
                yield f"{name}0"
                proceed.wait(5)  # still running when the consumer stops
                yield f"{name}1"

        return RunnableGenerator(stream, name=name)

    stream = RunnableParallel(a=branch("a"), b=branch("b")).stream("x", {"max_concurrency": 1})
    assert next(stream) == {"a": "a0"}
    threading.Timer(0.2, proceed.set).start()  # lets branch a end after the close began
    stream.close()
    assert started == ["a"]  # b waited for a free worker; nobody reads it any more


def test_assign_streams_existing_keys_then_new_chunks_and_pick_streams_one_key():
    answer = RunnableLambda(lambda d: d["q"]) | TokenModel([])
    chain = RunnablePassthrough.assign(answer=answer)
    assert list(chain.stream({"q": "a b"})) == [{"q": "a b"}, {"answer": "a "}, {"answer": "b "}]
    assert list(chain.pick("answer").stream({"q": "a b"})) == ["a ", "b "]


def test_a_one_branch_parallel_streams_in_the_callers_thread_with_its_run_tree():
    threads: list[int] = []
    collector = RunCollectorCallbackHandler()

    def note(d: dict) -> str:
        threads.append(threading.get_ident())
        return d["q"]

    chain = RunnablePassthrough.assign(answer=RunnableLambda(note, name="note") | TokenModel([]))
    chunks = list(chain.stream({"q": "a b"}, {"callbacks": [collector]}))
    assert chunks == [{"q": "a b"}, {"answer": "a "}, {"answer": "b "}]
    assert threads == [threading.get_ident()]  # no worker thread for a single branch
    assert collector.traced_runs[0].tree() == (
        "RunnableAssign<answer>",
        [("RunnableParallel<answer>", [("RunnableSequence", [("note", []), ("TokenModel", [])])])],
    )


def test_lambda_returning_a_runnable_streams_it():
    router = RunnableLambda(lambda x: TokenModel([]))
    assert list(router.stream("p q")) == ["p ", "q "]


# ---- async -------------------------------------------------------------------------------
async def test_astream_async_generators_interleave():
    log: list[str] = []

    async def tokens(chunks):
        async for text in chunks:
            for word in text.split():
                log.append(f"produce {word}")
                await asyncio.sleep(0)
                yield word

    async def shout(chunks):
        async for chunk in chunks:
            yield chunk.upper()

    chain = RunnableLambda(lambda x: x) | tokens | shout
    async for chunk in chain.astream("a b"):
        log.append(f"got {chunk}")
    assert log == ["produce a", "got A", "produce b", "got B"]
    assert await chain.ainvoke("c d") == "CD"


async def test_astream_reports_the_run_tree():
    collector = RunCollectorCallbackHandler()

    async def echo(chunks):
        async for chunk in chunks:
            yield chunk

    chain = RunnableLambda(lambda x: x, name="first") | RunnableGenerator(echo, name="echo")
    assert [c async for c in chain.astream("z", {"callbacks": [collector]})] == ["z"]
    assert collector.traced_runs[0].tree() == ("RunnableSequence", [("first", []), ("echo", [])])


async def test_async_parallel_and_assign_stream():
    async def words(chunks):
        async for text in chunks:
            for word in text.split():
                yield word

    par = RunnableParallel(w=RunnableGenerator(words))
    assert [c async for c in par.astream("m n")] == [{"w": "m"}, {"w": "n"}]
    assign = RunnablePassthrough.assign(w=lambda d: d["t"].upper())
    assert [c async for c in assign.astream({"t": "k"})] == [{"t": "k"}, {"w": "K"}]


def test_async_only_generator_refuses_sync_stream():
    async def agen(chunks):
        async for chunk in chunks:
            yield chunk

    with pytest.raises(NotImplementedError, match="wraps an async generator function"):
        list(RunnableGenerator(agen).stream("x"))
