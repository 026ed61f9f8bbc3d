"""Parity: differences found by the fifty-ninth port trial (issue 24: custom callback
handlers in real apps), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {"core.callbacks.print_text"}

# openai_callback_print_result, course_token_monitor_agent_report: a fake chat model
# subclass that overrides LangChain's _generate(messages, stop, run_manager), calls
# super()._generate(...) and reads .generations / sets .llm_output on what comes back,
# as a provider class reports its token usage. ragline's fakes answered an AIMessage.
_SUBCLASS_CALLS_SUPER_GENERATE = """
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage


class Seen(BaseCallbackHandler):
    def on_llm_end(self, response, **kwargs):
        print("end:", response.llm_output, response.generations[0][0].text)


def reporting(base):
    class Reporting(base):
        model: str = "gpt-4"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            result = super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
            print(type(result).__name__, len(result.generations), result.llm_output)
            text = result.generations[0].text
            usage = {"prompt_tokens": 3, "completion_tokens": len(text)}
            usage["total_tokens"] = 3 + len(text)
            result.llm_output = {"token_usage": usage, "model_name": self.model}
            return result

    return Reporting


for base, kwargs in [
    (FakeListChatModel, {"responses": ["first answer"]}),
    (GenericFakeChatModel, {"messages": iter([AIMessage("second answer")])}),
    (FakeMessagesListChatModel, {"responses": [AIMessage("third answer")]}),
]:
    model = reporting(base)(**kwargs)
    reply = model.invoke("hi", config={"callbacks": [Seen()]})
    print(repr(reply.content), reply.response_metadata)
"""


def test_a_fake_chat_subclass_gets_a_chat_result_from_super_generate() -> None:
    langchain_printed = _printed(_SUBCLASS_CALLS_SUPER_GENERATE)
    assert langchain_printed.count("ChatResult 1 None") == 3
    assert _printed(_ported(_SUBCLASS_CALLS_SUPER_GENERATE)) == langchain_printed


# runtime_logging_handler_usage: a GenericFakeChatModel whose scripted answer carries
# usage_metadata; LangChain's on_llm_end gets llm_output=None (the fake reports no
# provider output), ragline's gave a token_usage built from the message.
_FAKE_USAGE_LLM_OUTPUT = """
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage


class Seen(BaseCallbackHandler):
    def on_llm_end(self, response, **kwargs):
        print("llm_output:", response.llm_output)


usage = {"input_tokens": 14, "output_tokens": 7, "total_tokens": 21}
model = GenericFakeChatModel(messages=iter([
    AIMessage("1 + 2 = 3", usage_metadata=usage, response_metadata={"model_name": "gpt-4o"}),
    AIMessage("again", usage_metadata=usage),
]))
print(model.invoke("What is 1 + 2?", config={"callbacks": [Seen()]}).usage_metadata)
print([c.content for c in model.stream("again", config={"callbacks": [Seen()]})])
print(FakeListChatModel(responses=["x"]).invoke("q", config={"callbacks": [Seen()]}).content)
"""


def test_a_fake_chat_models_usage_is_not_turned_into_an_llm_output() -> None:
    langchain_printed = _printed(_FAKE_USAGE_LLM_OUTPUT)
    assert langchain_printed.startswith("llm_output: None\n")
    assert _printed(_ported(_FAKE_USAGE_LLM_OUTPUT)) == langchain_printed


# token_check_openai_callback: get_openai_callback's total_cost summed LangChain's way
# (price per 1K tokens times tokens / 1000, prompt then completion): ragline's printed
# $0.0001475 where LangChain prints $0.00014749999999999998.
_OPENAI_CALLBACK_COST = """
from langchain_community.callbacks import get_openai_callback
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


def answer(model, prompt, completion, cached=0):
    usage = {"input_tokens": prompt, "output_tokens": completion}
    usage["total_tokens"] = prompt + completion
    if cached:
        usage["input_token_details"] = {"cache_read": cached}
    return AIMessage("ok", response_metadata={"model_name": model}, usage_metadata=usage)


cases = [
    ("gpt-4o-2024-08-06", 15, 11, 0),
    ("gpt-4o-mini", 1234, 567, 0),
    ("gpt-4o-mini", 2000, 33, 1024),
    ("gpt-4", 6, 11, 0),
]
for case in cases:
    llm = GenericFakeChatModel(messages=iter([answer(*case), answer(*case)]))
    with get_openai_callback() as cb:
        llm.invoke("q")
        print(case[0], cb.total_cost)
        llm.invoke("q")
        print(case[0], cb.total_cost, cb.total_tokens)
"""


def test_openai_callback_sums_the_cost_as_langchain_does() -> None:
    langchain_printed = _printed(_OPENAI_CALLBACK_COST)
    assert "gpt-4o-2024-08-06 0.00014749999999999998\n" in langchain_printed
    assert _printed(_ported(_OPENAI_CALLBACK_COST)) == langchain_printed


# retriever_reorder_callback: `from langchain_core.utils import print_text` (a handler's
# module, LangChain's own StdOutCallbackHandler idiom) had no ragline name, so the ported
# program kept that LangChain import.
_PRINT_TEXT = """
import io
from langchain_core.utils import print_text

print_text("plain")
print_text(" green", color="green", end="\\n")
print_text("blue line\\n", color="blue")
buffer = io.StringIO()
print_text("to a file", color="yellow", end="!", file=buffer)
print(repr(buffer.getvalue()))
"""


def test_print_text_ports_and_prints_as_langchains() -> None:
    ported = _ported(_PRINT_TEXT)
    assert "from ragline.core.callbacks import print_text\n" in ported
    langchain_printed = _printed(_PRINT_TEXT)
    assert langchain_printed.startswith("plain\x1b[32;1m\x1b[1;3m green\x1b[0m\n")
    assert _printed(ported) == langchain_printed
