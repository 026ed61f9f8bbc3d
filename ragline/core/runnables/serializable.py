"""RunnableSerializable: a Runnable whose options are declared fields (LangChain's shape).

LangChain's models, retrievers, parsers and many user runnables derive from
``RunnableSerializable`` (a pydantic model) and declare their options as annotated class
attributes. ragline's version gets the same keyword constructor from
:class:`~ragline.core.fields.Fields`, without pydantic: ``CustomRetriever(k=3)`` sets
``k``, defaults apply, a missing required field or an unknown keyword is a TypeError.

Example:
    >>> class Scale(RunnableSerializable[int, int]):
    ...     factor: int = 2
    ...     def invoke(self, input, config=None, **kwargs):
    ...         return self._call_with_config(lambda x: x * self.factor, input, config)
    >>> Scale(factor=3).invoke(5), Scale()
    (15, Scale())
    >>> Scale(factor=3)
    Scale(factor=3)
"""

from __future__ import annotations

from ragline.core.fields import Fields, changed_fields
from ragline.core.runnables.base import Input, Output, Runnable

__all__ = ["RunnableSerializable"]


class RunnableSerializable(Fields, Runnable[Input, Output]):
    """A Runnable configured by declared fields (see the module docstring).

    ``repr`` shows the fields that differ from their defaults, as LangChain's does;
    ``configurable_fields`` accepts any of them.

    The runnables that are one in LangChain (prompts, output parsers, sequences and the
    other composites, tools, legacy chains) are registered as virtual subclasses, so
    ``isinstance(x, RunnableSerializable)`` answers as there; only models and retrievers
    inherit the declared fields. A ``RunnableLambda`` is not one, in both.
    """

    def _shown_fields(self) -> list[str]:
        """``name=repr(value)`` of the fields that differ from their defaults, in their
        declaration order (LangChain's models print the same ones, whole)."""
        return changed_fields(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._shown_fields())})"

    def __str__(self) -> str:
        if _own_repr_is_raglines(type(self)):
            return repr(self)  # a ragline class that prints itself its own way prints so
        # (a user's class with a __repr__ of its own still prints its fields there, as
        # pydantic's str ignores the repr)
        # LangChain's (pydantic's str of a model): the same fields, space-separated
        return " ".join(self._shown_fields())


def _own_repr_is_raglines(cls: type) -> bool:
    """Whether ``cls``'s ``__repr__`` is a ragline class's own (not the declared-fields
    one of :class:`RunnableSerializable`, not a user's)."""
    owner = next(c for c in cls.__mro__ if "__repr__" in c.__dict__)
    return owner is not RunnableSerializable and owner.__module__.split(".")[0] == "ragline"
