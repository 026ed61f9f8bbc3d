"""The pydantic-style methods LangChain programs call on documents and messages.

ragline's ``Document`` and messages are dataclasses (cheap to build), but ported code
calls ``doc.copy(deep=True)``, ``msg.model_copy(update=...)``, ``msg.model_dump()``,
``msg.model_dump_json()`` and ``doc.dict()`` on them, as it does on LangChain's pydantic
models. This mixin gives those calls the same results: the same keys in the same order,
copies that share or do not share nested values as pydantic's do.
"""

from __future__ import annotations

import copy as _copy
import dataclasses
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar

__all__ = ["ModelMethods"]


def _float_text(value: float) -> str:
    # pydantic's JSON floats: Python's shortest digits, NaN and infinities as null, and
    # 1e-05 written out (0.00001), a smaller exponent without its leading zero (1e-6)
    if not math.isfinite(value):
        return "null"
    text = repr(float(value))
    if "e-" not in text:
        return text
    mantissa, exponent = text.split("e-")
    power = int(exponent)
    if power == 5:
        sign = "-" if mantissa.startswith("-") else ""
        return f"{sign}0.0000{mantissa.lstrip('-').replace('.', '')}"
    return f"{mantissa}e-{power}"


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float):
        return _float_text(key)
    return str(key)


def _json_text(value: Any, indent: int | None, depth: int = 0) -> str:
    """``value`` as pydantic's ``model_dump_json`` writes a plain value (no spaces
    without ``indent``; non-ASCII text as it is)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        items = [
            f"{json.dumps(_key_text(k), ensure_ascii=False)}:{'' if indent is None else ' '}"
            f"{_json_text(v, indent, depth + 1)}"
            for k, v in value.items()
        ]
        return _joined_json(items, "{", "}", indent, depth)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_json_text(item, indent, depth + 1) for item in value]
        return _joined_json(items, "[", "]", indent, depth)
    try:  # dates, bytes, enums ...: pydantic's own serializer, where it is installed
        from pydantic_core import to_json
    except ImportError as error:
        from ragline.core.exceptions import InvalidInputError

        raise InvalidInputError(
            f"cannot write a {type(value).__name__} as JSON without pydantic installed"
        ) from error
    return to_json(value).decode()


def _joined_json(items: list[str], start: str, end: str, indent: int | None, depth: int) -> str:
    if not items:
        return start + end
    if indent is None:
        return start + ",".join(items) + end
    inner = "\n" + " " * (indent * (depth + 1))
    return start + inner + ("," + inner).join(items) + "\n" + " " * (indent * depth) + end


def _key_set(keys: Iterable[str] | Mapping[str, Any] | None) -> set[str] | None:
    return None if keys is None else set(keys)


class SerializableMethods:
    """LangChain's ``Serializable`` methods, answered from :mod:`ragline.core.load`'s
    format (the base of Documents, messages and runnables)."""

    @classmethod
    def is_lc_serializable(cls) -> bool:
        """Whether :func:`ragline.core.load.dumpd` writes this class as a constructor
        entry (Documents, messages, prompts, ``StrOutputParser``, the composed runnables
        it names), as LangChain answers for its own."""
        from ragline.core.load import _IDS, _written_class

        return _written_class(cls) in _IDS

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        """The id :func:`~ragline.core.load.dumpd` writes for this class, less its name
        (LangChain's, e.g. ``["langchain", "schema", "document"]``)."""
        return cls.lc_id()[:-1]

    @classmethod
    def lc_id(cls) -> list[str]:
        """The id :func:`~ragline.core.load.dumpd` writes for this class."""
        from ragline.core.load import _class_id

        return _class_id(cls)

    def to_json(self) -> Any:
        """This object's serialization entry, as LangChain's: the dict
        :func:`~ragline.core.load.dumpd` writes for it, its values not yet encoded
        (steps, prompts ... are still the objects themselves).

        Raises:
            TypeError: a ragline object whose LangChain form is not reproduced.
        """
        from ragline.core.load import _encode

        return _encode(self)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """A copy, with ``update``'s values set on it (not checked, as in pydantic): what
        LangChain's models (documents, messages, runnables) answer, as ``llm.model_copy(
        update={"temperature": 0})`` or ``chain.copy(update={...})``.

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
            InvalidInputError: ``include`` or ``exclude`` given (a partial copy is not
                one here; use ``model_dump(include=...)`` for the values).
        """
        if include is not None or exclude is not None:
            from ragline.core.exceptions import InvalidInputError

            raise InvalidInputError(
                f"{type(self).__name__}.copy() takes no include/exclude here (got "
                f"include={include!r}, exclude={exclude!r}); use model_dump(include=...) "
                "for some of the values, or model_copy(update=...)"
            )
        return self.model_copy(update=update, deep=deep)


class ModelMethods(SerializableMethods):
    """``model_dump`` / ``dict`` for a dataclass (``model_copy`` / ``copy``: the base).

    A class lists the keys of its dump in ``_dump_keys`` (LangChain's order; a key that
    is not a field, such as ``type``, is read as an attribute).
    """

    _dump_keys: ClassVar[tuple[str, ...]] = ()
    # names of extra fields an instance was given (a message's, as pydantic's extra="allow")
    _extra_names: tuple[str, ...] = ()

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
        keys = self._dump_order() + self._extra_names
        dumped: dict[str, Any] = {}
        for key in keys:
            if (wanted is not None and key not in wanted) or key in unwanted:
                continue
            value = getattr(self, key, None)
            if value is None and exclude_none:
                continue
            dumped[key] = _copy.deepcopy(value)
        return dumped

    def model_dump_json(self, *, indent: int | None = None, **options: Any) -> str:
        """:meth:`model_dump` as JSON text, as pydantic's ``model_dump_json`` writes it
        (compact, or ``indent`` spaces a level; non-ASCII text kept as it is).

        Raises:
            InvalidInputError: a value JSON cannot hold (as pydantic's error, a
                ``ValueError``).
        """
        return _json_text(self.model_dump(**options), indent)

    def _dump_order(self) -> tuple[str, ...]:
        """The keys of the dump, in order: ``_dump_keys``, else the fields."""
        return self._dump_keys or tuple(f.name for f in dataclasses.fields(self))  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        """``(name, value)`` pairs in the dump's order, the values themselves (not
        copies), as iterating a pydantic model gives them: ``dict(document)`` and
        ``for name, value in document`` work as they do on LangChain's objects.

        Example:
            >>> from ragline.core import Document
            >>> dict(Document("hi"))
            {'id': None, 'metadata': {}, 'page_content': 'hi', 'type': 'Document'}
        """
        for key in self._dump_order() + self._extra_names:
            yield key, getattr(self, key, None)

    def dict(self, **options: Any) -> dict[str, Any]:
        """The pydantic v1 name of :meth:`model_dump`."""
        return self.model_dump(**options)

    @classmethod
    def model_construct(cls, _fields_set: Any = None, **values: Any) -> Any:
        """pydantic's constructor without validation; here the class built from ``values``
        (``ToolMessage.construct(**message.dict())`` and the like, as programs rebuild
        messages). ``_fields_set`` is accepted and without effect.

        Example:
            >>> from ragline.core import ToolMessage
            >>> ToolMessage.model_construct(content="21", tool_call_id="c1").tool_call_id
            'c1'
        """
        if "type" in values and values["type"] == getattr(cls, "type", None):
            del values["type"]  # the class's tag, which model_dump() adds (a field in LangChain)
        return cls(**values)

    @classmethod
    def construct(cls, _fields_set: Any = None, **values: Any) -> Any:
        """The pydantic v1 name of :meth:`model_construct`."""
        return cls.model_construct(_fields_set, **values)
