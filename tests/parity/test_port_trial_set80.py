"""Parity: differences found by the eightieth port trial (issue 24), one scenario each.

The set's theme was callbacks and streaming observability: handler subclasses, callbacks
in config and constructors, tags and metadata, astream_events, astream_log and usage
counting. Each scenario runs the same program shape through LangChain and through ragline
(the program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {
    "core.FakeListChatModelError",
    "core.FakeListLLMError",
    "core.callbacks.AsyncCallbackManagerForChainGroup",
    "core.callbacks.CallbackManagerForChainGroup",
    "core.callbacks.atrace_as_chain_group",
    "core.callbacks.trace_as_chain_group",
}

# stdout_subclass: a handler derived from StdOutCallbackHandler with its own __init__ that
# never calls the parent's. LangChain's chain lines need no attribute, so the chain's
# "Entering" / "Finished" lines still print; ragline's looked up an attribute its
# __init__ sets and raised (logged), printing nothing.
_STDOUT_SUBCLASS = """
from langchain_classic.chains import LLMChain
from langchain_core.callbacks import StdOutCallbackHandler
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate


class Quiet(StdOutCallbackHandler):
    def __init__(self, loud=False):
        self.loud = loud

    def on_llm_end(self, response, **kwargs):
        print("llm said", response.generations[0][0].text)


chain = LLMChain(
    llm=FakeListLLM(responses=["ok"]),
    prompt=PromptTemplate.from_template("Say {x}"),
    callbacks=[Quiet()],
)
print(chain.invoke({"x": "ok"}))
"""


def test_a_stdout_handler_subclass_without_the_parent_init_prints_chain_lines() -> None:
    langchain_printed = _printed(_STDOUT_SUBCLASS)
    assert "> Entering new LLMChain chain..." in langchain_printed
    assert "> Finished chain." in langchain_printed
    assert _printed(_ported(_STDOUT_SUBCLASS)) == langchain_printed


# log_output_patches: astream_log's patches of a chain whose output is a dict. LangChain
# reports each new total of the output as the JSON Patch from the previous total (the
# first whole): a new key is "add /final_output/<key>", a longer text under it "replace
# /final_output/<key>", a longer list "add /final_output/<key>/<index>". ragline
# replaced the whole final_output at each chunk.
_LOG_OUTPUT_PATCHES = """
import asyncio

from langchain_core.runnables import RunnableGenerator
from langchain_core.runnables.utils import AddableDict


async def steps(inputs):
    async for _ in inputs:
        pass
    for chunk in ({"answer": "Ta"}, {"answer": "sk"}, {"docs": ["d1"]}, {"docs": ["d2"]}, {"n": 1}):
        yield AddableDict(chunk)


chain = RunnableGenerator(steps)


async def main():
    async for patch in chain.astream_log("q"):
        for op in patch.ops:
            if op["path"].startswith(("/final_output", "/streamed_output")):
                print(op["op"], op["path"], op.get("value"))
    async for state in chain.astream_log("q", diff=False):
        pass
    print(state.state["final_output"], state.state["streamed_output"])


asyncio.run(main())
"""


def test_astream_log_reports_a_dict_output_as_patches_between_totals() -> None:
    langchain_printed = _printed(_LOG_OUTPUT_PATCHES)
    assert "add /final_output/docs ['d1']" in langchain_printed
    assert "replace /final_output/answer Task" in langchain_printed
    assert "add /final_output/docs/1 d2" in langchain_printed
    assert _printed(_ported(_LOG_OUTPUT_PATCHES)) == langchain_printed


# serialized_ids: handlers of a model's or a prompt's run printed serialized's "id" (the
# class path LangChain writes). LangChain passes the model's and the prompt's serialized
# form; ragline passed {"name": ...} alone, so serialized.get("id") was None.
_SERIALIZED_IDS = """
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate


class Mine(FakeListChatModel):
    pass


def head(serialized):
    if serialized is None:
        return None
    return {k: v for k, v in serialized.items() if k not in ("repr", "kwargs")}


class Show(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        print("chain", kwargs.get("name"), head(serialized))

    def on_chat_model_start(self, serialized, messages, **kwargs):
        print("chat", kwargs.get("name"), head(serialized), serialized["id"][-1])

    def on_llm_start(self, serialized, prompts, **kwargs):
        print("llm", kwargs.get("name"), head(serialized), serialized.get("id"))


show = {"callbacks": [Show()]}
chat_chain = ChatPromptTemplate.from_template("hi {x}") | FakeListChatModel(responses=["a"])
chat_chain.invoke({"x": 1}, show)
(PromptTemplate.from_template("hi {x}") | FakeListLLM(responses=["a"])).invoke({"x": 1}, show)
Mine(responses=["b"]).invoke("q", {**show, "run_name": "custom"})
FakeListLLM(responses=["c"]).invoke("q", show)
FakeListChatModel(responses=["d"], name="bob").invoke("q", show)
PromptTemplate.from_template("hi {x}").invoke({"x": 2}, {**show, "run_name": "p"})
"""


def test_a_model_or_prompt_run_gives_handlers_its_class_id() -> None:
    langchain_printed = _printed(_SERIALIZED_IDS)
    assert "'id': ['langchain_core', 'language_models', 'fake', 'FakeListLLM']" in (
        langchain_printed
    )
    assert "'id': ['langchain', 'prompts', 'chat', 'ChatPromptTemplate']" in langchain_printed
    assert _printed(_ported(_SERIALIZED_IDS)) == langchain_printed


# tool_text_events: astream_events of a chain whose last step is a tool given text (the
# previous step's string). LangChain's tool events carry the arguments dict its handlers
# get as inputs=, None for text: the start shows {"input": {}}, the end "input": None;
# ragline's showed the text in both.
_TOOL_TEXT_EVENTS = """
import asyncio

from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool


@tool
def lookup(q: str) -> str:
    '''Look a thing up.'''
    if q == "bad":
        raise ValueError("no such thing")
    return "found " + q


async def main():
    for word in ("cat", "bad"):
        chain = RunnableLambda(lambda x: x, name="same") | lookup
        try:
            async for event in chain.astream_events(word, version="v2"):
                if event["event"].startswith("on_tool"):
                    print(event["event"], event["name"], event["data"])
        except ValueError as error:
            print("raised", error)
    async for event in lookup.astream_events({"q": "dog"}, version="v2"):
        print(event["event"], event["data"])


asyncio.run(main())
"""


def test_a_tool_given_text_shows_langchains_inputs_in_its_events() -> None:
    langchain_printed = _printed(_TOOL_TEXT_EVENTS)
    assert "on_tool_start lookup {'input': {}}" in langchain_printed
    assert "on_tool_end lookup {'output': 'found cat', 'input': None}" in langchain_printed
    assert _printed(_ported(_TOOL_TEXT_EVENTS)) == langchain_printed


# async_listeners: a tutorial bound coroutine listeners with with_alisteners; ragline's
# runnables had no such method (AttributeError). LangChain awaits a start listener
# before the runnable runs and an end or error listener before the call returns; a
# listener with a config parameter gets the call's config.
_ASYNC_LISTENERS = """
import asyncio

from langchain_core.runnables import RunnableLambda


async def started(run, config):
    print("start", run.name, run.inputs, config.get("tags"))


async def ended(run):
    await asyncio.sleep(0)
    print("end", run.name, run.outputs, [child.name for child in run.child_runs])


async def failed(run):
    print("error", run.name, run.error.splitlines()[0])


def halve(x):
    return 10 // x


async def main():
    step = RunnableLambda(halve, name="halve") | RunnableLambda(lambda y: y + 1, name="inc")
    listened = step.with_alisteners(on_start=started, on_end=ended, on_error=failed)
    print(await listened.ainvoke(2, {"tags": ["t"]}))
    print(await listened.abatch([5, 10]))
    print([chunk async for chunk in listened.astream(1)])
    try:
        await listened.ainvoke(0)
    except ZeroDivisionError as error:
        print("raised", error)
    each = RunnableLambda(halve, name="halve").map().with_alisteners(on_end=ended)
    print(await each.ainvoke([1, 2]))


asyncio.run(main())
"""


def test_coroutine_listeners_are_awaited_around_each_run() -> None:
    langchain_printed = _printed(_ASYNC_LISTENERS)
    assert "start RunnableSequence {'input': 2} ['t']" in langchain_printed
    assert "end RunnableSequence {'output': 6} ['halve', 'inc']" in langchain_printed
    assert _printed(_ported(_ASYNC_LISTENERS)) == langchain_printed


# sequential_text: a handler's on_text printed its keywords for a SimpleSequentialChain;
# LangChain passes the chain's verbose flag with each step's output (as LLMChain does
# with its prompt), ragline did not.
_SEQUENTIAL_TEXT = """
import asyncio

from langchain_classic.chains import LLMChain, SimpleSequentialChain
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate


class Texts(BaseCallbackHandler):
    def on_text(self, text, **kwargs):
        print(repr(text), kwargs.get("color"), kwargs.get("end") == "\\n", kwargs.get("verbose"))


def steps():
    llm = FakeListLLM(responses=["one", "two"])
    first = LLMChain(llm=llm, prompt=PromptTemplate.from_template("A {x}"))
    second = LLMChain(llm=llm, prompt=PromptTemplate.from_template("B {y}"))
    return SimpleSequentialChain(chains=[first, second], callbacks=[Texts()])


print(steps().invoke("start"))
print(asyncio.run(steps().ainvoke("start")))
"""


def test_a_sequential_chain_reports_its_verbose_flag_with_each_text() -> None:
    langchain_printed = _printed(_SEQUENTIAL_TEXT)
    assert "'two' yellow True False" in langchain_printed
    assert _printed(_ported(_SEQUENTIAL_TEXT)) == langchain_printed


# chain_group: trace_as_chain_group and its async form, which ragline lacked (the port
# kept LangChain's). The yielded manager makes the runs invoked with it children of one
# group run; on_chain_end ends it (``ended``), a copy is a fresh group manager, an error
# leaving the block ends it with that error and goes on. (LangChain drops a
# callback_manager given to it unless LangSmith tracing is on, so no handler is given
# here: see docs/differences-from-langchain.md.)
_CHAIN_GROUP = """
import asyncio

from langchain_core.callbacks.manager import atrace_as_chain_group, trace_as_chain_group
from langchain_core.runnables import RunnableLambda

double = RunnableLambda(lambda x: x * 2)

with trace_as_chain_group("pair", inputs={"x": 1}, tags=["grp"], metadata={"m": 1}) as group:
    print(type(group).__name__, group.ended, group.tags, group.inheritable_tags)
    print(group.metadata, group.inheritable_metadata, group.parent_run_id is not None)
    print(len(group.handlers), len(group.inheritable_handlers))
    print(double.invoke(2, {"callbacks": group}), double.batch([1, 2], {"callbacks": group}))
    group.on_chain_end({"done": True})
    print(group.ended)
    copied = group.copy()
    print(type(copied).__name__, copied.ended, copied.tags)

try:
    with trace_as_chain_group("failing") as group:
        raise KeyError("inside")
except KeyError as error:
    print("raised", repr(error), group.ended)


async def main():
    async with atrace_as_chain_group("apair", tags=["a"]) as agroup:
        print(type(agroup).__name__, agroup.tags, agroup.ended)
        print(await double.ainvoke(5, {"callbacks": agroup}))
        await agroup.on_chain_end({"ok": 1})
        print(agroup.ended)


asyncio.run(main())
"""


def test_a_chain_group_manager_groups_runs_and_ends_them() -> None:
    langchain_printed = _printed(_CHAIN_GROUP)
    assert "CallbackManagerForChainGroup False ['grp'] ['grp']" in langchain_printed
    assert "AsyncCallbackManagerForChainGroup ['a'] False" in langchain_printed
    ported = _ported(_CHAIN_GROUP)
    assert "langchain" not in ported
    assert _printed(ported) == langchain_printed


# usage_without_model_name: UsageMetadataCallbackHandler given a chat reply with usage but
# no model_name, and a plain LLM's output. LangChain's handler counts only a chat reply
# that has both (under that name); ragline counted the first under "".
_USAGE_WITHOUT_MODEL_NAME = """
from langchain_core.callbacks import UsageMetadataCallbackHandler, get_usage_metadata_callback
from langchain_core.language_models import FakeListLLM, GenericFakeChatModel
from langchain_core.messages import AIMessage


def model(**reply):
    return GenericFakeChatModel(messages=iter([AIMessage(content="x", **reply)] * 3))


counts = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
unnamed = model(usage_metadata=counts)
named = model(usage_metadata=counts, response_metadata={"model_name": "m1"})
handler = UsageMetadataCallbackHandler()
unnamed.invoke("q", {"callbacks": [handler]})
print(handler.usage_metadata)
named.invoke("q", {"callbacks": [handler]})
named.invoke("q", {"callbacks": [handler]})
print(handler.usage_metadata)
with get_usage_metadata_callback() as usage:
    FakeListLLM(responses=["z"]).invoke("q")
    unnamed.invoke("q")
    print(usage.usage_metadata)
"""


def test_usage_without_a_model_name_is_not_counted() -> None:
    langchain_printed = _printed(_USAGE_WITHOUT_MODEL_NAME)
    assert langchain_printed.startswith("{}\n")
    assert _printed(_ported(_USAGE_WITHOUT_MODEL_NAME)) == langchain_printed


# retry_without_on_retry: a handler with on_retry watching a with_retry runnable.
# LangChain's retry reports no on_retry (the failed attempts show as their own runs'
# errors); ragline reported one before each new attempt.
_RETRY_WITHOUT_ON_RETRY = """
import asyncio

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableLambda


class Watch(BaseCallbackHandler):
    def on_retry(self, retry_state, **kwargs):
        print("retry", retry_state.attempt_number)

    def on_chain_error(self, error, **kwargs):
        print("attempt failed", error, kwargs.get("tags"))


calls = {"n": 0}


def flaky(x):
    calls["n"] += 1
    if calls["n"] % 3:
        raise ValueError(f"call {calls['n']}")
    return x * 10


retried = RunnableLambda(flaky).with_retry(stop_after_attempt=3, wait_exponential_jitter=False)
print(retried.invoke(2, {"callbacks": [Watch()]}))
print(asyncio.run(retried.ainvoke(3, {"callbacks": [Watch()]})))
"""


def test_a_retry_reports_no_on_retry() -> None:
    langchain_printed = _printed(_RETRY_WITHOUT_ON_RETRY)
    assert "retry" not in langchain_printed.replace("retry:attempt", "")
    assert _printed(_ported(_RETRY_WITHOUT_ON_RETRY)) == langchain_printed


# tool_tags: a tool built with tags and metadata, called with more. LangChain's tool run
# has the call's tags first, then its own, and its own metadata over the call's; ragline
# sorted the tags together.
_TOOL_TAGS = """
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tools import StructuredTool


class Show(BaseCallbackHandler):
    def on_tool_start(self, serialized, input_str, **kwargs):
        print("start", kwargs.get("tags"), kwargs.get("metadata"), kwargs.get("name"))


def mul(a: int, b: int) -> int:
    '''Multiply.'''
    return a * b


tool = StructuredTool.from_function(
    mul, callbacks=[Show()], tags=["math", "b"], metadata={"k": 1, "src": "own"}
)
print(tool.invoke({"a": 2, "b": 3}))
call = {"run_name": "times", "tags": ["x", "a"], "metadata": {"src": "call", "z": 0}}
print(tool.invoke({"a": 2, "b": 4}, call))
print(tool.run({"a": 1, "b": 1}, tags=["r"], metadata={"m": 2}, run_name="rn"))
"""


def test_a_tool_run_has_the_calls_tags_then_its_own() -> None:
    langchain_printed = _printed(_TOOL_TAGS)
    assert "start ['x', 'a', 'math', 'b']" in langchain_printed
    assert _printed(_ported(_TOOL_TAGS)) == langchain_printed


# fake_errors: a program caught the fake models' configured streaming failure by its class
# (FakeListChatModelError, FakeListLLMError); ragline had the classes but did not export
# them, so the port left LangChain's, which ragline's models never raise.
_FAKE_ERRORS = """
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake import FakeListLLMError, FakeStreamingListLLM
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    FakeListChatModelError,
)


class Errors(BaseCallbackHandler):
    def on_llm_error(self, error, **kwargs):
        print("llm error", type(error).__name__)


chat = FakeListChatModel(responses=["abc"], error_on_chunk_number=1)
got = []
try:
    for chunk in chat.stream("x", {"callbacks": [Errors()]}):
        got.append(chunk.content)
except FakeListChatModelError as error:
    print("chat stopped", got, isinstance(error, Exception))
llm = FakeStreamingListLLM(responses=["xyz"], error_on_chunk_number=2)
got = []
try:
    for chunk in llm.stream("x"):
        got.append(chunk)
except FakeListLLMError:
    print("llm stopped", got)
"""


def test_the_fake_models_streaming_failures_are_caught_by_their_classes() -> None:
    langchain_printed = _printed(_FAKE_ERRORS)
    assert "chat stopped ['a'] True" in langchain_printed
    assert "llm stopped ['x', 'y']" in langchain_printed
    assert _printed(_ported(_FAKE_ERRORS)) == langchain_printed


# openai_info_import: a token-counting tutorial imported OpenAICallbackHandler from its
# own module (langchain_community.callbacks.openai_info); the port table had no row for
# that module, so the port kept LangChain's handler.
_OPENAI_INFO_IMPORT = """
from langchain_community.callbacks.openai_info import OpenAICallbackHandler
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

usage = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
reply = AIMessage(content="ok", usage_metadata=usage, response_metadata={"model_name": "gpt-4o"})
model = GenericFakeChatModel(messages=iter([reply] * 2))
counter = OpenAICallbackHandler()
model.invoke("a", {"callbacks": [counter]})
model.invoke("b", {"callbacks": [counter]})
print(counter.prompt_tokens, counter.completion_tokens, counter.total_tokens)
print(counter.successful_requests, round(counter.total_cost, 8))
"""


def test_the_openai_handler_imports_from_its_own_module() -> None:
    langchain_printed = _printed(_OPENAI_INFO_IMPORT)
    assert langchain_printed.startswith("14 6 20\n2 ")
    ported = _ported(_OPENAI_INFO_IMPORT)
    assert "langchain_community" not in ported
    assert _printed(ported) == langchain_printed
