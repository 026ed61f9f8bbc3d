"""The public surface of ragline.loaders and the shared BaseLoader behaviour."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import ragline.loaders
from ragline.core import Document
from ragline.loaders import BaseLoader

EXPECTED = [
    "BSHTMLLoader",
    "BaseBlobParser",
    "BaseLoader",
    "BeautifulSoupTransformer",
    "Blob",
    "BlobLoader",
    "CSVLoader",
    "DEFAULT_LOADER_MAPPING",
    "DirectoryLoader",
    "FileSystemBlobLoader",
    "GenericLoader",
    "JSONLoader",
    "MarkdownLoader",
    "MergedDataLoader",
    "MimeTypeBasedParser",
    "PyPDFDirectoryLoader",
    "PyPDFLoader",
    "PythonLoader",
    "TextLoader",
    "TextParser",
    "WebBaseLoader",
    "loader_for_path",
    "loader_mapping",
]
CONSTANTS = {"DEFAULT_LOADER_MAPPING"}


def test_all_is_pinned_and_every_name_resolves() -> None:
    assert sorted(ragline.loaders.__all__) == EXPECTED
    for name in set(EXPECTED) - CONSTANTS:
        assert getattr(ragline.loaders, name).__name__ == name
    assert ragline.loaders.DEFAULT_LOADER_MAPPING[".md"] is ragline.loaders.MarkdownLoader
    assert sorted(dir(ragline.loaders)) == EXPECTED


def test_using_loaders_does_not_import_parsers_until_needed(tmp_path) -> None:
    """Constructing every loader (and loading plain text) must not import bs4 or pypdf."""
    (tmp_path / "a.txt").write_text("x")
    code = f"""
import json, sys
from ragline.loaders import *
root = {str(tmp_path)!r}
BSHTMLLoader(root + "/a.html"); PyPDFLoader(root + "/a.pdf")
WebBaseLoader("http://127.0.0.1:9/"); CSVLoader(root + "/a.csv")
JSONLoader(root + "/a.json", "."); MarkdownLoader(root + "/a.md")
DirectoryLoader(root).load()
print(json.dumps([m for m in ("bs4", "pypdf", "httpx", "requests", "yaml") if m in sys.modules]))
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []


class Numbers(BaseLoader):
    """Yields n documents and records how far it was consumed."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.produced = 0

    def lazy_load(self) -> Iterator[Document]:
        for i in range(self.n):
            self.produced += 1
            yield Document(str(i), metadata={"source": "numbers", "i": i})


def test_load_is_the_list_of_lazy_load() -> None:
    assert [d.page_content for d in Numbers(3).load()] == ["0", "1", "2"]


async def test_default_alazy_load_is_lazy_and_ordered() -> None:
    loader = Numbers(5)
    stream = loader.alazy_load()
    first = await stream.__anext__()
    assert first.page_content == "0"
    assert loader.produced == 1  # nothing read ahead
    rest = [d.page_content async for d in stream]
    assert rest == ["1", "2", "3", "4"]
    assert [d.metadata["i"] for d in await Numbers(2).aload()] == [0, 1]


def test_load_and_split_uses_the_given_splitter() -> None:
    class Halves:
        def split_documents(self, documents: list[Document]) -> list[Document]:
            return [
                Document(part, metadata=d.metadata)
                for d in documents
                for part in (d.page_content[:1], d.page_content[1:])
            ]

    class Word(BaseLoader):
        def lazy_load(self) -> Iterator[Document]:
            yield Document("ab", metadata={"source": "w"})

    assert [d.page_content for d in Word().load_and_split(Halves())] == ["a", "b"]
