"""Parity: differences found by the fifty-second port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import contextlib
import io
import warnings
from pathlib import Path

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# emcikem_app_handler_memory_listeners: an app's chain loads and saves a memory handed in
# through config["configurable"], after checking isinstance(memory, BaseMemory) with
# BaseMemory imported from langchain_classic.base_memory. The port table lacked that
# module, so the ported program kept LangChain's class, ragline's memory failed the check
# and nothing was remembered.
_BASE_MEMORY_MODULE = """
from operator import itemgetter

from langchain_classic.base_memory import BaseMemory
from langchain_classic.memory import ConversationBufferWindowMemory
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda, RunnablePassthrough


def load(inputs, config):
    memory = config.get("configurable", {}).get("memory")
    if isinstance(memory, BaseMemory):
        return memory.load_memory_variables(inputs)
    return {"history": []}


def save(run, config):
    memory = config.get("configurable", {}).get("memory")
    if isinstance(memory, BaseMemory):
        memory.save_context(run.inputs, run.outputs)


prompt = ChatPromptTemplate.from_messages(
    [("system", "be brief"), MessagesPlaceholder("history"), ("human", "{query}")]
)
memory = ConversationBufferWindowMemory(
    k=1, input_key="query", output_key="output", return_messages=True
)
chain = (
    RunnablePassthrough.assign(history=RunnableLambda(load) | itemgetter("history"))
    | prompt
    | FakeListChatModel(responses=["one", "two", "three"])
    | StrOutputParser()
).with_listeners(on_end=save)
for query in ["a", "b", "c"]:
    print(len(memory.load_memory_variables({})["history"]), end=" ")
    print(chain.invoke({"query": query}, config={"configurable": {"memory": memory}}))
print([(m.type, m.content) for m in memory.chat_memory.messages])
print(isinstance(memory, BaseMemory), issubclass(ConversationBufferWindowMemory, BaseMemory))
"""


def test_base_memory_from_its_own_module_ports_and_remembers_as_langchains() -> None:
    source = _BASE_MEMORY_MODULE
    ported = _ported(source)
    assert "from ragline.memory import BaseMemory\n" in ported
    langchain_printed = _printed(source)
    assert langchain_printed.splitlines()[:3] == ["0 one", "2 two", "2 three"]
    assert _printed(ported) == langchain_printed


# flowchart_diff_chain_decorator_alternatives: a model made configurable with
# configurable_alternatives(ConfigurableField(id="llm"), default_key="openai_gpt") and no
# alternative yet (the app adds them later). LangChain accepts it (one option); ragline
# raised ConfigurationError at import.
_DEFAULT_ALONE = """
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import ConfigurableField

model = FakeListChatModel(responses=["first", "second", "third"])
llm = model.configurable_alternatives(
    ConfigurableField(id="llm"), default_key="openai_gpt"
).with_fallbacks([model])
chain = ChatPromptTemplate.from_template("say {word}") | llm
print(chain.invoke({"word": "a"}).content)
print(chain.invoke({"word": "b"}, config={"configurable": {"llm": "openai_gpt"}}).content)
print([(spec.id, spec.default) for spec in llm.config_specs])
print([member.value for spec in llm.config_specs for member in spec.annotation])
try:
    chain.invoke({"word": "c"}, config={"configurable": {"llm": "other"}})
except Exception as err:
    print(type(err).__name__)
"""


def test_configurable_alternatives_with_only_the_default_runs_as_langchains() -> None:
    source = _DEFAULT_ALONE
    langchain_printed = _printed(source)
    assert langchain_printed.splitlines()[:4] == [
        "first",
        "second",
        "[('llm', 'openai_gpt')]",
        "['openai_gpt']",
    ]
    assert _printed(_ported(source)) == langchain_printed


# lcel_production_notes_events_retry: `await chain.abatch(questions, max_concurrency=10)`,
# the limit given as a keyword instead of in config. LangChain's sequence hands keywords
# to its first step (here the {context, question} map), which ignores them; ragline
# raised TypeError. It now runs the same and warns; a first step that is a function
# still raises TypeError on both sides (LangChain calls the function with the keyword).
_CONFIG_KEY_AS_KEYWORD = """
import asyncio

from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

chain = (
    {"context": RunnableLambda(lambda q: q.upper()), "question": RunnablePassthrough()}
    | ChatPromptTemplate.from_template("{context} / {question}")
    | FakeListChatModel(responses=["same answer"])
    | StrOutputParser()
)
print(chain.batch(["a", "b", "c"], max_concurrency=2))
print(asyncio.run(chain.abatch(["a", "b"], max_concurrency=10)))
print(chain.invoke("a", tags=["kw"]), asyncio.run(chain.ainvoke("b", run_name="x")))
print(chain.batch(["a", "b"], config={"max_concurrency": 1}, return_exceptions=True))
lambda_first = RunnableLambda(lambda q: q + "!") | RunnableLambda(lambda q: q * 2)
for call in (lambda: lambda_first.batch(["a"], max_concurrency=2),
             lambda: lambda_first.invoke("a", max_concurrency=2)):
    try:
        print(call())
    except TypeError:
        print("TypeError")
"""


def test_a_config_key_given_to_a_chain_as_a_keyword_is_ignored_as_langchain_does() -> None:
    source = _CONFIG_KEY_AS_KEYWORD
    langchain_printed = _printed(source)
    assert langchain_printed.splitlines() == [
        "['same answer', 'same answer', 'same answer']",
        "['same answer', 'same answer']",
        "same answer same answer",
        "['same answer', 'same answer']",
        "TypeError",
        "TypeError",
    ]
    ported = _ported(source)
    with pytest.warns(UserWarning, match="ignores max_concurrency given as a keyword"):
        assert _printed_with_warnings(ported) == langchain_printed


def _printed_with_warnings(source: str) -> str:
    # _printed hushes warnings; this runs the program with them shown to pytest.warns
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<program>", "exec", dont_inherit=True), {"__name__": "__p__"})
    return out.getvalue()


# flowchart_diff_chain_decorator_alternatives (second cause): an @chain function that calls
# a global model made configurable. LangChain's lambda lists the configurable fields of the
# runnables its function uses, so the chain knows the "llm" choice; ragline's listed none,
# and a tree with another configurable field refused {"llm": ...} as unknown.
_FUNCTION_USES_A_CONFIGURABLE_MODEL = """
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import ConfigurableField, RunnablePassthrough, chain

model = FakeListChatModel(responses=["main answer"]).configurable_alternatives(
    ConfigurableField(id="llm"), default_key="main", other=FakeListChatModel(responses=["other"])
)
prompt = PromptTemplate.from_template("{q}").configurable_fields(
    template=ConfigurableField(id="tpl")
)


@chain
def ask(inputs):
    return model.invoke(inputs["q"]).content


full = RunnablePassthrough.assign(answer=ask) | (lambda x: x["answer"])
print([spec.id for spec in ask.config_specs], [spec.id for spec in full.config_specs])
print(full.invoke({"q": "hi"}), full.invoke({"q": "hi"}, {"configurable": {"llm": "other"}}))
both = RunnablePassthrough.assign(p=prompt) | RunnablePassthrough.assign(answer=ask)
print(sorted(spec.id for spec in both.config_specs))
out = both.invoke({"q": "hi"}, {"configurable": {"llm": "other", "tpl": "T {q}"}})
print(out["answer"], out["p"].to_string())
"""


def test_a_function_lists_the_configurable_fields_of_the_model_it_calls(tmp_path: Path) -> None:
    source = _FUNCTION_USES_A_CONFIGURABLE_MODEL
    langchain_printed = _printed(source, tmp_path / "langchain_side.py")
    assert langchain_printed.splitlines() == [
        "['llm'] ['llm']",
        "main answer other",
        "['llm', 'tpl']",
        "other T hi",
    ]
    assert _printed(_ported(source), tmp_path / "ragline_side.py") == langchain_printed


# The streamed twins (review of a3c8571): LangChain's sequence hands a keyword to its first
# step's transform on the stream paths too, so chain.stream(x, tags=[...]) runs there;
# ragline warned on invoke/batch but raised TypeError on stream, transform, astream and
# atransform. A function as the first step still raises TypeError on both sides.
_CONFIG_KEY_AS_KEYWORD_STREAMED = """
import asyncio

from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda

chain = (
    ChatPromptTemplate.from_template("{q}")
    | FakeListChatModel(responses=["ab"])
    | StrOutputParser()
)
print(list(chain.stream({"q": "x"}, tags=["kw"])))
print(list(chain.transform(iter([{"q": "x"}]), run_name="r")))


async def both():
    async def one():
        yield {"q": "x"}

    streamed = [chunk async for chunk in chain.astream({"q": "x"}, max_concurrency=1)]
    transformed = [chunk async for chunk in chain.atransform(one(), metadata={"a": 1})]
    return streamed, transformed


print(asyncio.run(both()))
lambda_first = RunnableLambda(lambda q: q + "!") | RunnableLambda(lambda q: q * 2)
try:
    print(list(lambda_first.stream("a", max_concurrency=2)))
except TypeError:
    print("TypeError")
"""


def test_a_config_key_given_as_a_keyword_is_ignored_on_the_stream_paths_too() -> None:
    source = _CONFIG_KEY_AS_KEYWORD_STREAMED
    langchain_printed = _printed(source)
    assert langchain_printed.splitlines() == [
        "['a', 'b']",
        "['a', 'b']",
        "(['a', 'b'], ['a', 'b'])",
        "TypeError",
    ]
    ported = _ported(source)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _printed_with_warnings(ported) == langchain_printed
    assert sorted(str(w.message).split(" given")[0] for w in caught) == [
        "RunnableSequence.astream ignores max_concurrency",
        "RunnableSequence.atransform ignores metadata",
        "RunnableSequence.stream ignores tags",
        "RunnableSequence.transform ignores run_name",
    ]
