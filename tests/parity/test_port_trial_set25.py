"""Parity: differences found by the twenty-fifth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from pathlib import Path

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# wzy_chat_record_custom_loader: a loader written the old way, overriding load() only
# (a chat log read line by line, "name：text" lines kept). LangChain's lazy_load falls
# back to load(), so the loader builds and lazy_load yields the same documents; ragline
# refused to build it (lazy_load was abstract).
_LOAD_ONLY_LOADER = """
from typing import List

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document


class ChatLog(BaseLoader):
    def __init__(self, path: str):
        self.path = path

    def load(self) -> List[Document]:
        documents = []
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                if "：" in line:
                    who, said = line.strip().split("：", 1)
                    documents.append(Document(page_content=said, metadata={"who": who}))
        return documents


log = ChatLog("chat.txt")
for document in log.load():
    print(document.metadata["who"], document.page_content)
print([d.page_content for d in log.lazy_load()])
"""


def test_a_loader_that_overrides_only_load_works_as_in_langchain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.txt").write_text(
        "甲：早上好\n系统消息\n乙：会议三点：三楼\n", encoding="utf-8"
    )
    ported = _ported(_LOAD_ONLY_LOADER)
    langchain_printed = _printed(_LOAD_ONLY_LOADER)
    assert langchain_printed == "甲 早上好\n乙 会议三点：三楼\n['早上好', '会议三点：三楼']\n"
    assert _printed(ported) == langchain_printed


def test_a_loader_with_neither_hook_says_so_when_used() -> None:
    from ragline.loaders import BaseLoader

    class Empty(BaseLoader):
        pass

    with pytest.raises(NotImplementedError, match=r"Empty must implement lazy_load"):
        Empty().load()


# d3vc7_carga_fichero_txt_splitter: RecursiveCharacterTextSplitter(separators="\n", ...),
# one separator written as a str, not a list. LangChain reads the str's characters as
# the separators ("\n" is ["\n"]); ragline refused any str.
_ONE_CHARACTER_SEPARATOR = """
from langchain_text_splitters import RecursiveCharacterTextSplitter

text = "\\n".join(["uno dos tres " * 3, "cuatro cinco " * 4, "seis siete ocho " * 2])
splitter = RecursiveCharacterTextSplitter(separators="\\n", chunk_size=60, chunk_overlap=0)
for chunk in splitter.split_text(text):
    print(repr(chunk))
"""


def test_a_one_character_separators_string_is_that_separator_as_in_langchain() -> None:
    ported = _ported(_ONE_CHARACTER_SEPARATOR)
    langchain_printed = _printed(_ONE_CHARACTER_SEPARATOR)
    assert langchain_printed == (
        "'uno dos tres uno dos tres uno dos tres'\n"
        "'cuatro cinco cuatro cinco cuatro cinco cuatro cinco'\n"
        "'seis siete ocho seis siete ocho'\n"
    )
    assert _printed(ported) == langchain_printed


def test_a_longer_separators_string_is_still_refused() -> None:
    from ragline.core.exceptions import InvalidInputError
    from ragline.splitters import RecursiveCharacterTextSplitter

    with pytest.raises(InvalidInputError, match="separators"):
        RecursiveCharacterTextSplitter(separators="\n\n")
