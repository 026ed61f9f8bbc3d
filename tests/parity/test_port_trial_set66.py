"""Parity: differences found by the sixty-sixth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from pathlib import Path

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed


def _lines_pdf(pages: list[list[str]]) -> bytes:
    """A PDF whose pages show lines of text, each line ended by ``T*`` (next line)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, once the pages' numbers are known
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    kids = []
    for lines in pages:
        shown = b" ".join(b"(%s) Tj T*" % line.encode("latin-1") for line in lines)
        stream = b"BT /F1 12 Tf 72 720 Td 14 TL " + shown + b" ET"
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % len(objects)
        )
        kids.append(len(objects))
    references = b" ".join(b"%d 0 R" % kid for kid in kids)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (references, len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


# p19_pypdf_loader: PyPDFLoader(...).load() on a PDF whose lines end with a move to the
# next line; the program printed docs[0].page_content. pypdf's page text ends in "\n",
# which LangChain's parser strips and ragline kept (an extra empty line in the output).
_PDF_PAGE_TEXT = """
from langchain_community.document_loaders import PyPDFLoader

for mode in ("page", "single"):
    docs = PyPDFLoader({path!r}, mode=mode).load()
    print(len(docs))
    for doc in docs:
        print(repr(doc.page_content))
"""


def test_pdf_page_text_is_stripped_as_langchains_parser_strips_it(tmp_path: Path) -> None:
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(_lines_pdf([["Quarterly Report", "Revenue grew."], ["Outlook", "Steady."]]))
    source = _PDF_PAGE_TEXT.format(path=str(pdf))
    langchain_printed = _printed(source)
    assert "'Quarterly Report\\nRevenue grew.'\n'Outlook\\nSteady.'\n" in langchain_printed
    assert "'Quarterly Report\\nRevenue grew.\\n\\x0cOutlook\\nSteady.'" in langchain_printed
    assert _printed(_ported(source)) == langchain_printed


# Beside the trial (a probe of the same loaders): a program that catches what LangChain's
# loader raises for a missing file. LangChain's loaders raise RuntimeError (TextLoader,
# CSVLoader), FileNotFoundError (DirectoryLoader, JSONLoader, BSHTMLLoader, PythonLoader)
# or ValueError (PyPDFLoader); ragline raised LoaderError, which none of those caught.
_MISSING_FILE = """
from langchain_community.document_loaders import (
    BSHTMLLoader, CSVLoader, DirectoryLoader, JSONLoader, PyPDFLoader, PythonLoader, TextLoader,
)

folder = {folder!r}
soup = {{"features": "html.parser"}}
calls = [
    (RuntimeError, lambda: TextLoader(folder + "/none.txt", encoding="utf-8").load()),
    (RuntimeError, lambda: CSVLoader(folder + "/none.csv").load()),
    (FileNotFoundError, lambda: DirectoryLoader(folder + "/nowhere", glob="*.txt").load()),
    (FileNotFoundError, lambda: JSONLoader(folder + "/none.json", jq_schema=".").load()),
    (FileNotFoundError, lambda: BSHTMLLoader(folder + "/none.html", bs_kwargs=soup).load()),
    (FileNotFoundError, lambda: PythonLoader(folder + "/none.py").load()),
    (ValueError, lambda: PyPDFLoader(folder + "/none.pdf").load()),
]
for expected, call in calls:
    try:
        call()
    except expected:
        print("caught", expected.__name__)
"""


def test_a_missing_file_is_caught_as_each_langchain_loader_raises_it(tmp_path: Path) -> None:
    source = _MISSING_FILE.format(folder=str(tmp_path))
    langchain_printed = _printed(source)
    assert langchain_printed == (
        "caught RuntimeError\n" * 2 + "caught FileNotFoundError\n" * 4 + "caught ValueError\n"
    )
    assert _printed(_ported(source)) == langchain_printed


# Beside the trial (a probe of the same loaders): files written with Windows ("\r\n") or
# old Mac ("\r") line ends. LangChain's TextLoader, PythonLoader and BSHTMLLoader open the
# file in text mode, which reads both as "\n"; ragline kept them in page_content.
_CRLF_FILES = """
from langchain_community.document_loaders import BSHTMLLoader, PythonLoader, TextLoader

folder = {folder!r}
open(folder + "/notes.txt", "wb").write(b"line1\\r\\nline2\\rline3\\r\\n")
open(folder + "/tool.py", "wb").write(b"x = 1\\r\\ny = 2\\r\\n")
page = b"<title>T\\r\\nX</title><p>a\\r\\nb</p>\\r\\n<p>c</p>\\r\\n"
open(folder + "/page.html", "wb").write(page)
soup = {{"features": "html.parser"}}
print(repr(TextLoader(folder + "/notes.txt").load()[0].page_content))
print(repr(TextLoader(folder + "/notes.txt", encoding="utf-8").load()[0].page_content))
print(repr(PythonLoader(folder + "/tool.py").load()[0].page_content))
for encoding in (None, "utf-8"):
    doc = BSHTMLLoader(folder + "/page.html", open_encoding=encoding, bs_kwargs=soup).load()[0]
    print(repr(doc.page_content), repr(doc.metadata["title"]))
"""


def test_crlf_and_cr_line_ends_read_as_text_mode_reads_them(tmp_path: Path) -> None:
    source = _CRLF_FILES.format(folder=str(tmp_path))
    langchain_printed = _printed(source)
    assert langchain_printed.startswith("'line1\\nline2\\nline3\\n'\n" * 2 + "'x = 1\\ny = 2\\n'\n")
    assert "\\r" not in langchain_printed
    assert _printed(_ported(source)) == langchain_printed
