"""BM25Tokenizer: lowercase word tokens, optional stopword removal and Snowball stemming.

A tokenizer is described by a small JSON-ready dict (:meth:`BM25Tokenizer.to_dict`), so a
BM25 index saved on disk records how its terms were made and a query is tokenized the
same way when the index is loaded again, without pickling a function.

Stemming uses PyStemmer (the ``stem`` extra: ``pip install 'ragline[stem]'``), the C
Snowball stemmers; it is imported when the first text is stemmed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ragline.core import ConfigurationError, InvalidInputError
from ragline.core._checks import check_flag
from ragline.core._optional import require
from ragline.retrievers._stopwords import STOPWORDS

__all__ = ["TEXT_SEPARATOR", "BM25Tokenizer", "separated_tokens"]

_WORD = re.compile(r"\w+")
# ASCII text (most chunks): the bytes that are not word characters become spaces, and
# splitting on spaces gives what _WORD finds (in ASCII, \w is exactly [A-Za-z0-9_]) in
# about half the time
_ASCII_WORD_BYTES = bytes(
    byte if chr(byte).isalnum() or byte == ord("_") else ord(" ") for byte in range(128)
) + bytes(128)
# separated_tokens: what stands between two texts' tokens; never a token (NUL is not \w,
# and the table above makes it a space)
TEXT_SEPARATOR = "\x00"
# the table, keeping NUL: texts without one, joined by " \x00 ", split into their tokens
# with TEXT_SEPARATOR between them
_ASCII_WORD_BYTES_KEEPING_NUL = b"\x00" + _ASCII_WORD_BYTES[1:]
# the Snowball stemmers PyStemmer ships (Stemmer.algorithms()); checked without importing it
STEMMER_LANGUAGES = frozenset(
    [
        "arabic",
        "armenian",
        "basque",
        "catalan",
        "danish",
        "dutch",
        "english",
        "finnish",
        "french",
        "german",
        "greek",
        "hindi",
        "hungarian",
        "indonesian",
        "irish",
        "italian",
        "lithuanian",
        "nepali",
        "norwegian",
        "porter",
        "portuguese",
        "romanian",
        "russian",
        "serbian",
        "spanish",
        "swedish",
        "tamil",
        "turkish",
        "yiddish",
    ]
)


class BM25Tokenizer:
    """Split text into lowercase word tokens, drop stopwords, stem what is left.

    Args:
        language: the language of the stopword list and the stemmer (``"english"``,
            ``"french"``, ``"german"``, ``"spanish"`` have built-in stopword lists; any
            Snowball language can be stemmed).
        stem: stem each token with the Snowball stemmer of ``language`` (needs PyStemmer).
        stopwords: ``True`` for the built-in list of ``language``, ``False`` for none, or
            the words to drop (compared after lowercasing, before stemming).

    Raises:
        ConfigurationError: no built-in stopword list or stemmer for the language.
        InvalidInputError: ``stopwords`` is not a bool or a collection of str.

    Example:
        >>> BM25Tokenizer(stopwords=True)("How do I restart the Server?")
        ['restart', 'server']
        >>> BM25Tokenizer(stopwords=["x"]).to_dict()
        {'language': 'english', 'stem': False, 'stopwords': ['x']}
    """

    def __init__(
        self,
        *,
        language: str = "english",
        stem: bool = False,
        stopwords: bool | Iterable[str] = False,
    ) -> None:
        if not isinstance(language, str):
            raise InvalidInputError(f"BM25Tokenizer language must be a str, got {language!r}")
        self.language = language.lower()
        check_flag("BM25Tokenizer stem", stem)
        if stem and self.language not in STEMMER_LANGUAGES:
            raise ConfigurationError(
                f"BM25Tokenizer has no stemmer for language {language!r}; Snowball stems "
                f"{', '.join(sorted(STEMMER_LANGUAGES))}"
            )
        self.stem = stem
        self._stopwords_option: bool | list[str]
        if stopwords is True:
            if self.language not in STOPWORDS:
                raise ConfigurationError(
                    f"no built-in stopword list for {language!r} (there are lists for "
                    f"{', '.join(sorted(STOPWORDS))}); pass stopwords=[...] or False"
                )
            self.stopwords = STOPWORDS[self.language]
            self._stopwords_option = True
        elif stopwords is False or stopwords is None:
            self.stopwords = frozenset()
            self._stopwords_option = False
        elif isinstance(stopwords, str) or not isinstance(stopwords, Iterable):
            raise InvalidInputError(
                f"BM25Tokenizer stopwords must be True, False or a list of words, got "
                f"{stopwords!r:.60}"
            )
        else:
            words = list(stopwords)
            if not all(isinstance(word, str) for word in words):
                raise InvalidInputError("BM25Tokenizer stopwords must all be str")
            self.stopwords = frozenset(word.lower() for word in words)
            self._stopwords_option = sorted(self.stopwords)
        self._stemmer: Any = None

    def __call__(self, text: str) -> list[str]:
        """Return the tokens of ``text``."""
        tokens = _words(text.lower())
        if self.stopwords:
            tokens = [token for token in tokens if token not in self.stopwords]
        if self.stem:
            if self._stemmer is None:
                stemmer_module = require("Stemmer", "stem", package="PyStemmer")
                self._stemmer = stemmer_module.Stemmer(self.language)
            tokens = self._stemmer.stemWords(tokens)
        return tokens

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (:meth:`from_dict` rebuilds the tokenizer)."""
        return {"language": self.language, "stem": self.stem, "stopwords": self._stopwords_option}

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> BM25Tokenizer:
        """Rebuild a tokenizer from :meth:`to_dict`'s output.

        Raises:
            ConfigurationError: an unknown key (named).
        """
        unknown = sorted(set(options) - {"language", "stem", "stopwords"})
        if unknown:
            raise ConfigurationError(f"unknown BM25Tokenizer option(s): {', '.join(unknown)}")
        return cls(
            language=options.get("language", "english"),
            stem=options.get("stem", False),
            stopwords=options.get("stopwords", False),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BM25Tokenizer) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(repr(self.to_dict()))

    def __repr__(self) -> str:
        options = self.to_dict()
        if isinstance(options["stopwords"], list):
            options["stopwords"] = f"[{len(options['stopwords'])} words]"
        return "BM25Tokenizer(" + ", ".join(f"{k}={v!r}" for k, v in options.items()) + ")"


def _words(text: str) -> list[str]:
    """The runs of word characters (``\\w+``) of ``text``, in order."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split()
    return _WORD.findall(text)


def separated_tokens(tokenizer: BM25Tokenizer, texts: Sequence[str]) -> list[str]:
    """The tokens of ``texts``, in order, with :data:`TEXT_SEPARATOR` after each text's
    (``tokenizer(text)`` of each, joined, one separator per text).

    With a plain tokenizer (no stopwords, no stemming), runs of ASCII texts are tokenized
    as one string: a keyword index's rows are computed a few hundred chunks at a time,
    and one call per 1,000-character chunk (about 80 tokens) cost ~7.5 us of CPU against
    ~4.4 us this way (issue 25). Other texts, and other tokenizers (stopwords, stemming,
    a subclass's own ``__call__``), are tokenized one by one; the tokens are the same
    either way.
    """
    tokens: list[str] = []
    if type(tokenizer) is not BM25Tokenizer or tokenizer.stopwords or tokenizer.stem:
        for text in texts:
            tokens += tokenizer(text)
            tokens.append(TEXT_SEPARATOR)
        return tokens
    run: list[str] = []  # ASCII texts without NUL, not tokenized yet
    for text in texts:
        if text.isascii() and TEXT_SEPARATOR not in text:
            run.append(text)
            continue
        if run:
            tokens += _ascii_run_tokens(run)
            run = []
        tokens += tokenizer(text)
        tokens.append(TEXT_SEPARATOR)
    if run:
        tokens += _ascii_run_tokens(run)
    return tokens


def _ascii_run_tokens(texts: list[str]) -> list[str]:
    """The tokens of ASCII ``texts`` without NUL, a separator after each text's."""
    joined = f" {TEXT_SEPARATOR} ".join(texts) + f" {TEXT_SEPARATOR}"
    return joined.lower().encode("ascii").translate(_ASCII_WORD_BYTES_KEEPING_NUL).decode().split()
