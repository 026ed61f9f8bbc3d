"""Parity: differences found by the twenty-ninth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {"agents.AgentOutputParser", "core.callbacks.BaseTracer", "vectorstores.VST"}

# langserve_generic_fake_chat_model_tests: a fake chat model's reply with additional
# kwargs, streamed. LangChain's GenericFakeChatModel streams no word for an empty text,
# then one chunk per additional kwarg and, for a function call, one chunk per field with
# its string value cut at each comma; ragline streamed an empty word and all the kwargs in
# one chunk. The chunks add up to the same message either way.
_KWARGS_STREAM = """
from itertools import cycle

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


def show(chunks):
    for chunk in chunks:
        print(type(chunk).__name__, repr(chunk.content), chunk.additional_kwargs)
    total = chunks[0]
    for chunk in chunks[1:]:
        total += chunk
    print("total", repr(total.content), total.additional_kwargs)


model = GenericFakeChatModel(messages=cycle([AIMessage("", additional_kwargs={"a": 1, "b": [2]})]))
show(list(model.stream("hi")))
call = {"name": "move", "arguments": '{"src": "x", "dst": "y", "n": 3}'}
model = GenericFakeChatModel(
    messages=cycle([AIMessage("moving it", additional_kwargs={"function_call": call, "c": 5})])
)
show(list(model.stream("hi")))
print(model.invoke("again").additional_kwargs == {"function_call": call, "c": 5})
"""


def test_the_generic_fake_streams_additional_kwargs_as_langchains() -> None:
    langchain_printed = _printed(_KWARGS_STREAM)
    assert "AIMessageChunk '' {'function_call': {'arguments': ','}}\n" in langchain_printed
    assert langchain_printed.count("\n") == 17
    assert _printed(_ported(_KWARGS_STREAM)) == langchain_printed


# parrot_link_integration_chat_model: an integration-package chat model whose field is
# declared `model_name: str = Field(alias="model")` (pydantic's alias) and built as
# `ChatParrotLink(model="bird-brain-001", ...)`. LangChain's models take a field by its
# alias; ragline's fields ignored the alias, so the model could not be built ("missing
# required field 'model_name'"). (ragline takes the field's name too; LangChain's chat
# models, without pydantic's populate_by_name, take the alias only.)
_ALIASED_FIELD = """
from typing import Any, List, Optional

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


class EchoModel(BaseChatModel):
    model_name: str = Field(alias="model")
    width: int = Field(default=3, alias="echo_width")
    temperature: Optional[float] = None

    def _generate(self, messages: List[BaseMessage], stop=None, run_manager=None, **kwargs: Any):
        text = f"{self.model_name}:{messages[-1].content[: self.width]}"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    @property
    def _llm_type(self) -> str:
        return "echo"


by_alias = EchoModel(model="bird-brain-001", echo_width=2, temperature=0)
defaults = EchoModel(model="owl-7")
print(by_alias.model_name, by_alias.width, by_alias.temperature, by_alias.invoke("hello").content)
print(defaults.model_name, defaults.width, defaults.temperature, defaults.invoke("hello").content)
try:
    EchoModel(echo_width=1)
except Exception as error:
    print("refused", isinstance(error, (TypeError, ValueError)))
"""


def test_a_field_is_taken_by_its_pydantic_alias_as_langchains() -> None:
    langchain_printed = _printed(_ALIASED_FIELD)
    assert langchain_printed == (
        "bird-brain-001 2 0.0 bird-brain-001:he\nowl-7 3 None owl-7:hel\nrefused True\n"
    )
    assert _printed(_ported(_ALIASED_FIELD)) == langchain_printed


# posthog_callbacks_span_generation_order: FakeMessagesListChatModel imported from
# langchain_community.chat_models.fake, a path the table lacked: the port kept
# LangChain's model, which refused ragline's AIMessage responses.
_COMMUNITY_FAKE_PATH = """
from langchain_community.chat_models.fake import FakeListChatModel, FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate

prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("user", "{q}")])
usage = {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14}
model = FakeMessagesListChatModel(responses=[AIMessage("Dodgers", usage_metadata=usage)])
reply = (prompt | model).invoke({"q": "Who won in 2020?"})
print(reply.content, reply.usage_metadata)
print((prompt | FakeListChatModel(responses=["one"])).invoke({"q": "x"}).content)
"""


def test_the_community_fake_chat_models_path_ports() -> None:
    ported = _ported(_COMMUNITY_FAKE_PATH)
    assert "from ragline.core import FakeListChatModel, FakeMessagesListChatModel\n" in ported
    langchain_printed = _printed(_COMMUNITY_FAKE_PATH)
    assert langchain_printed == (
        "Dodgers {'input_tokens': 10, 'output_tokens': 4, 'total_tokens': 14}\none\n"
    )
    assert _printed(ported) == langchain_printed


# langserve_configurable_agent_executor: format_to_openai_functions (the older name of
# format_to_openai_function_messages) imported from
# langchain_classic.agents.format_scratchpad; ragline lacked the name, so LangChain's
# function built the scratchpad and ragline's prompt refused its messages.
_OLD_SCRATCHPAD_NAME = """
from langchain_classic.agents.format_scratchpad import format_to_openai_functions
from langchain_core.agents import AgentActionMessageLog
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

call = AIMessage("", additional_kwargs={"function_call": {"name": "lookup", "arguments": "{}"}})
action = AgentActionMessageLog(tool="lookup", tool_input={}, log="calling", message_log=[call])
step = (action, [1, 2])
scratchpad = format_to_openai_functions([step])
for message in scratchpad:
    print(type(message).__name__, repr(message.content), getattr(message, "name", None))
prompt = ChatPromptTemplate.from_messages(
    [("user", "{q}"), MessagesPlaceholder("agent_scratchpad")]
)
print(len(prompt.invoke({"q": "find", "agent_scratchpad": scratchpad}).to_messages()))
"""


def test_the_older_openai_functions_scratchpad_name_ports() -> None:
    ported = _ported(_OLD_SCRATCHPAD_NAME)
    assert "from ragline.agents import format_to_openai_functions\n" in ported
    langchain_printed = _printed(_OLD_SCRATCHPAD_NAME)
    assert langchain_printed == "AIMessage '' None\nFunctionMessage '[1, 2]' lookup\n3\n"
    assert _printed(ported) == langchain_printed


# openinference_output_parser_run_type / openinference_prompt_template_spans: a tracer
# written on langchain_core.tracers.base.BaseTracer (its _persist_run keeps the root
# runs). ragline lacked BaseTracer, so the port kept LangChain's, and those programs
# printed the same only because LangChain's tracer read ragline's callbacks.
_TRACER = """
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import JsonOutputParser, StrOutputParser
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.base import BaseTracer


class InMemoryRuns(BaseTracer):
    def __init__(self):
        super().__init__()
        self.finished = []

    def _persist_run(self, run):
        self.finished.append(run)


def show(run, depth=0):
    print("  " * depth + run.name, run.run_type, run.inputs, run.outputs, run.error is not None)
    for child in run.child_runs:
        show(child, depth + 1)


tracer = InMemoryRuns()
print(StrOutputParser().invoke(AIMessage("hello"), config={"callbacks": [tracer]}))
chain = PromptTemplate.from_template("Say {word}") | RunnableLambda(lambda p: p.to_string().upper())
print(chain.invoke({"word": "hi"}, config={"callbacks": [tracer], "run_name": "shout"}))
try:
    JsonOutputParser().invoke("not json", config={"callbacks": [tracer]})
except Exception as error:
    print(type(error).__name__)
print(len(tracer.finished))
for run in tracer.finished:
    show(run)
"""


def test_a_base_tracer_subclass_persists_root_runs_as_langchains() -> None:
    ported = _ported(_TRACER)
    assert "from ragline.core.callbacks import BaseTracer\n" in ported
    langchain_printed = _printed(_TRACER)
    assert langchain_printed.splitlines()[-4:] == [
        "shout chain {'word': 'hi'} {'output': 'SAY HI'} False",
        "  PromptTemplate prompt {'word': 'hi'} {'output': StringPromptValue(text='Say hi')} False",
        "  RunnableLambda chain {'input': StringPromptValue(text='Say hi')} "
        "{'output': 'SAY HI'} False",
        "JsonOutputParser parser {'input': 'not json'} {} True",
    ]
    assert _printed(ported) == langchain_printed


# nakamasato_react_custom_japanese_agent: a ReAct agent whose parser subclasses
# AgentOutputParser (imported from langchain(_classic).agents.agent) to read "行動:
# Tool[input]" lines. ragline lacked AgentOutputParser, so the port kept LangChain's base
# and the program ran only because ragline's agent called its parse().
_AGENT_OUTPUT_PARSER = """
import re

from langchain_classic.agents import AgentExecutor, Tool, ZeroShotAgent
from langchain_classic.agents.agent import AgentOutputParser
from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListLLM


class BracketParser(AgentOutputParser):
    def parse(self, text):
        last = text.strip().split("\\n")[-1]
        match = re.search(r"行動: (.*?)\\[(.*?)\\]", last)
        if match is None:
            raise OutputParserException(f"Could not parse: {text}")
        if match.group(1) == "完了":
            return AgentFinish({"output": match.group(2)}, text)
        return AgentAction(match.group(1), match.group(2), text)


parser = BracketParser()
print(parser.invoke("思考: look\\n行動: Double[21]"))
print(parser.parse("行動: 完了[42]").return_values)
tools = [Tool(name="Double", func=lambda x: str(2 * int(x)), description="Double a number.")]
llm = FakeListLLM(responses=["思考: double it\\n行動: Double[21]", "思考: done\\n行動: 完了[42]"])
agent = ZeroShotAgent.from_llm_and_tools(llm, tools, output_parser=parser)
executor = AgentExecutor.from_agent_and_tools(
    agent=agent, tools=tools, return_intermediate_steps=True
)
result = executor.invoke({"input": "double 21"})
print(result["output"], [(a.tool, a.tool_input, o) for a, o in result["intermediate_steps"]])
"""


def test_an_agent_output_parser_subclass_parses_as_langchains() -> None:
    ported = _ported(_AGENT_OUTPUT_PARSER)
    assert "from ragline.agents import AgentOutputParser\n" in ported
    langchain_printed = _printed(_AGENT_OUTPUT_PARSER)
    assert langchain_printed.splitlines()[1:] == [
        "{'output': '42'}",
        "42 [('Double', '21', '42')]",
    ]
    assert _printed(ported) == langchain_printed


# langserve_configurable_retrieval_example: a VectorStore subclass annotated with VST
# (from langchain_core.vectorstores), the type variable of a store class's own type.
# ragline lacked the name, so the port kept LangChain's import.
_VST_ANNOTATION = """
from typing import Any, List, Optional, Type

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VST, VectorStore


class NamedStore(VectorStore):
    def __init__(self, name: str) -> None:
        self.name = name

    def add_texts(self, texts, metadatas: Optional[List[dict]] = None, **kwargs: Any):
        raise NotImplementedError

    @classmethod
    def from_texts(cls: Type[VST], texts, embedding: Embeddings, metadatas=None, **kwargs) -> VST:
        return cls(name=",".join(texts))

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> List[Document]:
        return [Document(page_content=f"{self.name}:{query}")]


store = NamedStore.from_texts(["a", "b"], embedding=None)
print(type(store).__name__, store.name, VST.__name__, VST.__bound__ is not None)
print(store.similarity_search("q")[0].page_content)
"""


def test_the_store_type_variable_ports() -> None:
    ported = _ported(_VST_ANNOTATION)
    assert "import VST, VectorStore\n" in ported
    langchain_printed = _printed(_VST_ANNOTATION)
    assert langchain_printed == "NamedStore a,b VST True\na,b:q\n"
    assert _printed(ported) == langchain_printed
