"""Differential tests: the same chunks as langchain-text-splitters, and true start indexes.

LangChain is a test-only dependency, imported here and in the benchmark only. For the
same parameters our Character and RecursiveCharacter splitters (presets, keep_separator
modes, add_start_index) must return exactly LangChain's chunks. Our ``start_index`` is
the chunk's true offset; LangChain's equals it except where LangChain's search lands on
another occurrence of repeated text, which these tests check is the only difference.
"""

from __future__ import annotations

import logging
import sysconfig
from pathlib import Path
from typing import Any

import langchain_text_splitters as lc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragline.splitters import CharacterTextSplitter, Language, RecursiveCharacterTextSplitter

# LangChain logs a warning for every chunk longer than chunk_size.
logging.getLogger("langchain_text_splitters").setLevel(logging.ERROR)

FRAGMENTS = [
    "a", "b", "ab", "word", " ", "  ", "\n", "\n\n", "\t", ".", "x y", "TODO",
    "\nclass ", "\ndef ", "\n\tdef ", "# ", "\n## ", "```\n", "\n---\n", "$", "$$",
    "<p", "<div", "\n\\section{", "\nfunction ", "\nfn ", "é", "日本",
    "\nfunc ", "\npublic ", "\nconst ", "\nlet ", "\nif ", "\ncase ", "\n===\n", "\n***\n",
    "\n\n.. \n\n", "\nsetClass(", "\nPublic Sub ", "\nEnd Sub", "\nmessage ", "\ndefmodule ",
    "\nIF ", "\nlocal ", "\nmain = ", "\nparam ", "\ncontract ", "\nval ", "\n**bold**",
]  # fmt: skip

texts = st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join)
keep_modes = st.sampled_from([False, True, "start", "end"])


@st.composite
def options(draw: st.DrawFn) -> dict[str, Any]:
    chunk_size = draw(st.integers(1, 40))
    return {
        "chunk_size": chunk_size,
        "chunk_overlap": draw(st.integers(0, chunk_size - 1)),
        "strip_whitespace": draw(st.booleans()),
        "add_start_index": True,
    }


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_same(ours: Any, theirs: Any, text: str, *, substrings: bool) -> None:
    """Same chunks; our starts are true offsets; LangChain's differ only on repeats."""
    assert ours.split_text(text) == theirs.split_text(text)
    our_docs = ours.create_documents([text])
    their_docs = theirs.create_documents([text])
    assert [d.page_content for d in our_docs] == [d.page_content for d in their_docs]
    starts = [d.metadata["start_index"] for d in our_docs]
    assert starts == sorted(starts)
    for doc, start, their_doc in zip(our_docs, starts, their_docs, strict=True):
        chunk = doc.page_content
        assert text[start] == chunk[0]
        exact = text[start : start + len(chunk)] == chunk
        assert exact or not substrings
        their_start = their_doc.metadata["start_index"]
        if their_start != start and exact:
            # LangChain found another occurrence of the same text (or none at all).
            repeated = text.find(chunk) != start or text.find(chunk, start + 1) != -1
            assert their_start == -1 or repeated


@SETTINGS
@given(
    text=texts,
    opts=options(),
    keep=keep_modes,
    separator=st.sampled_from(["\n\n", "\n", " ", "a", "ab", ""]),
)
def test_character_splitter_matches_langchain(
    text: str, opts: dict[str, Any], keep: object, separator: str
) -> None:
    ours = CharacterTextSplitter(separator=separator, keep_separator=keep, **opts)
    theirs = lc.CharacterTextSplitter(separator=separator, keep_separator=keep, **opts)
    assert_same(ours, theirs, text, substrings=bool(keep) or separator == "")


@SETTINGS
@given(text=texts, opts=options(), keep=keep_modes)
def test_recursive_splitter_matches_langchain(
    text: str, opts: dict[str, Any], keep: object
) -> None:
    ours = RecursiveCharacterTextSplitter(keep_separator=keep, **opts)
    theirs = lc.RecursiveCharacterTextSplitter(keep_separator=keep, **opts)
    assert_same(ours, theirs, text, substrings=bool(keep))


# Presets whose separators are plain text: identical for every keep_separator mode. The
# others use regex syntax, which LangChain re-inserts verbatim when keep_separator=False
# (Haskell's "\n| " even means "newline or space"); with separators kept they are identical.
REGEX_PRESETS = ["markdown", "latex", "rst", "r", "visualbasic6", "haskell", "cobol"]
PLAIN_PRESETS = [
    language.value for language in Language if language.value not in [*REGEX_PRESETS, "perl"]
]


@SETTINGS
@given(
    text=texts,
    opts=options(),
    keep=keep_modes,
    language=st.sampled_from(PLAIN_PRESETS),
)
def test_plain_language_presets_match_langchain(
    text: str, opts: dict[str, Any], keep: object, language: str
) -> None:
    ours = RecursiveCharacterTextSplitter.from_language(
        Language(language), keep_separator=keep, **opts
    )
    theirs = lc.RecursiveCharacterTextSplitter.from_language(
        lc.Language(language), keep_separator=keep, **opts
    )
    assert_same(ours, theirs, text, substrings=bool(keep))


@SETTINGS
@given(
    text=texts,
    opts=options(),
    keep=st.sampled_from([True, "start", "end"]),
    language=st.sampled_from(REGEX_PRESETS),
)
def test_regex_language_presets_match_langchain(
    text: str, opts: dict[str, Any], keep: object, language: str
) -> None:
    ours = RecursiveCharacterTextSplitter.from_language(
        Language(language), keep_separator=keep, **opts
    )
    theirs = lc.RecursiveCharacterTextSplitter.from_language(
        lc.Language(language), keep_separator=keep, **opts
    )
    assert_same(ours, theirs, text, substrings=True)


@SETTINGS
@given(
    text=texts,
    opts=options(),
    keep=st.sampled_from([True, "start", "end"]),
    separator=st.sampled_from([r"\s+", r"(?=\n)", r"(?<=\.)", "a+b?", r"\n#{1,6} ", "[.$]"]),
)
def test_regex_separators_with_kept_separators_match_langchain(
    text: str, opts: dict[str, Any], keep: object, separator: str
) -> None:
    ours = CharacterTextSplitter(
        separator=separator, is_separator_regex=True, keep_separator=keep, **opts
    )
    theirs = lc.CharacterTextSplitter(
        separator=separator, is_separator_regex=True, keep_separator=keep, **opts
    )
    assert_same(ours, theirs, text, substrings=True)
    ours_r = RecursiveCharacterTextSplitter(
        separators=[separator, " ", ""], is_separator_regex=True, keep_separator=keep, **opts
    )
    theirs_r = lc.RecursiveCharacterTextSplitter(
        separators=[separator, " ", ""], is_separator_regex=True, keep_separator=keep, **opts
    )
    assert_same(ours_r, theirs_r, text, substrings=True)


def test_regex_separator_dropped_differs_from_langchain_as_documented() -> None:
    """With keep_separator=False LangChain joins pieces with the pattern's source text."""
    opts = {"separator": r"\s+", "is_separator_regex": True, "chunk_size": 9, "chunk_overlap": 0}
    assert lc.CharacterTextSplitter(**opts).split_text("ab  cd\tef gh") == ["ab\\s+cd", "ef\\s+gh"]
    assert CharacterTextSplitter(**opts).split_text("ab  cd\tef gh") == ["ab  cd\tef", "gh"]


def test_capturing_groups_in_a_separator_are_ignored() -> None:
    """LangChain's re.split returns the group too, so the separator text appears twice."""
    opts = {"separator": "(,)", "is_separator_regex": True, "chunk_size": 3, "chunk_overlap": 0}
    assert lc.CharacterTextSplitter(keep_separator=True, **opts).split_text("ab,cd,ef") == [
        "ab",
        ",,",
        "cd,",
        ",ef",
    ]
    assert CharacterTextSplitter(keep_separator=True, **opts).split_text("ab,cd,ef") == [
        "ab",
        ",cd",
        ",ef",
    ]
    assert CharacterTextSplitter(keep_separator="end", **opts).split_text("ab,cd,ef") == [
        "ab,",
        "cd,",
        "ef",
    ]


def test_haskell_preset_without_separators_differs_from_langchain_as_documented() -> None:
    text = "main = do\n  print 1"
    opts = {"chunk_size": 12, "chunk_overlap": 0, "keep_separator": False}
    theirs = lc.RecursiveCharacterTextSplitter.from_language(lc.Language.HASKELL, **opts)
    ours = RecursiveCharacterTextSplitter.from_language(Language.HASKELL, **opts)
    assert theirs.split_text(text) == ["main\n| =", "do\n| print", "1"]
    assert ours.split_text(text) == ["main = do", "print 1"]


def test_langchain_start_index_lands_on_an_earlier_repeat() -> None:
    """The exact case our start_index fixes (docs/differences-from-langchain.md)."""
    text = "TODO\nTODO\nTODO"
    opts = {"chunk_size": 9, "chunk_overlap": 4, "add_start_index": True}
    theirs = lc.RecursiveCharacterTextSplitter(**opts).create_documents([text])
    ours = RecursiveCharacterTextSplitter(**opts).create_documents([text])
    assert (
        [d.page_content for d in theirs] == [d.page_content for d in ours] == ["TODO\nTODO", "TODO"]
    )
    assert [d.metadata["start_index"] for d in theirs] == [0, 5]  # the middle TODO: wrong
    assert [d.metadata["start_index"] for d in ours] == [0, 10]


# ---- real documents: Python standard library sources --------------------------------------

STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_FILES = ["textwrap.py", "difflib.py", "argparse.py", "json/decoder.py", "email/message.py"]


def test_markdown_preset_on_this_readme_matches_langchain() -> None:
    """The README and the differences page (the README's long Markdown until the
    documentation site took it over)."""
    root = Path(__file__).resolve().parents[2]
    text = "\n\n".join(
        (root / name).read_text(encoding="utf-8")
        for name in ("README.md", "docs/differences-from-langchain.md")
    )
    for size, overlap in [(400, 50), (120, 20)]:
        opts = {"chunk_size": size, "chunk_overlap": overlap, "add_start_index": True}
        for keep in (True, "end"):
            ours = RecursiveCharacterTextSplitter.from_language(
                Language.MARKDOWN, keep_separator=keep, **opts
            )
            theirs = lc.RecursiveCharacterTextSplitter.from_language(
                lc.Language.MARKDOWN, keep_separator=keep, **opts
            )
            assert_same(ours, theirs, text, substrings=True)


@pytest.fixture(scope="module")
def stdlib_texts() -> list[str]:
    texts = [(STDLIB / name).read_text(encoding="utf-8") for name in STDLIB_FILES]
    assert sum(map(len, texts)) > 200_000
    return texts


@pytest.mark.parametrize(("chunk_size", "chunk_overlap"), [(1000, 200), (300, 50), (64, 16)])
@pytest.mark.parametrize("keep", [False, True, "end"])
def test_real_files_match_langchain(
    stdlib_texts: list[str], chunk_size: int, chunk_overlap: int, keep: object
) -> None:
    opts = {"chunk_size": chunk_size, "chunk_overlap": chunk_overlap, "add_start_index": True}
    pairs = [
        (RecursiveCharacterTextSplitter(keep_separator=keep, **opts),
         lc.RecursiveCharacterTextSplitter(keep_separator=keep, **opts)),
        (RecursiveCharacterTextSplitter.from_language(Language.PYTHON, keep_separator=keep, **opts),
         lc.RecursiveCharacterTextSplitter.from_language(
             lc.Language.PYTHON, keep_separator=keep, **opts)),
        (CharacterTextSplitter(separator="\n", keep_separator=keep, **opts),
         lc.CharacterTextSplitter(separator="\n", keep_separator=keep, **opts)),
    ]  # fmt: skip
    for text in stdlib_texts:
        for ours, theirs in pairs:
            assert_same(ours, theirs, text, substrings=bool(keep))
