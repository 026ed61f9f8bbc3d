"""The Embeddings interface: its defaults, its validation, and the package surface."""

from __future__ import annotations

import asyncio
import doctest
import importlib
import json
import subprocess
import sys
from collections.abc import Sequence

import numpy as np
import pytest

import ragline.embeddings
from ragline.core import DimensionError, InvalidInputError
from ragline.embeddings import Embeddings, check_texts, validate_embeddings


class FixedEmbeddings(Embeddings):
    """Returns whatever it is told to, to drive the interface's checks."""

    def __init__(self, documents: object, query: object = None) -> None:
        self.documents = documents
        self.query = query
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return self.documents  # type: ignore[return-value]

    def embed_query(self, text: str) -> list[float]:
        return self.query  # type: ignore[return-value]


def test_public_names_are_pinned() -> None:
    assert ragline.embeddings.__all__ == [
        "CacheBackedEmbeddings",
        "DeterministicFakeEmbedding",
        "Embeddings",
        "FakeEmbeddings",
        "HashingEmbeddings",
        "HuggingFaceBgeEmbeddings",
        "HuggingFaceEmbeddings",
        "OpenAIEmbeddings",
        "SentenceTransformerEmbeddings",
        "check_same_vectors",
        "check_texts",
        "describe_identity",
        "validate_embeddings",
    ]
    for name in ragline.embeddings.__all__:
        assert getattr(ragline.embeddings, name).__name__ == name


def test_importing_every_name_loads_no_heavy_package() -> None:
    """Every public name resolves without importing torch, sentence_transformers or openai."""
    script = (
        "import json, sys, ragline.embeddings as e\n"
        "for name in e.__all__: getattr(e, name)\n"
        "heavy = ['torch', 'sentence_transformers', 'transformers', 'openai', 'httpx']\n"
        "print(json.dumps(sorted(m for m in heavy if m in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300
    )
    assert json.loads(result.stdout) == []


def test_embeddings_is_abstract() -> None:
    with pytest.raises(TypeError, match="abstract"):
        Embeddings()  # type: ignore[abstract]


def test_default_array_path_wraps_the_list_method() -> None:
    embeddings = FixedEmbeddings([[1.0, 2.0], [3.0, 4.0]], query=[0.5, 0.25])
    matrix = embeddings.embed_documents_array(("a", "b"))
    assert matrix.dtype == np.float32
    assert matrix.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert embeddings.calls == [["a", "b"]]  # a plain list reaches the user's method
    assert embeddings.embed_queries_array(["x", "y"]).tolist() == [[0.5, 0.25], [0.5, 0.25]]


def test_default_array_path_on_empty_input_does_not_call_the_model() -> None:
    embeddings = FixedEmbeddings([[1.0]])
    assert embeddings.embed_documents_array([]).shape == (0, 0)
    assert embeddings.calls == []


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        ([[1.0, 2.0]], r"FixedEmbeddings returned 1 vectors for 2 texts"),
        ([[1.0, 2.0], [1.0]], r"FixedEmbeddings returned vectors of different dimensions \[1, 2\]"),
        ([[1.0, float("nan")], [0.0, 1.0]], r"NaN or infinite values \(row 0\)"),
        ([[1.0, 0.0], [float("inf"), 1.0]], r"NaN or infinite values \(row 1\)"),
        ([1.0, 2.0], r"shape \(2,\); expected \(2, dimension\)"),
        ([[], []], r"empty vectors"),
    ],
)
def test_malformed_model_output_raises_dimension_error(returned: object, message: str) -> None:
    """A model returning the wrong shape or NaN gets a DimensionError that says so."""
    with pytest.raises(DimensionError, match=message):
        FixedEmbeddings(returned).embed_documents_array(["a", "b"])


def test_nan_query_raises_dimension_error() -> None:
    with pytest.raises(DimensionError, match="NaN"):
        FixedEmbeddings([], query=[float("nan")]).embed_queries_array(["q"])


def test_validate_embeddings_expected_dimension_and_contiguity() -> None:
    fortran = np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3))
    checked = validate_embeddings(fortran, expected_rows=2, expected_dimension=3)
    assert checked.dtype == np.float32 and checked.flags["C_CONTIGUOUS"]
    assert checked.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    with pytest.raises(DimensionError, match="dimension 3; expected 4"):
        validate_embeddings(fortran, expected_rows=2, expected_dimension=4, source="X")
    assert validate_embeddings([], expected_rows=0, expected_dimension=5).shape == (0, 5)
    assert validate_embeddings(np.zeros((0, 7)), expected_rows=0).shape == (0, 7)


def test_check_texts() -> None:
    assert check_texts(("a", "b")) == ["a", "b"]
    assert check_texts(iter(["x"])) == ["x"]
    with pytest.raises(InvalidInputError, match="got a single str"):
        check_texts("abc")
    with pytest.raises(InvalidInputError, match="got a single bytes"):
        check_texts(b"abc")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="must be a list of strings, got int"):
        check_texts(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"texts\[1\] must be a str, got int: 7"):
        check_texts(["a", 7])  # type: ignore[list-item]


async def test_default_async_methods_run_the_sync_ones() -> None:
    embeddings = FixedEmbeddings([[1.0, 2.0]], query=[3.0])
    assert await embeddings.aembed_documents(["a"]) == [[1.0, 2.0]]
    assert await embeddings.aembed_query("q") == [3.0]
    assert (await embeddings.aembed_documents_array(["a"])).tolist() == [[1.0, 2.0]]
    assert (await embeddings.aembed_queries_array(["q"])).tolist() == [[3.0]]


@pytest.mark.parametrize(
    "module",
    [
        "ragline.embeddings.base",
        "ragline.embeddings.hashing",
        "ragline.embeddings.cache",
        "ragline.embeddings.openai_compatible",
        "ragline.embeddings.huggingface",
        "ragline.core.stores._local",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    """The examples in the docstrings are real: they run and print what they show."""
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_a_subclass_whose_override_calls_the_native_method_through_super_embeds_once() -> None:
    # The array methods of a subclass overriding embed_documents / embed_query call the
    # override (as LangChain's stores call it); the native embed_documents / embed_query
    # reached through super() go through the array methods again, which then take the
    # native ones instead of recursing (a prefix-adding HuggingFaceEmbeddings subclass).
    from ragline.embeddings import HashingEmbeddings

    calls: list[tuple[str, list[str]]] = []

    class Prefixed(HashingEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.append(("documents", list(texts)))
            return super().embed_documents([f"passage: {text}" for text in texts])

        def embed_query(self, text: str) -> list[float]:
            calls.append(("query", [text]))
            return super().embed_query(f"query: {text}")

    class Counted(Prefixed):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.append(("counted", list(texts)))
            return super().embed_documents(texts)

    plain = HashingEmbeddings(dimension=16)
    prefixed = Prefixed(dimension=16)
    documents = prefixed.embed_documents_array(["a cat", "a dog"])
    queries = prefixed.embed_queries_array(["cat?"])
    assert calls == [("documents", ["a cat", "a dog"]), ("query", ["cat?"])]
    assert np.array_equal(
        documents, plain.embed_documents_array(["passage: a cat", "passage: a dog"])
    )
    assert np.array_equal(queries, plain.embed_documents_array(["query: cat?"]))

    calls.clear()
    counted = Counted(dimension=16)
    assert np.array_equal(counted.embed_documents_array(["a cat", "a dog"]), documents)
    assert calls == [("counted", ["a cat", "a dog"]), ("documents", ["a cat", "a dog"])]

    # a subclass wrapping another such instance still reaches that instance's override
    calls.clear()

    class Outer(HashingEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.append(("outer", list(texts)))
            return prefixed.embed_documents_array(texts).tolist()

    outer = Outer(dimension=16)
    assert np.array_equal(outer.embed_documents_array(["a cat"]), documents[:1])
    assert calls == [("outer", ["a cat"]), ("documents", ["a cat"])]


class _NativeAsync(Embeddings):
    """A model whose async list methods go through its native async array method (as
    the OpenAI-compatible client's do)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(len(t)), 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [float(len(text)), 1.0]

    async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    async def aembed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        return await self.aembed_documents_array(texts)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return (await self.aembed_documents_array(texts)).tolist()  # type: ignore[no-any-return]

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.aembed_documents_array([text]))[0].tolist()  # type: ignore[no-any-return]


async def test_async_overrides_calling_super_reach_the_native_array_once() -> None:
    """A subclass's async overrides are what the async array methods await, and one
    calling the base through super(), whose method calls the array method, embeds once
    instead of recursing."""
    calls: list[str] = []

    class Counting(_NativeAsync):
        async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.append("aembed_documents")
            return await super().aembed_documents(texts)

        async def aembed_query(self, text: str) -> list[float]:
            calls.append("aembed_query")
            return await super().aembed_query(text)

    model = Counting()
    assert (await model.aembed_documents_array(["ab", "c"])).tolist() == [[2.0, 1.0], [1.0, 1.0]]
    assert (await model.aembed_queries_array(["abc", "d"])).tolist() == [[3.0, 1.0], [1.0, 1.0]]
    assert calls == ["aembed_documents", "aembed_query", "aembed_query"]
    assert (await model.aembed_documents_array([])).shape == (0, 0)
    with pytest.raises(DimensionError):  # the overrides' rows are checked as sync ones are
        await _Ragged().aembed_documents_array(["a", "b"])
    # the base class keeps its own async array methods
    assert _NativeAsync.aembed_documents_array is _NativeAsync.__dict__["aembed_documents_array"]


class _Ragged(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 2.0], [1.0]]

    def embed_query(self, text: str) -> list[float]:
        return [1.0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 2.0], [1.0]]


def test_a_direct_call_of_an_override_calling_super_embeds_once() -> None:
    # An override of a class whose array methods are rerouted, called directly (not
    # through a store): its super() call reaches the native method, whose array method
    # is then the native one, not the rerouted one calling the override a second time
    # (a prefix-adding subclass added its prefix twice; a query went through
    # embed_documents too).
    from ragline.embeddings import HashingEmbeddings

    calls: list[tuple[str, str]] = []

    class Prefixed(HashingEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.extend(("documents", text) for text in texts)
            return super().embed_documents([f"passage: {text}" for text in texts])

        def embed_query(self, text: str) -> list[float]:
            calls.append(("query", text))
            return super().embed_query(f"query: {text}")

        async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.extend(("adocuments", text) for text in texts)
            return await asyncio.to_thread(self.embed_documents, texts)

    plain = HashingEmbeddings(dimension=16)
    prefixed = Prefixed(dimension=16)
    assert prefixed.embed_documents(["a cat"]) == plain.embed_documents(["passage: a cat"])
    assert prefixed.embed_query("cat?") == plain.embed_query("query: cat?")
    assert calls == [("documents", "a cat"), ("query", "cat?")]

    calls.clear()
    rows = asyncio.run(prefixed.aembed_documents_array(["a cat"]))
    assert np.array_equal(rows, plain.embed_documents_array(["passage: a cat"]))
    assert calls == [("adocuments", "a cat"), ("documents", "a cat")]

    calls.clear()

    class Counting(_NativeAsync):
        async def aembed_query(self, text: str) -> list[float]:
            calls.append(("aquery", text))
            return await super().aembed_query(f"q: {text}")

    assert asyncio.run(Counting().aembed_query("ab")) == [5.0, 1.0]
    assert calls == [("aquery", "ab")]


def test_an_override_sending_super_calls_to_a_thread_pool_embeds_once() -> None:
    # An override of a ragline model that hands its texts to super() from pool threads
    # (which do not inherit the caller's context): a store call, an array call and a
    # direct call each run it once. ragline's list methods call their own class's array
    # code, so the native method reached from a pool thread does not come back to the
    # override (it did, until the override refused a doubled prefix).
    from concurrent.futures import ThreadPoolExecutor

    from ragline.embeddings import HashingEmbeddings
    from ragline.vectorstores import InMemoryVectorStore

    calls: list[list[str]] = []

    class Pooled(HashingEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.append(list(texts))
            if any(text.startswith("passage: ") for text in texts):
                raise AssertionError(f"the override ran again, on {texts}")
            native = super()
            with ThreadPoolExecutor(max_workers=2) as pool:
                return list(
                    pool.map(lambda text: native.embed_documents([f"passage: {text}"])[0], texts)
                )

    plain = HashingEmbeddings(dimension=16)
    pooled = Pooled(dimension=16)
    expected = plain.embed_documents_array(["passage: a cat", "passage: a dog"])
    assert np.array_equal(pooled.embed_documents_array(["a cat", "a dog"]), expected)
    assert pooled.embed_documents(["a cat"]) == expected[:1].tolist()
    assert calls == [["a cat", "a dog"], ["a cat"]]

    calls.clear()
    store = InMemoryVectorStore.from_texts(["a cat", "a dog"], pooled, ids=["1", "2"])
    assert calls == [["a cat", "a dog"]]
    assert [doc.id for doc in store.similarity_search("passage: a dog", k=1)] == ["2"]
    assert calls == [["a cat", "a dog"]]  # the query went through embed_query


def test_a_subclass_overriding_only_the_array_methods_changes_the_list_methods_too() -> None:
    # A subclass of a ragline model that overrides its array methods (not the list
    # methods) gets the same vectors from the inherited embed_documents / embed_query
    # (and their async twins) as from a store's array calls: ragline's list methods call
    # their own class's array code, but not where a subclass replaced it.
    from ragline.embeddings import HashingEmbeddings

    class Prefixed(HashingEmbeddings):
        def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
            return super().embed_documents_array([f"passage: {text}" for text in texts])

    plain = HashingEmbeddings(dimension=16)
    prefixed = Prefixed(dimension=16)
    expected = plain.embed_documents(["passage: a cat", "passage: a dog"])
    assert prefixed.embed_documents_array(["a cat", "a dog"]).tolist() == expected
    assert prefixed.embed_queries_array(["a cat"]).tolist() == expected[:1]
    assert prefixed.embed_documents(["a cat", "a dog"]) == expected
    assert prefixed.embed_query("a cat") == expected[0]
    assert asyncio.run(prefixed.aembed_documents(["a cat", "a dog"])) == expected
    assert asyncio.run(prefixed.aembed_query("a dog")) == expected[1]

    calls: list[str] = []

    class Counted(Prefixed):  # a LangChain-style override on top still embeds once
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            calls.extend(texts)
            return super().embed_documents(texts)

    assert Counted(dimension=16).embed_documents_array(["a cat"]).tolist() == expected[:1]
    assert calls == ["a cat"]


def test_a_subclass_overriding_only_the_async_array_methods_changes_the_async_lists() -> None:
    # The same for the async array methods of a model whose async list methods call
    # them (the embedding cache): the inherited aembed_documents / aembed_query follow.
    from ragline.core import InMemoryByteStore
    from ragline.embeddings import CacheBackedEmbeddings, HashingEmbeddings

    plain = HashingEmbeddings(dimension=16)
    expected = plain.embed_documents(["passage: a cat", "passage: a dog"])

    class Queried(CacheBackedEmbeddings):
        async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
            return await super().aembed_documents_array([f"passage: {t}" for t in texts])

        async def aembed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
            return await super().aembed_queries_array([f"passage: {t}" for t in texts])

    cached = Queried(
        plain, InMemoryByteStore(), query_embedding_store=InMemoryByteStore(), key_encoder="sha256"
    )
    assert asyncio.run(cached.aembed_documents(["a cat", "a dog"])) == expected
    assert asyncio.run(cached.aembed_query("a dog")) == expected[1]
    assert cached.embed_documents(["passage: a cat"]) == expected[:1]  # sync: unchanged
