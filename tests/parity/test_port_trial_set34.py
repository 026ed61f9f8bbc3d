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


# Programs that save a PromptTemplate and print the file (or read it back as text with
# PromptTemplate.from_file): LangChain writes every field (name, optional_variables,
# output_parser, partial_variables, metadata, tags, validate_template ...) in its field
# order, JSON with non-ASCII text escaped, YAML with keys sorted and non-ASCII escaped;
# ragline wrote a shorter dict, so the printed files differed.
_SAVED_FILES = """
import os
import tempfile

from langchain_core.prompts import PromptTemplate, load_prompt

folder = tempfile.mkdtemp()
prompt = PromptTemplate.from_template(
    "把 {question} 翻译为英文, {style}", tags=["zh"], metadata={"v": 2}
)
jinja = PromptTemplate.from_template("{{ a }} und {{ b }}", template_format="jinja2")
for name, saved in [("p.json", prompt), ("p.yaml", prompt), ("j.yml", jinja)]:
    path = os.path.join(folder, name)
    saved.save(path)
    with open(path, encoding="utf-8") as f:
        print(f.read())
    if saved is prompt:  # LangChain refuses to load a jinja2 prompt
        loaded = load_prompt(path)
        print(loaded.input_variables, loaded.tags, loaded.metadata)
        print(loaded.format(question="你好", style="formal"))
"""


def test_a_saved_prompt_template_file_reads_as_langchains() -> None:
    langchain_printed = _printed(_SAVED_FILES)
    assert '"validate_template": false' in langchain_printed
    assert "\\u628a" in langchain_printed  # the JSON escapes non-ASCII text
    assert _printed(_ported(_SAVED_FILES)) == langchain_printed
