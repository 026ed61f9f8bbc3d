"""``ragline.json``: how a store folder was built and what it holds.

The manifest is a JSON object. The keys ragline itself reads are typed fields of
:class:`Manifest`; any other key is kept, unread, in :attr:`Manifest.extras` and
written back unchanged, so a helper can record its own entry (an embedding identity,
a BM25 index's settings) without this module knowing about it. Extra keys should be
namespaced by the helper that owns them (``"bm25"``, ``"embedding_identity"``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from ragline.core import PersistenceError

__all__ = ["MANIFEST_FILE", "JSONValue", "Manifest", "read_manifest", "write_manifest"]

MANIFEST_FILE = "ragline.json"
FORMAT_VERSION = 2  # 2: the store and its records live in the generation folder named here

JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"

RECOVERY_HINT = "re-index into it with --rebuild (index_paths(..., rebuild=True))"


@dataclass
class Manifest:
    """The contents of a store folder's ``ragline.json``.

    Attributes:
        embedding: the name of the embedding the store was built with (see
            :func:`~ragline.store_folder.make_embeddings`); queries embed with it too.
        embedding_options: options for that embedding (e.g. ``{"dimension": 384}``).
        chunk_size: the splitter's chunk size; later runs reuse it unless told otherwise.
        chunk_overlap: the splitter's chunk overlap, reused the same way.
        documents: how many sources (files) the store holds chunks of.
        chunks: how many chunks (vectors) the store holds.
        generation: the folder (inside the store folder) holding the committed store,
            records and artifacts; None for a folder written before format 2 (``faiss/``
            and ``records.sqlite`` beside the manifest).
        artifacts: the names of the artifacts kept with the store (see
            :class:`~ragline.store_folder.FolderArtifact`).
        extras: every other key of the file, kept as read (helpers' own entries).
    """

    embedding: str
    chunk_size: int
    chunk_overlap: int
    embedding_options: dict[str, JSONValue] = field(default_factory=dict)
    documents: int = 0
    chunks: int = 0
    generation: str | None = None
    artifacts: list[str] = field(default_factory=list)
    extras: dict[str, JSONValue] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSONValue]:
        """The JSON object written to ``ragline.json`` (typed fields first, then extras)."""
        data: dict[str, JSONValue] = {
            "embedding": self.embedding,
            "embedding_options": dict(self.embedding_options),
            "chunk_size": self.chunk_size,
            "chunk_overlap": self.chunk_overlap,
            "documents": self.documents,
            "chunks": self.chunks,
            "format": FORMAT_VERSION,
        }
        if self.generation is not None:
            data["generation"] = self.generation
        if self.artifacts:
            data["artifacts"] = list(self.artifacts)
        for key, value in self.extras.items():
            data.setdefault(key, value)
        return data

    @classmethod
    def from_json(cls, data: object, path: Path) -> Manifest:
        """Check a parsed ``ragline.json`` and build the manifest.

        Raises:
            PersistenceError: not an object, or a field missing or of the wrong type; the
                message names the file and the field and says how to recover.
        """
        if not isinstance(data, dict):
            raise _invalid(path, "not a JSON object")
        embedding = data.get("embedding")
        if not isinstance(embedding, str) or not embedding:
            raise _invalid(path, "no 'embedding' name")
        options = data.get("embedding_options", {})
        if not isinstance(options, dict):
            raise _invalid(path, "'embedding_options' is not an object")
        numbers = {}
        for name, required in (
            ("chunk_size", True),
            ("chunk_overlap", True),
            ("documents", False),
            ("chunks", False),
        ):
            value = data.get(name, None if required else 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _invalid(path, f"{name!r} is {value!r}, not a count")
            numbers[name] = value
        version = data.get("format", 1)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise _invalid(path, f"'format' is {version!r}")
        if version > FORMAT_VERSION:
            raise PersistenceError(
                f"{path}: written by a newer ragline (store folder format {version}; this "
                f"version reads up to {FORMAT_VERSION}); upgrade ragline, or {RECOVERY_HINT}"
            )
        generation = data.get("generation")
        if generation is not None and not _plain_name(generation):
            raise _invalid(path, f"'generation' is {generation!r}, not a folder name")
        artifacts = data.get("artifacts", [])
        if not isinstance(artifacts, list) or not all(_plain_name(name) for name in artifacts):
            raise _invalid(path, f"'artifacts' is {artifacts!r}, not a list of names")
        known = {"embedding", "embedding_options", "format", "generation", "artifacts", *numbers}
        return cls(
            embedding=embedding,
            embedding_options=options,
            generation=generation,
            artifacts=[str(name) for name in artifacts],
            extras={key: value for key, value in data.items() if key not in known},
            **numbers,
        )


def _plain_name(value: object) -> bool:
    """A file name inside the folder: no separators, not ``.`` or ``..``."""
    return (
        isinstance(value, str)
        and bool(value)
        and value not in (".", "..")
        and "/" not in value
        and "\\" not in value
        and "\0" not in value
    )


def _invalid(path: Path, what: str) -> PersistenceError:
    return PersistenceError(f"{path}: not a valid store manifest ({what}); {RECOVERY_HINT}")


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of a store folder, or None when the folder holds no store yet.

    Raises:
        PersistenceError: ``ragline.json`` exists but cannot be read or is not valid.
    """
    path = folder / MANIFEST_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise _invalid(path, "a directory, not a file") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise _invalid(path, str(err)) from None
    return Manifest.from_json(data, path)


def write_manifest(folder: Path, manifest: Manifest, *, durable: bool = False) -> None:
    """Write ``ragline.json`` atomically: a temporary file of this process, then a rename.

    The temporary name carries the process id and a random part, so two processes
    never write the same temporary file.
    """
    text = json.dumps(manifest.to_json(), indent=2, ensure_ascii=False) + "\n"
    write_atomically(folder / MANIFEST_FILE, text.encode("utf-8"), durable=durable)


def write_atomically(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Replace ``path`` with ``data`` by writing a private temporary file and renaming it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    if durable:
        fsync_directory(path.parent)


def fsync_directory(folder: Path) -> None:
    """Flush a directory's entries (a rename inside it) to disk, where the OS allows it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
