"""bind, with_config, with_retry, with_fallbacks, RunnableBranch, configurable fields and
alternatives."""

from __future__ import annotations

from typing import Any

import pytest

from ragline.core import (
    BaseCallbackHandler,
    ConfigurableField,
    ConfigurationError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    Runnable,
    RunnableBinding,
    RunnableBranch,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    RunnableRetry,
    RunnableWithFallbacks,
)


class Echo(Runnable[str, str]):
    """Takes a keyword option, like a model's ``stop``."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self.calls: list[tuple[str, dict]] = []

    def invoke(self, input, config=None, *, stop=None, **kwargs):
        self.calls.append((input, {"stop": stop, **kwargs}))
        return self._call_with_config(lambda x: f"{self.prefix}{x}", input, config)


class RetryStates(BaseCallbackHandler):
    """Keeps the retry states a run reports (a run record keeps none, as LangChain's)."""

    def __init__(self) -> None:
        self.states: list[Any] = []

    def on_retry(self, retry_state: Any, **kwargs: Any) -> None:
        self.states.append(retry_state)


class Flaky:
    """Fails the first ``failures`` calls with ``error``."""

    def __init__(self, failures: int, error: type[Exception] = ConnectionError) -> None:
        self.failures = failures
        self.error = error
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error(f"attempt {self.calls} failed")
        return f"ok:{x}"

    async def acall(self, x):
        return self(x)


# ---- bind and with_config -----------------------------------------------------------------
def test_bind_passes_keyword_options_on_every_call():
    echo = Echo()
    bound = echo.bind(stop=["\n"])
    assert isinstance(bound, RunnableBinding)
    assert bound.invoke("a") == "a"
    assert bound.bind(extra=1).invoke("b") == "b"
    assert echo.calls == [("a", {"stop": ["\n"]}), ("b", {"stop": ["\n"], "extra": 1})]
    assert bound.get_name() == "Echo"


def test_bound_options_reach_the_step_inside_a_sequence():
    echo = Echo()
    chain = RunnableLambda(lambda x: x.upper()) | echo.bind(stop=["!"])
    assert chain.batch(["x", "y"]) == ["X", "Y"]
    assert sorted(echo.calls) == [("X", {"stop": ["!"]}), ("Y", {"stop": ["!"]})]


def test_with_config_merges_tags_metadata_and_names_the_run():
    collector = RunCollectorCallbackHandler()
    runnable = RunnableLambda(lambda x: x).with_config(
        run_name="named", tags=["bound"], metadata={"a": 1}
    )
    runnable.invoke(1, {"callbacks": [collector], "tags": ["call"], "metadata": {"b": 2}})
    (run,) = collector.traced_runs
    assert (run.name, run.tags, run.metadata) == ("named", ["bound", "call"], {"a": 1, "b": 2})
    assert runnable.get_name() == "RunnableLambda"  # the bound's name, as LangChain's


def test_with_config_callbacks_join_the_call_callbacks():
    bound_handler = RunCollectorCallbackHandler()
    call_handler = RunCollectorCallbackHandler()
    inner = RunnableLambda(lambda x: x, name="inner").with_config(callbacks=[bound_handler])
    chain = RunnableLambda(lambda x: x, name="outer") | inner
    chain.invoke(1, {"callbacks": [call_handler]})
    assert call_handler.traced_runs[0].tree() == (
        "RunnableSequence",
        [("outer", []), ("inner", [])],
    )
    (seen,) = bound_handler.traced_runs
    # its parent is not a run that handler saw: a root run there, as in LangChain
    assert seen.name == "inner" and seen.parent_run_id is None and seen.trace_id == seen.id
    assert call_handler.traced_runs[0].child_runs[1].id == seen.id


def test_with_config_keeps_unknown_keys_for_configurable_as_langchain_does():
    def read(x, config):
        return config["configurable"]

    bound = RunnableLambda(read).with_config(session="s1")
    assert bound.invoke(1) == {"session": "s1"}
    with pytest.raises(ConfigurationError, match="tags must be a list of str"):
        RunnableLambda(read).with_config(tags="one")  # known keys are still checked


async def test_binding_async_and_streaming_paths():
    echo = Echo(">")
    bound = echo.bind(stop=["s"])
    assert await bound.ainvoke("a") == ">a"
    assert await bound.abatch(["b"]) == [">b"]
    assert list(bound.stream("c")) == [">c"]
    assert [c async for c in bound.astream("d")] == [">d"]
    assert [stop["stop"] for _, stop in echo.calls] == [["s"]] * 4


# ---- retry ----------------------------------------------------------------------------------
def test_retry_until_success_reports_attempts_and_retries():
    collector, retry_states = RunCollectorCallbackHandler(), RetryStates()
    flaky = Flaky(failures=2)
    retrying = RunnableLambda(flaky, name="flaky").with_retry(
        stop_after_attempt=3, wait_exponential_jitter=False
    )
    assert isinstance(retrying, RunnableRetry)
    assert retrying.invoke("x", {"callbacks": [collector, retry_states]}) == "ok:x"
    assert flaky.calls == 3
    (run,) = collector.traced_runs
    # named after what it retries, as LangChain's
    assert run.tree() == ("flaky", [("flaky", []), ("flaky", []), ("flaky", [])])
    assert [type(c.exception).__name__ for c in run.children] == [
        "ConnectionError",
        "ConnectionError",
        "NoneType",
    ]
    # no on_retry: LangChain's retry reports none (its attempts' runs show the failures)
    assert retry_states.states == []


def test_retry_gives_up_after_stop_after_attempt():
    flaky = Flaky(failures=5)
    with pytest.raises(ConnectionError, match="attempt 2 failed"):
        RunnableLambda(flaky).with_retry(
            stop_after_attempt=2, wait_exponential_jitter=False
        ).invoke(1)
    assert flaky.calls == 2


def test_retry_only_on_the_given_exception_types():
    flaky = Flaky(failures=1, error=KeyError)
    retrying = RunnableLambda(flaky).with_retry(
        retry_if_exception_type=(ConnectionError,), wait_exponential_jitter=False
    )
    with pytest.raises(KeyError):
        retrying.invoke(1)
    assert flaky.calls == 1


def test_retry_waits_exponentially_with_jitter(monkeypatch):
    import ragline.core.runnables.retry as retry_module

    slept: list[float] = []
    monkeypatch.setattr(retry_module.time, "sleep", slept.append)
    monkeypatch.setattr(retry_module.random, "uniform", lambda low, high: high / 2)
    flaky = Flaky(failures=3)
    retrying = RunnableLambda(flaky).with_retry(
        stop_after_attempt=4, exponential_jitter_params={"initial": 0.5, "max": 1.5, "jitter": 0.2}
    )
    assert retrying.invoke(1) == "ok:1"
    assert slept == [0.5 + 0.1, 1.0 + 0.1, 1.5 + 0.1]  # 0.5, 1.0, then capped at max 1.5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"stop_after_attempt": 0}, "stop_after_attempt must be an int >= 1, got 0"),
        ({"retry_if_exception_type": (int,)}, "retry_if_exception_type must be a non-empty tuple"),
        (
            {"exponential_jitter_params": {"inital": 1}},
            "unknown exponential_jitter_params key(s) ['inital']",
        ),
        (
            {"exponential_jitter_params": {"initial": "1"}},
            "exponential_jitter_params['initial'] must be a finite number >= 0, got '1'",
        ),
        (
            {"retry_if_exception_type": ValueError},
            "retry_if_exception_type must be a non-empty tuple of exception classes, got <class "
            "'ValueError'>",
        ),
    ],
)
def test_retry_options_are_validated(kwargs, message):
    with pytest.raises(ConfigurationError) as info:
        RunnableLambda(lambda x: x).with_retry(**kwargs)
    assert message in str(info.value)


async def test_retry_async_and_batch():
    flaky = Flaky(failures=1)
    retrying = RunnableLambda(flaky.acall).with_retry(wait_exponential_jitter=False)
    assert await retrying.ainvoke("a") == "ok:a"
    flaky_sync = Flaky(failures=1)
    assert RunnableLambda(flaky_sync).with_retry(wait_exponential_jitter=False).batch(
        ["a", "b"], {"max_concurrency": 1}
    ) == ["ok:a", "ok:b"]


def test_retry_stream_retries_before_the_first_chunk():
    retry_states = RetryStates()
    flaky = Flaky(failures=1)
    retrying = RunnableLambda(flaky).with_retry(wait_exponential_jitter=False)
    assert list(retrying.stream("s", {"callbacks": [retry_states]})) == ["ok:s"]
    assert flaky.calls == 2
    # a retry's stream has no run of its own (as LangChain's), so no on_retry to report
    assert retry_states.states == []


async def test_retry_astream_retries_and_closes_the_attempt_when_stopped_early():
    retry_states = RetryStates()
    flaky, closed = Flaky(failures=1), []

    async def words(chunks):
        async for text in chunks:
            await flaky.acall(text)  # fails on the first attempt
            try:
                for word in text.split():
                    yield word
            finally:
                closed.append(True)

    retrying = RunnableGenerator(words).with_retry(wait_exponential_jitter=False)
    stream = retrying.astream("a b c", {"callbacks": [retry_states]})
    assert await anext(stream) == "a"
    await stream.aclose()
    assert closed == [True] and flaky.calls == 2
    assert retry_states.states == []


# ---- fallbacks ----------------------------------------------------------------------------
def test_fallbacks_in_order_with_runs():
    collector = RunCollectorCallbackHandler()

    def primary(x):
        raise TimeoutError("primary down")

    def secondary(x):
        raise ConnectionError("secondary down")

    chain = RunnableLambda(primary, name="primary").with_fallbacks(
        [
            RunnableLambda(secondary, name="secondary"),
            RunnableLambda(lambda x: f"third:{x}", name="third"),
        ]
    )
    assert isinstance(chain, RunnableWithFallbacks)
    assert chain.invoke("q", {"callbacks": [collector]}) == "third:q"
    assert collector.traced_runs[0].tree() == (
        "RunnableWithFallbacks",
        [("primary", []), ("secondary", []), ("third", [])],
    )


def test_fallbacks_raise_the_first_error_when_all_fail():
    def fail(message):
        def run(x):
            raise RuntimeError(message)

        return RunnableLambda(run)

    with pytest.raises(RuntimeError, match="first"):
        fail("first").with_fallbacks([fail("second")]).invoke(1)


def test_fallbacks_only_for_handled_exceptions():
    def primary(x):
        raise KeyError("not handled")

    chain = RunnableLambda(primary).with_fallbacks(
        [RunnableLambda(lambda x: "fallback")], exceptions_to_handle=(TimeoutError,)
    )
    with pytest.raises(KeyError):
        chain.invoke(1)


def test_fallbacks_exception_key_passes_the_error_on():
    def primary(d):
        raise ValueError("bad json")

    chain = RunnableLambda(primary).with_fallbacks(
        [RunnableLambda(lambda d: f"{d['q']} after {d['error']}")], exception_key="error"
    )
    assert chain.invoke({"q": "x"}) == "x after bad json"
    with pytest.raises(ValueError, match="needs a dict input, got str"):
        chain.invoke("x")


def test_fallbacks_validation():
    echo = RunnableLambda(lambda x: x)
    with pytest.raises(ConfigurationError, match="at least one fallback"):
        echo.with_fallbacks([])
    with pytest.raises(ConfigurationError) as info:
        echo.with_fallbacks(echo)  # type: ignore[arg-type]
    assert str(info.value) == (
        "with_fallbacks takes a list of fallback runnables, got RunnableLambda; pass [fallback] "
        "for one"
    )
    with pytest.raises(ConfigurationError) as info:
        echo.with_fallbacks([echo], exceptions_to_handle=ValueError)  # type: ignore[arg-type]
    assert str(info.value) == (
        "exceptions_to_handle must be a non-empty tuple of exception classes, got <class "
        "'ValueError'>"
    )


async def test_fallbacks_async_and_stream():
    async def primary(x):
        raise TimeoutError("down")

    def sync_primary(x):
        raise TimeoutError("down")

    backup = RunnableLambda(lambda x: f"b:{x}")
    assert await RunnableLambda(primary).with_fallbacks([backup]).ainvoke(1) == "b:1"
    chain = RunnableLambda(sync_primary).with_fallbacks([backup])
    assert list(chain.stream(2)) == ["b:2"]
    assert [c async for c in chain.astream(3)] == ["b:3"]


# ---- branch -----------------------------------------------------------------------------------
def test_branch_routes_to_the_first_true_condition():
    collector = RunCollectorCallbackHandler()
    branch = RunnableBranch(
        (lambda x: x["topic"] == "math", RunnableLambda(lambda x: "math expert", name="math")),
        (lambda x: x["topic"] == "code", RunnableLambda(lambda x: "code expert", name="code")),
        RunnableLambda(lambda x: "generalist", name="general"),
    )
    assert [branch.invoke({"topic": t}) for t in ("math", "code", "art")] == [
        "math expert",
        "code expert",
        "generalist",
    ]
    branch.invoke({"topic": "code"}, {"callbacks": [collector]})
    assert collector.traced_runs[0].tree() == (
        "RunnableBranch",
        [("RunnableLambda", []), ("RunnableLambda", []), ("code", [])],
    )
    assert list(branch.stream({"topic": "math"})) == ["math expert"]


async def test_branch_async():
    async def is_even(x):
        return x % 2 == 0

    branch = RunnableBranch((is_even, lambda x: "even"), lambda x: "odd")
    assert [await branch.ainvoke(n) for n in (1, 2)] == ["odd", "even"]
    assert [c async for c in branch.astream(4)] == ["even"]


@pytest.mark.parametrize(
    "args, message",
    [
        ((lambda x: x,), "at least one (condition, runnable) pair and a default, got 1"),
        (((lambda x: True,), lambda x: x), "argument 0 must be a (condition, runnable) pair"),
        (
            ((lambda x: True, lambda x: 1), (lambda x: True, lambda x: 2)),
            "last argument is the default",
        ),
    ],
)
def test_branch_validation(args, message):
    with pytest.raises(ConfigurationError) as info:
        RunnableBranch(*args)
    assert message in str(info.value)


def _closable_words(closed: list[bool]) -> RunnableGenerator:
    async def words(chunks):
        async for text in chunks:
            try:
                for word in text.split():
                    yield word
            finally:
                closed.append(True)

    return RunnableGenerator(words, name="words")


@pytest.mark.parametrize(
    "wrap",
    [
        lambda inner: inner.with_fallbacks([RunnableLambda(lambda x: x)]),
        lambda inner: RunnableBranch((lambda x: True, inner), lambda x: x),
    ],
    ids=["fallbacks", "branch"],
)
async def test_an_async_stream_stopped_early_ends_the_inner_stream_and_its_run(wrap):
    collector, closed = RunCollectorCallbackHandler(), []
    stream = wrap(_closable_words(closed)).astream("a b c", {"callbacks": [collector]})
    assert await anext(stream) == "a"
    await stream.aclose()
    assert closed == [True]
    words = collector.traced_runs[0].find("words")
    assert (words.outputs, words.end_time is not None) == ({"output": "a"}, True)


async def test_an_async_assign_stream_stopped_early_ends_every_run():
    collector = RunCollectorCallbackHandler()
    assign = RunnablePassthrough.assign(words=(lambda d: d["q"]) | _closable_words([]))
    stream = assign.astream({"q": "a b c"}, {"callbacks": [collector]})
    assert await anext(stream) == {"q": "a b c"}
    assert await anext(stream) == {"words": "a"}
    await stream.aclose()
    assert [run.name for run in collector.runs_by_id.values() if run.end_time is None] == []


# ---- configurable -----------------------------------------------------------------------
class Greeter(Runnable[str, str]):
    def __init__(self, greeting: str = "hello", punctuation: str = "!") -> None:
        self.greeting = greeting
        self.punctuation = punctuation

    def invoke(self, input, config=None, **kwargs):
        return self._call_with_config(
            lambda x: f"{self.greeting} {x}{self.punctuation}", input, config
        )


def test_configurable_fields_set_per_call_and_reset_after():
    greeter = Greeter()
    configurable = greeter.configurable_fields(
        greeting=ConfigurableField(id="greeting", name="Greeting"),
        punctuation=ConfigurableField(id="punct"),
    )
    assert configurable.invoke("ann") == "hello ann!"
    assert (
        configurable.invoke("ann", {"configurable": {"greeting": "hi", "punct": "?"}}) == "hi ann?"
    )
    assert configurable.invoke("ann") == "hello ann!"  # back to the default
    assert greeter.greeting == "hello"
    assert [spec.id for spec in configurable.config_specs] == ["greeting", "punct"]


def test_configurable_values_flow_down_a_chain():
    chain = RunnableLambda(lambda x: x.strip()) | Greeter().configurable_fields(
        greeting=ConfigurableField(id="greeting")
    )
    assert chain.invoke(" bo ", {"configurable": {"greeting": "yo"}}) == "yo bo!"
    assert chain.batch(["a", "b"], {"configurable": {"greeting": "hey"}}) == ["hey a!", "hey b!"]
    assert list(chain.stream("c", {"configurable": {"greeting": "hi"}})) == ["hi c!"]


def test_unknown_configurable_id_names_the_known_ones():
    # ragline's own parts only: a user's Runnable class (Greeter) is handed the config and
    # may read ids of its own, so a tree holding one lets every id through
    prompt = PromptTemplate.from_template("hello {x}!")
    chain = RunnableLambda(lambda x: x) | prompt.configurable_fields(
        template=ConfigurableField(id="greeting"), template_format=ConfigurableField(id="punct")
    )
    with pytest.raises(ConfigurationError) as info:
        chain.invoke({"x": "x"}, {"configurable": {"greting": "hi"}})
    assert str(info.value) == (
        "unknown configurable id(s) 'greting' for RunnableSequence; known ids are 'greeting', "
        "'punct'"
    )
    standalone = prompt.configurable_fields(template=ConfigurableField(id="greeting"))
    with pytest.raises(ConfigurationError, match="known ids are 'greeting'"):
        standalone.invoke({"x": "x"}, {"configurable": {"nope": 1}})
    greeter = Greeter().configurable_fields(greeting=ConfigurableField(id="greeting"))
    assert greeter.invoke("x", {"configurable": {"nope": 1}}) == "hello x!"


def test_a_tree_without_configurable_fields_lets_ids_through_to_user_functions():
    def read(x, config):
        return config["configurable"]["user_id"]

    assert RunnableLambda(read).invoke(1, {"configurable": {"user_id": "u7"}}) == "u7"


def test_configurable_field_must_name_an_attribute():
    with pytest.raises(ValueError) as info:
        Greeter().configurable_fields(greting=ConfigurableField(id="g"))
    assert type(info.value) is ValueError  # LangChain's class
    assert str(info.value) == (
        "Greeter has no attribute 'greting' to make configurable; its attributes are greeting, "
        "punctuation"
    )
    with pytest.raises(ConfigurationError, match="needs a ConfigurableField, got str"):
        Greeter().configurable_fields(greeting="g")  # type: ignore[arg-type]


def test_configurable_alternatives_choose_a_runnable_per_call():
    collector = RunCollectorCallbackHandler()
    formal = Greeter("good day", ".")
    chooser = Greeter().configurable_alternatives(
        ConfigurableField(id="style"),
        default_key="casual",
        formal=formal,
        shout=RunnableLambda(lambda x: x.upper() + "!!", name="shout"),
    )
    assert chooser.invoke("kim") == "hello kim!"
    assert chooser.invoke("kim", {"configurable": {"style": "formal"}}) == "good day kim."
    assert (
        chooser.invoke("kim", {"configurable": {"style": "shout"}, "callbacks": [collector]})
        == "KIM!!"
    )
    assert collector.traced_runs[0].name == "shout"
    assert chooser.invoke("kim", {"configurable": {"style": "casual"}}) == "hello kim!"
    with pytest.raises(ValueError) as info:
        chooser.invoke("kim", {"configurable": {"style": "pirate"}})
    assert type(info.value) is ValueError  # LangChain's class
    assert (
        str(info.value)
        == "configurable 'style' got 'pirate'; options are 'casual', 'formal', 'shout'"
    )
    (spec,) = chooser.config_specs
    assert (spec.id, spec.options) == ("style", ("casual", "formal", "shout"))


def test_alternatives_and_fields_together_in_one_tree():
    greeter = Greeter().configurable_fields(greeting=ConfigurableField(id="greeting"))
    chooser = greeter.configurable_alternatives(
        ConfigurableField(id="style"), plain=RunnableLambda(lambda x: x)
    )
    chain = RunnableParallel(a=chooser, b=RunnableLambda(lambda x: len(x)))
    assert chain.invoke("z", {"configurable": {"greeting": "hi"}}) == {"a": "hi z!", "b": 1}
    assert chain.invoke("z", {"configurable": {"style": "plain", "greeting": "hi"}}) == {
        "a": "z",
        "b": 1,
    }
    assert sorted(spec.id for spec in chain.config_specs) == ["greeting", "style"]
    # as the root itself, both ids are known too
    assert chooser.invoke("z", {"configurable": {"style": "default", "greeting": "yo"}}) == "yo z!"


def test_configurable_alternatives_validation():
    with pytest.raises(ConfigurationError, match="'default' is already the default_key"):
        Greeter().configurable_alternatives(ConfigurableField(id="s"), default=Greeter())
    # the default alone is a choice with one option (LangChain's is too)
    alone = Greeter().configurable_alternatives(ConfigurableField(id="s"), default_key="only")
    assert alone.invoke("a", {"configurable": {"s": "only"}}) == "hello a!"
    assert [spec.options for spec in alone.config_specs if spec.id == "s"] == [("only",)]


async def test_configurable_async_paths():
    chooser = Greeter().configurable_fields(greeting=ConfigurableField(id="greeting"))
    assert await chooser.ainvoke("a", {"configurable": {"greeting": "ahoy"}}) == "ahoy a!"
    assert [c async for c in chooser.astream("b", {"configurable": {"greeting": "ho"}})] == [
        "ho b!"
    ]
    assert await chooser.abatch(["c"], {"configurable": {"greeting": "hm"}}) == ["hm c!"]


# ---- listeners ----------------------------------------------------------------------------
def test_with_listeners_sees_only_its_own_runs():
    seen = []
    inner = RunnableLambda(lambda x: x + 1, name="inner")
    listened = (inner | RunnableLambda(lambda x: x * 2, name="double")).with_listeners(
        on_start=lambda run: seen.append(("start", run.name, run.inputs)),
        on_end=lambda run: seen.append(("end", run.name, run.outputs)),
    )
    chain = RunnableLambda(lambda x: x, name="outer") | listened
    assert chain.invoke(1) == 4
    assert listened.batch([2, 3], {"max_concurrency": 1}) == [6, 8]
    assert seen == [
        ("start", "RunnableSequence", {"input": 1}),
        ("end", "RunnableSequence", {"output": 4}),
        # a sequence batch starts every run, then runs each step over all inputs
        ("start", "RunnableSequence", {"input": 2}),
        ("start", "RunnableSequence", {"input": 3}),
        ("end", "RunnableSequence", {"output": 6}),
        ("end", "RunnableSequence", {"output": 8}),
    ]
    # listeners that take no config share one handler, which the binding's factory adds
    handler = listened.config_factories[0]({})["callbacks"][0]
    assert handler._open == {} and handler._chat_ids == set()  # nothing kept after the runs


def test_with_listeners_on_error():
    errors = []

    def boom(x):
        raise ValueError("no")

    with pytest.raises(ValueError):
        RunnableLambda(boom, name="boom").with_listeners(on_error=errors.append).invoke(1)
    assert [(run.name, run.exception) for run in errors] == [("boom", errors[0].exception)]
    assert isinstance(errors[0].exception, ValueError) and str(errors[0].exception) == "no"
    assert errors[0].error.endswith("\nValueError: no") and errors[0].outputs == {}
