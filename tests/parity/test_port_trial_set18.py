"""Parity: differences found by the eighteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import contextlib
import io
import warnings

from ragline.cli._port_rewrite import port_source


def _printed(source: str) -> str:
    """What ``source`` prints, run in a fresh namespace (LangChain's warnings hushed)."""
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("ignore")
        exec(compile(source, "<program>", "exec"), {"__name__": "__program__"})
    return out.getvalue()


def _ported(source: str) -> str:
    ported = port_source(source)
    assert ported.unmapped == []
    assert "langchain" not in ported.source
    return ported.source


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
