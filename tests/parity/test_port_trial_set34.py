"""Parity: differences found by the thirty-fourth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# An answer check that streams a model's reply and joins the chunks with
# merge_message_runs(chunks, chunk_separator=""): LangChain hands back the joined run as an
# AIMessage (a chunk standing alone stays a chunk, and a chunk after a joined AIMessage
# continues its run); ragline gave an AIMessageChunk, so the printed list differed.
_STREAMED_RUNS = """
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    HumanMessageChunk,
    merge_message_runs,
)

model = FakeListChatModel(responses=["Yes, it does."])
chunks = list(model.stream("Is the answer on topic?"))
merged = merge_message_runs(chunks, chunk_separator="")
print(len(chunks), [(type(m).__name__, m.content) for m in merged])

single = merge_message_runs([AIMessageChunk(content="alone", id="c1")])
print([(type(m).__name__, m.content) for m in single])

mixed = merge_message_runs(
    [
        AIMessage(content="one", id="a1"),
        AIMessageChunk(content="two"),
        AIMessageChunk(content="three"),
        HumanMessageChunk(content="q1", id="h1"),
        HumanMessage(content="q2"),
        HumanMessageChunk(content="q3"),
    ]
)
print([(type(m).__name__, m.content, m.id) for m in mixed])
"""


def test_merged_message_runs_of_chunks_are_finished_messages_as_langchains() -> None:
    langchain_printed = _printed(_STREAMED_RUNS)
    assert "('AIMessage', 'Yes, it does.')" in langchain_printed
    assert _printed(_ported(_STREAMED_RUNS)) == langchain_printed
