"""BM25Tokenizer's word split: a fast path for ASCII text, the regex for the rest, the
same tokens either way."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

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


class _Shouting(BM25Tokenizer):
    """A subclass with its own tokens: separated_tokens must call it, text by text."""

    def __call__(self, text: str) -> list[str]:
        return [token.upper() for token in super().__call__(text)]


# where joining texts could change their tokens: NUL (the separator), ASCII controls that
# str.split takes for blanks, word characters at a text's either end (letters, digits,
# underscore), the apostrophe, non-ASCII blanks, letters whose lowercase is ASCII (Kelvin
# sign) or two characters (dotted I), a combining mark
_EDGE = "\x00\x1c\x1f\x85\xa0\u2028 \t\n'_-09aZ\u212a\u0130\u00df\u00e9\u0345\u5b57"
_TEXTS = st.lists(
    st.one_of(
        st.text(st.characters(max_codepoint=127), max_size=30),  # runs tokenized together
        st.text(st.sampled_from(_EDGE), max_size=30),
        st.text(st.one_of(st.sampled_from(_EDGE), st.characters()), max_size=30),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(
    texts=_TEXTS,
    tokenizer=st.sampled_from(
        [BM25Tokenizer(), BM25Tokenizer(stopwords=True), BM25Tokenizer(stopwords=[]), _Shouting()]
    ),
)
def test_separated_tokens_agree_with_one_call_per_text_for_any_texts(
    texts: list[str], tokenizer: BM25Tokenizer
) -> None:
    expected = []
    for text in texts:
        expected += [*tokenizer(text), TEXT_SEPARATOR]
    assert separated_tokens(tokenizer, texts) == expected
