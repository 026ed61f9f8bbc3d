"""Parity: a BaseTracer subclass hears LangChain's per-run hooks, in LangChain's order.

3f9090a mapped LangChain's BaseTracer to ragline's, which called only ``_persist_run``:
a ported tracer that overrode ``_on_chain_start`` / ``_on_run_create`` / ``_end_trace``
(as tracing integrations do) was silently never called.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

_HOOKS = """
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.base import BaseTracer


class Hooks(BaseTracer):
    def __init__(self):
        super().__init__()
        self.heard = []

    def _persist_run(self, run):
        self.heard.append(("persist", run.name))

    def _on_run_create(self, run):
        self.heard.append(("create", run.name))

    def _on_run_update(self, run):
        self.heard.append(("update", run.name, run.error is not None))

    def _on_chain_start(self, run):
        self.heard.append(("chain_start", run.name))

    def _on_chain_end(self, run):
        self.heard.append(("chain_end", run.name))

    def _on_chain_error(self, run):
        self.heard.append(("chain_error", run.name))

    def _on_chat_model_start(self, run):
        self.heard.append(("chat_model_start", run.name))

    def _on_llm_start(self, run):
        self.heard.append(("llm_start", run.name, run.run_type))

    def _on_llm_end(self, run):
        self.heard.append(("llm_end", run.name))

    def _on_llm_new_token(self, run, token, chunk):
        self.heard.append(("token", token))


prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
model = FakeListChatModel(responses=["hi there"])
chain = prompt | model | StrOutputParser()
tracer = Hooks()
chain.invoke({"q": "x"}, {"callbacks": [tracer]})
for item in tracer.heard:
    print(item)

def fail(text):
    raise ValueError("no")

tracer = Hooks()
try:
    (RunnableLambda(lambda x: x) | RunnableLambda(fail)).invoke(1, {"callbacks": [tracer]})
except ValueError:
    pass
for item in tracer.heard:
    print(item)

tracer = Hooks()
for _ in model.stream("q", {"callbacks": [tracer]}):
    pass
print([item for item in tracer.heard if item[0] == "token"])
"""


def test_a_base_tracer_subclass_hears_every_runs_hooks_as_langchains() -> None:
    langchain_printed = _printed(_HOOKS)
    assert langchain_printed.splitlines()[:4] == [
        "('create', 'RunnableSequence')",
        "('chain_start', 'RunnableSequence')",
        "('create', 'ChatPromptTemplate')",
        "('chain_start', 'ChatPromptTemplate')",
    ]
    assert _printed(_ported(_HOOKS)) == langchain_printed


_BROKEN = """
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.base import BaseTracer


class Broken(BaseTracer):
    def _persist_run(self, run):
        raise RuntimeError("tracer broke")


try:
    print(RunnableLambda(lambda x: x + 1).invoke(1, {"callbacks": [Broken()]}))
except RuntimeError as error:
    print("raised", error)
"""


def test_a_tracer_that_fails_does_not_fail_the_run_as_in_langchain() -> None:
    langchain_printed = _printed(_BROKEN)
    assert langchain_printed == "2\n"  # LangChain logs the tracer's error and goes on
    assert _printed(_ported(_BROKEN)) == langchain_printed
