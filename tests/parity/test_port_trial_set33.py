"""Parity: differences found by the thirty-third port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# register_callbacks_sync_async_handlers: a GenericFakeChatModel called once more than it
# had messages. LangChain's raises RuntimeError when it streams or is awaited (and its
# on_llm_error handlers get that RuntimeError); ragline's raised InvalidInputError.
_EXHAUSTED_FAKE = """
import asyncio

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

seen = []


class Errors(AsyncCallbackHandler):
    async def on_llm_error(self, error, **kwargs):
        seen.append(("async handler", type(error).__name__))


class SyncErrors(BaseCallbackHandler):
    def on_llm_error(self, error, **kwargs):
        seen.append(("sync handler", type(error).__name__))


def model():
    return GenericFakeChatModel(messages=iter([AIMessage(content="only one")]))


def stream_twice():
    fake = model()
    print([chunk.content for chunk in fake.stream("a")])
    try:
        list(fake.stream("b", config={"callbacks": [SyncErrors()]}))
    except RuntimeError as err:
        print("stream:", type(err).__name__, isinstance(err, Exception))


async def await_twice():
    fake = model()
    print((await fake.ainvoke("a")).content)
    try:
        await fake.ainvoke("b", config={"callbacks": [Errors()]})
    except RuntimeError as err:
        print("ainvoke:", type(err).__name__)
    fake = model()
    print([chunk.content async for chunk in fake.astream("a")])
    try:
        async for _ in fake.astream("b", config={"callbacks": [Errors()]}):
            pass
    except RuntimeError as err:
        print("astream:", type(err).__name__)


stream_twice()
asyncio.run(await_twice())
print(seen)
"""


def test_a_generic_fake_after_its_last_message_raises_runtime_error_as_langchains() -> None:
    langchain_printed = _printed(_EXHAUSTED_FAKE)
    assert langchain_printed.count("RuntimeError") == 6  # three raises, three handlers
    assert _printed(_ported(_EXHAUSTED_FAKE)) == langchain_printed


def test_a_generic_fake_invoked_once_too_often_raises_runtime_error_not_stop_iteration() -> None:
    """LangChain's ``invoke`` lets StopIteration escape (a loop around the call would
    end silently: a deliberate difference); ragline's raises RuntimeError saying why."""
    from langchain_core.language_models import GenericFakeChatModel as LCGenericFakeChatModel

    from ragline.core import GenericFakeChatModel

    langchain_fake = LCGenericFakeChatModel(messages=iter(["only"]))
    langchain_fake.invoke("a")
    with pytest.raises(StopIteration):
        langchain_fake.invoke("b")
    ours = GenericFakeChatModel(messages=iter(["only"]))
    ours.invoke("a")
    with pytest.raises(RuntimeError, match="no more messages; give it as many as the program"):
        ours.invoke("b")


# configure_fields_alternatives_howto (its shape printed further): a chain's config_specs
# printed as they are. ragline's spec of a choice of alternatives printed its own extra
# field, options=('anthropic', 'openai', ...), which LangChain's spec does not have, and a
# fake list model's configurable responses were annotated Sequence[str] (LangChain's
# field: list[str]). Found probing the program's shape, not by the program itself.
_PRINTED_CONFIG_SPECS = """
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import ConfigurableField

llm = FakeListChatModel(responses=["a joke"]).configurable_alternatives(
    ConfigurableField(id="llm"),
    default_key="anthropic",
    openai=FakeListChatModel(responses=["an openai joke"]),
)
prompt = PromptTemplate.from_template("Tell me a joke about {topic}").configurable_alternatives(
    ConfigurableField(id="prompt", name="Prompt", description="which prompt"),
    default_key="joke",
    poem=PromptTemplate.from_template("Write a short poem about {topic}"),
)
model = FakeListChatModel(responses=["7"]).configurable_fields(
    responses=ConfigurableField(id="replies", name="Replies", description="scripted replies")
)
chain = prompt | llm
print(chain.config_specs)
print(llm.config_specs[0])
print(model.config_specs)
configured = chain.with_config(configurable={"llm": "openai", "prompt": "poem"})
print(configured.invoke({"topic": "bears"}).content)
"""


def test_printed_config_specs_of_alternatives_read_as_langchains() -> None:
    langchain_printed = _printed(_PRINTED_CONFIG_SPECS)
    assert "ConfigurableFieldSpec(id='llm', annotation=<enum 'llm'>" in langchain_printed
    assert _printed(_ported(_PRINTED_CONFIG_SPECS)) == langchain_printed


# Probing the set's async handlers (not counted in the trial): in an async run LangChain
# calls the handlers marked run_inline first, then the others; ragline called every
# handler in list order, so two handlers that print per token printed in another order.
_INLINE_HANDLERS_FIRST = """
import asyncio

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate


class Printer(BaseCallbackHandler):
    def on_llm_new_token(self, token, **kwargs):
        print("printer", token)

    def on_chain_end(self, outputs, **kwargs):
        print("printer chain end", outputs)


class Inline(BaseCallbackHandler):
    run_inline = True

    def on_llm_new_token(self, token, **kwargs):
        print("inline", token)

    def on_chain_end(self, outputs, **kwargs):
        print("inline chain end", outputs)


class AsyncInline(AsyncCallbackHandler):
    run_inline = True

    async def on_llm_end(self, response, **kwargs):
        print("async inline end", response.generations[0][0].text)


class AsyncPrinter(AsyncCallbackHandler):
    async def on_llm_end(self, response, **kwargs):
        print("async printer end", response.generations[0][0].text)


chain = ChatPromptTemplate.from_template("{q}") | FakeListChatModel(responses=["ab"])
chain = chain | StrOutputParser()
handlers = [Printer(), AsyncPrinter(), Inline(), AsyncInline()]


async def main():
    async for _ in chain.astream({"q": "x"}, config={"callbacks": handlers}):
        pass
    print(await chain.ainvoke({"q": "y"}, config={"callbacks": handlers}))


asyncio.run(main())
print(chain.invoke({"q": "z"}, config={"callbacks": handlers}))
"""


def test_async_runs_call_inline_handlers_first_as_langchains() -> None:
    langchain_printed = _printed(_INLINE_HANDLERS_FIRST)
    assert "inline a\nprinter a\n" in langchain_printed
    assert _printed(_ported(_INLINE_HANDLERS_FIRST)) == langchain_printed
