"""BM25Tokenizer's word split: a fast path for ASCII text, the regex for the rest, the
same tokens either way."""

from __future__ import annotations

import random
import re

from ragline.retrievers import BM25Tokenizer
from ragline.retrievers._tokenizer import TEXT_SEPARATOR, separated_tokens

WORD = re.compile(r"\w+")


def test_ascii_text_exact_tokens() -> None:
    tokenizer = BM25Tokenizer()
    text = "def f(x_1):\n\treturn x_1**2  # Cats, DOGS and e-mail!\x1c\x00end__ 3.14"
    assert tokenizer(text) == [
        "def", "f", "x_1", "return", "x_1", "2", "cats", "dogs", "and", "e", "mail",
        "end__", "3", "14",
    ]  # fmt: skip


def test_non_ascii_text_exact_tokens() -> None:
    tokenizer = BM25Tokenizer()
    # the Kelvin sign lowers to an ASCII k; é and ß are word characters
    assert tokenizer("Café ß-straße \u212aelvin naïve") == [
        "café", "ß", "straße", "kelvin", "naïve",
    ]  # fmt: skip


def test_same_tokens_as_the_regex_on_random_text() -> None:
    tokenizer = BM25Tokenizer()
    alphabet = [chr(code) for code in range(128)] + list("éßİ\u212a\u00a0\u2028字_")
    generator = random.Random(7)
    for size in range(300):
        text = "".join(generator.choice(alphabet) for _ in range(size))
        ascii_only = "".join(char for char in text if char.isascii())
        for sample in (text, ascii_only):
            assert tokenizer(sample) == WORD.findall(sample.lower()), repr(sample)


def test_separated_tokens_are_each_text_s_tokens_with_a_separator_after_each() -> None:
    texts = [
        "Cats, DOGS", "", "x_1**2", "Café ß \u212aelvin", "a\x00b NUL", "   ", "end\n",
    ]  # fmt: skip
    plain = BM25Tokenizer()
    assert separated_tokens(plain, texts) == [
        "cats", "dogs", TEXT_SEPARATOR, TEXT_SEPARATOR, "x_1", "2", TEXT_SEPARATOR,
        "café", "ß", "kelvin", TEXT_SEPARATOR, "a", "b", "nul", TEXT_SEPARATOR,
        TEXT_SEPARATOR, "end", TEXT_SEPARATOR,
    ]  # fmt: skip
    stopping = BM25Tokenizer(stopwords=True)
    assert separated_tokens(stopping, ["the Cats and", "a", "dogs"]) == [
        "cats", TEXT_SEPARATOR, TEXT_SEPARATOR, "dogs", TEXT_SEPARATOR,
    ]  # fmt: skip
    assert separated_tokens(plain, []) == []


def test_separated_tokens_agree_with_one_call_per_text_on_random_texts() -> None:
    tokenizer = BM25Tokenizer()
    alphabet = [chr(code) for code in range(128)] + list("éßİ\u212a\u00a0字_")
    generator = random.Random(11)
    texts = []
    for size in range(200):
        text = "".join(generator.choice(alphabet) for _ in range(size))
        texts.append(text if size % 3 else "".join(char for char in text if char.isascii()))
    expected = []
    for text in texts:
        expected += [*tokenizer(text), TEXT_SEPARATOR]
    assert separated_tokens(tokenizer, texts) == expected
