"""The pydantic-style methods LangChain programs call on documents and messages.

ragline's ``Document`` and messages are dataclasses (cheap to build), but ported code
calls ``doc.copy(deep=True)``, ``msg.model_copy(update=...)``, ``msg.model_dump()`` and
``doc.dict()`` on them, as it does on LangChain's pydantic models. This mixin gives
those calls the same results: the same keys in the same order, copies that share or
do not share nested values as pydantic's do.
"""

from __future__ import annotations

import copy as _copy
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

__all__ = ["ModelMethods"]


def _key_set(keys: Iterable[str] | Mapping[str, Any] | None) -> set[str] | None:
    return None if keys is None else set(keys)


class ModelMethods:
    """``model_dump`` / ``dict`` / ``model_copy`` / ``copy`` for a dataclass.

    A class lists the keys of its dump in ``_dump_keys`` (LangChain's order; a key that
    is not a field, such as ``type``, is read as an attribute).
    """

    _dump_keys: ClassVar[tuple[str, ...]] = ()

    def model_dump(
        self,
        *,
        include: Iterable[str] | Mapping[str, Any] | None = None,
        exclude: Iterable[str] | Mapping[str, Any] | None = None,
        exclude_none: bool = False,
        **_options: Any,
    ) -> dict[str, Any]:
        """The fields as a dict of plain values (nested dicts and lists are copies).

        Args:
            include: only these keys.
            exclude: not these keys.
            exclude_none: leave out keys whose value is None.
            _options: pydantic's other options (``mode``, ``by_alias`` ...), accepted and
                without effect: every value here is plain already.
        """
        wanted, unwanted = _key_set(include), _key_set(exclude) or set()
        keys = self._dump_order()
        dumped: dict[str, Any] = {}
        for key in keys:
            if (wanted is not None and key not in wanted) or key in unwanted:
                continue
            value = getattr(self, key, None)
            if value is None and exclude_none:
                continue
            dumped[key] = _copy.deepcopy(value)
        return dumped

    def _dump_order(self) -> tuple[str, ...]:
        """The keys of the dump, in order: ``_dump_keys``, else the fields."""
        return self._dump_keys or tuple(f.name for f in dataclasses.fields(self))  # type: ignore[arg-type]

    def dict(self, **options: Any) -> dict[str, Any]:
        """The pydantic v1 name of :meth:`model_dump`."""
        return self.model_dump(**options)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy, with ``update``'s values set on it (not checked, as in pydantic).

        Args:
            update: field values to replace in the copy.
            deep: copy nested values too (default: the copy shares them).
        """
        duplicate = _copy.deepcopy(self) if deep else _copy.copy(self)
        for key, value in (update or {}).items():
            object.__setattr__(duplicate, key, value)
        return duplicate

    def copy(
        self,
        *,
        include: Any = None,
        exclude: Any = None,
        update: Mapping[str, Any] | None = None,
        deep: bool = False,
    ) -> Any:
        """The pydantic v1 name of :meth:`model_copy`.

        Raises:
            InvalidInputError: ``include`` or ``exclude`` given (a partial copy of a
                dataclass is not one; use ``model_dump(include=...)`` for the values).
        """
        if include is not None or exclude is not None:
            from ragline.core.exceptions import InvalidInputError

            raise InvalidInputError(
                f"{type(self).__name__}.copy() takes no include/exclude here (got "
                f"include={include!r}, exclude={exclude!r}); use model_dump(include=...) "
                "for some of the values, or model_copy(update=...)"
            )
        return self.model_copy(update=update, deep=deep)
