"""What a request may carry: its input checked against the runnable's input schema, its
config cut down to what the route allows.

The input check compiles the runnable's JSON Schema once (its ``$ref`` s resolved) with
the same checker tool calls use (``core/tools/_validate.py``: pydantic's lax
conversions, each problem named by its path), so a bad input is refused with a 422
before the runnable runs, as LangServe refuses it with pydantic.

A client's config is never trusted: only the top-level keys in the route's
``config_keys`` are read (callbacks and run ids never), ``configurable`` keeps only the
ids the runnable declares (values checked against the config schema: an alternative
must be one of its options), and the server's ``per_req_config_modifier`` has the last
word.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragline.core.tools._validate import Invalid, compile_check

__all__ = [
    "ALLOWED_CONFIG_KEYS",
    "DEFAULT_MAX_JSON_DEPTH",
    "Refused",
    "SchemaCheck",
    "check_content_type",
    "client_config",
    "parse_body",
]

# the config keys a route may let clients set; callbacks, run_name and run_id never
ALLOWED_CONFIG_KEYS = ("configurable", "tags", "metadata", "recursion_limit", "max_concurrency")
_REF_DEPTH = 24  # a self-referencing schema is checked this deep, then taken as it is
DEFAULT_MAX_JSON_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")


class Refused(Exception):
    """A request the route refuses before running anything: an HTTP status and detail."""

    def __init__(self, status_code: int, detail: Any) -> None:
        super().__init__(detail if isinstance(detail, str) else repr(detail))
        self.status_code = status_code
        self.detail = detail


def _inline_refs(node: Any, defs: Mapping[str, Any], depth: int = 0) -> Any:
    """``node`` with each local ``$ref`` (``#/$defs/X``, ``#/definitions/X``) replaced by
    the definition it names."""
    if isinstance(node, list):
        return [_inline_refs(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if depth >= _REF_DEPTH or name not in defs:
            return {}
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return _inline_refs({**defs[name], **siblings}, defs, depth + 1)
    return {
        key: _inline_refs(value, defs, depth)
        for key, value in node.items()
        if key not in ("$defs", "definitions")
    }


class SchemaCheck:
    """A JSON Schema compiled once; :meth:`check` converts a value or raises
    :class:`Refused` (422) naming each problem's place under ``root``."""

    def __init__(self, schema: Mapping[str, Any] | None) -> None:
        schema = dict(schema or {})
        defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
        self._check = compile_check(_inline_refs(copy.deepcopy(schema), defs))

    def check(self, value: Any, root: str) -> Any:
        try:
            return self._check(value, root)
        except Invalid as problem:
            raise Refused(422, [_problem(problem.path, problem.problem)]) from None


def check_content_type(value: str) -> None:
    """Refuse (415) a POST body not declared as ``application/json``: a cross-site
    form or ``fetch`` without a preflight can only send ``text/plain``, form data or
    multipart, so this keeps other sites' pages from running anything here."""
    media = value.split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise Refused(
            415,
            f"request bodies are JSON sent with Content-Type: application/json, got {value[:80]!r}",
        )


def parse_body(raw: bytes, *, max_depth: int) -> Any:
    """The JSON of a request body, refused (422) when it is not JSON, nests deeper than
    ``max_depth`` objects and lists, or holds a string that is not valid Unicode (a
    lone surrogate such as ``"\\ud800"``, which no text encoding can carry)."""
    try:
        body = json.loads(raw or b"{}")
    except RecursionError:
        raise _too_deep("", max_depth) from None
    except ValueError as err:
        raise Refused(422, f"request body is not valid JSON: {err}") from None
    _check_tree(body, max_depth)
    return body


def _too_deep(path: str, max_depth: int) -> Refused:
    return _refuse(path or "body", f"nested deeper than the limit of {max_depth} levels "
                                   "(max_json_depth); send a flatter value")  # fmt: skip


def _check_tree(body: Any, max_depth: int) -> None:
    """Depth and text of every value, without recursion (a deep body is what it
    refuses)."""
    stack: list[tuple[Any, int, str]] = [(body, 1, "")]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, str):
            _check_text(node, path)
            continue
        if not isinstance(node, (dict, list)):
            continue
        if depth > max_depth:
            raise _too_deep(path, max_depth)
        if isinstance(node, dict):
            for key, item in node.items():
                where = f"{path}.{key}" if path else key
                _check_text(key, where)
                stack.append((item, depth + 1, where))
        else:
            stack.extend((item, depth + 1, f"{path}[{i}]") for i, item in enumerate(node))


def _check_text(text: str, path: str) -> None:
    bad = _SURROGATE.search(text)
    if bad is not None:
        raise _refuse(
            path or "body",
            f"the text holds a lone surrogate (U+{ord(bad.group()):04X}) at index "
            f"{bad.start()}, which is not valid Unicode; send UTF-8 text",
        )


def _problem(path: str, message: str) -> dict[str, Any]:
    loc = [part for part in path.replace("[", ".").replace("]", "").split(".") if part]
    return {"type": "value_error", "loc": loc, "msg": message}


def _refuse(path: str, message: str) -> Refused:
    return Refused(422, [_problem(path, message)])


def client_config(
    sent: Any,
    *,
    config_keys: Sequence[str],
    configurable_ids: Mapping[str, SchemaCheck | None],
) -> dict[str, Any]:
    """The part of a client's ``config`` the route lets through.

    Keys outside ``config_keys`` are dropped, as LangServe drops them (clients send their
    whole config), except a non-empty ``configurable`` on a route that does not allow it,
    which is refused; ``configurable`` ids the runnable does not declare are dropped.

    Raises:
        Refused: 422 for a config that is not an object, a ``configurable`` the route
            does not allow, or a value of the wrong type.
    """
    if sent is None:
        return {}
    if not isinstance(sent, Mapping):
        raise _refuse("config", f"expected an object, got {type(sent).__name__}")
    config: dict[str, Any] = {}
    for key, value in sent.items():
        if key == "configurable" and value and key not in config_keys:
            raise _refuse(
                "config.configurable",
                "this route does not take configurable values (the server did not list "
                "'configurable' in config_keys)",
            )
        if key in config_keys and value is not None:
            config[key] = _KEY_CHECKS[key](value, f"config.{key}")
    if "configurable" in config:
        configurable = {}
        for name, value in config["configurable"].items():
            if name in configurable_ids:
                check = configurable_ids[name]
                path = f"config.configurable.{name}"
                configurable[name] = value if check is None else check.check(value, path)
        config["configurable"] = configurable
    return config


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _refuse(path, f"expected an object, got {type(value).__name__}")
    return dict(value)


def _tags(value: Any, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise _refuse(path, "expected a list of strings")
    return value


def _positive_int(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _refuse(path, f"expected a positive integer, got {value!r:.40}")
    return value


_KEY_CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "configurable": _object,
    "metadata": _object,
    "tags": _tags,
    "recursion_limit": _positive_int,
    "max_concurrency": _positive_int,
}
