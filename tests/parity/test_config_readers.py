"""Parity: user code that is handed the run's config, in a tree with configurable fields.

ragline refuses a ``configurable`` id that no field declares (a misspelt id), but lets
every id through where user code receives the config and may read ids of its own
(8474974: a function with a ``config`` parameter). A generator function with a
``config`` parameter (``RunnableGenerator``), a tool function with a ``RunnableConfig``
parameter and a user's own Runnable class receive it too, in LangChain and now in
ragline; before, ragline refused ``user_id`` in each, and called the generator without
its config (a ``TypeError``) even where no field was configurable (review of 8474974).
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

_READERS = """
import asyncio
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import (
    ConfigurableField, RunnableConfig, RunnableGenerator, RunnableSerializable,
)
from langchain_core.tools import tool

model = FakeListChatModel(responses=["r1", "r2", "r3", "r4"]).configurable_fields(
    responses=ConfigurableField(id="answers")
)
prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
config = {"configurable": {"user_id": "u7"}, "tags": ["t"]}


def sign(chunks, config: RunnableConfig):
    for chunk in chunks:
        yield chunk.content + "@" + config["configurable"]["user_id"]


async def asign(chunks, config):
    async for chunk in chunks:
        yield chunk + "@" + config["configurable"]["user_id"] + str(config["tags"])


print((prompt | model | RunnableGenerator(sign)).invoke({"q": "hi"}, config))
print(list((prompt | model | RunnableGenerator(sign)).stream({"q": "hi"}, config)))
print(asyncio.run(RunnableGenerator(asign).ainvoke("plain", config)))


@tool
def whoami(text: str, config: RunnableConfig) -> str:
    \"\"\"Say who asked.\"\"\"
    return text + " by " + config["configurable"]["user_id"]


print((prompt | model | (lambda m: m.content) | whoami).invoke({"q": "hi"}, config))


class Greeter(RunnableSerializable):
    greeting: str = "hello"

    def invoke(self, input, config=None, **kwargs):
        return self.greeting + " " + input + " for " + config["configurable"]["user_id"]


greeter = Greeter().configurable_fields(greeting=ConfigurableField(id="greeting"))
print(greeter.invoke("ann", {"configurable": {"user_id": "u8", "greeting": "yo"}}))
"""


def test_user_code_handed_the_config_may_read_ids_no_field_declares() -> None:
    langchain_printed = _printed(_READERS)
    assert langchain_printed.splitlines() == [
        "r1@u7",
        "['r@u7', '2@u7']",
        "plain@u7['t']",
        "r3 by u7",
        "yo ann for u8",
    ]
    assert _printed(_ported(_READERS)) == langchain_printed


def test_a_misspelt_id_is_still_refused_in_a_tree_of_ragline_parts() -> None:
    from ragline.core import ChatPromptTemplate, ConfigurableField, FakeListChatModel
    from ragline.core.exceptions import ConfigurationError
    from ragline.core.runnables import RunnableGenerator

    model = FakeListChatModel(responses=["r"]).configurable_fields(
        responses=ConfigurableField(id="answers")
    )

    def plain(chunks):  # no config parameter: it cannot read an id
        yield from chunks

    tree = ChatPromptTemplate.from_messages([("human", "{q}")]) | model | RunnableGenerator(plain)
    with pytest.raises(ConfigurationError) as caught:
        tree.invoke({"q": "hi"}, {"configurable": {"answer": ["x"]}})
    assert str(caught.value) == (
        "unknown configurable id(s) 'answer' for RunnableSequence; known ids are 'answers'"
    )


# A BaseTool subclass whose _run / _arun takes a parameter annotated RunnableConfig gets the
# call's config there in LangChain; ragline built its schema from that parameter and
# failed (NameError resolving RunnableConfig's annotations), and never passed it.
_TOOL_CLASS_READS_CONFIG = """
import asyncio
from langchain_core.language_models import FakeListChatModel
from langchain_core.runnables import ConfigurableField, RunnableConfig
from langchain_core.tools import BaseTool


class Who(BaseTool):
    name: str = "who"
    description: str = "Say who asked."

    def _run(self, text: str, config: RunnableConfig) -> str:
        return text + " by " + config["configurable"]["user_id"] + " " + str(config["tags"])


class AsyncWho(Who):
    async def _arun(self, text: str, config: RunnableConfig) -> str:
        return "async " + text + " by " + config["configurable"]["user_id"]


config = {"configurable": {"user_id": "u7"}, "tags": ["t"]}
print(Who().invoke("hi", config))
print(asyncio.run(Who().ainvoke("hey", config)))
print(asyncio.run(AsyncWho().ainvoke("yo", config)))
print(Who().invoke({"text": "dict"}, config))
model = FakeListChatModel(responses=["m1"]).configurable_fields(
    responses=ConfigurableField(id="answers")
)
print((model | (lambda m: m.content) | Who()).invoke("q", config))
"""


def test_a_tool_class_whose_run_takes_the_config_gets_it() -> None:
    langchain_printed = _printed(_TOOL_CLASS_READS_CONFIG)
    assert langchain_printed.splitlines() == [
        "hi by u7 ['t']",
        "hey by u7 ['t']",
        "async yo by u7",
        "dict by u7 ['t']",
        "m1 by u7 ['t']",
    ]
    assert _printed(_ported(_TOOL_CLASS_READS_CONFIG)) == langchain_printed


def test_the_config_parameter_is_not_shown_to_a_model() -> None:
    # LangChain lists it in the tool's args (and requires it in tool_call_schema), so a
    # model is asked for a config it cannot give; ragline leaves it out (differences page)
    from ragline.core import RunnableConfig
    from ragline.tools import BaseTool

    class Who(BaseTool):
        name: str = "who"
        description: str = "Say who asked."

        def _run(self, text: str, config: RunnableConfig) -> str:
            return text

    assert list(Who().args) == ["text"]
    assert Who().tool_call_schema.model_json_schema()["required"] == ["text"]


# A user's Runnable class as a part of a sequence or a parallel: LangChain hands its
# invoke / ainvoke the part's config; ragline called it without one (config=None), so
# config["configurable"] raised TypeError.
_PART_READS_CONFIG = """
import asyncio
from langchain_core.runnables import Runnable, RunnableLambda, RunnableParallel


class Show(Runnable):
    def invoke(self, input, config=None, **kwargs):
        return input + " " + config["configurable"]["user_id"] + " " + str(config["tags"])

    async def ainvoke(self, input, config=None, **kwargs):
        return "async " + self.invoke(input, config)


config = {"configurable": {"user_id": "u7"}, "tags": ["t"]}
print(Show().invoke("a", config))
print((RunnableLambda(lambda x: x) | Show()).invoke("b", config))
print(RunnableParallel(s=Show(), same=RunnableLambda(lambda x: x)).invoke("c", config))
print((RunnableLambda(lambda x: x) | Show()).batch(["d", "e"], config))
print(asyncio.run((RunnableLambda(lambda x: x) | Show()).ainvoke("f", config)))
print(list((RunnableLambda(lambda x: x) | Show()).stream("g", config)))
"""


def test_a_users_runnable_part_is_handed_its_config() -> None:
    langchain_printed = _printed(_PART_READS_CONFIG)
    assert langchain_printed.splitlines() == [
        "a u7 ['t']",
        "b u7 ['t']",
        "{'s': \"c u7 ['t']\", 'same': 'c'}",
        "[\"d u7 ['t']\", \"e u7 ['t']\"]",
        "async f u7 ['t']",
        "[\"g u7 ['t']\"]",
    ]
    assert _printed(_ported(_PART_READS_CONFIG)) == langchain_printed


# A generator function with a run_manager parameter gets the generator run's manager in
# LangChain (with its tags); ragline called it without one (run_manager=None).
_GENERATOR_RUN_MANAGER = """
import asyncio
from langchain_core.runnables import RunnableConfig, RunnableGenerator, RunnableLambda


def tagged(chunks, run_manager=None):
    for chunk in chunks:
        yield chunk + " " + type(run_manager).__name__ + " " + str(run_manager.tags)


def both(chunks, run_manager, config: RunnableConfig):
    for chunk in chunks:
        yield chunk + " " + str(run_manager is not None) + " " + config["configurable"]["u"]


async def atagged(chunks, run_manager=None):
    async for chunk in chunks:
        yield chunk + " " + type(run_manager).__name__


config = {"configurable": {"u": "u7"}, "tags": ["t"]}
print(RunnableGenerator(tagged).invoke("w", config))
print(list((RunnableLambda(lambda x: x) | RunnableGenerator(both)).stream("y", config)))
print(asyncio.run(RunnableGenerator(atagged).ainvoke("z")))
"""


def test_a_generator_function_gets_its_run_manager() -> None:
    langchain_printed = _printed(_GENERATOR_RUN_MANAGER)
    assert langchain_printed.splitlines() == [
        "w CallbackManagerForChainRun ['t']",
        "['y True u7']",
        "z AsyncCallbackManagerForChainRun",
    ]
    assert _printed(_ported(_GENERATOR_RUN_MANAGER)) == langchain_printed
