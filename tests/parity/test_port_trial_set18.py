"""Parity: differences found by the eighteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# pranavi_split_text_retrievalqa_run: chunks wrapped in the Document of the old docstore
# path, stored in FAISS. The path was not in the table, so the Document stayed LangChain's
# and ragline's FAISS refused it.
_DOCSTORE_DOCUMENT = """
from {path} import Document
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_text_splitters import RecursiveCharacterTextSplitter

splitter = RecursiveCharacterTextSplitter(chunk_size=60, chunk_overlap=10)
text = "Plants turn light into sugar. " * 4 + "\\n\\n" + "Chlorophyll absorbs blue light. " * 3
docs = [Document(page_content=chunk) for chunk in splitter.split_text(text)]
print(len(docs), docs[0])
store = FAISS.from_documents(docs, DeterministicFakeEmbedding(size=16))
for doc, score in store.similarity_search_with_score(docs[2].page_content, k=2):
    print(repr(doc.page_content), round(float(score), 5))
print(type(docs[0]).__name__, Document(page_content="x", metadata={{"a": 1}}))
"""


def test_the_docstore_document_paths_port_and_store_as_langchains() -> None:
    # ``langchain.docstore.document`` (the package's name before langchain_classic) is
    # not installed: it is run as langchain_classic's module, which it is now
    for path, installed in (
        ("langchain_community.docstore.document", "langchain_community.docstore.document"),
        ("langchain_classic.docstore.document", "langchain_classic.docstore.document"),
        ("langchain.docstore.document", "langchain_classic.docstore.document"),
    ):
        ported = _ported(_DOCSTORE_DOCUMENT.format(path=path))
        assert "from ragline.core import Document\n" in ported
        langchain_printed = _printed(_DOCSTORE_DOCUMENT.format(path=installed))
        assert langchain_printed.count("\n") == 4
        assert _printed(ported) == langchain_printed


# lixiaoyao_generic_loader_filesystem_txt: GenericLoader.from_filesystem(".", glob="*.txt")
# was unmapped (ragline had no GenericLoader), so the ported program kept LangChain's.
COVERS = {
    "loaders.GenericLoader",
    "loaders.FileSystemBlobLoader",
    "loaders.Blob",
    "loaders.BlobLoader",
    "loaders.BaseBlobParser",
    "loaders.TextParser",
    "loaders.MimeTypeBasedParser",
}


def _langchain_generic() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import langchain_community.document_loaders.blob_loaders as lc_blob_loaders
        import langchain_community.document_loaders.generic as lc_generic
        import langchain_community.document_loaders.parsers.generic as lc_by_type
        import langchain_community.document_loaders.parsers.txt as lc_txt
        import langchain_core.document_loaders as lc_loaders
        import langchain_core.documents as lc_documents
        import langchain_core.documents.base as lc_documents_base
    return SimpleNamespace(
        Document=lc_documents.Document,
        Blob=lc_documents_base.Blob,
        BaseBlobParser=lc_loaders.BaseBlobParser,
        BlobLoader=lc_loaders.BlobLoader,
        FileSystemBlobLoader=lc_blob_loaders.FileSystemBlobLoader,
        GenericLoader=lc_generic.GenericLoader,
        MimeTypeBasedParser=lc_by_type.MimeTypeBasedParser,
        TextParser=lc_txt.TextParser,
    )


def _ragline_generic() -> Any:
    import ragline.core as rl_core
    import ragline.loaders as rl_loaders

    names = "Blob BaseBlobParser BlobLoader FileSystemBlobLoader GenericLoader"
    names += " MimeTypeBasedParser TextParser"
    return SimpleNamespace(
        Document=rl_core.Document, **{name: getattr(rl_loaders, name) for name in names.split()}
    )


def _generic_loading(lib: Any, folder: Path) -> list[Any]:
    read: list[Any] = []

    def docs(loader: Any) -> list[Any]:
        return [(d.page_content, d.metadata) for d in loader.lazy_load()]

    def error(call: Any) -> str:
        try:
            call()
        except ValueError:
            return "ValueError"
        return "no error"

    # the program: files in the working folder, glob="*.txt"
    read.append(docs(lib.GenericLoader.from_filesystem(".", glob="*.txt", show_progress=True)))
    # the default glob reaches subfolders, skips dot files, and the default parser refuses
    # a mime type other than text/plain (the .md file)
    read.append(error(lambda: lib.GenericLoader.from_filesystem(folder).load()))
    read.append(docs(lib.GenericLoader.from_filesystem(folder, suffixes=[".txt"])))
    read.append(docs(lib.GenericLoader.from_filesystem(folder, exclude=["*a_*", "*.md"])))
    read.append(docs(lib.GenericLoader.from_filesystem(folder / "sub" / "d.txt")))
    read.append(error(lambda: lib.GenericLoader.from_filesystem(folder, parser="pdf")))
    files = lib.FileSystemBlobLoader(folder, glob="**/*.txt")
    read.append(files.count_matching_files())
    read.append([(b.source, b.mimetype, b.encoding, b.as_string()) for b in files.yield_blobs()])

    class Lines(lib.BaseBlobParser):  # a user's parser: a document per line
        def lazy_parse(self, blob: Any) -> Any:
            for number, line in enumerate(blob.as_string().splitlines()):
                yield lib.Document(page_content=line, metadata={"line": number, "of": blob.source})

    read.append(docs(lib.GenericLoader(files, Lines())))
    read.append(docs(lib.GenericLoader.from_filesystem(folder, glob="*.md", parser=Lines())))

    class LinesLoader(lib.GenericLoader):  # a subclass naming its own default parser
        @classmethod
        def get_parser(cls, **kwargs: Any) -> Any:
            return Lines()

    read.append(docs(LinesLoader.from_filesystem(folder, glob="*.md")))
    by_type = lib.MimeTypeBasedParser(
        handlers={"text/markdown": Lines()}, fallback_parser=lib.TextParser()
    )
    read.append(docs(lib.GenericLoader.from_filesystem(folder, glob="*[dt]", parser=by_type)))

    class Memory(lib.BlobLoader):  # a user's blob loader
        def yield_blobs(self) -> Any:
            yield lib.Blob.from_data("one\ntwo", path="mem.md", mime_type="text/markdown")
            yield lib.Blob.from_data(b"caf\xe9", encoding="latin-1", metadata={"source": "s"})

    read.append(docs(lib.GenericLoader(Memory(), Lines())))
    blob = lib.Blob.from_path(folder / "b_notes.txt")
    with blob.as_bytes_io() as handle:
        read += [blob.as_bytes(), handle.read(), blob.data, blob.metadata, str(blob.path)]
    memory = lib.Blob.from_data("hi", path="x.txt")
    read += [memory.source, memory.mimetype, memory.as_bytes(), repr(memory).split()[2]]
    read.append(repr(lib.Blob.from_data("hi")).split()[0])
    return read


def test_generic_loader_reads_the_filesystem_as_langchains(
    tmp_path: Path, monkeypatch: Any
) -> None:
    for name, text in [
        ("b_notes.txt", "second"),
        ("a_intro.txt", "first\nline two"),
        ("c.md", "# title\nbody"),
        (".hidden.txt", "never"),
        ("sub/d.txt", "deep"),
    ]:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    langchain_read = _generic_loading(_langchain_generic(), tmp_path)
    # Path.glob's "*.txt" matches the dot file too; the order is the file system's
    assert sorted(langchain_read[0]) == [
        ("first\nline two", {"source": "a_intro.txt"}),
        ("never", {"source": ".hidden.txt"}),
        ("second", {"source": "b_notes.txt"}),
    ]
    assert langchain_read[1] == "ValueError"
    assert _generic_loading(_ragline_generic(), tmp_path) == langchain_read


def test_the_generic_loader_paths_port() -> None:
    source = (
        "from langchain_community.document_loaders.generic import GenericLoader\n"
        "from langchain_community.document_loaders.blob_loaders import FileSystemBlobLoader\n"
        "from langchain_core.documents.base import Blob\n"
        "from langchain_core.document_loaders import BaseBlobParser\n"
    )
    assert _ported(source) == (
        "from ragline.loaders import GenericLoader\n"
        "from ragline.loaders import FileSystemBlobLoader\n"
        "from ragline.loaders import Blob\n"
        "from ragline.loaders import BaseBlobParser\n"
    )


def test_load_local_without_the_pickle_flag_loads_where_langchain_raises(tmp_path: Path) -> None:
    # liushihao_faiss_walkthrough_load_local_flag, a documented deliberate difference
    # (docs/differences-from-langchain.md): ragline's folder holds no pickle, so the flag
    # guards nothing and a call without it loads
    from langchain_community.vectorstores import FAISS as LangChainFAISS
    from langchain_core.embeddings import DeterministicFakeEmbedding as LangChainFake

    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.vectorstores import FAISS

    LangChainFAISS.from_texts(["foo", "bar"], LangChainFake(size=8)).save_local(tmp_path / "lc")
    with pytest.raises(ValueError, match="allow_dangerous_deserialization"):
        LangChainFAISS.load_local(tmp_path / "lc", LangChainFake(size=8))
    embeddings = DeterministicFakeEmbedding(size=8)
    FAISS.from_texts(["foo", "bar"], embeddings).save_local(tmp_path / "rl")
    loaded = FAISS.load_local(tmp_path / "rl", embeddings)
    assert [d.page_content for d in loaded.similarity_search("foo", k=2)] == ["foo", "bar"]


def test_a_langchain_document_given_to_ragline_is_named_with_its_module() -> None:
    # pranavi_split_text_retrievalqa_run before the port fix: "documents[0] must be a
    # Document, got Document" named neither class
    from langchain_core.documents import Document as LangChainDocument

    from ragline.core import InvalidInputError
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.retrievers import BM25Retriever
    from ragline.vectorstores import FAISS

    foreign = [LangChainDocument(page_content="a")]
    expected = (
        r"documents\[0\] must be a Document, got langchain_core\.documents\.base\.Document "
        r"\(another library's Document: build it with ragline\.core\.Document, or run "
        r"`ragline port` on the program\)"
    )
    with pytest.raises(InvalidInputError, match=expected):
        FAISS.from_documents(foreign, DeterministicFakeEmbedding(size=4))
    with pytest.raises(InvalidInputError, match=expected):
        BM25Retriever.from_documents(foreign)
