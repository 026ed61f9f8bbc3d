"""Spans of runs in process: the span tree is the run tree, GenAI attributes, content
capture off and on, errors, and turning tracing on and off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from typing import Any

import pytest
from opentelemetry.trace import SpanKind, StatusCode

import ragline.tools
import ragline.tracing
from ragline.agents import AgentExecutor, create_tool_calling_agent
from ragline.chains import create_retrieval_chain, create_stuff_documents_chain
from ragline.core import (
    AIMessage,
    ChatPromptTemplate,
    ConfigurationError,
    FakeListChatModel,
    FakeMessagesListChatModel,
    MessagesPlaceholder,
    RunCollectorCallbackHandler,
    RunnableLambda,
    StrOutputParser,
)
from ragline.core.callbacks import manager
from ragline.embeddings import Embeddings, HashingEmbeddings
from ragline.vectorstores import InMemoryVectorStore
from tests.agents._math_tools import add, multiply

from .conftest import Traced

TEXTS = ["cats purr", "dogs bark", "mars is red"]
ANSWER_PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer from: {context}"), ("human", "{input}")]
)


def retrieval_chain(answer: str = "They purr.") -> Any:
    store = InMemoryVectorStore.from_texts(
        TEXTS, HashingEmbeddings(dimension=16), ids=["c", "d", "m"]
    )
    model = FakeListChatModel(responses=[answer])
    return create_retrieval_chain(
        store.as_retriever(search_kwargs={"k": 2}),
        create_stuff_documents_chain(model, ANSWER_PROMPT),
    )


def test_retrieval_chain_spans_form_the_run_tree(traced: Traced) -> None:
    assert retrieval_chain().invoke({"input": "cats purr"})["answer"] == "They purr."
    assert traced.tree() == [
        ("embeddings", []),  # building the store, outside any run
        ("retrieval_chain", [
            ("RunnableAssign<context>", [
                ("RunnableParallel<context>", [
                    ("retrieve_documents", [
                        ("RunnableLambda", []), ("retrieval", [("embeddings", [])]),
                    ]),
                ]),
            ]),
            ("RunnableAssign<answer>", [
                ("RunnableParallel<answer>", [
                    ("stuff_documents_chain", [
                        ("format_inputs", [
                            ("RunnableParallel<context>", [("format_docs", [])]),
                        ]),
                        ("ChatPromptTemplate", []),
                        ("chat FakeListChatModel", []),
                        ("StrOutputParser", []),
                    ]),
                ]),
            ]),
        ]),
    ]  # fmt: skip
    spans = [span for span in traced.spans if span.parent is not None or span.name != "embeddings"]
    assert len({span.context.trace_id for span in spans}) == 1
    retrieval = traced.named("retrieval")
    assert retrieval.kind == SpanKind.INTERNAL
    # hashing vectors: "cats purr" is itself (cosine 1.0); "mars is red" comes second
    documents = json.loads(retrieval.attributes["gen_ai.retrieval.documents"])
    assert [d["id"] for d in documents] == ["c", "m"]
    assert documents[0]["score"] == 1.0 and 0 < documents[1]["score"] < 1
    assert dict(retrieval.attributes) == {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.retrieval.top_k": 2,
        "gen_ai.retrieval.documents": retrieval.attributes["gen_ai.retrieval.documents"],
        "ragline.retrieval.search_type": "similarity",
        "ragline.retrieval.score_type": "native",  # InMemoryVectorStore: cosine similarity
        "ragline.run.type": "retriever",
        "ragline.run.name": "VectorStoreRetriever",
        "ragline.run.id": retrieval.attributes["ragline.run.id"],
    }
    model = traced.named("chat FakeListChatModel")
    assert model.kind == SpanKind.CLIENT
    assert model.attributes["gen_ai.operation.name"] == "chat"
    assert model.attributes["gen_ai.provider.name"] == "fake-list-chat-model"
    assert traced.named("StrOutputParser").attributes["ragline.run.type"] == "parser"
    assert traced.named("ChatPromptTemplate").attributes["ragline.run.type"] == "prompt"


def test_span_ids_are_the_run_ids_of_the_same_tree(traced: Traced) -> None:
    """The spans read the one run tree: each span's ragline.run.id is a run the run
    collector saw, and a span's parent span is its run's parent run."""
    collector = RunCollectorCallbackHandler()
    retrieval_chain().invoke({"input": "dogs"}, config={"callbacks": [collector]})
    runs: dict[str, Any] = {}

    def walk(run: Any) -> None:
        runs[str(run.id)] = run
        for child in run.children:
            walk(child)

    for root in collector.traced_runs:
        walk(root)
    by_span = {span.context.span_id: span for span in traced.spans}
    run_spans = [span for span in traced.spans if span.name != "embeddings"]
    assert sorted(runs) == sorted(span.attributes["ragline.run.id"] for span in run_spans)
    # embeddings make no runs: their spans hang under the run that embedded (or none)
    embedding_parents = sorted(
        by_span[span.parent.span_id].name if span.parent else "-"
        for span in traced.spans
        if span.name == "embeddings"
    )
    assert embedding_parents == ["-", "retrieval"]
    for span in run_spans:
        run = runs[span.attributes["ragline.run.id"]]
        parent = by_span[span.parent.span_id].attributes["ragline.run.id"] if span.parent else None
        assert parent == (str(run.parent_run_id) if run.parent_run_id else None)


AGENT_PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "You are a helpful assistant"),
        ("human", "{input}"),
        MessagesPlaceholder("agent_scratchpad"),
    ]
)


def test_tool_calling_agent_spans(traced: Traced) -> None:
    first = AIMessage(
        "",
        tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}],
        usage_metadata={"input_tokens": 21, "output_tokens": 9, "total_tokens": 30},
        response_metadata={"finish_reason": "tool_calls", "model_name": "scripted-1"},
    )
    final = AIMessage(
        "3.",
        usage_metadata={"input_tokens": 40, "output_tokens": 2, "total_tokens": 42},
        response_metadata={"finish_reason": "stop", "model_name": "scripted-1"},
    )
    model = FakeMessagesListChatModel(responses=[first, final])
    agent = create_tool_calling_agent(model, [add, multiply], AGENT_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[add, multiply])
    assert executor.invoke({"input": "1 + 2?"})["output"] == "3."
    step = ("RunnableSequence", [
        ("RunnableAssign<agent_scratchpad>", [
            ("RunnableParallel<agent_scratchpad>", [("RunnableLambda", [])]),
        ]),
        ("ChatPromptTemplate", []),
        ("chat FakeMessagesListChatModel", []),
        ("ToolsAgentOutputParser", []),
    ])  # fmt: skip
    assert traced.tree() == [("invoke_agent AgentExecutor", [step, ("execute_tool add", []), step])]
    root = traced.named("invoke_agent AgentExecutor")
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.agent.name"] == "AgentExecutor"
    tool = traced.named("execute_tool add")
    assert {key: tool.attributes[key] for key in tool.attributes if key != "ragline.run.id"} == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Adds a and b.",
        "gen_ai.tool.call.id": "c1",
    }
    calls = sorted(
        (s for s in traced.spans if s.name == "chat FakeMessagesListChatModel"),
        key=lambda span: span.start_time,
    )
    assert [
        (
            s.attributes["gen_ai.usage.input_tokens"],
            s.attributes["gen_ai.usage.output_tokens"],
            tuple(s.attributes["gen_ai.response.finish_reasons"]),
            s.attributes["gen_ai.response.model"],
        )
        for s in calls
    ] == [(21, 9, ("tool_calls",), "scripted-1"), (40, 2, ("stop",), "scripted-1")]
    assert "gen_ai.input.messages" not in calls[0].attributes  # content is off by default


def tool_calling_executor(*calls: tuple[str, dict[str, Any], str]) -> AgentExecutor:
    """An executor whose scripted model calls ``calls`` (name, args, id) in one round,
    then answers 'done.'."""
    first = AIMessage(
        "", tool_calls=[{"name": name, "args": args, "id": id_} for name, args, id_ in calls]
    )
    model = FakeMessagesListChatModel(responses=[first, AIMessage("done.")])
    agent = create_tool_calling_agent(model, [add, multiply], AGENT_PROMPT)
    return AgentExecutor(agent=agent, tools=[add, multiply])


def test_each_tool_span_has_its_tool_call_id(traced: Traced) -> None:
    executor = tool_calling_executor(
        ("add", {"a": 1, "b": 2}, "call_a"), ("multiply", {"a": 3, "b": 4}, "call_m")
    )
    assert executor.invoke({"input": "both"})["output"] == "done."
    assert traced.named("execute_tool add").attributes["gen_ai.tool.call.id"] == "call_a"
    assert traced.named("execute_tool multiply").attributes["gen_ai.tool.call.id"] == "call_m"


async def test_async_tool_spans_have_their_tool_call_ids(traced: Traced) -> None:
    executor = tool_calling_executor(
        ("add", {"a": 1, "b": 2}, "call_a"), ("multiply", {"a": 3, "b": 4}, "call_m")
    )
    assert (await executor.ainvoke({"input": "both"}))["output"] == "done."
    assert traced.named("execute_tool add").attributes["gen_ai.tool.call.id"] == "call_a"
    assert traced.named("execute_tool multiply").attributes["gen_ai.tool.call.id"] == "call_m"


def test_the_tool_call_id_is_the_tool_runs_own_metadata() -> None:
    """The executor gives the id to the tool run only: a run inside the tool lacks it."""
    inner = RunnableLambda(lambda x: x, name="inside")

    @ragline.tools.tool
    def echo(text: str) -> str:
        """Echo the text."""
        return str(inner.invoke(text))

    first = AIMessage("", tool_calls=[{"name": "echo", "args": {"text": "hi"}, "id": "call_e"}])
    model = FakeMessagesListChatModel(responses=[first, AIMessage("done.")])
    agent = create_tool_calling_agent(model, [echo], AGENT_PROMPT)
    collector = RunCollectorCallbackHandler()
    AgentExecutor(agent=agent, tools=[echo]).invoke(
        {"input": "echo"}, config={"callbacks": [collector], "metadata": {"user": "u1"}}
    )
    runs = {run.name: run for run in collector.traced_runs}
    tool_run = next(run for run in runs["AgentExecutor"].children if run.name == "echo")
    assert tool_run.metadata == {"user": "u1", "tool_call_id": "call_e"}
    (inside,) = tool_run.children
    assert (inside.name, inside.metadata) == ("inside", {"user": "u1"})


def test_a_renamed_executor_is_still_an_agent(traced: Traced) -> None:
    executor = tool_calling_executor(("add", {"a": 1, "b": 2}, "call_a"))
    renamed = executor.with_config(run_name="helpdesk")
    assert renamed.invoke({"input": "1 + 2?"})["output"] == "done."
    root = traced.named("invoke_agent helpdesk")
    assert root.parent is None
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.agent.name"] == "helpdesk"
    assert traced.named("execute_tool add").parent.span_id == root.context.span_id


def test_a_chain_named_like_an_agent_is_no_agent(traced: Traced) -> None:
    RunnableLambda(lambda x: x, name="AgentExecutor").invoke(1)
    span = traced.named("AgentExecutor")
    assert "gen_ai.operation.name" not in span.attributes


def test_content_is_off_by_default(traced: Traced) -> None:
    retrieval_chain().invoke({"input": "cats purr"})
    for span in traced.spans:
        for key in span.attributes:
            assert key not in (
                "gen_ai.input.messages",
                "gen_ai.output.messages",
                "gen_ai.retrieval.query.text",
                "ragline.input",
                "ragline.output",
            ), (span.name, key)
        assert "cats purr" not in json.dumps(dict(span.attributes)), span.name
        assert "They purr." not in json.dumps(dict(span.attributes)), span.name


def test_content_capture_records_messages_query_and_passages(
    traced_with_content: Traced,
) -> None:
    traced = traced_with_content
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        retrieval_chain().invoke({"input": "cats purr"})
    # a message's text is read, not called (calling it is deprecated, and warned)
    assert [str(warning.message) for warning in caught] == []
    retrieval = traced.named("retrieval")
    assert retrieval.attributes["gen_ai.retrieval.query.text"] == "cats purr"
    documents = json.loads(retrieval.attributes["gen_ai.retrieval.documents"])
    assert [(d["id"], d["content"]) for d in documents] == [
        ("c", "cats purr"),
        ("m", "mars is red"),
    ]
    model = traced.named("chat FakeListChatModel")
    context = "Answer from: cats purr\n\nmars is red"
    assert json.loads(model.attributes["gen_ai.input.messages"]) == [
        {"role": "system", "parts": [{"type": "text", "content": context}]},
        {"role": "user", "parts": [{"type": "text", "content": "cats purr"}]},
    ]
    assert json.loads(model.attributes["gen_ai.output.messages"]) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "They purr."}]}
    ]
    assert json.loads(traced.named("retrieval_chain").attributes["ragline.input"]) == {
        "input": "cats purr"
    }
    assert traced.named("StrOutputParser").attributes["ragline.output"] == "They purr."


def test_tool_arguments_and_result_are_content(traced_with_content: Traced) -> None:
    add.invoke({"args": {"a": 2, "b": 5}, "id": "call_9", "name": "add", "type": "tool_call"})
    span = traced_with_content.named("execute_tool add")
    assert span.attributes["gen_ai.tool.call.id"] == "call_9"
    assert json.loads(span.attributes["gen_ai.tool.call.arguments"]) == {"a": 2, "b": 5}
    assert span.attributes["gen_ai.tool.call.result"] == "7"


def test_a_failing_run_ends_its_span_with_the_error(traced: Traced) -> None:
    def fail(_: Any) -> None:
        raise KeyError("no such passage")

    chain = RunnableLambda(lambda x: x, name="first") | RunnableLambda(fail, name="fail")
    with pytest.raises(KeyError):
        chain.invoke(1)
    assert traced.tree() == [("RunnableSequence", [("first", []), ("fail", [])])]
    for name in ("fail", "RunnableSequence"):
        span = traced.named(name)
        assert span.status.status_code == StatusCode.ERROR
        assert span.status.description == "KeyError: 'no such passage'"
        assert span.attributes["error.type"] == "KeyError"
        assert [event.name for event in span.events] == ["exception"]
    assert traced.named("first").status.status_code == StatusCode.UNSET


async def test_async_runs_and_streams_make_the_same_tree(traced: Traced) -> None:
    chain = ANSWER_PROMPT | FakeListChatModel(responses=["a b c"]) | StrOutputParser()
    chunks = [chunk async for chunk in chain.astream({"context": "x", "input": "y"})]
    assert "".join(chunks) == "a b c"
    assert await chain.ainvoke({"context": "x", "input": "y"}) == "a b c"
    tree = (
        "RunnableSequence",
        [("ChatPromptTemplate", []), ("chat FakeListChatModel", []), ("StrOutputParser", [])],
    )
    assert traced.tree() == [tree, tree]


def test_disable_stops_tracing_and_configure_replaces(traced: Traced) -> None:
    RunnableLambda(lambda x: x, name="traced").invoke(1)
    ragline.tracing.disable()
    assert manager._default_handlers == ()
    RunnableLambda(lambda x: x, name="untraced").invoke(1)
    assert [span.name for span in traced.spans] == ["traced"]
    again = Traced()
    again2 = Traced()  # a second configure replaces the first: one handler, not two
    assert manager._default_handlers == (again2.handler,)
    RunnableLambda(lambda x: x, name="later").invoke(1)
    assert (again.spans, [s.name for s in again2.spans]) == ([], ["later"])


def test_capture_content_must_be_a_bool() -> None:
    with pytest.raises(ConfigurationError, match="capture_content must be True or False"):
        ragline.tracing.configure(capture_content="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RAGLINE_TRACING": "jaeger"}, "RAGLINE_TRACING='jaeger' is not one of 'otel', 'off'"),
        (
            {"RAGLINE_TRACING": "otel", "OTEL_TRACES_EXPORTER": "zipkin"},
            "OTEL_TRACES_EXPORTER names 'zipkin'; ragline knows 'otlp', 'console', 'none'",
        ),
        (
            {"RAGLINE_TRACING": "otel", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
            "OTLP protocol 'http/json' is not 'http/protobuf' or 'grpc' "
            "(OTEL_EXPORTER_OTLP_PROTOCOL)",
        ),
        (
            {
                "RAGLINE_TRACING": "otel",
                "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "maybe",
            },
            "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT='maybe' is not 'true' or 'false'",
        ),
    ],
)
def test_bad_environment_is_a_clear_error_at_import(env: dict[str, str], message: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import ragline"],
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 1
    assert (
        result.stderr.strip().splitlines()[-1]
        == f"ragline.core.exceptions.ConfigurationError: {message}"
    )


def test_tracing_env_off_loads_no_opentelemetry() -> None:
    code = (
        "import sys, ragline, ragline.core, ragline.tracing\n"
        "from ragline.core import RunnableLambda\n"
        "RunnableLambda(lambda x: x).invoke(1)\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    for value in ("", "off"):
        result = subprocess.run(
            [sys.executable, "-c", code],
            env={"PATH": "/usr/bin:/bin", "RAGLINE_TRACING": value},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        assert result.stdout.strip() == "[]"


def test_the_public_names() -> None:
    assert ragline.tracing.__all__ == [
        "CAPTURE_CONTENT_ENV",
        "OpenTelemetryTracer",
        "ServerSpan",
        "TRACING_ENV",
        "configure",
        "configure_from_environment",
        "current_tracer",
        "disable",
    ]


def test_traced_search_warns_no_more_than_untraced(traced: Traced) -> None:
    """Unit vectors far apart under FAISS's default L2 distance have relevances below 0,
    which a relevance search clips with a warning: tracing reports the native distances
    instead, so a traced retriever warns exactly as an untraced one (not at all)."""
    import warnings

    from ragline.vectorstores import FAISS

    store = FAISS.from_embeddings(
        [("east", [1.0, 0.0]), ("west", [-1.0, 0.0])], _TableEmbeddings(), ids=["e", "w"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = store.as_retriever(search_kwargs={"k": 2}).invoke("east")
    assert [document.id for document in found] == ["e", "w"]
    span = traced.named("retrieval")
    assert json.loads(span.attributes["gen_ai.retrieval.documents"]) == [
        {"id": "e", "score": 0.0},
        {"id": "w", "score": 4.0},  # squared L2 distance of opposite unit vectors
    ]
    assert span.attributes["ragline.retrieval.score_type"] == "native"


def test_a_score_threshold_search_reports_relevances(traced: Traced) -> None:
    store = InMemoryVectorStore.from_texts(
        TEXTS, HashingEmbeddings(dimension=16), ids=["c", "d", "m"]
    )
    retriever = store.as_retriever(
        search_type="similarity_score_threshold",
        search_kwargs={"k": 3, "score_threshold": 0.99},
    )
    assert [document.id for document in retriever.invoke("cats purr")] == ["c"]
    span = traced.named("retrieval")
    assert json.loads(span.attributes["gen_ai.retrieval.documents"]) == [{"id": "c", "score": 1.0}]
    assert span.attributes["ragline.retrieval.score_type"] == "relevance"
    assert span.attributes["gen_ai.retrieval.top_k"] == 3


class _TableEmbeddings(Embeddings):
    """Two fixed 2-d vectors by text."""

    def embed_query(self, text: str) -> list[float]:
        return {"east": [1.0, 0.0], "west": [-1.0, 0.0]}[text]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]


def test_the_console_exporter_writes_on_stderr_only() -> None:
    """stdout is a command's output (and MCP's stdio channel): spans never go there."""
    code = (
        "from ragline.core import RunnableLambda\n"
        "print(RunnableLambda(lambda x: x + 1, name='add_one').invoke(1))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "RAGLINE_TRACING": "otel", "OTEL_TRACES_EXPORTER": "console"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert result.stdout == "2\n"
    assert json.loads(result.stderr)["name"] == "add_one"
