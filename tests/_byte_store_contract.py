"""The byte-store contract: every BaseStore[str, bytes] passes these tests, unchanged.

Subclass ``ByteStoreContract`` in a test module and give it a ``store`` fixture that
returns a fresh, empty store::

    class TestMyStore(ByteStoreContract):
        @pytest.fixture
        def store(self) -> BaseStore[str, bytes]:
            return MyStore(...)

Each test's docstring says what to check when it fails.
"""

from __future__ import annotations

import pytest

from ragline.core import BaseStore, InvalidInputError


class ByteStoreContract:
    """mget / mset / mdelete / yield_keys and the async twins on an empty store."""

    @pytest.fixture
    def store(self) -> BaseStore[str, bytes]:
        raise NotImplementedError("subclasses provide a fresh, empty store")

    def test_mset_then_mget_returns_values_in_key_order(self, store: BaseStore[str, bytes]) -> None:
        """mget answers in the order of the keys asked, None for absent keys."""
        store.mset([("a", b"1"), ("b", b"\x00\xff"), ("c", b"")])
        assert store.mget(["c", "missing", "a", "b"]) == [b"", None, b"1", b"\x00\xff"]

    def test_mset_replaces_existing_value(self, store: BaseStore[str, bytes]) -> None:
        """Writing a key twice keeps the last value."""
        store.mset([("k", b"old")])
        store.mset([("k", b"new")])
        assert store.mget(["k"]) == [b"new"]

    def test_mdelete_removes_and_ignores_absent_keys(self, store: BaseStore[str, bytes]) -> None:
        """Deleting absent keys is not an error; other keys stay."""
        store.mset([("a", b"1"), ("b", b"2")])
        store.mdelete(["a", "never-there"])
        assert store.mget(["a", "b"]) == [None, b"2"]

    def test_yield_keys_with_and_without_prefix(self, store: BaseStore[str, bytes]) -> None:
        """yield_keys lists every key; prefix keeps only the keys that start with it (a
        folder's keys, for LocalFileStore, where a prefix names a folder as LangChain's)."""
        store.mset([("user/1", b"x"), ("user/2", b"y"), ("doc/1", b"z")])
        assert sorted(store.yield_keys()) == ["doc/1", "user/1", "user/2"]
        assert sorted(store.yield_keys(prefix="user/")) == ["user/1", "user/2"]
        assert list(store.yield_keys(prefix="nothing")) == []

    def test_empty_batches_are_fine(self, store: BaseStore[str, bytes]) -> None:
        """Empty key lists are no-ops."""
        store.mset([])
        store.mdelete([])
        assert store.mget([]) == []
        assert list(store.yield_keys()) == []

    def test_bad_value_rejected_before_anything_is_written(
        self, store: BaseStore[str, bytes]
    ) -> None:
        """A non-bytes value fails the whole batch; earlier pairs of the batch are not written."""
        store.mset([("keep", b"v")])
        with pytest.raises(InvalidInputError, match="bytes"):
            store.mset([("a", b"ok"), ("b", "text")])  # type: ignore[list-item]
        assert store.mget(["a", "b", "keep"]) == [None, None, b"v"]

    def test_non_string_key_rejected(self, store: BaseStore[str, bytes]) -> None:
        """Keys are strings."""
        with pytest.raises(InvalidInputError, match="str"):
            store.mget([1])  # type: ignore[list-item]
        with pytest.raises(InvalidInputError, match="pair"):
            store.mset([("a", b"1", "extra")])  # type: ignore[list-item]

    async def test_async_twins(self, store: BaseStore[str, bytes]) -> None:
        """amset / amget / amdelete / ayield_keys behave as their sync twins."""
        await store.amset([("x/1", b"1"), ("x/2", b"2"), ("y", b"3")])
        assert await store.amget(["x/2", "nope"]) == [b"2", None]
        await store.amdelete(["x/1"])
        assert sorted([key async for key in store.ayield_keys(prefix="x/")]) == ["x/2"]
        assert sorted([key async for key in store.ayield_keys()]) == ["x/2", "y"]
