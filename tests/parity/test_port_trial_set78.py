"""Parity: differences found by the seventy-eighth port trial (issue 24), one scenario each.

The set's programs composed LCEL chains (fallbacks, retries, configurable steps, routing,
bound options, batches and async calls). Each scenario runs the same program shape
through LangChain and through ragline (its source after ``ragline port``) and compares
what it prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

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
