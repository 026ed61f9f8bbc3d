"""The Redis store's index schema, hash layout and filter translation (no I/O here).

A document is one hash under ``{key_prefix}|{id}``::

    content         the text (a TEXT field of the index)
    content_vector  the vector as FLOAT32 bytes (a VECTOR field: FLAT or HNSW)
    _metadata       the whole metadata as JSON (not indexed: gives it back exactly)
    <field>         one hash field per indexed metadata field (TAG, NUMERIC or TEXT)

**Keys.** ``|`` separates the key prefix from the id and may not appear in a key prefix,
so no store's keys can fall under another store's prefix (``kb|`` is no prefix of
``kb:v2|``): counts, searches and ``drop_index(delete_documents=True)`` reach the
store's own documents only. In the id, ``%`` and NUL are written ``%25`` and ``%00``
(RediSearch reads keys as C strings), so any id round-trips.

**Tag values.** RediSearch trims whitespace off tags, splits them at the separator,
cannot match an empty tag, reads backslashes as escapes and stops at NUL. So the index
holds an encoding of each tag value, while ``_metadata`` keeps the value itself: a str
made only of letters, digits and ``_ . : / -`` is itself (readable in the index); any
other str is ``~`` and the hex of its UTF-8 bytes; a bool or number is ``#`` and its
canonical text (``#true``, ``#3``, ``#2.5``; 1 and 1.0 are one value, True and 1 are
not), hex-encoded after ``#~`` when that text holds other characters. The three forms
never collide, so ``$eq $ne $in $nin`` agree with the reference evaluator for every
value.

**Numbers.** A numeric field holds doubles: ints beyond +/-2**53 cannot be compared
exactly there, so they are refused in numeric fields and filters (an inferred schema
makes a field holding one a tag field, where equality is exact). +/-inf bounds in range
filters are exact.

Indexes written by older ragline versions (keys ``{key_prefix}:{id}``, raw tag values)
or by other tools are read in their own *legacy* layout: keys ``{prefix}{id}`` as the
index defines them and tag values as they are (see :class:`IndexSchema`).

Filters written in the shared language (:mod:`ragline.vectorstores.filters`) become
RediSearch query syntax (DIALECT 2). Every user value travels as a query PARAMETER
(``$p0``, ``$p1`` ...), never inside the query text, so no value (``a|b}``, ``-x``,
``@f``, quotes, spaces) can change the query; only text-field phrases are written into
the query, reduced to their word tokens, which are letters, digits and ``_`` only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ragline.core._checks import check_choice, check_positive_int
from ragline.core.exceptions import ConfigurationError, FilterError, InvalidInputError
from ragline.vectorstores.filters import And, Comparison, FilterNode, Not, Or

__all__ = [
    "DISTANCE_METRICS",
    "FIELD_KINDS",
    "IndexSchema",
    "check_index_name",
    "check_key_prefix",
    "encode_value",
    "filter_to_query",
    "infer_kind",
]

FIELD_KINDS = ("tag", "numeric", "text")
DISTANCE_METRICS = {"COSINE": "cosine_distance", "IP": "inner_product_distance", "L2": "squared_l2"}
ALGORITHMS = ("FLAT", "HNSW")
_VECTOR_OPTIONS = ("algorithm", "distance_metric", "datatype", "m", "ef_construction", "ef_runtime")

# Index names and key prefixes: no spaces, quotes, or glob characters (* ? [ ]), which
# would break SCAN patterns; and never the key separator, so prefixes cannot nest.
_INDEX_NAME = re.compile(r"[A-Za-z0-9_.:\-]{1,200}")
_KEY_PREFIX = re.compile(r"[A-Za-z0-9_.:/{}\-]{1,200}")
# Between the key prefix and the id; no key prefix holds it (see the module docstring).
SEPARATOR = "|"
# Tag values spelled as themselves in the index; anything else is encoded.
_PLAIN_TAG = re.compile(r"[A-Za-z0-9_.:/\-]+")
_ID_ESCAPES = re.compile(r"%(25|00)")
# Integers a double holds exactly: numeric fields compare doubles.
EXACT_INT = 2**53
# Indexed field names appear in queries as @name, so they stay identifiers.
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
# The tag separator: a control character no sensible value holds, so "a,b" stays one tag.
TAG_SEPARATOR = "\x1f"
# Starts the tag text of a bool or number (see encode_value): another control character.
TYPED_TAG = "\x1e"
# RediSearch splits text at these characters when indexing; a phrase query uses the tokens.
_TEXT_TOKEN = re.compile(r"[^\s,.<>{}\[\]\"':;!@#$%^&*()\-+=~|/\\?`]+")


def check_index_name(name: Any) -> str:
    """Return ``name`` if Redis can take it as an index name, else raise ConfigurationError."""
    if not isinstance(name, str) or not _INDEX_NAME.fullmatch(name):
        raise ConfigurationError(
            f"index_name {name!r} is not valid: use 1-200 letters, digits, '_', '.', ':' or '-'"
        )
    return name


def check_key_prefix(prefix: Any) -> str:
    """Return ``prefix`` if usable as a key prefix (no glob characters, no ``|``), else raise."""
    if not isinstance(prefix, str) or not _KEY_PREFIX.fullmatch(prefix):
        raise ConfigurationError(
            f"key_prefix {prefix!r} is not valid: use 1-200 letters, digits, '_', '.', ':', "
            "'/', '{', '}' or '-' (keys are '<key_prefix>|<id>')"
        )
    return prefix


def encode_id(doc_id: str) -> str:
    """An id as written in a key: ``%`` and NUL escaped (see the module docstring)."""
    if "%" in doc_id or "\x00" in doc_id:
        return doc_id.replace("%", "%25").replace("\x00", "%00")
    return doc_id


def decode_id(text: str) -> str:
    """The id :func:`encode_id` wrote."""
    if "%" not in text:
        return text
    return _ID_ESCAPES.sub(lambda match: "%" if match.group(1) == "25" else "\x00", text)


def infer_kind(value: Any) -> str | None:
    """The field kind a metadata value gets in an inferred schema (None: not indexed).

    An int a double cannot hold exactly makes a tag field (exact equality, no ranges).
    """
    if isinstance(value, (bool, str)):
        return "tag"
    if isinstance(value, int):
        return "numeric" if -EXACT_INT <= value <= EXACT_INT else "tag"
    if isinstance(value, float):
        return "numeric"
    return None


class InexactNumberError(ValueError):
    """An int a Redis numeric field (a double) cannot hold or compare exactly."""


def encode_value(kind: str, value: Any, *, exact: bool = True) -> str:
    """The hash-field text of a metadata value in a field of ``kind`` (also used by filters).

    ``exact`` picks the tag encoding of this module's layout (see the module docstring);
    False gives the legacy spelling (a str as itself) of indexes written before it.

    Raises:
        TypeError: the value does not fit the field kind (the caller names the document).
        InexactNumberError: an int beyond +/-2**53 for a numeric field.
    """
    if kind == "numeric":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise TypeError("a numeric field takes int or float values")
        if isinstance(value, float):
            return repr(value)
        if not -EXACT_INT <= value <= EXACT_INT:
            raise InexactNumberError(
                f"{value} is beyond +/-2**53, where a Redis numeric field (a double) cannot "
                "tell neighbouring integers apart; declare the field a tag (exact equality) "
                "in index_schema, or store the number as a string"
            )
        return str(value)
    if kind == "text":
        if not isinstance(value, str):
            raise TypeError("a text field takes str values")
        return value
    if not exact:
        return _legacy_tag(value)
    if isinstance(value, str):
        return value if _PLAIN_TAG.fullmatch(value) else "~" + value.encode().hex()
    typed = _typed_text(value)
    return "#" + typed if _PLAIN_TAG.fullmatch(typed) else "#~" + typed.encode().hex()


def _typed_text(value: Any) -> str:
    """One canonical spelling per bool or number (1 and 1.0 agree, as in the evaluator)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return str(int(value)) if value.is_integer() else repr(value)
    raise TypeError("a tag field takes str, bool, int or float values")


def _legacy_tag(value: Any) -> str:
    # the layout before exact tags: a str is itself; a bool or number starts with
    # TYPED_TAG; a str that itself starts with TYPED_TAG gets a second one
    if isinstance(value, str):
        return TYPED_TAG + value if value.startswith(TYPED_TAG) else value
    return TYPED_TAG + _typed_text(value)


@dataclass
class IndexSchema:
    """What the index looks like: vector settings, key prefix and indexed metadata fields."""

    index_name: str
    key_prefix: str
    content_key: str = "content"
    vector_key: str = "content_vector"
    metadata_key: str = "_metadata"
    algorithm: str = "FLAT"
    distance_metric: str = "COSINE"
    hnsw_m: int = 16
    hnsw_ef_construction: int = 200
    hnsw_ef_runtime: int = 10
    dimension: int | None = None
    fields: dict[str, str] = field(default_factory=dict)  # metadata field -> kind
    # what comes between the key prefix and the id: SEPARATOR in this module's layout;
    # for an index written before it (or by another tool), the rest of its PREFIX
    separator: str = SEPARATOR
    # server statistics as FT.INFO last reported them (not part of the schema)
    indexing_failures: int = 0
    backfilling: bool = False

    @property
    def score_kind(self) -> str:
        return DISTANCE_METRICS[self.distance_metric]

    @property
    def reserved(self) -> tuple[str, str, str]:
        return (self.content_key, self.vector_key, self.metadata_key)

    @property
    def exact(self) -> bool:
        """Whether the index has this module's layout (exact keys and tags), not a legacy one."""
        return self.separator == SEPARATOR

    @property
    def prefix(self) -> str:
        """The index's key PREFIX: every document key starts with it."""
        return self.key_prefix + self.separator

    def key(self, doc_id: str) -> str:
        return self.prefix + (encode_id(doc_id) if self.exact else doc_id)

    def doc_id(self, key: str) -> str:
        """The id of a document key (one under :attr:`prefix`)."""
        rest = key[len(self.prefix) :]
        return decode_id(rest) if self.exact else rest

    def create_args(self) -> list[Any]:
        """Arguments of FT.CREATE for this schema (``dimension`` must be set)."""
        vector = ["TYPE", "FLOAT32", "DIM", self.dimension, "DISTANCE_METRIC", self.distance_metric]
        if self.algorithm == "HNSW":
            vector += ["M", self.hnsw_m, "EF_CONSTRUCTION", self.hnsw_ef_construction]
            vector += ["EF_RUNTIME", self.hnsw_ef_runtime]
        args: list[Any] = ["FT.CREATE", self.index_name, "ON", "HASH"]
        args += ["PREFIX", 1, self.prefix, "STOPWORDS", 0, "SCHEMA"]
        args += [self.content_key, "TEXT"]
        args += [self.vector_key, "VECTOR", self.algorithm, len(vector), *vector]
        for name, kind in self.fields.items():
            args += field_args(name, kind)
        return args


def field_args(name: str, kind: str) -> list[Any]:
    """The schema arguments declaring one metadata field (for FT.CREATE / FT.ALTER)."""
    if kind == "tag":
        return [name, "TAG", "SEPARATOR", TAG_SEPARATOR, "CASESENSITIVE"]
    return [name, kind.upper()]


def check_fields(fields: Mapping[str, str], reserved: tuple[str, ...]) -> dict[str, str]:
    """Check a declared metadata schema ``{name: "tag" | "numeric" | "text"}``."""
    checked: dict[str, str] = {}
    for name, kind in fields.items():
        if not isinstance(name, str) or not _FIELD_NAME.fullmatch(name):
            raise ConfigurationError(
                f"metadata field name {name!r} is not valid: use letters, digits and '_', "
                "starting with a letter or '_'"
            )
        if name in reserved:
            raise ConfigurationError(
                f"metadata field {name!r} clashes with a field the store uses itself "
                f"({', '.join(reserved)}); rename it or change content_key / vector_key"
            )
        if kind not in FIELD_KINDS:
            raise ConfigurationError(
                f"metadata field {name!r} has kind {kind!r}; valid kinds are "
                f"{', '.join(FIELD_KINDS)}"
            )
        checked[name] = kind
    return checked


def parse_index_schema(index_schema: Mapping[str, Any] | None) -> dict[str, str]:
    """Accept ``{"source": "tag"}`` or LangChain's ``{"tag": [{"name": "source"}], ...}``."""
    if index_schema is None:
        return {}
    if not isinstance(index_schema, Mapping):
        raise ConfigurationError(f"index_schema must be a dict, got {type(index_schema).__name__}")
    if index_schema and all(isinstance(value, list) for value in index_schema.values()):
        fields: dict[str, str] = {}
        for kind, entries in index_schema.items():
            for entry in entries:
                name = entry.get("name") if isinstance(entry, Mapping) else entry
                check_choice("index_schema kind", kind, FIELD_KINDS)
                if not isinstance(name, str):
                    raise ConfigurationError(f"index_schema {kind} entry {entry!r} has no name")
                fields[name] = kind
        return fields
    return dict(index_schema)


def parse_vector_schema(vector_schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check ``vector_schema`` (algorithm, distance_metric, m, ef_construction, ef_runtime)."""
    options = {str(key).lower(): value for key, value in (vector_schema or {}).items()}
    unknown = sorted(set(options) - set(_VECTOR_OPTIONS))
    if unknown:
        raise ConfigurationError(
            f"unknown vector_schema option(s) {', '.join(map(repr, unknown))}; valid options "
            f"are {', '.join(_VECTOR_OPTIONS)}"
        )
    checked: dict[str, Any] = {}
    algorithm = str(options.get("algorithm", "FLAT")).upper()
    checked["algorithm"] = check_choice("vector algorithm", algorithm, ALGORITHMS)
    metric = str(options.get("distance_metric", "COSINE")).upper()
    checked["distance_metric"] = check_choice("distance_metric", metric, DISTANCE_METRICS)
    if str(options.get("datatype", "FLOAT32")).upper() != "FLOAT32":
        raise ConfigurationError(f"datatype {options['datatype']!r} is not supported; use FLOAT32")
    for name, attribute in (("m", "hnsw_m"), ("ef_construction", "hnsw_ef_construction"),
                            ("ef_runtime", "hnsw_ef_runtime")):  # fmt: skip
        if name in options:
            checked[attribute] = check_positive_int(
                f"vector_schema {name}", options[name], error=ConfigurationError
            )
    return checked


# ---------------------------------------------------------------------- FT.INFO


def info_to_dict(reply: Any) -> dict[bytes, Any]:
    """FT.INFO's reply as a dict, for RESP2 (flat list) and RESP3 (map) clients alike."""
    if isinstance(reply, dict):
        return {_bytes(key): value for key, value in reply.items()}
    return {_bytes(reply[i]): reply[i + 1] for i in range(0, len(reply) - 1, 2)}


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _attribute(entry: Any, name: str) -> Any:
    if isinstance(entry, dict):
        for key, value in entry.items():
            if _text(key).lower() == name:
                return value
        return None
    items = [_text(item) if isinstance(item, bytes) else item for item in entry]
    lowered = [item.lower() if isinstance(item, str) else item for item in items]
    return entry[lowered.index(name) + 1] if name in lowered[:-1] else None


def schema_from_info(reply: Any, index_name: str) -> IndexSchema:
    """Rebuild an IndexSchema from FT.INFO (content = first TEXT field, vector = VECTOR)."""
    info = info_to_dict(reply)
    definition = info_to_dict(info[b"index_definition"])
    prefixes = [_text(prefix) for prefix in definition.get(b"prefixes", [])]
    if _text(definition.get(b"key_type", b"HASH")) != "HASH" or len(prefixes) != 1:
        raise ConfigurationError(
            f"index {index_name!r} is not a HASH index with one key prefix; this store "
            "cannot read it"
        )
    prefix = prefixes[0]
    if prefix.endswith(SEPARATOR):
        schema = IndexSchema(index_name=index_name, key_prefix=prefix[:-1])
    else:  # written before exact keys and tags, or by another tool: read as it is
        key_prefix = prefix[:-1] if prefix.endswith(":") else prefix
        schema = IndexSchema(
            index_name=index_name, key_prefix=key_prefix, separator=prefix[len(key_prefix) :]
        )
    content_key = None
    for entry in info[b"attributes"]:
        name = _text(_attribute(entry, "attribute"))
        kind = _text(_attribute(entry, "type")).lower()
        if kind == "vector":
            schema.vector_key = name
            schema.algorithm = _text(_attribute(entry, "algorithm")).upper()
            schema.distance_metric = _text(_attribute(entry, "distance_metric")).upper()
            schema.dimension = int(_attribute(entry, "dim"))
            if schema.algorithm == "HNSW":
                schema.hnsw_m = int(_attribute(entry, "m") or schema.hnsw_m)
                ef = _attribute(entry, "ef_construction")
                schema.hnsw_ef_construction = int(ef or schema.hnsw_ef_construction)
        elif kind == "text" and content_key is None:
            content_key = name
        elif kind in FIELD_KINDS:
            schema.fields[name] = kind
    schema.indexing_failures = int(info.get(b"hash_indexing_failures", 0) or 0)
    schema.backfilling = int(info.get(b"indexing", 0) or 0) != 0
    if content_key is None or schema.dimension is None:
        raise ConfigurationError(
            f"index {index_name!r} has no TEXT content field or no VECTOR field; this store "
            "cannot read it"
        )
    schema.content_key = content_key
    return schema


# ---------------------------------------------------------------------- filters


def filter_to_query(
    node: FilterNode | None, fields: Mapping[str, str], *, exact: bool = True
) -> tuple[str, dict[str, Any]]:
    """Translate a parsed filter into a RediSearch query (DIALECT 2) and its parameters.

    ``exact`` selects the tag encoding (False: an index in the legacy layout).

    Returns:
        ``(query, params)``; ``("*", {})`` when there is no filter.

    Raises:
        FilterError: a field that is not in the index schema, or an operator / value that
            does not fit the field's kind (the message names both).
    """
    if node is None:
        return "*", {}
    params: dict[str, Any] = {}
    return _translate(node, fields, params, exact), params


# Matches no document: a numeric field's value is never above +inf. Used for comparisons
# no finite number passes (> +inf, == -inf ...); ragline stores only finite numbers.
_NOTHING = "(@{field}:[-inf +inf] -@{field}:[-inf +inf])"
_EVERY_NUMBER = "@{field}:[-inf +inf]"


def _translate(
    node: FilterNode, fields: Mapping[str, str], params: dict[str, Any], exact: bool
) -> str:
    if isinstance(node, And):
        return " ".join(f"({_translate(child, fields, params, exact)})" for child in node.operands)
    if isinstance(node, Or):
        return " | ".join(
            f"({_translate(child, fields, params, exact)})" for child in node.operands
        )
    if isinstance(node, Not):  # every document the operand leaves out, fieldless ones too
        return f"-({_translate(node.operand, fields, params, exact)})"
    assert isinstance(node, Comparison)
    kind = fields.get(node.field)
    if kind is None:
        known = ", ".join(sorted(fields)) or "none"
        raise FilterError(
            f"cannot filter on field {node.field!r}: it is not in the index schema "
            f"(indexed metadata fields: {known}); declare it in index_schema"
        )
    operator = node.operator
    values = node.value if operator in ("$in", "$nin") else (node.value,)
    if operator in ("$gt", "$gte", "$lt", "$lte"):
        if kind != "numeric":
            raise FilterError(
                f"{operator} needs a numeric field, but {node.field!r} is a {kind} field"
            )
        return _range(node.field, operator, node.value, params)
    terms = [_equals(node.field, kind, operator, value, params, exact) for value in values]
    clause = terms[0] if len(terms) == 1 else " | ".join(f"({term})" for term in terms)
    return f"-({clause})" if operator in ("$ne", "$nin") else clause


def _range(name: str, operator: str, value: Any, params: dict[str, Any]) -> str:
    if isinstance(value, float) and math.isinf(value):
        # finite numbers only are stored: > +inf and < -inf match none, < +inf all ...
        everything = (operator in ("$lt", "$lte")) == (value > 0)
        return (_EVERY_NUMBER if everything else _NOTHING).format(field=name)
    _check_exact_number(name, operator, value)
    bound = _param(params, float(value))
    low, high = {
        "$gt": (f"({bound}", "+inf"),
        "$gte": (bound, "+inf"),
        "$lt": ("-inf", f"({bound}"),
        "$lte": ("-inf", bound),
    }[operator]
    return f"@{name}:[{low} {high}]"


def _check_exact_number(name: str, operator: str, value: Any) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > EXACT_INT:
        raise FilterError(
            f"{operator} {value} on numeric field {name!r}: integers beyond +/-2**53 cannot "
            "be compared exactly in a Redis numeric field (a double); declare the field a "
            "tag in index_schema for exact equality"
        )


def _equals(
    name: str, kind: str, operator: str, value: Any, params: dict[str, Any], exact: bool
) -> str:
    if kind == "numeric" and isinstance(value, float) and math.isinf(value):
        return _NOTHING.format(field=name)  # no stored number equals an infinity
    if kind == "numeric":
        _check_exact_number(name, operator, value)
    if kind == "tag" and isinstance(value, float) and math.isinf(value):
        # never stored (metadata holds finite numbers only): a tag no document has
        return f"@{name}:{{{_param(params, '#' + str(value))}}}"
    try:
        text = encode_value(kind, value, exact=exact)
    except (TypeError, InexactNumberError):
        raise FilterError(
            f"{operator} {value!r} does not fit field {name!r}, which is a {kind} field"
        ) from None
    if kind == "numeric":
        bound = _param(params, float(text))
        return f"@{name}:[{bound} {bound}]"
    if kind == "tag":
        if text == "":
            raise FilterError(
                f"{operator} on tag field {name!r}: an empty string cannot be matched in an "
                "index written by an older ragline (re-add its documents to match it)"
            )
        return f"@{name}:{{{_param(params, text)}}}"
    tokens = _TEXT_TOKEN.findall(text)  # word characters only: safe inside the query
    if not tokens:
        raise FilterError(f"{operator} {value!r} on text field {name!r} has no words to match")
    return f'@{name}:"{" ".join(tokens)}"' if len(tokens) > 1 else f"@{name}:{tokens[0]}"


def _param(params: dict[str, Any], value: Any) -> str:
    name = f"p{len(params)}"
    params[name] = value
    return f"${name}"


def validation_error(position: int, name: str, kind: str, value: Any) -> InvalidInputError:
    """The error for a metadata value that does not fit its schema field."""
    return InvalidInputError(
        f"metadatas[{position}][{name!r}] = {value!r:.60} does not fit the index schema: "
        f"{name!r} is a {kind} field ({_KIND_HELP[kind]}); nothing was written"
    )


_KIND_HELP = {
    "tag": "str, bool, int or float values",
    "numeric": "int or float values",
    "text": "str values",
}
