"""BM25Tokenizer's word split: a fast path for ASCII text, the regex for the rest, the
same tokens either way."""

from __future__ import annotations

import random
import re

from ragline.retrievers import BM25Tokenizer

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
