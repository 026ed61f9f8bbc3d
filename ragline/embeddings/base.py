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
from typing import Any, ClassVar

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

    # its list methods call no array method (see _route_arrays_through_overrides)
    _LISTS_CALL_OWN_ARRAYS: ClassVar[dict[str, str]] = {}

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


# -- a subclass overriding the list methods: the array methods call its overrides ----------
#
# The stores and the embedding cache call the array methods; LangChain's call
# ``embed_documents`` / ``embed_query`` (and the async twins), so a subclass overriding
# those (``class Counting(DeterministicFakeEmbedding)`` counting its calls) gets array
# methods that call its overrides in place of the native ones it inherits. Such an
# override may reach the native list method through ``super()``: ragline's list methods
# call their own class's array code (``HashingEmbeddings.embed_documents_array(self, ...)``),
# never ``self``'s, so that cannot recurse, and nothing more is done (a class says so by
# setting ``_LISTS_CALL_OWN_ARRAYS`` in its body: which array method each of its list
# methods calls). A subclass overriding one of those array methods, and not the list
# method, gets a list method calling ``self``'s (:func:`_list_calling`), so its direct
# calls agree with a store's array calls. Another class's list methods may call
# ``self``'s array methods: for a subclass of such a class, the instance is marked while
# an override or a rerouted array method runs, and inside that mark the rerouted array
# method runs the native one (:func:`_marking`).

_SYNC_INLINE = "__ragline_sync_inline__"
_ASYNC_LISTS = "__ragline_async_lists__"
_OWN_ARRAYS = "_LISTS_CALL_OWN_ARRAYS"
_NATIVE = "__ragline_native__"
# the ids of the instances marked by _marking: per thread and per task, carried into
# asyncio.to_thread's worker (not into a thread pool's)
_inside: ContextVar[frozenset[int]] = ContextVar("ragline_rerouting", default=frozenset())


def _sync_inline(method: Callable[..., Any]) -> Callable[..., Any]:
    """Mark an async list method that only runs its sync twin inline (the test fakes):
    the async array methods need not call it, since calling the sync array method in a
    worker thread calls the same sync list method."""
    setattr(method, _SYNC_INLINE, True)
    return method


async def _async_lists(embeddings: Any, items: list[str], *, queries: bool) -> list[Any]:
    """``embeddings``' own async list methods on ``items`` (``aembed_query`` once per
    query, else ``aembed_documents`` once), the instance marked as a rerouted array
    method marks it (:func:`_marking`). A store keeping the lists' float64 numbers
    (in-memory cosine) calls this too."""
    token = _inside.set(_inside.get() | {id(embeddings)})
    try:
        if queries:
            return [await embeddings.aembed_query(text) for text in items]
        return list(await embeddings.aembed_documents(items))
    finally:
        _inside.reset(token)


async def _through_async_lists(self: Any, texts: Sequence[str], *, queries: bool) -> np.ndarray:
    items = check_texts(texts, what="queries" if queries else "texts")
    if not items:
        return np.zeros((0, 0), dtype=np.float32)
    rows = await _async_lists(self, items, queries=queries)
    return validate_embeddings(rows, expected_rows=len(items), source=type(self).__name__)


async def _aembed_documents_array(self: Any, texts: Sequence[str]) -> np.ndarray:
    """Async ``embed_documents_array`` awaiting this class's own ``aembed_documents``."""
    return await _through_async_lists(self, texts, queries=False)


async def _aembed_queries_array(self: Any, texts: Sequence[str]) -> np.ndarray:
    """Async ``embed_queries_array`` awaiting this class's own ``aembed_query`` per query."""
    return await _through_async_lists(self, texts, queries=True)


# array method name -> the one calling the list methods: the sync ones, the async ones
_THROUGH_LISTS = {
    "embed_documents_array": Embeddings.embed_documents_array,
    "embed_queries_array": Embeddings.embed_queries_array,
    "aembed_documents_array": Embeddings.aembed_documents_array,
    "aembed_queries_array": Embeddings.aembed_queries_array,
}
_THROUGH_ASYNC_LISTS = {
    "aembed_documents_array": _aembed_documents_array,
    "aembed_queries_array": _aembed_queries_array,
}
for _method in _THROUGH_ASYNC_LISTS.values():
    setattr(_method, _ASYNC_LISTS, True)


def _calls_async_lists(embeddings: Any, async_name: str) -> bool:
    """Whether ``embeddings``' async array method ``async_name`` awaits its class's own
    ``aembed_documents`` / ``aembed_query``."""
    return getattr(getattr(type(embeddings), async_name, None), _ASYNC_LISTS, False)


def _marking(method: Callable[..., Any], native: Callable[..., Any] | None = None) -> Any:
    """``method`` marking its instance while it runs; with ``native`` (a rerouted array
    method), an instance already marked runs ``native`` instead."""
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def amarked(self: Any, *args: Any, **kwargs: Any) -> Any:
            marks = _inside.get()
            if id(self) in marks:
                return await (native or method)(self, *args, **kwargs)
            token = _inside.set(marks | {id(self)})
            try:
                return await method(self, *args, **kwargs)
            finally:
                _inside.reset(token)

        wrapper: Any = amarked
    else:

        @functools.wraps(method)
        def marked(self: Any, *args: Any, **kwargs: Any) -> Any:
            marks = _inside.get()
            if id(self) in marks:
                return (native or method)(self, *args, **kwargs)
            token = _inside.set(marks | {id(self)})
            try:
                return method(self, *args, **kwargs)
            finally:
                _inside.reset(token)

        wrapper = marked
    if native is not None:
        setattr(wrapper, _NATIVE, native)
    return wrapper


_SYNC_NAMES = ("embed_documents", "embed_query", "embed_documents_array", "embed_queries_array")
_ASYNC_NAMES = tuple(f"a{name}" for name in _SYNC_NAMES)


def _list_calling(list_name: str, array_name: str) -> Any:
    """The list method ``list_name`` written as ragline's own are, on ``self``'s array
    method ``array_name`` in place of its class's."""
    query = list_name.endswith("_query")
    if list_name.startswith("a"):

        async def alist_method(self: Any, arg: Any) -> Any:
            rows = await getattr(self, array_name)([check_text(arg)] if query else arg)
            return rows[0].tolist() if query else rows.tolist()

        method: Any = alist_method
    else:

        def list_method(self: Any, arg: Any) -> Any:
            rows = getattr(self, array_name)([check_text(arg)] if query else arg)
            return rows[0].tolist() if query else rows.tolist()

        method = list_method
    method.__name__ = method.__qualname__ = list_name
    method.__doc__ = f"``{list_name}`` through ``self.{array_name}``."
    return method


def _route_arrays_through_overrides(cls: type) -> None:
    """Give ``cls``, when it overrides ``embed_documents`` or ``embed_query`` (either
    async twin, not a :func:`_sync_inline` one), the array methods calling them (the
    sync overrides: all four; the async ones: the async two) in place of the native ones
    it inherits; its own array methods are kept. When it overrides an array method that
    a ragline list method it inherits calls, that list method calls ``self``'s."""
    own = dict(vars(cls))
    routes: list[tuple[dict[str, Any], tuple[str, ...]]] = []
    if "embed_documents" in own or "embed_query" in own:
        routes.append((_THROUGH_LISTS, _SYNC_NAMES))
    if any(n in own and not hasattr(own[n], _SYNC_INLINE) for n in _ASYNC_NAMES[:2]):
        routes.append((_THROUGH_ASYNC_LISTS, _ASYNC_NAMES))
    for defaults, guarded_names in routes:
        for name, default in defaults.items():
            inherited = inspect.unwrap(getattr(cls, name))
            if name in own or inherited is default or hasattr(inherited, _ASYNC_LISTS):
                continue  # its own, or already calling the list methods
            provider = next(k for k in cls.__mro__ if name in vars(k))
            if name in guarded_names and _OWN_ARRAYS not in vars(provider):
                default = _marking(default, native=vars(provider)[name])
            setattr(cls, name, default)
    for names in (_SYNC_NAMES, _ASYNC_NAMES):  # the overrides of a class with marked arrays
        if any(hasattr(getattr(cls, name), _NATIVE) for name in names[2:]):
            for name in names[:2]:
                if inspect.isfunction(own.get(name)):
                    setattr(cls, name, _marking(own[name]))
    for name in (*_SYNC_NAMES[:2], *_ASYNC_NAMES[:2]):  # ragline's list methods it inherits
        provider = next(k for k in cls.__mro__ if name in vars(k))
        array_name = vars(provider).get(_OWN_ARRAYS, {}).get(name)
        if name not in own and array_name in own:
            setattr(cls, name, _list_calling(name, array_name))


_register(Embeddings)
