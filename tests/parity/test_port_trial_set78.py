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


# probe beside the set (configure how-to, LangChain's configurable_alternatives docs): an
# alternative given as a factory, a function of no arguments that builds the runnable
# when that key is chosen (on each call). ragline wrapped it as a RunnableLambda and
# called it with the input (TypeError); its specs are not known before it is built, so
# LangChain lists none for it and lets the ids through to it.
_ALTERNATIVE_FACTORY = """
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import ConfigurableField

built = []


def lazy_llm():
    built.append("lazy")
    return FakeListLLM(responses=["lazy says hi"]).configurable_fields(
        responses=ConfigurableField(id="resp")
    )


for prefix in (False, True):
    built.clear()
    model = FakeListChatModel(responses=["chat says hi"]).configurable_alternatives(
        ConfigurableField(id="llm"),
        default_key="chat",
        prefix_keys=prefix,
        lazy=lazy_llm,
        other=lambda: FakeListLLM(responses=["other says hi"]),
        plain=FakeListLLM(responses=["plain says hi"]),
    )
    chain = PromptTemplate.from_template("hi {x}") | model
    print([(s.id, s.default) for s in chain.config_specs])
    print(chain.invoke({"x": 1}).content, built)
    for key in ("lazy", "other", "plain", "lazy"):
        print(key, chain.invoke({"x": 1}, {"configurable": {"llm": key}}), built)
    print(chain.batch([{"x": 1}, {"x": 2}], {"configurable": {"llm": "lazy"}}), len(built))
    resp = "llm==lazy/resp" if prefix else "resp"
    print(chain.invoke({"x": 1}, {"configurable": {"llm": "lazy", resp: ["set"]}}))
"""


def test_a_configurable_alternative_may_be_a_factory() -> None:
    expected = _printed(_ALTERNATIVE_FACTORY)
    specs = "[('llm', 'chat')]"
    block = [
        "chat says hi []",
        "lazy lazy says hi ['lazy']",
        "other other says hi ['lazy']",
        "plain plain says hi ['lazy']",
        "lazy lazy says hi ['lazy', 'lazy']",
        "['lazy says hi', 'lazy says hi'] 4",
        "set",
    ]
    assert expected.splitlines() == [specs, *block, specs, *block]
    assert _printed(_ported(_ALTERNATIVE_FACTORY)) == expected


# probe beside the set (configure tutorials print a chain's config schema): LangChain's
# config_schema() writes pydantic's JSON Schema: keys sorted, a choice (alternatives, a
# single option) as a $ref to an enum under $defs (its keys, the default last), several
# options as an array of that enum, the include keys in RunnableConfig's order with
# metadata's additionalProperties, and a configurable root titled by its own class
# (RunnableConfigurableFieldsConfig). ragline's wrote the choice inline, in its own key
# order, and titled a configurable root after its default runnable.
_CONFIG_SCHEMA = """
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import (
    ConfigurableField,
    ConfigurableFieldMultiOption,
    ConfigurableFieldSingleOption,
    RunnableLambda,
)

llm = FakeListLLM(responses=["a"]).configurable_alternatives(
    ConfigurableField(id="llm", name="LLM", description="which model"),
    default_key="plain",
    chat=FakeListChatModel(responses=["b"]),
)
prompt = PromptTemplate.from_template("{x}").configurable_fields(
    template=ConfigurableField(id="tpl", name="Template", description="the template")
)
one = PromptTemplate.from_template("{x}").configurable_fields(
    template=ConfigurableFieldSingleOption(
        id="style", options={"plain": "{x}", "loud": "{x}!"}, default="plain"
    )
)
multi = PromptTemplate.from_template("{x}").configurable_fields(
    input_variables=ConfigurableFieldMultiOption(
        id="vars", name="Vars", options={"x": "x", "y": "y"}, default=["x"]
    )
)
nested = RunnableLambda(lambda x: x) | FakeListChatModel(responses=["c"]).configurable_fields(
    responses=ConfigurableField(id="resp")
)
every = ["run_id", "recursion_limit", "max_concurrency", "run_name", "metadata", "tags"]
for runnable, include in (
    (llm, None),
    (prompt, ["run_name", "tags"]),
    (prompt | llm, ["metadata"]),
    (one, None),
    (multi, None),
    (nested, None),
    (RunnableLambda(lambda x: x), every),
    (RunnableLambda(lambda x: x), ["callbacks", "configurable"]),
    (llm.with_config(tags=["t"]), None),
):
    schema = runnable.config_schema(include=include)
    print(schema.__name__)
    print(schema.model_json_schema())
"""


def test_a_config_schema_is_written_as_langchains() -> None:
    expected = _printed(_CONFIG_SCHEMA)
    lines = expected.splitlines()
    assert lines[0::2] == [
        "RunnableConfigurableAlternativesConfig",
        "RunnableConfigurableFieldsConfig",
        "RunnableSequenceConfig",
        "RunnableConfigurableFieldsConfig",
        "RunnableConfigurableFieldsConfig",
        "RunnableSequenceConfig",
        "RunnableLambdaConfig",
        "RunnableLambdaConfig",
        "RunnableConfigurableAlternativesConfig",
    ]
    assert lines[1].startswith(
        "{'$defs': {'Configurable': {'properties': {'llm': {'$ref': '#/$defs/LLM', "
        "'default': 'plain', 'description': 'which model'}}, 'title': 'Configurable', "
        "'type': 'object'}, 'LLM': {'enum': ['chat', 'plain'], 'title': 'LLM', "
    )
    assert _printed(_ported(_CONFIG_SCHEMA)) == expected


# probe beside the set (RunnableGenerator's API docs): a generator made from an async
# generator function only, called through a sync method. LangChain raises
# NotImplementedError (as it does for a sync-only one called through an async method);
# ragline raised TypeError, which `except NotImplementedError` did not catch.
_ASYNC_ONLY_GENERATOR = """
import asyncio
from langchain_core.runnables import RunnableGenerator, RunnableLambda


async def shout(chunks):
    async for chunk in chunks:
        yield chunk.upper()


def whisper(chunks):
    for chunk in chunks:
        yield chunk.lower()


loud = RunnableGenerator(shout)
print(asyncio.run(loud.ainvoke("ab")), loud.get_name())
for call in (
    lambda: loud.invoke("ab"),
    lambda: list(loud.stream("ab")),
    lambda: loud.batch(["ab"]),
    lambda: (RunnableLambda(lambda x: x) | loud).invoke("ab"),
    lambda: asyncio.run(RunnableGenerator(whisper).ainvoke("AB")),
):
    try:
        print(call())
    except NotImplementedError as err:
        print("NotImplementedError", type(err).__name__)
"""


def test_an_async_only_generator_called_sync_raises_not_implemented() -> None:
    expected = _printed(_ASYNC_ONLY_GENERATOR)
    assert expected.splitlines() == ["AB shout"] + ["NotImplementedError NotImplementedError"] * 5
    assert _printed(_ported(_ASYNC_ONLY_GENERATOR)) == expected
