"""Parity: differences found by the twenty-third port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# few_shot_chat_message_prompt_reference: the FewShotChatMessagePromptTemplate docstring
# builds its prompts with ``+`` on message templates (Human + AI as the example prompt,
# System + few-shot + Human as the final prompt); ragline's message templates had no
# ``+`` (TypeError).
_MESSAGE_TEMPLATE_SUM = """
from langchain_core.messages import AIMessage
from langchain_core.prompts import (
    AIMessagePromptTemplate,
    ChatPromptTemplate,
    FewShotChatMessagePromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    SystemMessagePromptTemplate,
)

example_prompt = HumanMessagePromptTemplate.from_template(
    "{input}"
) + AIMessagePromptTemplate.from_template("{output}")
print(type(example_prompt).__name__, example_prompt.input_variables)
few_shot = FewShotChatMessagePromptTemplate(
    examples=[{"input": "2+2", "output": "4"}, {"input": "2+3", "output": "5"}],
    example_prompt=example_prompt,
)
final = (
    SystemMessagePromptTemplate.from_template("You add {kind} numbers")
    + few_shot
    + HumanMessagePromptTemplate.from_template("{input}")
)
print(final.input_variables)
print(final.format_messages(kind="small", input="3+3"))
human = HumanMessagePromptTemplate.from_template("{q}")
print((human + "then {r}").format_messages(q="Q", r="R"))
print((human + [("ai", "ok {r}")]).format_messages(q="Q", r="R"))
print((human + AIMessage(content="fixed")).format_messages(q="Q"))
print((MessagesPlaceholder("history") + human).format_messages(history=[("ai", "hi")], q="Q"))
partial = ChatPromptTemplate.from_messages([("ai", "{a}")]).partial(a="A")
print((human + partial).format_messages(q="Q"))
try:
    few_shot + human
except TypeError as error:
    print("TypeError", error)
"""


def test_a_message_template_plus_a_part_is_a_chat_prompt_as_in_langchain() -> None:
    langchain_printed = _printed(_MESSAGE_TEMPLATE_SUM)
    assert langchain_printed.count("\n") == 9
    assert _printed(_ported(_MESSAGE_TEMPLATE_SUM)) == langchain_printed


# directory_loader_rag_demo_ollama: DirectoryLoader('./data', glob='**/*.txt') over
# data/rag.txt and data/notes/embeddings.txt. LangChain lists a directory's own files
# before its subdirectories' (pathlib's glob order); ragline walked names in order, so
# data/notes/... came first and every printed document and chunk moved. One file and one
# subdirectory per directory here: LangChain's order within a directory is the file
# system's, which no program can rely on.
_DIRECTORY_ORDER = """
import os

from langchain_community.document_loaders import DirectoryLoader, TextLoader

for relative, text in [
    ("data/rag.txt", "top"),
    ("data/notes/embeddings.txt", "middle"),
    ("data/notes/deep/zeta.txt", "bottom"),
]:
    os.makedirs(os.path.dirname(relative), exist_ok=True)
    with open(relative, "w") as f:
        f.write(text)

for glob in ("**/*.txt", "**/[!.]*"):
    documents = DirectoryLoader("./data", glob=glob, loader_cls=TextLoader).load()
    print(glob, [(d.metadata["source"], d.page_content) for d in documents])
"""


def test_a_directorys_own_files_load_before_its_subdirectories_as_in_langchain(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    langchain_printed = _printed(_DIRECTORY_ORDER)
    assert langchain_printed.splitlines()[0] == (
        "**/*.txt [('data/rag.txt', 'top'), ('data/notes/embeddings.txt', 'middle'), "
        "('data/notes/deep/zeta.txt', 'bottom')]"
    )
    assert _printed(_ported(_DIRECTORY_ORDER)) == langchain_printed


# found while checking the cache-backed embedding programs: LangChain's
# DeterministicFakeEmbedding returns numpy float64 numbers, so a printed vector reads
# [np.float64(...), ...]; ragline's gave plain floats ([-1.464, ...]). Its FakeEmbeddings
# already gave numpy numbers.
_FAKE_VECTOR_NUMBERS = """
import asyncio

from langchain_core.embeddings import DeterministicFakeEmbedding

embeddings = DeterministicFakeEmbedding(size=3)
vector = embeddings.embed_query("hi")
print(vector[:2])
print([round(x, 3) for x in embeddings.embed_documents(["hi", "there"])[1]])
print(type(asyncio.run(embeddings.aembed_query("hi"))[0]).__name__)
print(isinstance(vector[0], float), vector == embeddings.embed_documents(["hi"])[0])
"""


def test_deterministic_fake_vectors_print_numpy_numbers_as_in_langchain() -> None:
    langchain_printed = _printed(_FAKE_VECTOR_NUMBERS)
    assert langchain_printed.startswith("[np.float64(-1.4640406984632983), ")
    assert _printed(_ported(_FAKE_VECTOR_NUMBERS)) == langchain_printed
