"""Parity: MergedDataLoader against LangChain's.

Text, CSV and JSON-lines files loaded by each library's own loaders, merged by each
library's MergedDataLoader: the documents in order with their metadata, by ``load``,
``lazy_load`` and ``alazy_load``; a program's loader that has only ``load`` (its
``lazy_load`` raises ``NotImplementedError``) is read with ``load``; an empty list gives
nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from langchain_community.document_loaders import CSVLoader as LCCSVLoader
from langchain_community.document_loaders import MergedDataLoader as LCMergedDataLoader
from langchain_community.document_loaders import TextLoader as LCTextLoader
from langchain_core.document_loaders import BaseLoader as LCBaseLoader
from langchain_core.documents import Document as LCDocument

from ragline.core import Document
from ragline.loaders import BaseLoader, CSVLoader, MergedDataLoader, TextLoader

COVERS = {"loaders.MergedDataLoader"}


def observed(docs: Any) -> list[tuple[str, list[tuple[str, Any]]]]:
    return [(d.page_content, list(d.metadata.items())) for d in docs]


class LCLoadOnly(LCBaseLoader):
    def lazy_load(self) -> Any:
        raise NotImplementedError

    def load(self) -> list[Any]:
        return [LCDocument("from load", metadata={"source": "mem"})]


class LoadOnly(BaseLoader):
    def lazy_load(self) -> Any:
        raise NotImplementedError

    def load(self) -> list[Document]:
        return [Document("from load", metadata={"source": "mem"})]


def test_merged_documents_in_order(tmp_path: Path) -> None:
    text = tmp_path / "a.txt"
    text.write_text("first file\nsecond line", encoding="utf-8")
    table = tmp_path / "b.csv"
    table.write_text("name,age\nada,36\nbob,7\n", encoding="utf-8")
    lc = LCMergedDataLoader([LCTextLoader(str(text)), LCCSVLoader(str(table)), LCLoadOnly()])
    rl = MergedDataLoader([TextLoader(str(text)), CSVLoader(str(table)), LoadOnly()])
    assert observed(rl.load()) == observed(lc.load())
    assert observed(rl.lazy_load()) == observed(lc.lazy_load())
    assert len(rl.load()) == 4

    async def collect(loader: Any) -> list[Any]:
        return [doc async for doc in loader.alazy_load()]

    lc = LCMergedDataLoader([LCTextLoader(str(text)), LCCSVLoader(str(table))])
    rl = MergedDataLoader([TextLoader(str(text)), CSVLoader(str(table))])
    assert observed(asyncio.run(collect(rl))) == observed(asyncio.run(collect(lc)))
    assert rl.load() != [] and MergedDataLoader([]).load() == LCMergedDataLoader([]).load() == []
