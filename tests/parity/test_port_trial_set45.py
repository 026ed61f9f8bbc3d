"""Parity: differences found by the forty-fifth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program prints.
"""

from __future__ import annotations

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

pytest.importorskip("langchain_community")

COVERS = {"loaders.PythonLoader"}

# directory_loader_howto: DirectoryLoader(glob="**/*.py", loader_cls=PythonLoader); ragline
# had no PythonLoader, so the ported program kept LangChain's. Here the files declare
# their encodings the ways Python source can (a coding comment on line 1 or 2, a UTF-8
# byte-order mark, none), and one declares an encoding Python does not know.
_PYTHON_LOADER = """
import os
from {module} import DirectoryLoader, PythonLoader, TextLoader

os.chdir({folder!r})
os.makedirs("src/pkg", exist_ok=True)
with open("src/plain.py", "w", encoding="utf-8") as f:
    f.write("def main():\\n    return 'naïve'\\n")
with open("src/pkg/legacy.py", "wb") as f:
    f.write("# -*- coding: latin-1 -*-\\nNAME = 'café crème'\\n".encode("latin-1"))
with open("src/pkg/second_line.py", "wb") as f:
    text = "#!/usr/bin/env python\\n# vim: set fileencoding=cp1252 :\\nQ = '“quoted”'\\n"
    f.write(text.encode("cp1252"))
with open("src/bom.py", "wb") as f:
    f.write(b"\\xef\\xbb\\xbfX = '\\xc3\\xa9t\\xc3\\xa9'\\n")
with open("src/notes.txt", "w") as f:
    f.write("not python")

docs = DirectoryLoader("src", glob="**/*.py", loader_cls=PythonLoader).load()
for doc in sorted(docs, key=lambda d: d.metadata["source"]):
    print(doc.metadata, repr(doc.page_content))

for name in ("src/plain.py", "src/pkg/legacy.py", "src/pkg/second_line.py", "src/bom.py"):
    loader = PythonLoader(name)
    print(name, loader.encoding, isinstance(loader, TextLoader), loader.file_path)
    print([d.page_content[:12] for d in loader.lazy_load()])

try:
    PythonLoader("src/missing.py")
except OSError as err:
    print("missing:", isinstance(err, OSError))

with open("src/bad.py", "wb") as f:
    f.write(b"# coding: no-such-codec\\nx = 1\\n")
try:
    PythonLoader("src/bad.py")
except SyntaxError as err:
    print("bad coding:", type(err).__name__)
"""


def test_python_loader_reads_the_declared_encoding_as_langchains(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the programs chdir into their folders; this restores it
    (tmp_path / "lc").mkdir()
    (tmp_path / "rl").mkdir()
    langchain_printed = _printed(
        _PYTHON_LOADER.format(
            module="langchain_community.document_loaders", folder=str(tmp_path / "lc")
        )
    )
    ragline_printed = _printed(
        _PYTHON_LOADER.format(module="ragline.loaders", folder=str(tmp_path / "rl"))
    )
    assert langchain_printed.count("\n") == 14
    assert "iso-8859-1" in langchain_printed and "utf-8-sig" in langchain_printed
    assert ragline_printed == langchain_printed


def test_the_ported_directory_program_uses_raglines_python_loader(tmp_path, monkeypatch) -> None:
    # what directory_loader_howto needed: the port maps PythonLoader, so no LangChain
    # loader is left in the program (``ported`` asserts nothing stayed unmapped)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lc").mkdir()
    (tmp_path / "rl").mkdir()
    source = _PYTHON_LOADER.format(
        module="langchain_community.document_loaders", folder=str(tmp_path / "lc")
    )
    ported = _ported(source.replace(str(tmp_path / "lc"), str(tmp_path / "rl")))
    assert "from ragline.loaders import DirectoryLoader, PythonLoader, TextLoader\n" in ported
    langchain_printed = _printed(source)
    assert langchain_printed.count("\n") == 14
    assert _printed(ported) == langchain_printed
