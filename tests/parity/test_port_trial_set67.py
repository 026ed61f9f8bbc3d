"""Parity: differences found by the sixty-seventh port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from pathlib import Path

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# howto_caching_embeddings_faiss / cookie_cache_embedder: a program printed
# ``list(store.yield_keys())`` of a LocalFileStore holding an embedding cache. LangChain
# lists the files in the order ``Path.rglob`` walks the folder (the file system's order);
# ragline sorted them by name.
_FILE_STORE_KEYS = """
from langchain_classic.storage import LocalFileStore

store = LocalFileStore("./cache/")
names = ["model-%02d-%s" % (i, "zyxwvutsrq"[i]) for i in range(10)]
store.mset([(name, b"1") for name in names])
store.mset([("nested/inner/b", b"2"), ("nested/a", b"3"), ("top", b"4")])
store.mdelete(["model-03-w"])
print(list(store.yield_keys()))
print(list(store.yield_keys())[:3])
print(list(store.yield_keys(prefix="nested")))
"""


def test_local_file_store_lists_keys_in_the_folders_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "langchain").mkdir()
    (tmp_path / "ragline").mkdir()
    monkeypatch.chdir(tmp_path / "langchain")
    langchain_printed = _printed(_FILE_STORE_KEYS)
    listed = eval(langchain_printed.splitlines()[0])  # the printed list of keys
    assert sorted(listed) == sorted(
        [f"model-{i:02d}-{'zyxwvutsrq'[i]}" for i in range(10) if i != 3]
        + ["nested/inner/b", "nested/a", "top"]
    )
    # a folder's own files come before those of the folders below it
    assert listed.index("nested/a") < listed.index("nested/inner/b")
    monkeypatch.chdir(tmp_path / "ragline")
    assert _printed(_ported(_FILE_STORE_KEYS)) == langchain_printed
