"""Byte stores: the shared contract suite (tests/_byte_store_contract.py) run on
InMemoryByteStore and LocalFileStore, then the file store's own guarantees (safe keys,
atomic writes, sharing between processes)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from _byte_store_contract import ByteStoreContract

from ragline.core import (
    BaseStore,
    InMemoryByteStore,
    InvalidInputError,
    LocalFileStore,
    PersistenceError,
)


class TestInMemoryByteStore(ByteStoreContract):
    @pytest.fixture
    def store(self) -> BaseStore[str, bytes]:
        return InMemoryByteStore()


class TestLocalFileStore(ByteStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> BaseStore[str, bytes]:
        return LocalFileStore(tmp_path / "store")


def test_bytearray_values_are_stored_as_bytes(tmp_path: Path) -> None:
    for store in (InMemoryByteStore(), LocalFileStore(tmp_path)):
        store.mset([("a", bytearray(b"ab"))])  # type: ignore[list-item]
        assert store.mget(["a"]) == [b"ab"]


# -- LocalFileStore specifics -----------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    ["../outside", "a/../../outside", "/etc/passwd", "a//b", "./a", "a/.", "", "a b", "a\\b", "~x"],
)
def test_local_file_store_refuses_unsafe_keys(tmp_path: Path, key: str) -> None:
    """No key may reach outside the root or be ambiguous; nothing is written."""
    store = LocalFileStore(tmp_path / "root")
    with pytest.raises(InvalidInputError, match="not a safe relative path"):
        store.mset([(key, b"x")])
    with pytest.raises(InvalidInputError):
        store.mget([key])
    with pytest.raises(InvalidInputError):
        store.mdelete([key])
    assert sorted(p.name for p in tmp_path.rglob("*")) == []


def test_local_file_store_unsafe_key_fails_whole_batch(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path)
    with pytest.raises(InvalidInputError, match=r"'\.\./x'"):
        store.mset([("fine", b"1"), ("../x", b"2")])
    assert list(store.yield_keys()) == []


def test_local_file_store_refuses_symlink_escape(tmp_path: Path) -> None:
    """A symlinked directory inside the root cannot be used to write outside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    store = LocalFileStore(root)
    with pytest.raises(InvalidInputError, match="resolves outside"):
        store.mset([("link/evil", b"x")])
    assert list(outside.iterdir()) == []


def test_local_file_store_does_not_follow_a_symlinked_file(tmp_path: Path) -> None:
    """A file planted as a symlink to something outside the root is not read."""
    secret = tmp_path / "secret"
    secret.write_bytes(b"do not leak")
    root = tmp_path / "root"
    root.mkdir()
    (root / "key").symlink_to(secret)
    with pytest.raises(PersistenceError, match="refusing to follow the symbolic link"):
        LocalFileStore(root).mget(["key"])
    LocalFileStore(root).mset([("key", b"mine")])  # replaces the link, not the target
    assert secret.read_bytes() == b"do not leak"
    assert LocalFileStore(root).mget(["key"]) == [b"mine"]


def test_local_file_store_layout_nested_keys_and_no_temp_files(tmp_path: Path) -> None:
    """'/' in a key makes sub-directories; no temporary file is left behind."""
    store = LocalFileStore(tmp_path)
    store.mset([("ns/sub/key.bin", b"payload"), ("top", b"t")])
    assert (tmp_path / "ns" / "sub" / "key.bin").read_bytes() == b"payload"
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()) == [
        "ns/sub/key.bin",
        "top",
    ]
    assert list(store.yield_keys()) == ["top", "ns/sub/key.bin"]
    assert list(store.yield_keys(prefix="ns/")) == ["ns/sub/key.bin"]


def test_local_file_store_ignores_leftover_temp_files(tmp_path: Path) -> None:
    """A temporary file left by a crash mid-write is never listed or read as a key."""
    store = LocalFileStore(tmp_path)
    store.mset([("k", b"committed")])
    (tmp_path / ".k.abc123~tmp").write_bytes(b"half-writ")
    assert list(store.yield_keys()) == ["k"]
    assert store.mget(["k"]) == [b"committed"]


def test_local_file_store_write_is_atomic_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the rename fails, the old value stays intact and the temp file is removed."""
    store = LocalFileStore(tmp_path)
    store.mset([("k", b"old")])

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match=r"cannot write .*disk on fire"):
        store.mset([("k", b"new")])
    monkeypatch.undo()
    assert store.mget(["k"]) == [b"old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k"]


def test_local_file_store_permissions(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path / "root", chmod_file=0o600, chmod_dir=0o700)
    store.mset([("d/k", b"x")])
    assert (tmp_path / "root" / "d" / "k").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "root" / "d").stat().st_mode & 0o777 == 0o700


def test_local_file_store_update_atime(tmp_path: Path) -> None:
    # An access time in the future: relatime (the usual mount option) leaves it alone on
    # a read, so only update_atime can move it back to now. (A past one would be updated
    # by the file system itself, and the test could not fail.)
    future = (int(time.time()) + 100_000) * 10**9
    touching = LocalFileStore(tmp_path / "touching", update_atime=True)
    plain = LocalFileStore(tmp_path / "plain")
    for store in (touching, plain):
        store.mset([("k", b"x")])
        os.utime(store.root_path / "k", ns=(future, 2 * 10**15))
        assert store.mget(["k"]) == [b"x"]
    if (plain.root_path / "k").stat().st_atime_ns != future:
        pytest.skip("this file system sets access times on every read by itself")
    stat = (touching.root_path / "k").stat()
    assert stat.st_mtime_ns == 2 * 10**15
    assert stat.st_atime_ns < future - 50_000 * 10**9  # set to now by the read


def test_local_file_store_root_must_be_a_directory(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_bytes(b"")
    with pytest.raises(InvalidInputError, match="is not a directory"):
        LocalFileStore(file)
    with pytest.raises(InvalidInputError, match="root_path"):
        LocalFileStore("")


def test_local_file_store_missing_root_reads_as_empty(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path / "not-yet")
    assert store.mget(["a"]) == [None]
    assert list(store.yield_keys()) == []
    assert not (tmp_path / "not-yet").exists()


def test_local_file_store_is_shared_between_processes(tmp_path: Path) -> None:
    """A value written by another process is read here, and vice versa."""
    store = LocalFileStore(tmp_path)
    store.mset([("from-parent", b"p")])
    script = (
        "import sys; from ragline.core import LocalFileStore\n"
        "s = LocalFileStore(sys.argv[1])\n"
        "assert s.mget(['from-parent']) == [b'p']\n"
        "s.mset([('from-child', b'c')])\n"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, timeout=300)
    assert store.mget(["from-child"]) == [b"c"]


def test_stores_are_base_stores(tmp_path: Path) -> None:
    assert isinstance(InMemoryByteStore(), BaseStore)
    assert isinstance(LocalFileStore(tmp_path), BaseStore)


@pytest.mark.parametrize("make", [InMemoryByteStore, lambda: LocalFileStore("unused-root")])
def test_error_messages_name_the_bad_key_or_value(
    make: Callable[[], BaseStore[str, bytes]],
) -> None:
    store = make()
    with pytest.raises(InvalidInputError, match="store keys must be str, got int: 1"):
        store.mget([1])  # type: ignore[list-item]
    with pytest.raises(
        InvalidInputError, match="byte store values must be bytes, got str for key 'b'"
    ):
        store.mset([("a", b"ok"), ("b", "text")])  # type: ignore[list-item]
    with pytest.raises(
        InvalidInputError, match=r"mset expects \(key, value\) pairs, got \('a', b'1', 'x'\)"
    ):
        store.mset([("a", b"1", "x")])  # type: ignore[list-item]
