"""Embeddings from any OpenAI-compatible ``POST /v1/embeddings`` endpoint.

OpenAI itself, vLLM, LM Studio, Ollama, llama.cpp server, text-embeddings-inference ...
all speak the protocol. Differences from LangChain's client, on purpose:

* Inputs are sent as the raw strings. (LangChain tokenises with tiktoken and sends token
  id arrays by default, which most non-OpenAI servers reject.) A text longer than the
  model's context is the server's to truncate or refuse.
* Vectors are requested as base64 float32 (``encoding_format="base64"``, what the
  ``openai`` SDK itself asks for by default) and decoded straight into a numpy array, so
  no Python float list is built on the array path. Servers that ignore the format and
  answer with float lists are handled too; pass ``encoding_format="float"`` for servers
  that refuse base64.
* The response's ``data`` is put back in input order by each item's ``index``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ragline.core import DimensionError, InvalidInputError, StoreConnectionError
from ragline.core._checks import (
    check_choice,
    check_non_negative_int,
    check_optional_number,
    check_optional_positive_int,
    check_positive_int,
)
from ragline.core._openai_clients import OpenAIClients, client_options, credentials
from ragline.core._optional import require
from ragline.embeddings.base import (
    Embeddings,
    check_text,
    check_texts,
    note_input_tokens,
    validate_embeddings,
)

__all__ = ["OpenAIEmbeddings"]

_ENCODING_FORMATS = ("base64", "float")
# Sent as the bearer token to servers that need none (vLLM, LM Studio ... ignore it).
_NO_KEY = "no-key"


class OpenAIEmbeddings(Embeddings):
    """Client for OpenAI-compatible embedding endpoints (uses the ``openai`` SDK lazily).

    Args:
        model: the model name the server knows.
        base_url: the API root, e.g. ``"http://127.0.0.1:8000/v1"``; default: the
            ``OPENAI_BASE_URL`` environment variable, else OpenAI.
        api_key: bearer token; default: ``OPENAI_API_KEY``. Required only when talking to
            OpenAI itself (no ``base_url``): local servers get a placeholder.
        dimensions: ask the server to shorten vectors to this length (text-embedding-3).
        chunk_size: at most this many texts per request.
        timeout: seconds per request (``None``: the SDK's default).
        max_retries: retries of failed requests, done by the SDK with backoff.
        encoding_format: ``"base64"`` (compact, default) or ``"float"``.
        default_headers: extra HTTP headers on every request.
        organization: OpenAI organization id, if any.
        check_embedding_ctx_length: accepted for LangChain programs (which pass ``False``
            for servers other than OpenAI); either value sends the texts themselves, as
            LangChain's ``False`` does: ragline never sends token ids or counts tokens.

    Raises:
        ConfigurationError: no API key for OpenAI, or an unknown ``encoding_format``.
        InvalidInputError: a bad option value.
        MissingDependencyError: the ``openai`` package is missing (on first use).

    Example:
        >>> embeddings = OpenAIEmbeddings(
        ...     model="nomic-embed-text", base_url="http://127.0.0.1:1234/v1")
        >>> embeddings.chunk_size
        1000
    """

    # the array method each list method calls, its own class's, never self's (a
    # subclass overriding one gets list methods calling its own; see embeddings.base)
    _LISTS_CALL_OWN_ARRAYS: ClassVar[dict[str, str]] = {
        "embed_documents": "embed_documents_array",
        "embed_query": "embed_documents_array",
        "aembed_documents": "aembed_documents_array",
        "aembed_query": "aembed_documents_array",
    }

    _tracing_provider = "openai"  # gen_ai.provider.name of its spans

    def __init__(
        self,
        *,
        model: str = "text-embedding-3-small",
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        chunk_size: int = 1000,
        timeout: float | None = None,
        max_retries: int = 2,
        encoding_format: str = "base64",
        default_headers: Mapping[str, str] | None = None,
        organization: str | None = None,
        check_embedding_ctx_length: bool = True,
    ) -> None:
        if not isinstance(check_embedding_ctx_length, bool):
            raise InvalidInputError(
                f"check_embedding_ctx_length must be a bool, got {check_embedding_ctx_length!r}"
            )
        if not isinstance(model, str) or not model:
            raise InvalidInputError(f"model must be a non-empty str, got {model!r}")
        check_optional_positive_int("dimensions", dimensions)
        check_positive_int("chunk_size", chunk_size)
        check_non_negative_int("max_retries", max_retries)
        check_optional_number("timeout", timeout, low=0, low_open=True)
        check_choice("encoding_format", encoding_format, _ENCODING_FORMATS)
        base_url, api_key = credentials("OpenAIEmbeddings", base_url, api_key, no_key=_NO_KEY)
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.dimensions = dimensions
        self.chunk_size = chunk_size
        self.timeout = timeout
        self.max_retries = max_retries
        self.encoding_format = encoding_format
        self.default_headers = dict(default_headers or {})
        self.organization = organization
        self.check_embedding_ctx_length = check_embedding_ctx_length
        self._clients = OpenAIClients(self._client_options)

    def __repr__(self) -> str:
        return f"OpenAIEmbeddings(model={self.model!r}, base_url={self.base_url!r})"

    # -- clients (created on first use) ------------------------------------------------------

    def _client_options(self) -> dict[str, Any]:
        return client_options(self, organization=self.organization)

    @property
    def client(self) -> Any:
        """The ``openai.OpenAI`` client (created on first access)."""
        return self._clients.sync()

    # -- requests ----------------------------------------------------------------------------

    def _request(self, chunk: list[str]) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model,
            "input": chunk,
            "encoding_format": self.encoding_format,
        }
        if self.dimensions is not None:
            request["dimensions"] = self.dimensions
        return request

    def _chunks(self, items: list[str]) -> list[list[str]]:
        return [
            items[start : start + self.chunk_size]
            for start in range(0, len(items), self.chunk_size)
        ]

    def _connection_error(self, err: Exception) -> StoreConnectionError:
        where = (
            f"the embeddings endpoint {self.base_url}"
            if self.base_url
            else "the OpenAI API's embeddings endpoint"
        )
        return StoreConnectionError(f"cannot reach {where}: {err}")

    def _parse(self, response: Any, expected: int) -> np.ndarray:
        tokens = getattr(getattr(response, "usage", None), "prompt_tokens", None)
        if isinstance(tokens, int):  # for tracing (nothing happens when untraced)
            note_input_tokens(tokens)
        items = sorted(response.data, key=lambda item: item.index)
        if [item.index for item in items] != list(range(expected)):
            raise DimensionError(
                f"{self!r}: the server returned indices {[item.index for item in items]} "
                f"for {expected} inputs; expected 0..{expected - 1}"
            )
        rows = [self._row(item.index, item.embedding) for item in items]
        if len({len(row) for row in rows}) > 1:
            raise DimensionError(
                f"{self!r}: the server returned vectors of different dimensions "
                f"{sorted({len(row) for row in rows})}"
            )
        return validate_embeddings(
            np.stack(rows),
            expected_rows=expected,
            source=repr(self),
            expected_dimension=self.dimensions,
        )

    def _row(self, index: int, vector: Any) -> np.ndarray:
        """One vector as float32, from base64 little-endian bytes or a list of numbers."""
        if isinstance(vector, str):
            try:
                data = base64.b64decode(vector)
            except ValueError as err:  # binascii.Error
                raise DimensionError(
                    f"{self!r}: the server's vector {index} is not base64 ({err})"
                ) from err
            if len(data) % 4:
                raise DimensionError(
                    f"{self!r}: the server's vector {index} is {len(data)} bytes, not a whole "
                    "number of float32"
                )
            return np.frombuffer(data, dtype="<f4")
        try:
            return np.asarray(vector, dtype=np.float32)
        except (TypeError, ValueError) as err:
            raise DimensionError(
                f"{self!r}: the server's vector {index} is not a list of numbers ({err})"
            ) from err

    def _empty(self) -> np.ndarray:
        return np.zeros((0, self.dimensions or 0), dtype=np.float32)

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts, ``chunk_size`` per request, into a float32 ``(n, d)`` matrix.

        Raises:
            InvalidInputError: a text is not a string.
            StoreConnectionError: the server cannot be reached (names the URL).
            DimensionError: the server answered with missing, extra or ragged vectors.
            openai.APIStatusError: the server refused the request (bad model, 4xx, 5xx).
        """
        items = check_texts(texts)
        if not items:
            return self._empty()
        openai = require("openai", "openai")
        client = self.client
        parts = []
        for chunk in self._chunks(items):
            try:
                response = client.embeddings.create(**self._request(chunk))
            except openai.APIConnectionError as err:
                raise self._connection_error(err) from err
            parts.append(self._parse(response, len(chunk)))
        return self._join(parts)

    async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async ``embed_documents_array`` over the SDK's async client."""
        items = check_texts(texts)
        if not items:
            return self._empty()
        openai = require("openai", "openai")
        client = self._clients.for_running_loop()
        parts = []
        for chunk in self._chunks(items):
            try:
                response = await client.embeddings.create(**self._request(chunk))
            except openai.APIConnectionError as err:
                raise self._connection_error(err) from err
            parts.append(self._parse(response, len(chunk)))
        return self._join(parts)

    def _join(self, parts: list[np.ndarray]) -> np.ndarray:
        if len({part.shape[1] for part in parts}) > 1:
            raise DimensionError(
                f"{self!r}: requests returned vectors of different dimensions "
                f"{sorted({part.shape[1] for part in parts})}"
            )
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    # Queries and documents go through the same endpoint.
    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed queries (the same request as documents)."""
        return self.embed_documents_array(check_texts(texts, what="queries"))

    async def aembed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async ``embed_queries_array``."""
        return await self.aembed_documents_array(check_texts(texts, what="queries"))

    # -- the LangChain-compatible surface -------------------------------------------------

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents; see ``embed_documents_array``."""
        return OpenAIEmbeddings.embed_documents_array(self, texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return OpenAIEmbeddings.embed_documents_array(self, [check_text(text)])[0].tolist()

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Async ``embed_documents``."""
        return (await OpenAIEmbeddings.aembed_documents_array(self, texts)).tolist()

    async def aembed_query(self, text: str) -> list[float]:
        """Async ``embed_query``."""
        return (await OpenAIEmbeddings.aembed_documents_array(self, [check_text(text)]))[0].tolist()
