"""Documents to the Redis protocol and search replies back to Documents (no I/O here).

Writes are encoded before anything is sent: :func:`encode_rows` checks every document
against the index's fields and encodes its key and hash fields once, so a bad document
stops the whole write; :func:`packed_batches` joins the rows with their vectors into
pipelined batches. Reading turns ``HMGET`` values and ``FT.SEARCH`` replies into
Documents and :class:`~ragline.vectorstores.base.SearchHit` lists. The layout itself
(keys, tag encoding) is :mod:`ragline.vectorstores.redis._schema`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ragline.core import Document
from ragline.core import _redis as conn
from ragline.core.exceptions import InvalidInputError
from ragline.vectorstores._primitives import SearchHit
from ragline.vectorstores.redis._schema import (
    IndexSchema,
    InexactNumberError,
    encode_id,
    encode_value,
    infer_kind,
    validation_error,
)

__all__ = [
    "SCORE",
    "Row",
    "encode_rows",
    "new_fields",
    "packed_batches",
    "search_hits",
    "text",
    "to_document",
    "to_documents",
]

SCORE = "__vector_score"
"""The name a search returns each hit's distance under (no metadata field may take it)."""

Row = tuple[bytes, int, bytes]
"""A document ready to send: its key, how many items its HSET has, its fields packed."""

_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

# Bulk writes switch replies off for each batch (CLIENT REPLY OFF ... ON), so the client
# parses one reply per batch instead of two per document; EXISTS on the batch's keys then
# proves every document landed (a refused write, e.g. out of memory, leaves its key absent).
_REPLY_OFF = b"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n"
_REPLY_ON = b"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$2\r\nON\r\n"


def text(value: Any) -> str:
    """A reply value as text (bytes decoded, undecodable bytes replaced)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def to_documents(
    ids: list[str], texts: list[str], metadatas: list[dict[str, Any]]
) -> list[Document]:
    """Documents for the upsert operation, which reads fields from their metadata."""
    return [
        Document(content, metadata, id=doc_id)
        for doc_id, content, metadata in zip(ids, texts, metadatas, strict=True)
    ]


def new_fields(schema: IndexSchema, documents: list[Document]) -> dict[str, str]:
    """Metadata fields to index that the schema lacks, inferred from their values.

    A field with both numbers and strings is a tag field (ranges need numeric).
    """
    settled = {*schema.fields, *schema.reserved, SCORE}  # nothing to learn
    kinds: dict[str, str] = {}
    for document in documents:
        for name, value in document.metadata.items():
            if name in settled or value is None:
                continue
            kind = infer_kind(value)
            if kind is None:
                continue
            if not _is_field_name(name):
                settled.add(name)
            elif kind == "tag":
                kinds[name] = "tag"
                settled.add(name)  # tag is final
            else:
                kinds.setdefault(name, kind)
    return kinds


def encode_rows(
    schema: IndexSchema, ids: list[str], documents: list[Document], fields: dict[str, str]
) -> list[Row]:
    """Check and encode every document before anything is written.

    Returns, per document, its key and its hash fields except the vector's value, both
    already in the Redis protocol (so a batch is packed by joining a few byte strings),
    and how many items the fields make.

    Raises:
        InvalidInputError: metadata that is not JSON, or a value that does not fit its
            field (the message names the document and the field).
    """
    # the text and the metadata JSON in one format operation per document
    head = b"".join((conn.bulk(schema.content_key.encode()), b"$%d\r\n%b\r\n",
                     conn.bulk(schema.metadata_key.encode()), b"$%d\r\n%b\r\n"))  # fmt: skip
    vector_key = conn.bulk(schema.vector_key.encode())
    field_keys = {name: conn.bulk(name.encode()) for name in fields}
    key_prefix = schema.prefix.encode()
    exact = schema.exact
    rows = []
    encoded: dict[tuple[str, str], bytes] = {}
    for position, (doc_id, document) in enumerate(zip(ids, documents, strict=True)):
        metadata = document.metadata
        try:
            blob = _JSON.encode(metadata).encode()
        except (TypeError, ValueError) as err:
            raise InvalidInputError(
                f"metadatas[{position}] cannot be stored as JSON ({err}); use str, int, "
                "float, bool, None, lists and dicts; nothing was written"
            ) from err
        content = document.page_content.encode()
        parts = [head % (len(content), content, len(blob), blob)]
        for name, kind in fields.items():
            value = metadata.get(name)
            if value is None:
                continue
            # tag strings repeat (sources, languages ...): each is encoded once per call
            memo_key = (kind, value) if type(value) is str else None
            field = None if memo_key is None else encoded.get(memo_key)
            if field is None:
                try:
                    field = conn.bulk(encode_value(kind, value, exact=exact).encode())
                except TypeError:
                    raise validation_error(position, name, kind, value) from None
                except InexactNumberError as err:
                    raise InvalidInputError(
                        f"metadatas[{position}][{name!r}]: {err}; nothing was written"
                    ) from None
                if memo_key is not None:
                    encoded[memo_key] = field
            parts += (field_keys[name], field)
        parts.append(vector_key)  # its value, the vector, is appended when packing
        # items: 4 for the text and JSON pairs, 2 per indexed field, 2 for the vector
        key = key_prefix + (encode_id(doc_id) if exact else doc_id).encode()
        rows.append((conn.bulk(key), len(parts) + 4, b"".join(parts)))
    return rows


def packed_batches(
    rows: list[Row], vectors: np.ndarray, *, batch_size: int, ttl_ms: int | None, quiet: bool
) -> Iterator[tuple[bytes, int]]:
    """Per batch, for each document DEL (a re-added id keeps no stale field), HSET and
    PEXPIRE when the store has a ttl; packed just before sending. Yields each batch's
    bytes and how many replies it asks for.

    ``quiet`` wraps each batch in CLIENT REPLY OFF / ON and ends it with EXISTS over its
    keys: 2 replies per batch. Otherwise every command answers.
    """
    hset = conn.bulk(b"HSET")
    expire = b"" if ttl_ms is None else conn.bulk(b"%d" % ttl_ms)
    per_document = 3 if expire else 2
    for start in range(0, len(rows), batch_size):
        batch = rows[start : start + batch_size]
        parts = [_REPLY_OFF] if quiet else []
        for (key, count, fields), vector in zip(batch, vectors[start:], strict=False):
            parts += (b"*2\r\n$3\r\nDEL\r\n", key, b"*%d\r\n" % (count + 2), hset, key,
                      fields, conn.bulk(vector.tobytes()))  # fmt: skip
            if expire:
                parts += (b"*3\r\n$7\r\nPEXPIRE\r\n", key, expire)
        if quiet:
            parts += (_REPLY_ON, b"*%d\r\n$6\r\nEXISTS\r\n" % (len(batch) + 1))
            parts += (key for key, _, _ in batch)
        yield b"".join(parts), 2 if quiet else per_document * len(batch)


def search_hits(schema: IndexSchema, reply: list[Any], with_vectors: bool) -> list[SearchHit]:
    """One FT.SEARCH reply (RESP2: total, then key and field list per hit) as hits."""
    hits = []
    unsorted = False
    for position in range(1, len(reply) - 1, 2):
        key, flat = reply[position], reply[position + 1]
        values = {text(flat[i]): flat[i + 1] for i in range(0, len(flat) - 1, 2)}
        doc_id = schema.doc_id(text(key))
        vector = None
        if with_vectors:
            vector = np.frombuffer(values[schema.vector_key], dtype=np.float32).copy()
        score = float(values[SCORE])
        if score != score:  # NaN: COSINE with a zero vector (the query's or a stored one)
            score, unsorted = 1.0, True  # as the other stores: a zero vector is orthogonal
        hits.append(SearchHit(to_document(schema, doc_id, values), score, vector))
    if unsorted:
        hits.sort(key=lambda hit: hit.score)
    return hits


def to_document(schema: IndexSchema, doc_id: str, values: Mapping[str, Any]) -> Document:
    """A stored hash's fields (by name) as a Document: the metadata from its JSON, or,
    for a hash another tool wrote, rebuilt from the indexed fields."""
    content = text(values.get(schema.content_key) or b"")
    blob = values.get(schema.metadata_key)
    if blob is not None:
        metadata = json.loads(blob)
    else:  # written by another tool: rebuild what the indexed fields hold
        metadata = {}
        for name, kind in schema.fields.items():
            raw = values.get(name)
            if raw is not None:
                metadata[name] = float(raw) if kind == "numeric" else text(raw)
    return Document(content, metadata, id=doc_id)


def _is_field_name(name: str) -> bool:
    return name.isidentifier() and name.isascii() and len(name) <= 100
