"""Parity: differences found by the seventy-eighth port trial (issue 24), one scenario each.

The set's programs composed LCEL chains (fallbacks, retries, configurable steps, routing,
bound options, batches and async calls). Each scenario runs the same program shape
through LangChain and through ragline (its source after ``ragline port``) and compares
what it prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# binding how-to: a program printed the class of `model.bind(stop=...)`. LangChain's chat
# models return their own RunnableBinding subclass there, `_ChatModelBinding` (bind,
# with_config and with_retry on it keep that class; with_config on the model itself and
# an LLM's bind give a plain RunnableBinding); ragline's gave a RunnableBinding.
_CHAT_MODEL_BIND = """
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.load import dumpd
from langchain_core.runnables import RunnableBinding

chat = FakeListChatModel(responses=["a b"])
bound = chat.bind(stop=["b"])
for thing in (
    bound,
    bound.bind(tags_x=1),
    bound.with_config(tags=["t"]),
    bound.with_retry(stop_after_attempt=2),
    chat.with_config(tags=["t"]),
    FakeListLLM(responses=["a"]).bind(stop=["b"]),
):
    print(type(thing).__name__, isinstance(thing, RunnableBinding), repr(thing).split("(")[0])
print(bound.kwargs, bound.invoke("hi").content)
print(dumpd(bound)["id"], dumpd(bound)["kwargs"]["kwargs"])
"""


def test_a_chat_models_bind_gives_its_binding_class() -> None:
    expected = _printed(_CHAT_MODEL_BIND)
    assert expected.splitlines() == [
        "_ChatModelBinding True _ChatModelBinding",
        "_ChatModelBinding True _ChatModelBinding",
        "_ChatModelBinding True _ChatModelBinding",
        "_ChatModelBinding True _ChatModelBinding",
        "RunnableBinding True RunnableBinding",
        "RunnableBinding True RunnableBinding",
        "{'stop': ['b']} a b",
        "['langchain', 'schema', 'runnable', 'RunnableBinding'] {'stop': ['b']}",
    ]
    assert _printed(_ported(_CHAT_MODEL_BIND)) == expected


# async quick start: `await llm.abatch([...], return_exceptions=True)` with an input that
# is not a str, PromptValue or list of messages, printing each result's class. LangChain's
# models raise ValueError there; ragline's InvalidInputError printed its own name.
_MODEL_INPUT_TYPE = """
import asyncio
from langchain_core.language_models import BaseChatModel, FakeListLLM
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class Echo(BaseChatModel):
    @property
    def _llm_type(self):
        return "echo"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="ok"))])


for model in (Echo(), FakeListLLM(responses=["ok"])):
    outs = model.batch(["hi", 5], return_exceptions=True)
    print([type(o).__name__ for o in outs])
    outs = asyncio.run(model.abatch([7, "hi"], return_exceptions=True))
    print([type(o).__name__ for o in outs])
    for bad in (3.5, None):
        try:
            model.invoke(bad)
        except ValueError as err:
            print("caught", type(err).__name__, repr(err).split("(")[0])
"""


def test_a_models_input_of_the_wrong_type_prints_as_value_error() -> None:
    expected = _printed(_MODEL_INPUT_TYPE)
    caught = ["caught ValueError ValueError"] * 2
    chat = ["['AIMessage', 'ValueError']", "['ValueError', 'AIMessage']", *caught]
    llm = ["['ValueError', 'ValueError']", "['ValueError', 'ValueError']", *caught]
    assert expected.splitlines() == chat + llm
    assert _printed(_ported(_MODEL_INPUT_TYPE)) == expected
