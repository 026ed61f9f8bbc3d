"""ragline errors that are also pydantic's ValidationError (``as_validation_error``)."""

from __future__ import annotations

import pickle

import pydantic
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding as LCFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

from ragline.core.exceptions import ConfigurationError, as_validation_error
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.vectorstores import InMemoryVectorStore


def test_a_refusal_pickles_as_langchains_does() -> None:
    # an error raised in a worker process (a process pool, Ray) is sent back pickled;
    # LangChain's pydantic ValidationError survives that, so ragline's must
    store = LCInMemoryVectorStore.from_texts(["a"], LCFakeEmbedding(size=4))
    with pytest.raises(pydantic.ValidationError) as langchain_caught:
        store.as_retriever(search_type="bogus")
    langchain_again = pickle.loads(pickle.dumps(langchain_caught.value))
    assert (type(langchain_again).__name__, langchain_again.title) == (
        "ValidationError",
        "VectorStoreRetriever",
    )

    ours = InMemoryVectorStore.from_texts(["a"], DeterministicFakeEmbedding(size=4))
    with pytest.raises(pydantic.ValidationError) as caught:
        ours.as_retriever(search_type="bogus")
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is type(caught.value)
    assert isinstance(again, ConfigurationError)
    assert (type(again).__name__, again.title) == ("ValidationError", "VectorStoreRetriever")
    assert str(again) == (
        "search_type 'bogus' is not one of 'similarity', 'similarity_score_threshold', 'mmr'"
    )
    assert again.errors() == caught.value.errors()


def test_a_pickled_error_keeps_its_arguments_and_attributes() -> None:
    error = ConfigurationError("bad option")
    error.option = "x"
    converted = as_validation_error(error, "Model", {"option": "x"})
    again = pickle.loads(pickle.dumps(converted))
    assert (again.args, again.option, str(again)) == (("bad option",), "x", "bad option")
    assert again.errors()[0]["input"] == {"option": "x"}
