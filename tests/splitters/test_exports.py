"""The public surface of ragline.splitters, pinned."""

from __future__ import annotations

import subprocess
import sys

import ragline.splitters

EXPECTED = [
    "CharacterTextSplitter",
    "HTMLHeaderTextSplitter",
    "LANGUAGE_BY_SUFFIX",
    "Language",
    "LatexTextSplitter",
    "MarkdownHeaderTextSplitter",
    "MarkdownSectionSplitter",
    "MarkdownTextSplitter",
    "PythonCodeTextSplitter",
    "RecursiveCharacterTextSplitter",
    "RecursiveJsonSplitter",
    "SentenceTransformersTokenTextSplitter",
    "TextSplitter",
    "TokenTextSplitter",
    "Tokenizer",
    "language_for_path",
    "split_text_on_tokens",
]
CONSTANTS = {"LANGUAGE_BY_SUFFIX"}


def test_all_is_pinned_and_every_name_resolves() -> None:
    assert ragline.splitters.__all__ == EXPECTED
    for name in set(EXPECTED) - CONSTANTS:
        assert getattr(ragline.splitters, name).__name__ == name
    assert ragline.splitters.LANGUAGE_BY_SUFFIX[".py"] is ragline.splitters.Language.PYTHON


def test_splitting_loads_no_heavy_dependency() -> None:
    code = (
        "import sys\n"
        "from ragline.splitters import RecursiveCharacterTextSplitter, MarkdownHeaderTextSplitter,"
        " TokenTextSplitter\n"
        "RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0).split_text('a b c d e f')\n"
        "heavy = {'tiktoken', 'transformers', 'torch', 'sentence_transformers'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
