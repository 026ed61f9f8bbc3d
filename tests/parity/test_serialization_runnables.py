"""Parity: ``dumpd`` / ``dumps`` / ``loads`` of chains (langchain_core.load).

The same chains are built with ragline's classes and with LangChain's: sequences (with a
middle and a run name), parallels (given as such and as a dict in a chain),
passthroughs, ``RunnablePassthrough.assign``, ``bind`` / ``with_config`` bindings and
``StrOutputParser``. Each writes LangChain's very JSON; each library reads the other's
text back into a chain that gives the same output. Steps LangChain does not serialize (a
``RunnableLambda``, a function, the fake models) are written as its ``not_implemented``
entries and refused when read back.

Normalised before comparing, and only there: a fake model's ``repr`` (LangChain's model
prints ``metadata={'lc_versions': {...}}``, its own package version, which ragline does
not claim).
"""

from __future__ import annotations

import json
import warnings
from types import SimpleNamespace
from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.output_parsers as lc_parsers
import langchain_core.prompts as lc_prompts
import langchain_core.runnables as lc_runnables
import pytest
from langchain_core.load import dumpd as lc_dumpd
from langchain_core.load import dumps as lc_dumps
from langchain_core.load import loads as lc_loads

import ragline.core as rl
from ragline.core.exceptions import InvalidInputError
from ragline.core.load import dumpd, dumps, load, loads

COVERS = {"core.load.dumpd", "core.load.dumps", "core.load.loads", "core.load.load"}

NAMES = [
    "ChatPromptTemplate",
    "FakeListChatModel",
    "PromptTemplate",
    "RunnableBranch",
    "RunnableLambda",
    "RunnableParallel",
    "RunnablePassthrough",
    "RunnablePick",
    "RunnableSequence",
    "StrOutputParser",
]
LC_MODULES = (lc_runnables, lc_prompts, lc_parsers, lc_models)
RAGLINE = SimpleNamespace(**{name: getattr(rl, name) for name in NAMES})
LANGCHAIN = SimpleNamespace(
    **{name: next(getattr(m, name) for m in LC_MODULES if hasattr(m, name)) for name in NAMES}
)
INPUT = {"language": "Italian", "text": "good morning"}


def shout(value: Any) -> Any:
    return value


def chains(lib: SimpleNamespace) -> dict[str, Any]:
    """The chains of this test, built from one library's classes."""
    prompt = lib.PromptTemplate.from_template("Translate into {language}: {text}")
    chat = lib.ChatPromptTemplate.from_messages(
        [("system", "Translate into {language}"), ("user", "{text}")]
    )
    model = lib.FakeListChatModel(responses=["buongiorno"])
    both = {"language": lib.RunnablePassthrough(), "text": lib.RunnablePassthrough()}
    return {
        "prompt | parser": prompt | lib.StrOutputParser(),
        "prompt | passthrough | parser": prompt | lib.RunnablePassthrough() | lib.StrOutputParser(),
        "named sequence": lib.RunnableSequence(prompt, lib.StrOutputParser(), name="translate"),
        "parallel": lib.RunnableParallel(original=lib.RunnablePassthrough(), prompt=prompt),
        "dict in a chain": both | prompt,
        "assign": lib.RunnablePassthrough.assign(prompt=chat),
        "named passthrough": lib.RunnablePassthrough(name="keep"),
        "with_config": chat.with_config(tags=["t"], run_name="ask"),
        "bind": prompt.bind(stop=["\n"]),
        "bind then with_config": prompt.bind(stop=["\n"]).with_config(tags=["t"]),
        "parallel with_config": lib.RunnableParallel(p=prompt).with_config(run_name="p"),
        "chat | model | parser": chat | model | lib.StrOutputParser(),
        "model bound": model.bind(stop=["."]),
        "lambda | prompt": lib.RunnableLambda(shout) | prompt,
        "lambda in a dict": {"text": shout, "language": lib.RunnablePassthrough()} | prompt,
        "passthrough with a function": lib.RunnablePassthrough(shout),
        "pick": lib.RunnablePick("text"),
        "pick keys": lib.RunnablePassthrough() | lib.RunnablePick(["language", "text"]),
        "each": prompt.map(),
        "branch": lib.RunnableBranch((lib.RunnablePick("language"), prompt), chat),
        "branch on a function": lib.RunnableBranch((shout, prompt), chat),
        "fallbacks": prompt.with_fallbacks([chat]),
        "fallbacks with a key": prompt.with_fallbacks([chat], exception_key="error"),
        "retry": prompt.with_retry(),
        "retry options": chat.with_retry(
            retry_if_exception_type=(ValueError,),
            wait_exponential_jitter=False,
            stop_after_attempt=2,
        ),
        "retry jitter": prompt.with_retry(exponential_jitter_params={"initial": 1}),
    }


# the chains whose output both libraries compute from INPUT (the others: a parser given
# a prompt value, a prompt given bound options)
INVOKED = ["parallel", "assign", "with_config", "parallel with_config", "named passthrough"]
INVOKED += ["pick", "pick keys", "branch"]
# the chains holding a step LangChain writes as not_implemented
UNREADABLE = [
    "chat | model | parser",
    "model bound",
    "lambda | prompt",
    "lambda in a dict",
    "passthrough with a function",
    "branch on a function",
    "fallbacks",  # the exception classes
    "fallbacks with a key",
    "retry",  # the exception classes
    "retry options",
    "retry jitter",
]
# LangChain cannot read its own RunnableBranch entry back (its constructor takes the
# pairs positionally; the loader passes branches=): ragline reads it
LC_UNREADABLE = ["branch"]
OURS = chains(RAGLINE)
THEIRS = chains(LANGCHAIN)


def normalised(data: Any) -> Any:
    """``data`` with a fake model's printed form blanked (see the module docstring)."""
    if isinstance(data, dict):
        if data.get("type") == "not_implemented" and "language_models" in data["id"]:
            return {key: "<model repr>" if key == "repr" else value for key, value in data.items()}
        return {key: normalised(value) for key, value in data.items()}
    if isinstance(data, list):
        return [normalised(item) for item in data]
    return data


def shape(data: Any) -> Any:
    """``data`` with each object other than JSON data replaced by its class name (and a
    fake model's printed form blanked)."""
    if isinstance(data, dict):
        return {key: shape(value) for key, value in normalised(data).items()}
    if isinstance(data, list):
        return [shape(item) for item in data]
    if data is None or isinstance(data, (str, int, float, bool)):
        return data
    return type(data).__name__.split("[")[0]  # a pydantic generic's parameters left out


def lc_read(text: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # beta and allowed_objects notices
        return lc_loads(text, allowed_objects="all")


def output(value: Any) -> Any:
    """What a chain returned, comparable across the libraries (prompt values as text)."""
    if isinstance(value, dict):
        return {key: output(item) for key, item in value.items()}
    if hasattr(value, "to_messages"):
        return [(m.type, m.content) for m in value.to_messages()] + [value.to_string()]
    return value


@pytest.mark.parametrize("label", list(OURS))
def test_dumpd_writes_langchains_json(label: str) -> None:
    ours, theirs = dumpd(OURS[label]), lc_dumpd(THEIRS[label])
    assert normalised(ours) == normalised(theirs)
    assert json.dumps(normalised(ours)) == json.dumps(normalised(theirs))  # key order too


@pytest.mark.parametrize("label", [label for label in OURS if label not in UNREADABLE])
def test_dumps_is_langchains_string(label: str) -> None:
    assert dumps(OURS[label]) == lc_dumps(THEIRS[label])
    assert dumps(OURS[label], pretty=True) == lc_dumps(THEIRS[label], pretty=True)


def test_the_documented_chain_entry() -> None:
    entry = dumpd(OURS["chat | model | parser"])
    assert entry["id"] == ["langchain", "schema", "runnable", "RunnableSequence"]
    assert list(entry["kwargs"]) == ["first", "middle", "last"]
    assert entry["kwargs"]["middle"] == [
        {
            "lc": 1,
            "type": "not_implemented",
            "id": ["langchain_core", "language_models", "fake_chat_models", "FakeListChatModel"],
            "repr": "FakeListChatModel(responses=['buongiorno'])",
            "name": "FakeListChatModel",
        }
    ]
    assert entry["kwargs"]["last"] == {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "output_parser", "StrOutputParser"],
        "kwargs": {},
        "name": "StrOutputParser",
    }
    assert dumpd(OURS["bind"])["kwargs"]["config"] == {}  # written even when empty
    assert "kwargs" not in dumpd(OURS["with_config"])["kwargs"]


@pytest.mark.parametrize("label", [label for label in OURS if label not in UNREADABLE])
def test_either_librarys_text_reads_back_in_both(label: str) -> None:
    from_ours, from_theirs = loads(dumps(OURS[label])), loads(lc_dumps(THEIRS[label]))
    if label in LC_UNREADABLE:
        with pytest.raises(TypeError, match="branches"):
            lc_read(lc_dumps(THEIRS[label]))
        by_them, written_by_them = from_theirs, dumps(from_theirs)
    else:
        by_them = lc_read(dumps(OURS[label]))
        written_by_them = lc_dumps(by_them)
    assert type(from_ours).__name__ == type(from_theirs).__name__ == type(by_them).__name__
    assert type(from_ours).__name__ == type(OURS[label]).__name__
    # read back, each writes what the original wrote
    assert dumps(from_ours) == dumps(from_theirs) == written_by_them == dumps(OURS[label])
    assert dumpd(load(dumpd(OURS[label]))) == dumpd(OURS[label])
    if label in INVOKED:
        expected = output(THEIRS[label].invoke(INPUT))
        assert output(OURS[label].invoke(INPUT)) == expected
        assert output(from_ours.invoke(INPUT)) == expected
        assert output(from_theirs.invoke(INPUT)) == expected
        assert output(by_them.invoke(INPUT)) == expected


def test_read_back_chains_run_as_the_originals() -> None:
    chain = loads(dumps(RAGLINE.RunnablePassthrough.assign(n=OURS["named sequence"])))
    with pytest.raises(InvalidInputError):  # the parser is given a prompt value, as before
        chain.invoke(INPUT)
    binding = loads(lc_dumps(THEIRS["bind then with_config"]))
    assert (binding.kwargs, binding.config) == ({"stop": ["\n"]}, {"tags": ["t"]})
    named = loads(lc_dumps(THEIRS["named sequence"]))
    assert (named.name, named.get_name(), len(named.steps)) == ("translate", "translate", 2)
    middle = loads(lc_dumps(THEIRS["prompt | passthrough | parser"]))
    assert [type(step).__name__ for step in middle.steps] == [
        "PromptTemplate",
        "RunnablePassthrough",
        "StrOutputParser",
    ]
    assert loads(lc_dumps(THEIRS["named passthrough"])).get_name() == "keep"
    each = loads(lc_dumps(THEIRS["each"]))
    assert [output(value) for value in each.invoke([INPUT, INPUT | {"text": "ciao"}])] == [
        output(value) for value in THEIRS["each"].invoke([INPUT, INPUT | {"text": "ciao"}])
    ]


@pytest.mark.parametrize("label", UNREADABLE)
def test_steps_written_without_serialization_are_refused_when_read(label: str) -> None:
    with pytest.raises(NotImplementedError):
        loads(dumps(OURS[label]))
    with pytest.raises(NotImplementedError):
        loads(lc_dumps(THEIRS[label]))
    with pytest.raises(NotImplementedError):
        lc_read(dumps(OURS[label]))


def test_reading_builds_only_known_runnables() -> None:
    entry = dumpd(OURS["parallel"])
    entry["kwargs"]["steps__"]["original"]["id"] = ["os", "system"]
    with pytest.raises(InvalidInputError, match=r"cannot load os\.system"):
        load(entry)
    bound = dumpd(OURS["bind"])
    bound["kwargs"]["bound"] = "print"
    with pytest.raises(InvalidInputError, match="'print' is not a runnable"):
        load(bound)
    with pytest.raises(InvalidInputError, match="not allowed"):
        load(dumpd(OURS["parallel"]), allowed_objects="messages")
    only_prompts = [RAGLINE.PromptTemplate, RAGLINE.RunnableParallel]
    with pytest.raises(InvalidInputError, match="RunnablePassthrough is not allowed"):
        load(dumpd(OURS["parallel"]), allowed_objects=only_prompts)
    # the ids of LangChain's modules read too
    entry = dumpd(OURS["named passthrough"])
    entry["id"] = ["langchain_core", "runnables", "passthrough", "RunnablePassthrough"]
    assert load(entry).get_name() == "keep"


def _pass_on(items: Any) -> Any:
    yield from items


def test_runnables_ragline_does_not_write_yet_are_refused() -> None:
    with pytest.raises(TypeError, match="RunnableGenerator is not supported"):
        dumps(rl.RunnableGenerator(_pass_on))
    with pytest.raises(TypeError, match=r"a with_listeners binding \(config_factories\) is not"):
        dumps(OURS["prompt | parser"].with_listeners(on_start=print))


@pytest.mark.parametrize("label", list(OURS))
def test_serializable_methods_answer_as_langchains(label: str) -> None:
    ours, theirs = OURS[label], THEIRS[label]
    # the entry itself, its keyword arguments still objects (as LangChain's)
    assert shape(ours.to_json()) == shape(theirs.to_json())
    steps, their_steps = [ours], [theirs]
    if isinstance(ours, RAGLINE.RunnableSequence):  # and each step of a sequence
        steps += ours.steps
        their_steps += theirs.steps
    for step, their_step in zip(steps, their_steps, strict=True):
        if type(their_step).__name__ == "RunnableLambda":  # not a Serializable there
            continue
        assert step.is_lc_serializable() == their_step.is_lc_serializable()
        assert type(step).get_lc_namespace() == type(their_step).get_lc_namespace()
        assert type(step).lc_id() == type(their_step).lc_id()


def blank_reprs(data: Any) -> Any:
    """``data`` with the printed form of each runnable LangChain does not serialize but
    names (a retriever: LangChain's prints its store object and tags) blanked."""
    if isinstance(data, dict):
        if data.get("type") == "not_implemented" and "name" in data:
            return {key: "<repr>" if key == "repr" else value for key, value in data.items()}
        return {key: blank_reprs(value) for key, value in data.items()}
    if isinstance(data, list):
        return [blank_reprs(item) for item in data]
    return data


def rag_chain(lib: SimpleNamespace, store: Any, retriever_base: Any, document: Any) -> Any:
    class KeywordRetriever(retriever_base):  # type: ignore[misc, valid-type]
        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> Any:
            return [document(page_content=query)]

    prompt = lib.PromptTemplate.from_template("{context} / {extra} / {question}")
    steps = {
        "context": store.as_retriever(),
        "extra": KeywordRetriever(),
        "question": lib.RunnablePassthrough(),
    }
    return steps | prompt | lib.StrOutputParser()


def test_a_rag_chain_writes_its_retrievers_as_langchain() -> None:
    from langchain_core.documents import Document as LCDocument
    from langchain_core.embeddings import DeterministicFakeEmbedding as LCFakeEmbedding
    from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
    from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=4))
    ours = rag_chain(RAGLINE, store, rl.BaseRetriever, rl.Document)
    their_store = LCInMemoryVectorStore(LCFakeEmbedding(size=4))
    theirs = rag_chain(LANGCHAIN, their_store, LCBaseRetriever, LCDocument)
    assert blank_reprs(dumpd(ours)) == blank_reprs(lc_dumpd(theirs))
    steps = dumpd(ours)["kwargs"]["first"]["kwargs"]["steps__"]
    assert steps["context"] == {
        "lc": 1,
        "type": "not_implemented",
        "id": ["langchain_core", "vectorstores", "base", "VectorStoreRetriever"],
        "repr": repr(ours.first.steps["context"]),
        "name": "VectorStoreRetriever",
    }
    # a retriever written in the program: its own module and class name
    assert steps["extra"]["id"] == [*__name__.split("."), "KeywordRetriever"]
    assert steps["extra"]["name"] == "KeywordRetriever"
    with pytest.raises(NotImplementedError):
        loads(dumps(ours))
    with pytest.raises(NotImplementedError):
        loads(lc_dumps(theirs))


def test_a_retry_entry_without_exception_classes_reads_back() -> None:
    entry = dumpd(OURS["retry options"])
    del entry["kwargs"]["retry_exception_types"]  # the part neither library reads
    retry = load(entry)
    assert (type(retry).__name__, retry.stop_after_attempt) == ("RunnableRetry", 2)
    assert (retry.wait_exponential_jitter, retry.retry_exception_types) == (False, (Exception,))
    assert output(retry.invoke(INPUT)) == output(THEIRS["retry options"].invoke(INPUT))
    entry["kwargs"]["config"] = {"tags": ["t"]}
    with pytest.raises(InvalidInputError, match="config"):
        load(entry)
