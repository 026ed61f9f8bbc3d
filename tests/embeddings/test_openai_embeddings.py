"""OpenAIEmbeddings against a real local HTTP server speaking POST /v1/embeddings."""

from __future__ import annotations

import socket
from collections.abc import Iterator, Sequence

import numpy as np
import openai
import pytest
from _openai_server import EMBEDDINGS_PATH, OpenAITestServer, Reply, embedding_response, error_body

from ragline.core import (
    ConfigurationError,
    DimensionError,
    InvalidInputError,
    StoreConnectionError,
)
from ragline.embeddings import HashingEmbeddings, OpenAIEmbeddings

pytestmark = pytest.mark.network


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        yield running


def expected(texts: list[str], dimension: int = 16) -> np.ndarray:
    """The server's default answer: HashingEmbeddings vectors of the inputs."""
    return HashingEmbeddings(dimension=dimension).embed_documents_array(texts)


def client(server: OpenAITestServer, **options: object) -> OpenAIEmbeddings:
    return OpenAIEmbeddings(
        model="embed-model",
        base_url=server.base_url,
        api_key="sk-test",
        max_retries=0,
        **options,  # type: ignore[arg-type]
    )


def bodies(server: OpenAITestServer) -> list[object]:
    return [request.body for request in server.requests_to(EMBEDDINGS_PATH)]


def test_sends_raw_strings_and_asks_for_base64(server: OpenAITestServer) -> None:
    """One request holding the strings themselves (no token ids), base64 float32 back."""
    texts = ["The cat sits on the mat", "", "ünïcödé"]
    result = client(server).embed_documents_array(texts)
    assert bodies(server) == [{"model": "embed-model", "input": texts, "encoding_format": "base64"}]
    np.testing.assert_array_equal(result, expected(texts))
    headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer sk-test"
    assert headers["content-type"] == "application/json"


def test_chunk_size_splits_requests_in_order(server: OpenAITestServer) -> None:
    texts = ["one", "two", "three", "four", "five"]
    result = client(server, chunk_size=2).embed_documents(texts)
    assert [body["input"] for body in bodies(server)] == [  # type: ignore[index]
        ["one", "two"],
        ["three", "four"],
        ["five"],
    ]
    np.testing.assert_array_equal(np.array(result, dtype=np.float32), expected(texts))


def test_dimensions_are_sent_and_checked(server: OpenAITestServer) -> None:
    result = client(server, dimensions=8).embed_documents_array(["a", "b"])
    assert bodies(server) == [
        {"model": "embed-model", "input": ["a", "b"], "dimensions": 8, "encoding_format": "base64"}
    ]
    assert result.shape == (2, 8)
    np.testing.assert_array_equal(result, expected(["a", "b"], 8))


def test_server_ignoring_dimensions_is_a_dimension_error(server: OpenAITestServer) -> None:
    server.enqueue(EMBEDDINGS_PATH, Reply(body=embedding_response(expected(["a"], 16))))
    with pytest.raises(DimensionError, match="dimension 16; expected 8"):
        client(server, dimensions=8).embed_documents_array(["a"])


def test_out_of_order_response_is_sorted_by_index(server: OpenAITestServer) -> None:
    texts = ["first", "second", "third"]
    server.enqueue(
        EMBEDDINGS_PATH,
        Reply(body=embedding_response(expected(texts), encoding_format="base64", order=[2, 0, 1])),
    )
    np.testing.assert_array_equal(client(server).embed_documents_array(texts), expected(texts))


def test_float_lists_are_accepted_when_a_server_ignores_base64(server: OpenAITestServer) -> None:
    texts = ["x", "y"]
    server.enqueue(EMBEDDINGS_PATH, Reply(body=embedding_response(expected(texts), order=[1, 0])))
    np.testing.assert_array_equal(client(server).embed_documents_array(texts), expected(texts))


def test_float_encoding_format_option(server: OpenAITestServer) -> None:
    result = client(server, encoding_format="float").embed_documents_array(["x"])
    assert bodies(server) == [{"model": "embed-model", "input": ["x"], "encoding_format": "float"}]
    np.testing.assert_array_equal(result, expected(["x"]))


def test_embed_query_is_one_request_of_one_string(server: OpenAITestServer) -> None:
    vector = client(server).embed_query("what is a cat?")
    assert bodies(server) == [
        {"model": "embed-model", "input": ["what is a cat?"], "encoding_format": "base64"}
    ]
    np.testing.assert_array_equal(
        np.array(vector, dtype=np.float32), expected(["what is a cat?"])[0]
    )


def test_missing_or_extra_items_are_dimension_errors(server: OpenAITestServer) -> None:
    server.enqueue(
        EMBEDDINGS_PATH,
        Reply(body=embedding_response(expected(["a", "b"]), order=[0])),
        Reply(body=embedding_response(expected(["a", "b", "c"]))),
    )
    embeddings = client(server)
    with pytest.raises(DimensionError, match=r"returned indices \[0\] for 2 inputs"):
        embeddings.embed_documents_array(["a", "b"])
    with pytest.raises(DimensionError, match=r"returned indices \[0, 1, 2\] for 2 inputs"):
        embeddings.embed_documents_array(["a", "b"])


def test_nan_from_the_server_is_a_dimension_error(server: OpenAITestServer) -> None:
    server.enqueue(EMBEDDINGS_PATH, Reply(body=embedding_response([[1.0, float("nan")]])))
    with pytest.raises(DimensionError, match="NaN or infinite"):
        client(server).embed_documents_array(["a"])


@pytest.mark.parametrize(
    ("embedding", "problem"),
    [
        ("AAAAAAAA", "6 bytes, not a whole number of float32"),  # valid base64, 6 bytes
        ("not base64", "not base64"),
        (["x", "y"], "not a list of numbers"),
    ],
)
def test_undecodable_vectors_are_dimension_errors(
    server: OpenAITestServer, embedding, problem
) -> None:
    body = {
        "object": "list",
        "model": "m",
        "data": [{"object": "embedding", "index": 0, "embedding": embedding}],
    }
    server.enqueue(EMBEDDINGS_PATH, Reply(body=body))
    with pytest.raises(DimensionError, match=rf"vector 0 is {problem}"):
        client(server).embed_documents_array(["a"])


def test_http_errors_propagate_as_openai_errors(server: OpenAITestServer) -> None:
    server.enqueue(
        EMBEDDINGS_PATH,
        Reply(status=400, body=error_body("model not found", "invalid_request_error")),
    )
    with pytest.raises(openai.BadRequestError, match="model not found"):
        client(server).embed_documents_array(["a"])


def test_retries_are_done_by_the_sdk(server: OpenAITestServer) -> None:
    server.enqueue(
        EMBEDDINGS_PATH,
        Reply(status=500, body=error_body("boom"), headers={"retry-after-ms": "1"}),
    )
    embeddings = OpenAIEmbeddings(model="m", base_url=server.base_url, max_retries=1)
    np.testing.assert_array_equal(embeddings.embed_documents_array(["a"]), expected(["a"]))
    assert len(bodies(server)) == 2


def test_unreachable_server_is_a_connection_error_naming_the_url() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    embeddings = OpenAIEmbeddings(model="m", base_url=url, max_retries=0, timeout=5)
    with pytest.raises(StoreConnectionError, match=f"cannot reach the embeddings endpoint {url}"):
        embeddings.embed_documents_array(["a"])


def test_unreachable_openai_api_is_named_in_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    """No base_url: the message read "the embeddings endpoint the OpenAI API". The API is
    reached through a proxy on a closed loopback port, so the connection fails here."""
    with socket.socket() as sock:  # bound, never listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        proxy = f"http://127.0.0.1:{sock.getsockname()[1]}"
        for name in ("OPENAI_BASE_URL", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTPS_PROXY", proxy)
        monkeypatch.setenv("https_proxy", proxy)
        embeddings = OpenAIEmbeddings(model="m", api_key="sk-bogus", max_retries=0, timeout=5)
        with pytest.raises(StoreConnectionError) as caught:
            embeddings.embed_documents_array(["a"])
    assert str(caught.value).startswith("cannot reach the OpenAI API's embeddings endpoint: ")


def test_empty_input_sends_nothing(server: OpenAITestServer) -> None:
    embeddings = client(server, dimensions=4)
    assert embeddings.embed_documents([]) == []
    assert embeddings.embed_documents_array([]).shape == (0, 4)
    assert server.requests == []


def test_non_string_input_rejected_before_any_request(server: OpenAITestServer) -> None:
    with pytest.raises(InvalidInputError, match=r"texts\[1\] must be a str, got list"):
        client(server).embed_documents(["ok", [101, 102]])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="text must be a str"):
        client(server).embed_query(None)  # type: ignore[arg-type]
    assert server.requests == []


def test_environment_variables(server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    embeddings = OpenAIEmbeddings(model="m")
    assert embeddings.base_url == server.base_url
    embeddings.embed_query("hi")
    assert server.requests[0].headers["authorization"] == "Bearer sk-from-env"


def test_local_server_needs_no_key(
    server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    OpenAIEmbeddings(model="m", base_url=server.base_url).embed_query("hi")
    assert server.requests[0].headers["authorization"] == "Bearer no-key"
    with pytest.raises(
        ConfigurationError, match=r"no API key: pass api_key=\.\.\. or set OPENAI_API_KEY"
    ):
        OpenAIEmbeddings(model="m")


async def test_async_path(server: OpenAITestServer) -> None:
    texts = ["a", "b", "c"]
    embeddings = client(server, chunk_size=2)
    np.testing.assert_array_equal(await embeddings.aembed_documents_array(texts), expected(texts))
    assert await embeddings.aembed_query("q") == expected(["q"])[0].tolist()
    assert [body["input"] for body in bodies(server)] == [["a", "b"], ["c"], ["q"]]  # type: ignore[index]
    assert server.requests[0].headers["x-stainless-async"].startswith("async")


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"chunk_size": 0}, InvalidInputError, "chunk_size must be an int >= 1, got 0"),
        ({"dimensions": 0}, InvalidInputError, "dimensions must be an int >= 1 or None, got 0"),
        ({"max_retries": -1}, InvalidInputError, "max_retries must be an int >= 0, got -1"),
        ({"timeout": 0}, InvalidInputError, "timeout must be a finite number > 0 or None, got 0"),
        ({"model": ""}, InvalidInputError, "model must be a non-empty str"),
        (
            {"encoding_format": "hex"},
            ConfigurationError,
            "encoding_format 'hex' is not one of 'base64', 'float'",
        ),
    ],
)
def test_bad_options(options: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        OpenAIEmbeddings(base_url="http://127.0.0.1:9/v1", **options)  # type: ignore[arg-type]


async def test_a_subclass_overriding_only_the_array_methods_changes_the_list_methods_too(
    server: OpenAITestServer,
) -> None:
    # The inherited list methods (sync and async) of a subclass overriding the array
    # methods go through the overrides, as a store's array calls do.
    class Prefixed(OpenAIEmbeddings):
        def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
            return super().embed_documents_array([f"passage: {text}" for text in texts])

        async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
            return await super().aembed_documents_array([f"passage: {text}" for text in texts])

    model = Prefixed(model="embed-model", base_url=server.base_url, api_key="sk-test")
    vectors = expected(["passage: a cat", "passage: a dog"]).tolist()
    assert model.embed_documents(["a cat", "a dog"]) == vectors
    assert model.embed_query("a dog") == vectors[1]
    assert await model.aembed_documents(["a cat", "a dog"]) == vectors
    assert await model.aembed_query("a cat") == vectors[0]
    assert [body["input"] for body in bodies(server)] == [  # type: ignore[index]
        ["passage: a cat", "passage: a dog"],
        ["passage: a dog"],
        ["passage: a cat", "passage: a dog"],
        ["passage: a cat"],
    ]
