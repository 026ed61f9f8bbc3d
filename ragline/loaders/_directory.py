"""DirectoryLoader: every matching file under a directory, one file at a time.

A directory's own files come before the files of its subdirectories, as LangChain's
glob lists them (``b.txt`` before ``a/x.txt``, then ``a/deep/y.md``); files and
subdirectories are each taken in name order (LangChain: the file system's listing
order). Documents come out in that order, with or without threads. Paths in
``metadata["source"]`` are ``path`` joined with the file's relative path.
"""

from __future__ import annotations

import functools
import itertools
import logging
import os
import random
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ragline.core import (
    Document,
    InvalidInputError,
    LoaderError,
    MissingDependencyError,
    RaglineError,
)
from ragline.core._checks import check_non_negative_int, check_positive_int
from ragline.core._optional import require
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import FileMissingError
from ragline.loaders._mapping import loader_for_path
from ragline.loaders._text import TextLoader

__all__ = ["DirectoryLoader"]

logger = logging.getLogger(__name__)

LoaderFactory = Callable[..., BaseLoader]


def _segment_regex(segment: str) -> str:
    """Translate one path segment of a glob (``*``, ``?``, ``[...]``) to a regex."""
    out, i = [], 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := segment.find("]", i + 2)) != -1:
            body = segment[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def compile_glob(pattern: str) -> re.Pattern[str]:
    """Compile a glob over ``/``-separated relative paths.

    ``*`` and ``?`` stay within one path segment; a ``**`` segment matches zero
    or more directories (``**/*.md`` matches ``a.md`` and ``x/y/a.md``).

    Example:
        >>> bool(compile_glob("**/*.md").match("x/y/a.md"))
        True
        >>> bool(compile_glob("*.md").match("x/a.md"))
        False
    """
    if not pattern or pattern.startswith("/"):
        raise InvalidInputError(
            f"glob {pattern!r} must be a non-empty relative pattern such as '**/*.txt'"
        )
    parts = pattern.split("/")
    regex = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            regex.append(".*" if last else "(?:[^/]+/)*")
        else:
            regex.append(_segment_regex(part) + ("" if last else "/"))
    return re.compile("".join(regex) + r"\Z", re.DOTALL)


def _patterns(value: str | Sequence[str], name: str) -> tuple[str, ...]:
    patterns = (value,) if isinstance(value, str) else tuple(value)
    for pattern in patterns:
        if not isinstance(pattern, str):
            raise InvalidInputError(f"{name} patterns must be strings, got {pattern!r}")
    return patterns


class DirectoryLoader(BaseLoader):
    """Load every file under ``path`` that matches ``glob``, lazily.

    Args:
        path: the directory.
        glob: a pattern, or several, matched against each file's path relative to
            ``path`` (see :func:`compile_glob`); default ``"**/*"``, every file.
        silent_errors: skip a file whose loading fails, log it (logger
            ``ragline.loaders._directory``, level WARNING) and load the rest.
        load_hidden: also load files and enter directories whose name starts with ``.``.
        loader_cls: called as ``loader_cls(file_path, **loader_kwargs)`` for files
            that no ``loader_mapping`` suffix claims; default :class:`TextLoader`.
        loader_kwargs: keyword arguments for ``loader_cls`` (checked against its
            signature here, so a misspelt key fails at once).
        recursive: match each pattern at every depth, as :meth:`pathlib.Path.rglob`
            (``glob="*.txt"`` then loads ``a.txt`` and ``x/y/b.txt``). ``False``, the
            default as in LangChain: each pattern is matched against the whole relative
            path, so ``"*.txt"`` loads only files directly in ``path`` and ``"**/*.txt"``
            those at any depth.
        show_progress: draw a tqdm progress bar (the file list is collected first,
            names only, to know the total).
        use_multithreading: load up to ``max_concurrency`` files at once in threads.
            Documents still come out in file order, as without threads. Threads pay
            off when reading waits (network file systems); for small local text
            files the sequential loop is faster (see benchmarks/loaders.py).
        max_concurrency: the number of threads (and of files read ahead).
        exclude: patterns for files to leave out; a pattern with ``/`` is matched
            against the relative path, one without against the file's name and
            every directory name on its way (excluded directories are not entered).
        sample_size: load only this many files (0: all); the first ones in file
            order, or a random sample with ``randomize_sample``.
        randomize_sample: shuffle the file list before sampling (collects names first).
        sample_seed: seed for ``randomize_sample``, for a repeatable sample.
        loader_mapping: file suffix (``".csv"``; ``".tar.gz"`` also works; case does
            not matter; the longest matching suffix wins) to a callable taking the
            file path and returning a loader, e.g. ``{".csv": CSVLoader,
            ".md": MarkdownLoader}``; :data:`~ragline.loaders.DEFAULT_LOADER_MAPPING` is
            the table ``ragline index`` uses. Use ``functools.partial`` to pass options.
        follow_symlinks: also follow symbolic links whose target lies outside
            ``path``. Links inside ``path`` are always followed; a directory link
            back to one of its own ancestors is never entered (no endless loops).

    Errors raised while a loader is being constructed (bad options) and
    MissingDependencyError always propagate. Other failures while loading a file
    raise LoaderError naming the file, unless ``silent_errors``. A file contributes
    all of its documents or, if it fails, none.

    Raises:
        InvalidInputError: a bad option (at construction).
        LoaderError: on load, ``path`` is missing or not a directory, or a file fails.

    Example:
        >>> import tempfile, pathlib
        >>> root = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (root / "a.txt").write_text("A")
        >>> _ = (root / "b.md").write_text("B")
        >>> [d.page_content for d in DirectoryLoader(root, glob="*.txt").lazy_load()]
        ['A']
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        glob: str | Sequence[str] = "**/*",
        *,
        silent_errors: bool = False,
        load_hidden: bool = False,
        loader_cls: LoaderFactory = TextLoader,
        loader_kwargs: Mapping[str, Any] | None = None,
        recursive: bool = False,
        show_progress: bool = False,
        use_multithreading: bool = False,
        max_concurrency: int = 4,
        exclude: str | Sequence[str] = (),
        sample_size: int = 0,
        randomize_sample: bool = False,
        sample_seed: int | None = None,
        loader_mapping: Mapping[str, LoaderFactory] | None = None,
        follow_symlinks: bool = False,
    ) -> None:
        self.path = path
        self.glob = _patterns(glob, "glob")
        if not self.glob:
            raise InvalidInputError("glob must name at least one pattern, e.g. '**/*'")
        self.recursive = recursive
        # recursive: a pattern matches at any depth (Path.rglob's "**/" before it)
        self._globs = [
            compile_glob(f"**/{pattern}" if recursive else pattern) for pattern in self.glob
        ]
        # a directory is entered only where some pattern can match below it
        self._descend = recursive or any("/" in pattern for pattern in self.glob)
        self.exclude = _patterns(exclude, "exclude")
        self._excludes = [(compile_glob(p), "/" in p) for p in self.exclude]
        if not callable(loader_cls):
            raise InvalidInputError(
                f"loader_cls must be a loader class or callable, got {loader_cls!r}"
            )
        self.loader_cls = loader_cls
        self.loader_kwargs = dict(loader_kwargs or {})
        _check_kwargs(loader_cls, self.loader_kwargs)
        self.loader_mapping = _check_mapping(loader_mapping or {})
        check_positive_int("max_concurrency", max_concurrency)
        check_non_negative_int("sample_size", sample_size)  # 0: every file
        self.silent_errors = silent_errors
        self.load_hidden = load_hidden
        self.show_progress = show_progress
        self.use_multithreading = use_multithreading
        self.max_concurrency = max_concurrency
        self.sample_size = sample_size
        self.randomize_sample = randomize_sample
        self.sample_seed = sample_seed
        self.follow_symlinks = follow_symlinks

    # -- which files ---------------------------------------------------------

    def _excluded(self, relative: str, name: str) -> bool:
        for pattern, has_slash in self._excludes:
            if pattern.match(relative if has_slash else name):
                return True
        return False

    def _wanted(self, relative: str, name: str) -> bool:
        return any(g.match(relative) for g in self._globs) and not self._excluded(relative, name)

    def iter_paths(self) -> Iterator[Path]:
        """Yield the files that would be loaded, in load order, before any sampling.

        Raises:
            LoaderError: ``path`` is missing or not a directory.
        """
        root = Path(self.path)
        if not root.exists():
            raise FileMissingError(f"directory not found: {os.fspath(self.path)}")
        if not root.is_dir():
            raise LoaderError(f"{os.fspath(self.path)} is not a directory")
        real_root = root.resolve()
        # Each level: (directory, its path relative to root, its real path, entries).
        stack = [(root, "", real_root, iter(_sorted_entries(root)))]
        while stack:
            directory, prefix, _, entries = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                continue
            relative = prefix + entry.name
            if not self.load_hidden and entry.name.startswith("."):
                continue
            entry_path = directory / entry.name
            real = entry_path.resolve() if entry.is_symlink() else None
            if real is not None and not self._symlink_allowed(entry_path, real, real_root):
                continue
            if entry.is_dir():
                real = real or entry_path.resolve()
                ancestors = {level[2] for level in stack}
                if not self._descend or real in ancestors or self._excluded(relative, entry.name):
                    continue
                stack.append((entry_path, relative + "/", real, iter(_sorted_entries(entry_path))))
            elif entry.is_file() and self._wanted(relative, entry.name):
                yield entry_path

    def _symlink_allowed(self, link: Path, target: Path, real_root: Path) -> bool:
        if not target.exists():
            logger.info("skipping broken symbolic link %s", link)
            return False
        if self.follow_symlinks or target == real_root or real_root in target.parents:
            return True
        logger.info(
            "skipping %s: it links to %s, outside %s (follow_symlinks=False)",
            link,
            target,
            real_root,
        )
        return False

    def _selected_paths(self) -> Iterator[Path]:
        paths: Iterable[Path] = self.iter_paths()
        if self.randomize_sample:
            shuffled = list(paths)
            random.Random(self.sample_seed).shuffle(shuffled)
            paths = shuffled
        if self.sample_size:
            paths = itertools.islice(paths, self.sample_size)
        return iter(paths)

    # -- loading -------------------------------------------------------------

    def _loader_for(self, path: Path) -> BaseLoader:
        default = functools.partial(self.loader_cls, **self.loader_kwargs)
        return loader_for_path(path.name, self.loader_mapping, default)(os.fspath(path))

    def _begin(
        self, path: Path, pool: ThreadPoolExecutor | None = None
    ) -> Future[list[Document]] | Callable[[], list[Document]]:
        """The file's loading, to :meth:`_finish`: in ``pool`` if given."""
        try:
            loader = self._loader_for(path)  # here, so bad options raise at once
        except _OPTION_ERRORS:
            raise
        except Exception as err:  # the file's own fault (PythonLoader reads it when built)
            return _failed(err)
        if pool is None:
            return functools.partial(_load_all, loader)
        return pool.submit(_load_all, loader)

    def _finish(
        self, path: Path, result: Future[list[Document]] | Callable[[], list[Document]]
    ) -> list[Document]:
        try:
            return result.result() if isinstance(result, Future) else result()
        except MissingDependencyError:
            raise
        except Exception as err:
            if self.silent_errors:
                logger.warning("skipping %s: %s", path, err)
                return []
            if isinstance(err, RaglineError):
                raise
            raise LoaderError(f"cannot load {path}: {type(err).__name__}: {err}") from err

    def lazy_load(self) -> Iterator[Document]:
        """Yield documents file by file; later files are not read until needed.

        Raises:
            LoaderError: ``path`` is missing, or a file fails and not ``silent_errors``.
        """
        paths = self._selected_paths()
        progress = None
        if self.show_progress:
            tqdm = require("tqdm", "core").tqdm
            path_list = list(paths)
            paths, progress = iter(path_list), tqdm(total=len(path_list), unit="file")
        try:
            for documents in self._load_each(paths):
                if progress is not None:
                    progress.update(1)
                yield from documents
        finally:
            if progress is not None:
                progress.close()

    def _load_each(self, paths: Iterator[Path]) -> Iterator[list[Document]]:
        if not self.use_multithreading:
            for path in paths:
                yield self._finish(path, self._begin(path))
            return
        pool = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="ragline-loader")
        pending: deque[tuple[Path, Future[list[Document]] | Callable[[], list[Document]]]]
        pending = deque()
        try:
            for path in paths:
                pending.append((path, self._begin(path, pool)))
                if len(pending) >= self.max_concurrency:
                    yield self._finish(*pending.popleft())
            while pending:
                yield self._finish(*pending.popleft())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def __repr__(self) -> str:
        return f"DirectoryLoader({os.fspath(self.path)!r}, glob={list(self.glob)!r})"


def _load_all(loader: BaseLoader) -> list[Document]:
    return list(loader.lazy_load())


# errors of building a loader that every file would raise alike: not skipped
_OPTION_ERRORS = (InvalidInputError, MissingDependencyError)


def _failed(err: Exception) -> Future[list[Document]]:
    future: Future[list[Document]] = Future()
    future.set_exception(err)
    return future


def _sorted_entries(directory: Path) -> list[os.DirEntry[str]]:
    """The entries of ``directory``: its files by name, then its subdirectories by name."""
    try:
        with os.scandir(directory) as entries:
            return sorted(entries, key=lambda entry: (entry.is_dir(), entry.name))
    except OSError as err:
        raise LoaderError(f"cannot list directory {directory}: {err.strerror or err}") from err


def _check_kwargs(loader_cls: LoaderFactory, kwargs: dict[str, Any]) -> None:
    import inspect  # slow to import, and needed only when there are kwargs to check

    if not kwargs:
        return
    try:
        signature = inspect.signature(loader_cls)
    except (TypeError, ValueError):  # some builtins have no signature: nothing to check
        return
    try:
        signature.bind("file", **kwargs)
    except TypeError as err:
        name = getattr(loader_cls, "__name__", repr(loader_cls))
        raise InvalidInputError(
            f"loader_kwargs {sorted(kwargs)} do not fit {name}: {err}"
        ) from None


def _check_mapping(mapping: Mapping[str, LoaderFactory]) -> dict[str, LoaderFactory]:
    checked = {}
    for suffix, factory in mapping.items():
        if not isinstance(suffix, str) or not suffix.startswith(".") or len(suffix) < 2:
            raise InvalidInputError(
                f"loader_mapping key {suffix!r} must be a file suffix such as '.csv'"
            )
        if not callable(factory):
            raise InvalidInputError(f"loader_mapping[{suffix!r}] must be callable, got {factory!r}")
        checked[suffix.lower()] = factory
    return checked
