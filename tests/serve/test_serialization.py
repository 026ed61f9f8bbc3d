"""What goes on the wire: every ragline type in LangServe's JSON shape, and back."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from ragline.core import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AgentStep,
    AIMessage,
    AIMessageChunk,
    ChatGeneration,
    ChatGenerationChunk,
    ChatMessage,
    ChatMessageChunk,
    ChatPromptValue,
    Document,
    FunctionMessage,
    FunctionMessageChunk,
    Generation,
    GenerationChunk,
    HumanMessage,
    HumanMessageChunk,
    InvalidInputError,
    LLMResult,
    RunInfo,
    StringPromptValue,
    SystemMessage,
    SystemMessageChunk,
    ToolAgentAction,
    ToolMessage,
    ToolMessageChunk,
)
from ragline.serve import dumpd, loadd

CALL = {"name": "search", "args": {"query": "etna"}, "id": "call-1", "type": "tool_call"}
VALUES = [
    Document("Etna erupts.", metadata={"source": "etna.txt", "start_index": 40}, id="d1"),
    Document("no id"),
    HumanMessage("hi", id="m1", name="ann"),
    AIMessage(
        "",
        tool_calls=[CALL],
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    ),
    AIMessage("Paris", response_metadata={"finish_reason": "stop"}),
    SystemMessage("be brief"),
    ChatMessage("hello", role="wizard"),
    ToolMessage("42", tool_call_id="call-1", artifact={"rows": [1, 2]}),
    FunctionMessage("42", name="add"),
    AIMessageChunk(
        "Par", tool_call_chunks=[{"name": "search", "args": '{"q', "id": "c", "index": 0}]
    ),
    HumanMessageChunk("h"),
    SystemMessageChunk("s"),
    ChatMessageChunk("c", role="wizard"),
    ToolMessageChunk("4", tool_call_id="call-1"),
    FunctionMessageChunk("4", name="add"),
    AgentAction("search", {"query": "etna"}, "I will search"),
    AgentActionMessageLog("search", "etna", "log", message_log=[AIMessage("", tool_calls=[CALL])]),
    ToolAgentAction(
        "search", {"query": "etna"}, "log", message_log=[AIMessage("x")], tool_call_id="call-1"
    ),
    AgentFinish({"output": "Etna is a volcano."}, "Final Answer: Etna is a volcano."),
    AgentStep(AgentAction("search", "etna", "log"), "Etna erupts."),
    AgentStep(AgentAction("search", "etna", "log"), [Document("Etna erupts.")]),
    Generation("Paris", generation_info={"finish_reason": "stop"}),
    GenerationChunk("Par"),
    ChatGeneration(message=AIMessage("Paris")),
    ChatGenerationChunk(message=AIMessageChunk("Par")),
    LLMResult(
        generations=[[Generation("a")], [ChatGeneration(message=AIMessage("b"))]],
        llm_output={"token_usage": {"total_tokens": 3}},
        run=[RunInfo(uuid.UUID("0b801f5f-e257-4ac2-bb69-0b5e309ff72c"))],
    ),
    StringPromptValue("Tell me about Etna"),
    ChatPromptValue([SystemMessage("be brief"), HumanMessage("Etna?")]),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_every_ragline_type_comes_back_as_itself(value: Any) -> None:
    """What the server writes, the client reads back: same type, equal value, through
    real JSON text (tuples, None and nesting included)."""
    wire = json.loads(json.dumps(dumpd(value)))
    back = loadd(wire)
    assert type(back) is type(value)
    assert back == value


def test_values_nest_at_any_depth() -> None:
    value = {
        "answer": "Paris",
        "context": [Document("a", id="1"), Document("b", id="2")],
        "chat_history": [HumanMessage("q"), AIMessage("a")],
        "steps": [(AgentAction("t", "x", "l"), "obs")],  # tuples become lists
    }
    back = loadd(json.loads(json.dumps(dumpd(value))))
    assert back == {**value, "steps": [[AgentAction("t", "x", "l"), "obs"]]}


def test_shapes_are_langchains() -> None:
    """The JSON is what langchain-core's model_dump() (and so LangServe) writes."""
    assert dumpd(Document("x", metadata={"a": 1}, id="d")) == {
        "id": "d",
        "metadata": {"a": 1},
        "page_content": "x",
        "type": "Document",
    }
    assert dumpd(AIMessage("", tool_calls=[CALL])) == {
        "content": "",
        "additional_kwargs": {},
        "response_metadata": {},
        "type": "ai",
        "name": None,
        "id": None,
        "tool_calls": [CALL],
        "invalid_tool_calls": [],
        "usage_metadata": None,
    }
    assert dumpd(AgentAction("t", "x", "l")) == {
        "tool": "t",
        "tool_input": "x",
        "log": "l",
        "type": "AgentAction",
    }
    # LangChain tags a tool-call action AgentActionMessageLog, with its tool_call_id
    assert dumpd(ToolAgentAction("t", "x", "l", tool_call_id="c"))["type"] == (
        "AgentActionMessageLog"
    )


def test_langchain_core_dumps_load_as_ragline_types() -> None:
    """JSON from LangChain objects (a LangServe server's output) loads as ragline's."""
    lc_documents = pytest.importorskip("langchain_core.documents")
    lc_messages = pytest.importorskip("langchain_core.messages")
    lc_agents = pytest.importorskip("langchain_core.agents")
    dumped = [
        lc_documents.Document(page_content="x", metadata={"a": 1}, id="d").model_dump(),
        lc_messages.AIMessage(content="hi", tool_calls=[CALL]).model_dump(),
        lc_messages.AIMessageChunk(content="h").model_dump(),
        lc_messages.ToolMessage(content="42", tool_call_id="c").model_dump(),
        lc_agents.AgentFinish(return_values={"output": "o"}, log="l").model_dump(),
    ]
    assert loadd(json.loads(json.dumps(dumped))) == [
        Document("x", metadata={"a": 1}, id="d"),
        AIMessage("hi", tool_calls=[CALL]),
        AIMessageChunk("h"),
        ToolMessage("42", tool_call_id="c"),
        AgentFinish({"output": "o"}, "l"),
    ]


def test_pydantic_models_are_sent_as_their_json() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Answer(pydantic.BaseModel):
        text: str
        sources: list[str]

    assert dumpd({"parsed": Answer(text="Paris", sources=["a.txt"])}) == {
        "parsed": {"text": "Paris", "sources": ["a.txt"]}
    }


def test_dicts_that_only_look_like_a_type_stay_dicts() -> None:
    """A user's dict with a ``type`` key is not turned into an object unless it fits."""
    assert loadd({"type": "Document", "text": "no page_content"}) == {
        "type": "Document",
        "text": "no page_content",
    }
    assert loadd({"type": "ai"}) == AIMessage("")  # LangChain's content default is ""
    assert loadd({"type": "volcano", "name": "Etna"}) == {"type": "volcano", "name": "Etna"}


def test_values_without_json_form_are_refused_by_name() -> None:
    with pytest.raises(InvalidInputError, match="cannot send a function as JSON"):
        dumpd({"callback": lambda x: x})


def test_llm_results_keep_their_run_ids() -> None:
    """LLMResult equality leaves ``run`` aside: check it by itself."""
    run_id = uuid.UUID("0b801f5f-e257-4ac2-bb69-0b5e309ff72c")
    value = LLMResult(generations=[[Generation("a")]], run=[RunInfo(run_id)])
    wire = json.loads(json.dumps(dumpd(value)))
    assert wire["run"] == [{"run_id": str(run_id)}]
    assert loadd(wire).run == [RunInfo(run_id)]
    assert loadd(dumpd(LLMResult(generations=[]))).run is None
