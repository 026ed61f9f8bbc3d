"""The Embeddings interface: turn texts into vectors.

Two layers, one contract:

* The LangChain-compatible list methods ``embed_documents`` / ``embed_query`` (abstract)
  and their async twins, so existing code ports with an import change.
* Array methods ``embed_documents_array`` / ``embed_queries_array`` returning a float32
  ``numpy.ndarray`` of shape ``(n, d)``. Vector stores call these, so 100k vectors never
  pass through Python lists. The defaults wrap the list methods; a real implementation
  overrides them to skip the round trip.

Every array that leaves this layer has been checked by :func:`validate_embeddings`: one
row per text, one consistent dimension, no NaN or infinity (``DimensionError`` otherwise).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import math
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np

from ragline.core import DimensionError, InvalidInputError
from ragline.core._checks import check_str_list, check_unicode

__all__ = ["Embeddings", "check_texts", "note_input_tokens", "validate_embeddings"]

# ---- observing embedding calls (tracing) -------------------------------------------------
# ``ragline.tracing.configure`` sets the observer: it is told when the outermost
# embedding call begins, ends and fails (a method wrapping another, as ``embed_queries_array`` wraps
# ``embed_query``, is not observed twice). The entry points are wrapped only while an
# observer is set: every Embeddings class is remembered, and setting the first observer
# wraps their entry points, removing it puts the classes' own functions back (tracing
# off: an embedding call runs exactly the method its class defines).
_observer: Any = None
# the observed call in progress: a dict the implementation may add ``input_tokens`` to
_observed: ContextVar[dict[str, Any] | None] = ContextVar("ragline_embedding_call", default=None)
_ENTRY_POINTS = (
    "embed_documents",
    "embed_query",
    "embed_documents_array",
    "embed_queries_array",
)
# the entry points and their async twins: what is wrapped while an observer is set
_ASYNC_ENTRY_POINTS = (*_ENTRY_POINTS, *(f"a{name}" for name in _ENTRY_POINTS))
# every Embeddings class (weakly: a class that goes away is forgotten), and the lock
# that makes wrapping or unwrapping them one step against a class being defined
_classes: weakref.WeakSet[type] = weakref.WeakSet()
_classes_lock = threading.Lock()


def set_observer(observer: Any) -> None:
    """Install ``observer`` (None: none). For each outermost embedding call it is told
    ``observer.embedding_span(embeddings, method, texts)`` before the method runs (its
    answer is the ``span`` given back), then ``observer.end_embedding_span(span, result,
    record)``, where ``record`` is the dict that :func:`note_input_tokens` fills, or
    ``observer.fail_embedding_span(span, error)`` when the method raised. The first
    observer wraps the entry points of every Embeddings class; None unwraps them."""
    global _observer
    with _classes_lock:
        _observer = observer
        for cls in list(_classes):
            if observer is None:
                _unwrap_entry_points(cls)
            else:
                _wrap_entry_points(cls)


def _register(cls: type) -> None:
    """Remember an Embeddings class; wrap its entry points when an observer is set."""
    with _classes_lock:
        _classes.add(cls)
        if _observer is not None:
            _wrap_entry_points(cls)


def note_input_tokens(count: int) -> None:
    """Tell an observer (tracing) how many input tokens the embedding call in progress
    used, when the model reports it (an OpenAI-protocol server's ``usage``); adds up
    over the requests of one call. Does nothing when no call is observed."""
    record = _observed.get()
    if record is not None:
        record["input_tokens"] = record.get("input_tokens", 0) + int(count)


def _observe(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``method`` (the entry point ``name``, taking the text or texts) reporting to the
    observer."""

    @functools.wraps(method)
    def observed(self: Any, texts: Any, *args: Any, **kwargs: Any) -> Any:
        observer = _observer
        if observer is None or _observed.get() is not None:
            return method(self, texts, *args, **kwargs)
        record: dict[str, Any] = {}
        token = _observed.set(record)
        try:  # the observer's steps here, no closure: this runs once per traced call
            span = observer.embedding_span(self, name, texts)
            try:
                result = method(self, texts, *args, **kwargs)
            except BaseException as error:
                observer.fail_embedding_span(span, error)
                raise
            observer.end_embedding_span(span, result, record)
            return result
        finally:
            _observed.reset(token)

    observed.__ragline_observed__ = True  # type: ignore[attr-defined]
    return observed


def _observe_async(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    """The async twin of :func:`_observe` (the observer gets a coroutine function)."""

    @functools.wraps(method)
    async def observed(self: Any, texts: Any, *args: Any, **kwargs: Any) -> Any:
        observer = _observer
        if observer is None or _observed.get() is not None:
            return await method(self, texts, *args, **kwargs)
        record: dict[str, Any] = {}
        token = _observed.set(record)
        try:
            span = observer.embedding_span(self, name, texts)
            try:
                result = await method(self, texts, *args, **kwargs)
            except BaseException as error:
                observer.fail_embedding_span(span, error)
                raise
            observer.end_embedding_span(span, result, record)
            return result
        finally:
            _observed.reset(token)

    observed.__ragline_observed__ = True  # type: ignore[attr-defined]
    return observed


def _wrap_entry_points(cls: type) -> None:
    for name in _ASYNC_ENTRY_POINTS:
        method = cls.__dict__.get(name)
        if method is None or getattr(method, "__ragline_observed__", False):
            continue
        if getattr(method, "__isabstractmethod__", False) or not callable(method):
            continue
        wrap = _observe_async if inspect.iscoroutinefunction(method) else _observe
        setattr(cls, name, wrap(method, name))


def _unwrap_entry_points(cls: type) -> None:
    """Put back the functions :func:`_wrap_entry_points` wrapped (a method assigned to
    the class since, replacing a wrapper, is left as it is)."""
    for name in _ASYNC_ENTRY_POINTS:
        method = cls.__dict__.get(name)
        if method is not None and getattr(method, "__ragline_observed__", False):
            setattr(cls, name, method.__wrapped__)


def check_texts(texts: Sequence[str], *, what: str = "texts") -> list[str]:
    """Return ``texts`` as a list after checking that every item is a valid ``str``.

    Every embedding class checks its input here (or in :func:`check_text`), so a lone
    surrogate is refused the same way whatever model would have choked on it.

    Args:
        texts: the texts to embed.
        what: how the argument is named in the error message.

    Returns:
        A list of the same strings (a new list; the caller's is not kept).

    Raises:
        InvalidInputError: ``texts`` is a single string, holds a non-string item, or
            an item with a lone surrogate (named by its position: ``texts[2]``).

    Example:
        >>> check_texts(("a", "b"))
        ['a', 'b']
    """
    items = check_str_list(texts, what=what)
    for position, text in enumerate(items):
        if not text.isascii():  # the common case skips the call
            check_unicode(text, what=f"{what}[{position}]")
    return items


def check_text(text: str, *, what: str = "text") -> str:
    """Return ``text`` after checking it is a ``str`` without a lone surrogate
    (raises InvalidInputError naming ``what``)."""
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must be a str, got {type(text).__name__}: {text!r:.60}")
    return check_unicode(text, what=what)


def validate_embeddings(
    vectors: Any,
    *,
    expected_rows: int,
    source: str = "embedding",
    expected_dimension: int | None = None,
) -> np.ndarray:
    """Return ``vectors`` as a C-contiguous float32 matrix, checking shape and values.

    Args:
        vectors: a list of lists of floats or an array of shape ``(expected_rows, d)``.
        expected_rows: how many texts were embedded.
        source: who produced the vectors, for the error message (e.g. a class name).
        expected_dimension: when given, ``d`` must equal it.

    Returns:
        ``numpy.ndarray`` of dtype float32 and shape ``(expected_rows, d)``.

    Raises:
        DimensionError: ragged rows, wrong row count, wrong dimension, NaN or infinity.

    Example:
        >>> validate_embeddings([[1.0, 0.0], [0.0, 1.0]], expected_rows=2).shape
        (2, 2)
    """
    if expected_rows == 0 and (vectors is None or len(vectors) == 0):
        # an empty (0, d) array keeps its d; an empty list has none to keep
        if isinstance(vectors, np.ndarray) and vectors.ndim == 2:
            return np.ascontiguousarray(vectors, dtype=np.float32)
        return np.zeros((0, expected_dimension or 0), dtype=np.float32)
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (ValueError, TypeError) as err:
        # ragged nested lists land here: rows of different lengths
        lengths = sorted({len(row) for row in vectors if hasattr(row, "__len__")})
        raise DimensionError(
            f"{source} returned vectors of different dimensions {lengths}; "
            "every vector must have the same length"
        ) from err
    if matrix.ndim != 2:
        raise DimensionError(
            f"{source} returned an array of shape {matrix.shape}; expected "
            f"({expected_rows}, dimension): one vector per text"
        )
    if matrix.shape[0] != expected_rows:
        raise DimensionError(
            f"{source} returned {matrix.shape[0]} vectors for {expected_rows} texts; "
            "expected one vector per text"
        )
    if matrix.shape[1] == 0 and expected_rows:
        raise DimensionError(f"{source} returned empty vectors (dimension 0)")
    if expected_dimension is not None and matrix.shape[1] != expected_dimension:
        raise DimensionError(
            f"{source} returned vectors of dimension {matrix.shape[1]}; "
            f"expected {expected_dimension}"
        )
    finite = np.isfinite(matrix)
    if not finite.all():
        row = int(np.argwhere(~finite)[0][0])
        raise DimensionError(
            f"{source} returned a vector with NaN or infinite values (row {row}); "
            "vectors must be finite"
        )
    return np.ascontiguousarray(matrix)


def _one_finite_row(row: Any) -> np.ndarray | None:
    """``row`` as a (1, d) float32 matrix when it plainly is one finite vector, else None.

    One dot product tells finiteness (a non-finite value makes it NaN or inf; so may an
    overflow, which then takes the full check): cheaper than numpy's ``isfinite`` reduction
    on the hot path of every single-query search.
    """
    try:
        matrix = np.array([row], dtype=np.float32)
    except (ValueError, TypeError):
        return None
    if matrix.ndim != 2 or not matrix.shape[1]:
        return None
    vector = matrix[0]
    return matrix if math.isfinite(float(vector.dot(vector))) else None


_LISTS_ROUNDED = "__ragline_lists_rounded__"


def _rounds_lists(method: Callable[..., Any]) -> Callable[..., Any]:
    """Mark an array method whose rows are its class's ``embed_documents`` /
    ``embed_query`` numbers rounded to float32 and nothing else (the defaults here, which
    call them; a model whose lists are its exact numbers). Wrappers made with
    ``functools.wraps`` (tracing, rerouting) keep the mark."""
    setattr(method, _LISTS_ROUNDED, True)
    return method


def _only_rounds_lists(embeddings: Any, array_name: str) -> bool:
    """Whether ``embeddings``' array method ``array_name`` (``"embed_documents_array"``
    or ``"embed_queries_array"``) only rounds its list methods' numbers to float32, or it
    has none: then a store keeping float64 vectors, as LangChain's do, takes the lists."""
    method = getattr(type(embeddings), array_name, None)
    return method is None or getattr(method, _LISTS_ROUNDED, False)


class Embeddings(ABC):
    """Interface of every embedding model: texts in, vectors out.

    Subclasses implement ``embed_documents`` and ``embed_query``. They should also
    override ``embed_documents_array`` / ``embed_queries_array`` when the model produces
    arrays natively, and the async methods when they have a native async client.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> embeddings = HashingEmbeddings(dimension=8)
        >>> embeddings.embed_documents_array(["a cat", "a dog"]).shape
        (2, 8)
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _route_arrays_through_overrides(cls)
        _register(cls)

    # -- the LangChain-compatible surface -------------------------------------------------

    @abstractmethod
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents for storage.

        Args:
            texts: the texts to embed; an empty list gives an empty list.

        Returns:
            One vector (list of floats) per text, in order.

        Raises:
            InvalidInputError: a text is not a string.
            DimensionError: the model produced a malformed or non-finite vector.
        """

    @abstractmethod
    def embed_query(self, text: str) -> list[float]:
        """Embed one search query.

        Args:
            text: the query.

        Returns:
            Its vector as a list of floats.

        Raises:
            InvalidInputError: ``text`` is not a string.
            DimensionError: the model produced a malformed or non-finite vector.
        """

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Async ``embed_documents``; by default runs it in a worker thread."""
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """Async ``embed_query``; by default runs it in a worker thread."""
        return await asyncio.to_thread(self.embed_query, text)

    # -- the array surface the vector stores use ------------------------------------------

    @_rounds_lists
    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents into a float32 matrix of shape ``(len(texts), dimension)``.

        The default wraps ``embed_documents``; implementations override it to avoid
        building Python lists.

        Args:
            texts: the texts to embed.

        Returns:
            A C-contiguous float32 array, one row per text, all values finite.

        Raises:
            InvalidInputError: a text is not a string.
            DimensionError: the model produced a malformed or non-finite vector.
        """
        items = check_texts(texts)
        if not items:
            return np.zeros((0, 0), dtype=np.float32)
        return validate_embeddings(
            self.embed_documents(items), expected_rows=len(items), source=type(self).__name__
        )

    @_rounds_lists
    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many queries at once into a float32 matrix ``(len(texts), dimension)``.

        Query embeddings may differ from document embeddings (a query prompt, another
        model), so this is not ``embed_documents_array``. The default calls
        ``embed_query`` once per text.

        Args:
            texts: the queries.

        Returns:
            A C-contiguous float32 array, one row per query, all values finite.

        Raises:
            InvalidInputError: a query is not a string.
            DimensionError: the model produced a malformed or non-finite vector.
        """
        items = check_texts(texts, what="queries")
        if not items:
            return np.zeros((0, 0), dtype=np.float32)
        if len(items) == 1:  # the single-query search path: check cheaply, fully on doubt
            row = self.embed_query(items[0])
            checked = _one_finite_row(row)
            if checked is not None:
                return checked
            return validate_embeddings([row], expected_rows=1, source=type(self).__name__)
        return validate_embeddings(
            [self.embed_query(text) for text in items],
            expected_rows=len(items),
            source=type(self).__name__,
        )

    async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async ``embed_documents_array``; by default runs it in a worker thread."""
        return await asyncio.to_thread(self.embed_documents_array, texts)

    async def aembed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async ``embed_queries_array``; by default runs it in a worker thread."""
        return await asyncio.to_thread(self.embed_queries_array, texts)


# The array methods that go through the LangChain-surface ones, with their async twins.
_ARRAY_DEFAULTS = {
    "embed_documents_array": Embeddings.embed_documents_array,
    "embed_queries_array": Embeddings.embed_queries_array,
    "aembed_documents_array": Embeddings.aembed_documents_array,
    "aembed_queries_array": Embeddings.aembed_queries_array,
}
_SYNC_ARRAY_NAMES = ("embed_documents_array", "embed_queries_array")
_LIST_NAMES = ("embed_documents", "embed_query")
_ASYNC_LIST_NAMES = ("aembed_documents", "aembed_query")
# The ids of the instances inside a rerouted call: a rerouted array method, or a list
# override of a class with rerouted array methods (see _marking). There a rerouted array
# method on the same instance runs its native one. A context variable: per thread and per
# task, and carried into asyncio.to_thread's worker (an async override running the sync
# list method there).
_rerouting: ContextVar[frozenset[int]] = ContextVar("ragline_rerouting", default=frozenset())
_SYNC_INLINE = "__ragline_sync_inline__"


def _sync_inline(method: Callable[..., Any]) -> Callable[..., Any]:
    """Mark an async list method that only runs its sync twin inline (the test fakes):
    the async array methods need not call it, since calling the sync array method in a
    worker thread calls the same sync list method."""
    setattr(method, _SYNC_INLINE, True)
    return method


async def _async_lists(embeddings: Any, items: list[str], *, queries: bool) -> list[Any]:
    """``embeddings``' own async list methods on ``items`` (``aembed_query`` once per
    query, else ``aembed_documents`` once), marked as inside a rerouted async array
    method: an override reaching an array method through ``super()`` gets the native one.
    A store keeping the lists' float64 numbers (in-memory cosine) calls this too."""
    token = _rerouting.set(_rerouting.get() | {id(embeddings)})
    try:
        if queries:
            return [await embeddings.aembed_query(text) for text in items]
        return list(await embeddings.aembed_documents(items))
    finally:
        _rerouting.reset(token)


async def _through_async_lists(self: Any, texts: Sequence[str], *, queries: bool) -> np.ndarray:
    """The async array methods of a class overriding ``aembed_documents`` /
    ``aembed_query``: those, then the checks of the sync defaults."""
    items = check_texts(texts, what="queries" if queries else "texts")
    if not items:
        return np.zeros((0, 0), dtype=np.float32)
    rows = await _async_lists(self, items, queries=queries)
    return validate_embeddings(rows, expected_rows=len(items), source=type(self).__name__)


def _rerouted(default: Callable[..., Any], native: Callable[..., Any]) -> Callable[..., Any]:
    """``default`` (which calls the subclass's ``embed_documents`` / ``embed_query``, or
    for an async ``default`` their async twins), except inside such a call on the same
    instance: there the base's native array method runs, since the override may reach it
    through ``super().embed_documents(...)``, whose native implementation calls the array
    methods (else that would recurse)."""
    if inspect.iscoroutinefunction(default):

        @functools.wraps(default)
        async def amethod(self: Any, texts: Sequence[str]) -> np.ndarray:
            if id(self) in _rerouting.get():
                return await native(self, texts)  # type: ignore[no-any-return]
            return await default(self, texts)  # type: ignore[no-any-return]

        rerouted: Callable[..., Any] = amethod
    else:

        @functools.wraps(default)
        def method(self: Any, texts: Sequence[str]) -> np.ndarray:
            marks = _rerouting.get()
            key = id(self)
            if key in marks:
                return native(self, texts)  # type: ignore[no-any-return]
            token = _rerouting.set(marks | {key})
            try:
                return default(self, texts)  # type: ignore[no-any-return]
            finally:
                _rerouting.reset(token)

        rerouted = method
    rerouted.__ragline_rerouted__ = True  # type: ignore[attr-defined]
    rerouted.__ragline_native__ = native  # type: ignore[attr-defined]
    # its numbers are the lists rounded only where the native ones are: an override
    # reaching a native array method through super() must not be called directly
    setattr(rerouted, _LISTS_ROUNDED, getattr(native, _LISTS_ROUNDED, False))
    return rerouted


def _marking(method: Callable[..., Any]) -> Callable[..., Any]:
    """A list-method override (``embed_documents`` ... ``aembed_query``) of a class with
    rerouted array methods, marking the instance while it runs, as those do: a native list
    method it reaches through ``super()`` then gets the native array method, so a direct
    call embeds once too (else the rerouted array method called the override again: a
    prefix-adding override added its prefix twice)."""
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def amarked(self: Any, *args: Any, **kwargs: Any) -> Any:
            marks = _rerouting.get()
            if id(self) in marks:
                return await method(self, *args, **kwargs)
            token = _rerouting.set(marks | {id(self)})
            try:
                return await method(self, *args, **kwargs)
            finally:
                _rerouting.reset(token)

        return amarked

    @functools.wraps(method)
    def marked(self: Any, *args: Any, **kwargs: Any) -> Any:
        marks = _rerouting.get()
        if id(self) in marks:
            return method(self, *args, **kwargs)
        token = _rerouting.set(marks | {id(self)})
        try:
            return method(self, *args, **kwargs)
        finally:
            _rerouting.reset(token)

    return marked


def _mark_overrides(cls: type) -> None:
    """Wrap ``cls``' own sync (async) list methods with :func:`_marking` when one of its
    sync (async) array methods, its own or inherited, is rerouted from a native one that
    is not the Embeddings default (which no list method reached through super() calls)."""
    for list_names, array_names in (
        (_LIST_NAMES, _SYNC_ARRAY_NAMES),
        (_ASYNC_LIST_NAMES, tuple(_ASYNC_ARRAY_DEFAULTS)),
    ):
        natives = [getattr(getattr(cls, name), "__ragline_native__", None) for name in array_names]
        if all(n is None or inspect.unwrap(n) in _ARRAY_DEFAULTS.values() for n in natives):
            continue
        for name in list_names:
            method = cls.__dict__.get(name)
            if inspect.isfunction(method) and not getattr(method, "__isabstractmethod__", False):
                setattr(cls, name, _marking(method))


async def aembed_documents_array(self: Any, texts: Sequence[str]) -> np.ndarray:
    """Async ``embed_documents_array`` awaiting this class's own ``aembed_documents``."""
    return await _through_async_lists(self, texts, queries=False)


async def aembed_queries_array(self: Any, texts: Sequence[str]) -> np.ndarray:
    """Async ``embed_queries_array`` awaiting this class's own ``aembed_query`` per query."""
    return await _through_async_lists(self, texts, queries=True)


_ASYNC_ARRAY_DEFAULTS = {
    "aembed_documents_array": aembed_documents_array,
    "aembed_queries_array": aembed_queries_array,
}


def _calls_async_lists(embeddings: Any, async_name: str) -> bool:
    """Whether ``embeddings``' async array method ``async_name`` was rerouted through its
    class's own ``aembed_documents`` / ``aembed_query`` (see :func:`_async_lists`)."""
    method = getattr(type(embeddings), async_name, None)
    return getattr(method, "__ragline_async_lists__", False)


def _route_arrays_through_overrides(cls: type) -> None:
    """A subclass that overrides ``embed_documents`` or ``embed_query`` of a model with
    native array methods (``class Counting(DeterministicFakeEmbedding)`` counting its
    calls) gets the default array methods back, which call ``embed_documents`` /
    ``embed_query``: the stores and the embedding cache call the array methods, and
    LangChain's call those two (a native query array may go through the documents one).
    The sync ones are wrapped by :func:`_rerouted`, so an override calling the native
    method through ``super()`` embeds once instead of recursing.

    The async twin: a class that overrides ``aembed_documents`` or ``aembed_query`` (not
    a :func:`_sync_inline` one) and inherits its async array methods gets ones that await
    those two (LangChain's stores await them), wrapped by :func:`_rerouted` the same way.
    The list overrides of a class with rerouted array methods mark the instance too
    (:func:`_marking`), so a direct call of one also embeds once.
    """
    own = {name for name in _ASYNC_ARRAY_DEFAULTS if name in cls.__dict__}
    if "embed_documents" in cls.__dict__ or "embed_query" in cls.__dict__:
        _route_sync_overrides(cls)
    _route_async_overrides(cls, own)
    _mark_overrides(cls)


def _route_async_overrides(cls: type, own: set[str]) -> None:
    overrides = [cls.__dict__.get(name) for name in _ASYNC_LIST_NAMES]
    if not any(m is not None and not getattr(m, _SYNC_INLINE, False) for m in overrides):
        return
    for array_name, default in _ASYNC_ARRAY_DEFAULTS.items():
        if array_name in own:
            continue  # its own async array method
        provider = next(k for k in cls.__mro__[1:] if array_name in k.__dict__)
        native = provider.__dict__[array_name]
        if getattr(native, "__ragline_async_lists__", False):
            continue  # a rerouted base's method already awaits the overrides
        rerouted = _rerouted(default, native)
        rerouted.__ragline_async_lists__ = True  # type: ignore[attr-defined]
        setattr(cls, array_name, rerouted)


def _route_sync_overrides(cls: type) -> None:
    providers = {
        name: next(k for k in cls.__mro__ if name in k.__dict__) for name in _ARRAY_DEFAULTS
    }
    if all(provider is Embeddings for provider in providers.values()):
        return
    for array_name, default in _ARRAY_DEFAULTS.items():
        provider = providers[array_name]
        if provider is cls:
            continue
        native = provider.__dict__[array_name]
        if getattr(native, "__ragline_rerouted__", False):
            continue  # a rerouted base's method, inherited as it is
        if array_name in _SYNC_ARRAY_NAMES:
            setattr(cls, array_name, _rerouted(default, native))
        elif provider is not Embeddings:
            setattr(cls, array_name, default)


_register(Embeddings)
