"""Parity: differences found by the twenty-second port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed


def _same(source: str, lines: int) -> None:
    langchain_printed = _printed(source)
    assert langchain_printed.count("\n") == lines
    assert _printed(_ported(source)) == langchain_printed


# tools_to_openai_tool_bind: a fake chat model bound to tools (``.bind(tools=[...])``, as
# ``bind_tools`` does under the hood) raised TypeError in ragline: its ``_generate`` took no
# bound options. LangChain's fakes take them and answer as scripted.
_FAKE_BOUND_OPTIONS = """
from langchain_core.language_models import GenericFakeChatModel, ParrotFakeChatModel
from langchain_core.messages import AIMessage

tools = [{"type": "function", "function": {"name": "GetWeather", "parameters": {}}}]
calls = [{"name": "GetWeather", "args": {"location": "LA"}, "id": "call_1"}]
model = GenericFakeChatModel(messages=iter([AIMessage(content="", tool_calls=calls), "a b"]))
bound = model.bind(tools=tools, tool_choice="auto")
print(bound.invoke("Which city is hotter?").tool_calls)
print([chunk.content for chunk in bound.stream("again")])
parrot = ParrotFakeChatModel().bind(tools=tools)
print(parrot.invoke("say it").content)
"""


def test_fake_chat_models_accept_bound_options_as_langchains() -> None:
    _same(_FAKE_BOUND_OPTIONS, 3)


# history_without_config_lambda_memory: RunnableWithMessageHistory(llm, lambda: memory), a
# factory without parameters, called with no config raised ConfigurationError (missing
# session_id) in ragline; LangChain calls such a factory with no key, config or not.
_HISTORY_WITHOUT_KEY = """
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.language_models import FakeListChatModel
from langchain_core.runnables.history import RunnableWithMessageHistory

llm = FakeListChatModel(responses=["Hello Bob!", "Your name is Bob.", "Still Bob."])
memory = InMemoryChatMessageHistory()
chain = RunnableWithMessageHistory(llm, lambda: memory)
print(chain.invoke("Hi I'm Bob").content)
print(chain.invoke("What is my name?", {"configurable": {"session_id": "ignored"}}).content)
print(chain.invoke("And now?").content)
print([(m.type, m.content) for m in memory.messages])
print([spec.id for spec in chain.config_specs])
"""


def test_a_history_factory_without_parameters_needs_no_session_id() -> None:
    _same(_HISTORY_WITHOUT_KEY, 5)


# lambda_returns_runnable_ainvoke: ainvoke of a RunnableLambda with only a sync function
# that returns a runnable ran that runnable with invoke (its sync function) in ragline;
# LangChain awaits its ainvoke (the async function). Its runs stay children of the lambda's.
_RETURNED_RUNNABLE_AINVOKE = """
import asyncio
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableLambda


def idchain_sync(value):
    print(f"sync chain call: {value}")
    return value


async def idchain_async(value):
    print(f"async chain call: {value}")
    return value


idchain = RunnableLambda(func=idchain_sync, afunc=idchain_async, name="idchain")


def route(value, config):
    print("route sees tags", config["tags"])
    return idchain


class Names(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
        print("start", kwargs["name"], parent_run_id is None)


router = RunnableLambda(route, name="router")
print(asyncio.run(router.ainvoke("toto", {"callbacks": [Names()], "tags": ["t"]})))
print(router.invoke("titi"))
print(asyncio.run(RunnableLambda(lambda x: x + 1).ainvoke(1)))
"""


def test_a_sync_lambda_awaits_the_runnable_it_returns() -> None:
    _same(_RETURNED_RUNNABLE_AINVOKE, 9)


# merge_message_runs_lcel_system_chain: ``prompt | merge_message_runs()`` (a prompt hands on
# a prompt value) raised TypeError ('ChatPromptValue' object is not iterable) in ragline;
# LangChain's message helpers take a prompt value as its messages.
_PROMPT_VALUE_TO_HELPERS = """
from langchain_core.messages import SystemMessage, filter_messages, merge_message_runs
from langchain_core.messages import trim_messages
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.prompts import ChatPromptTemplate

chain = SystemMessage(content="Hello, World!") + SystemMessage(content=["foo", "bar"])
print((chain | merge_message_runs()).invoke(input={}))
prompt = ChatPromptTemplate.from_messages(
    [("system", "Be brief."), ("human", "{a}"), ("human", "{b}"), ("ai", "ok")]
)
value = prompt.invoke({"a": "one", "b": "two"})
print((prompt | merge_message_runs(chunk_separator=" / ")).invoke({"a": "one", "b": "two"}))
print((prompt | filter_messages(include_types="human")).invoke({"a": "one", "b": "two"}))
print(trim_messages(value, max_tokens=2, token_counter=len, strategy="last"))
print(count_tokens_approximately(value))
"""


def test_the_message_helpers_take_a_prompt_value() -> None:
    _same(_PROMPT_VALUE_TO_HELPERS, 5)


# tool_parse_docstring_schema: @tool(parse_docstring=True) on a docstring whose "Args:"
# heading follows the description without a blank line was accepted by ragline; LangChain
# refuses it (ValueError), as it refuses a "Parameters:" heading or an unknown argument.
_INVALID_DOCSTRINGS = '''
from langchain_core.tools import tool


def outcome(make):
    try:
        made = make()
    except ValueError as e:
        return type(e).__name__
    return made.args_schema.model_json_schema()


def no_blank_line():
    @tool(parse_docstring=True)
    def foo(bar: str, baz: int) -> str:
        """The foo.
        Args:
            bar: this is the bar
        """
        return bar
    return foo


def parameters_heading():
    @tool(parse_docstring=True)
    def foo(bar: str) -> str:
        """The foo.

        Parameters:
            bar: this is the bar
        """
        return bar
    return foo


def unknown_argument():
    @tool(parse_docstring=True)
    def foo(bar: str) -> str:
        """The foo.

        Args:
            bar: this is the bar
            qux: not an argument
        """
        return bar
    return foo


def valid():
    @tool(parse_docstring=True)
    def foo(bar: str, baz: int = 2) -> str:
        """The foo.

        Args:
            bar: this is the bar
            baz: this is the baz

        Returns:
            the bar
        """
        return bar
    return foo


def no_arguments():
    @tool(parse_docstring=True)
    def ping() -> str:
        """Ping the server."""
        return "pong"
    return ping


for make in (no_blank_line, parameters_heading, unknown_argument, valid, no_arguments):
    print(make.__name__, outcome(make))
'''


def test_parse_docstring_refuses_the_docstrings_langchain_refuses() -> None:
    _same(_INVALID_DOCSTRINGS, 5)


# LangChain asks for an "Args:" block only when the function has type hints for its
# arguments (it counts get_type_hints): a tool over an unannotated function with a
# one-line docstring is accepted there; ragline counted every parameter and refused it.
_UNANNOTATED_DOCSTRINGS = '''
from langchain_core.tools import tool


def outcome(make):
    try:
        made = make()
    except ValueError as e:
        return "ValueError"
    return made.name, made.description, made.args


def unannotated():
    @tool(parse_docstring=True)
    def shout(text):
        """Shout the text back."""
        return text.upper()
    return shout


def partly_annotated():
    @tool(parse_docstring=True)
    def repeat(text, times: int = 2):
        """Repeat the text."""
        return text * times
    return repeat


for make in (unannotated, partly_annotated):
    print(make.__name__, outcome(make))
print(unannotated().invoke({"text": "hey"}))
'''


def test_parse_docstring_needs_an_args_block_only_for_annotated_arguments() -> None:
    _same(_UNANNOTATED_DOCSTRINGS, 3)


# multiquery_line_list_output_parser: a PydanticOutputParser subclass overriding parse()
# (LangChain's old MultiQueryRetriever docs) given to an LLMChain: LangChain's chain parses
# with parse_result, which reads the reply as JSON and never calls that parse(), so the
# docs' example fails (OutputParserException); ragline called the override and went on.
_PARSE_OVERRIDES = """
from typing import List

from langchain_classic.chains import LLMChain
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListLLM
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_classic.output_parsers import ResponseSchema, StructuredOutputParser
from langchain_core.prompts import PromptTemplate
from pydantic import BaseModel


class LineList(BaseModel):
    lines: List[str]


class LineListOutputParser(PydanticOutputParser):
    def __init__(self) -> None:
        super().__init__(pydantic_object=LineList)

    def parse(self, text: str) -> LineList:
        return LineList(lines=text.strip().split("\\n"))


class Shouting(JsonOutputParser):
    def parse(self, text):
        return text.upper()


class Checked(StructuredOutputParser):
    def parse(self, text):
        return {"checked": text}


def attempt(run):
    try:
        return run()
    except OutputParserException as e:
        return type(e).__name__


prompt = PromptTemplate.from_template("Rephrase: {question}")
llm = FakeListLLM(responses=["a\\nb", '{"lines": ["x", "y"]}'])
chain = LLMChain(llm=llm, prompt=prompt, output_parser=LineListOutputParser())
print(attempt(lambda: chain.invoke({"question": "q"})))
print(attempt(lambda: chain.invoke({"question": "q"})["text"]))
print(LineListOutputParser().parse("a\\nb"))
print(attempt(lambda: LineListOutputParser().invoke("a\\nb")))
print(Shouting().invoke('{"a": 1}'), Shouting().parse('{"a": 1}'))
checked = Checked.from_response_schemas([ResponseSchema(name="a", description="d")])
print(checked.invoke("plain"), checked.parse("plain"))
"""


def test_json_parsers_read_a_reply_without_a_subclass_parse() -> None:
    _same(_PARSE_OVERRIDES, 6)


# retry_batch_return_exceptions: LangChain's RunnableRetry.batch(..., return_exceptions=True)
# retries the failed inputs together and can give an input that failed every attempt
# another input's result (LangChain issue 35475). ragline keeps each input's own outcome:
# a documented difference (docs/differences-from-langchain.md, "Events and runs").
_RETRY_BATCH = """
from langchain_core.runnables import RunnableLambda

seen = {}


def step(x):
    seen[x] = seen.get(x, 0) + 1
    if x == "ok" or (x == "retry_then_ok" and seen[x] > 1):
        return f"{x}-result"
    raise ValueError(x)


chain = RunnableLambda(step).with_retry(stop_after_attempt=2, wait_exponential_jitter=False)
print(chain.batch(["ok", "retry_then_ok", "always_fail"], return_exceptions=True))
print(sorted(seen.items()))
"""


def test_a_retry_batch_keeps_each_inputs_outcome_where_langchain_mixes_them() -> None:
    calls = "[('always_fail', 2), ('ok', 1), ('retry_then_ok', 2)]\n"
    assert _printed(_RETRY_BATCH) == (
        "['ok-result', 'retry_then_ok-result', 'retry_then_ok-result']\n" + calls
    )
    assert _printed(_ported(_RETRY_BATCH)) == (
        "['ok-result', 'retry_then_ok-result', ValueError('always_fail')]\n" + calls
    )


# structured_parser_only_json_instructions: get_format_instructions(only_json=True) of
# LangChain's StructuredOutputParser starts with a newline (printed: a blank line before
# the block); ragline's began with the fence. The sentence of the full instructions is
# ragline's own wording, so only the JSON-only form is compared.
_ONLY_JSON = """
from langchain_classic.output_parsers import ResponseSchema, StructuredOutputParser

parser = StructuredOutputParser.from_response_schemas([
    ResponseSchema(name="foo", description="a list of strings", type="List[string]"),
    ResponseSchema(name="bar", description="a string"),
])
print(repr(parser.get_format_instructions(only_json=True)))
print(parser.get_format_instructions(only_json=True))
"""


def test_the_json_only_format_instructions_print_as_langchains() -> None:
    _same(_ONLY_JSON, 8)


# (noticed with merge_message_runs_lcel_system_chain) convert_to_messages itself refused a
# prompt value (TypeError: not iterable); LangChain's returns its messages.
_CONVERT_PROMPT_VALUE = """
from langchain_core.messages import convert_to_messages
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

chat = ChatPromptTemplate.from_messages([("system", "Be {tone}."), ("human", "{q}")])
print(convert_to_messages(chat.invoke({"tone": "brief", "q": "hi"})))
print(convert_to_messages(PromptTemplate.from_template("Say {x}").invoke({"x": "yes"})))
"""


def test_convert_to_messages_takes_a_prompt_value() -> None:
    _same(_CONVERT_PROMPT_VALUE, 2)
