"""Artifacts: what else an index run keeps in a store folder, committed with the store.

A helper that keeps something derived from the chunks beside the vector store (a BM25
index, say) writes a :class:`FolderArtifact` and registers it by name
(:func:`register_artifact`). A folder whose manifest lists the name gets the artifact
updated by every index run, through the same writer as the store: the artifact hears of
every chunk added and deleted, and writes itself into the new generation folder at each
commit, so the manifest always names a store, records and artifacts that agree, whatever
point a run was killed at. Readers find the committed copy with
:meth:`StoreFolder.artifact_path <ragline.store_folder.StoreFolder.artifact_path>`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ragline.core import ConfigurationError, Document

__all__ = ["FolderArtifact", "artifact_names", "make_artifact", "register_artifact"]


class FolderArtifact(ABC):
    """Something kept in a store folder beside the vector store and committed with it.

    A writer calls :meth:`load` once, then :meth:`added` / :meth:`deleted` as chunks are
    written, then :meth:`save` at each commit (a checkpoint or the end of the run) into a
    path that did not exist before. A run that fails calls nothing more: its changes are
    dropped with the writer's copy of the store.

    Example:
        >>> class ChunkCount(FolderArtifact):
        ...     def load(self, path, documents):
        ...         self.count = int(path.read_text()) if path else sum(1 for _ in documents())
        ...     def added(self, documents):
        ...         self.count += len(documents)
        ...     def deleted(self, ids):
        ...         self.count -= len(ids)
        ...     def save(self, path):
        ...         path.write_text(str(self.count))
        >>> register_artifact("chunk-count", ChunkCount)
    """

    @abstractmethod
    def load(self, path: Path | None, documents: Callable[[], Iterable[Document]]) -> None:
        """Read the committed copy at ``path``.

        Args:
            path: where :meth:`save` wrote it; None when there is none yet (a new store,
                or a store the artifact was just added to).
            documents: every chunk the store holds now (with ids), for building the
                artifact when ``path`` is None.
        """

    @abstractmethod
    def added(self, documents: Sequence[Document]) -> None:
        """Chunks written to the store (each with its id); an id may already be there."""

    @abstractmethod
    def deleted(self, ids: Sequence[str]) -> None:
        """Chunks deleted from the store (ids it may not hold are ignored)."""

    @abstractmethod
    def save(self, path: Path) -> None:
        """Write the whole artifact at ``path`` (a file or a folder; it does not exist yet)."""


_ARTIFACTS: dict[str, Callable[[], FolderArtifact]] = {}


def register_artifact(name: str, factory: Callable[[], FolderArtifact]) -> None:
    """Make ``name`` an artifact store folders can keep (``writer(artifacts=[name])``).

    Raises:
        ConfigurationError: ``name`` is not a plain file name.
    """
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise ConfigurationError(f"an artifact name must be a plain file name, got {name!r}")
    _ARTIFACTS[name] = factory


def artifact_names() -> tuple[str, ...]:
    """The registered artifact names."""
    return tuple(_ARTIFACTS)


def make_artifact(name: str) -> FolderArtifact:
    """A new artifact of a registered name.

    Raises:
        ConfigurationError: no artifact of that name is registered (names the known ones).
    """
    try:
        factory = _ARTIFACTS[name]
    except KeyError:
        known = ", ".join(map(repr, _ARTIFACTS)) or "none"
        raise ConfigurationError(
            f"the store folder keeps an artifact {name!r} that this program cannot update "
            f"(registered artifacts: {known}); import the package that registers it"
        ) from None
    return factory()
