"""Parity: differences found by the eightieth port trial (issue 24), one scenario each.

The set's theme was callbacks and streaming observability: handler subclasses, callbacks
in config and constructors, tags and metadata, astream_events, astream_log and usage
counting. Each scenario runs the same program shape through LangChain and through ragline
(the program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

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
