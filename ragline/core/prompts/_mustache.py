"""The ``"mustache"`` template format: ``{{name}}`` (HTML-escaped), ``{{{name}}}`` and
``{{& name}}`` (as given), sections ``{{#name}}...{{/name}}`` (once for a true value or a
mapping, once per item of a list, not at all for a false or empty one), inverted sections
``{{^name}}...{{/name}}``, comments ``{{! ... }}`` and dotted names (``{{user.name}}``,
``{{items.0}}``).

A template is parsed once, into a tree, when the prompt is built. Its variables are the
top-level names outside sections (what LangChain lists). Rendering looks a name up from
the innermost section's value outwards, and follows dotted parts through mappings (keys)
and lists (indices) only: an object's attributes are never read. A missing name renders
as nothing. Tags alone on their line (sections, comments) take the line with them, as the
mustache specification says. Partials (``{{> name}}``) render as nothing (there are none
to include); changing the delimiters is refused.

Example:
    >>> variables, render = compile_mustache("{{#items}}<{{.}}>{{/items}} by {{who}}")
    >>> variables
    ['items', 'who']
    >>> render({"items": ["a", "b"], "who": "Ada & co"})
    '<a><b> by Ada &amp; co'
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.fields import user_stacklevel
from ragline.core.prompts._limits import get_template_limits

__all__ = ["compile_mustache", "mustache_input_json"]

_MAX_DEPTH = 100  # sections nested deeper than this are refused (the renderer recurses)
_STANDALONE_KINDS = frozenset({"#", "^", "/", "!", ">"})
_MISSING = object()


@dataclass
class _Node:
    kind: str  # "text", "var" (escaped), "raw", "section", "inverted", "partial"
    value: str = ""  # the text, or the tag's name
    children: list[_Node] = field(default_factory=list)


def compile_mustache(template: str) -> tuple[list[str], Callable[[dict[str, Any]], str]]:
    """The template's top-level variables (in order of first appearance) and its renderer.

    Raises:
        InvalidInputError: an unclosed or mismatched section, an unclosed tag, an empty
            tag name, a delimiter change, or sections nested deeper than 100.
    """
    tree = _parse(template)
    variables: list[str] = []
    for node in tree:
        if node.kind in ("var", "raw", "section", "inverted") and node.value != ".":
            name = node.value.split(".")[0]
            if name not in variables:
                variables.append(name)

    def render(values: dict[str, Any]) -> str:
        out: list[str] = []
        _render(tree, [values], out, [0, get_template_limits().max_output_chars])
        return "".join(out)

    return variables, render


def mustache_input_json(template: str, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a mustache prompt's input, shaped as LangChain derives it.

    Every name the template reads is an optional property (default ``None``): a name only
    used as a value is a string, a section with no names inside an object of any keys,
    and a section (or the head of a dotted name) with names inside an object of those
    names, kept in ``defs`` under its own name. The partial variables do not change it.
    Properties come last-read first, as LangChain's builder pops them.
    """
    from ragline.core._json_schema import field_title

    paths: dict[tuple[str, ...], bool] = {}  # a name's path -> read as a value
    prefix: tuple[str, ...] = ()
    opened: list[tuple[str, ...]] = []
    for kind, name in _tokens(template):
        if kind in ("text", "!", ">") or name == ".":
            continue
        if kind == "/":
            if opened:
                prefix = opened.pop()
        elif kind in ("#", "^"):
            opened.append(prefix)
            prefix += tuple(name.split("."))
            paths[prefix] = False
        else:
            paths[prefix + tuple(name.split("."))] = True
    tree: dict[str, Any] = {}  # name -> "" (a string) or a dict of the names inside
    for path, as_value in reversed(paths.items()):
        leaf = as_value and not any(other != path and other[: len(path)] == path for other in paths)
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node.setdefault(path[-1], "" if leaf else {})

    def properties(names: dict[str, Any]) -> dict[str, Any]:
        shown: dict[str, Any] = {}
        for name, inner in names.items():
            if inner == "":
                shown[name] = {"default": None, "title": field_title(name), "type": "string"}
            elif not inner:
                shown[name] = {
                    "additionalProperties": True,
                    "default": None,
                    "title": field_title(name),
                    "type": "object",
                }
            else:
                defs[name] = {"properties": properties(inner), "title": name, "type": "object"}
                shown[name] = {"$ref": f"#/$defs/{name}", "default": None}
        return shown

    return {"properties": properties(tree), "type": "object"}


def _tokens(template: str) -> list[tuple[str, str]]:
    """``(kind, text)`` pairs: ``("text", literal)`` or ``(sigil, name)`` for each tag,
    the sigil being ``""`` (variable), ``"{"`` / ``"&"`` (unescaped), ``#``, ``^``, ``/``,
    ``!`` or ``>``; standalone tags have taken their line's whitespace and newline.

    One pass with ``str.find`` (a tag runs to the first closer after it), so a template
    full of ``{{`` without ``}}`` costs its length, not its length squared.
    """
    tokens: list[tuple[str, str]] = []
    pos = 0
    while (start := template.find("{{", pos)) >= 0:
        if start > pos:
            tokens.append(("text", template[pos:start]))
        end = template.find("}}", start + 2)
        if end < 0:
            raise InvalidInputError(
                f"unclosed mustache tag in {template[:60]!r}: {{{{ without }}}} at "
                f"character {start}"
            )
        body = template[start + 2 : end]
        if body.startswith("{"):  # {{{name}}}: the tag runs to the first }}, then one }
            if template.startswith("}", end + 2):
                tokens.append(("{", body[1:].strip()))
                pos = end + 3
                continue
            # {{{name}} (no third }): LangChain's renderer takes it as a tag of no kind,
            # which renders as nothing (and, alone on its line, takes the line with it)
            # and is no variable; so is it here, as a comment, with a warning
            warnings.warn(
                f"mustache tag {template[start : end + 2]!r} opens with three braces and "
                "closes with two; it renders as nothing (write {{{name}}} or {{name}})",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
            tokens.append(("!", body))
            pos = end + 2
            continue
        sigil = body[:1] if body[:1] in ("#", "^", "/", "!", ">", "&", "=") else ""
        if sigil == "=":
            raise InvalidInputError(
                f"mustache delimiter changes ({template[start : end + 2]!r}) are not "
                "supported; write the template with {{ and }}"
            )
        tokens.append((sigil, body[len(sigil) :].strip()))
        pos = end + 2
    if pos < len(template):
        tokens.append(("text", template[pos:]))
    return _strip_standalone(tokens)


def _strip_standalone(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop the indentation and the line end around a section, comment or partial tag
    that is alone on its line (judged on the template as written).

    As LangChain's renderer does (where the mustache specification differs): only spaces
    of the indentation are dropped, and a tag on the template's last line, with no
    newline after it, keeps the blanks that follow it.
    """
    keep = [[0, len(text)] for _, text in tokens]  # the slice of each text token kept
    last = len(tokens) - 1
    for i, (kind, _) in enumerate(tokens):
        if kind not in _STANDALONE_KINDS:
            continue
        before = tokens[i - 1] if i > 0 else ("text", "")
        after = tokens[i + 1] if i < last else ("text", "")
        if before[0] != "text" or after[0] != "text":
            continue
        cut = before[1].rfind("\n") + 1  # where the tag's line starts in the text before
        if before[1][cut:].strip() or (cut == 0 and i > 1):
            continue  # text, or a tag, before the tag on its line
        line_end = after[1].find("\n")
        tail = after[1] if line_end < 0 else after[1][:line_end]
        if tail.strip() or (line_end < 0 and i + 1 < last):
            continue  # text, or a tag, after the tag on its line
        if i > 0:  # the indentation's spaces go; a tab stays, as in LangChain's renderer
            keep[i - 1][1] = min(keep[i - 1][1], len(before[1].rstrip(" ")))
        if i < last and line_end >= 0:  # blanks after a last tag with no newline stay
            keep[i + 1][0] = max(keep[i + 1][0], line_end + 1)
    kept = [
        (kind, text[start:end] if kind == "text" else text)
        for (kind, text), (start, end) in zip(tokens, keep, strict=True)
    ]
    return [token for token in kept if token != ("text", "")]


def _parse(template: str) -> list[_Node]:
    root: list[_Node] = []
    stack: list[tuple[_Node | None, list[_Node]]] = [(None, root)]
    for kind, text in _tokens(template):
        if kind == "text":
            stack[-1][1].append(_Node("text", text))
            continue
        if kind == "!":
            continue
        if not text:
            raise InvalidInputError(f"empty mustache tag in {template!r}")
        if kind in ("#", "^"):
            node = _Node("section" if kind == "#" else "inverted", text)
            stack[-1][1].append(node)
            stack.append((node, node.children))
            if len(stack) > _MAX_DEPTH:
                raise InvalidInputError(
                    f"mustache sections nested deeper than {_MAX_DEPTH} in {template[:60]!r}"
                )
        elif kind == "/":
            opened = stack[-1][0]
            if opened is None or opened.value != text:
                expected = "no section is open" if opened is None else f"{opened.value!r} is open"
                raise InvalidInputError(
                    f"mustache tag {{{{/{text}}}}} closes a section that is not open "
                    f"({expected}) in {template[:60]!r}"
                )
            stack.pop()
        elif kind == ">":
            stack[-1][1].append(_Node("partial", text))
        else:
            stack[-1][1].append(_Node("var" if kind == "" else "raw", text))
    if len(stack) > 1:
        raise InvalidInputError(
            f"mustache section {{{{#{stack[-1][0].value}}}}} is never closed "  # type: ignore[union-attr]
            f"in {template[:60]!r}"
        )
    return root


def _lookup(name: str, scopes: Sequence[Any]) -> Any:
    if name == ".":
        return scopes[-1]
    first, *rest = name.split(".")
    value: Any = _MISSING
    for scope in reversed(scopes):
        if isinstance(scope, Mapping) and first in scope:
            value = scope[first]
            break
    for part in rest:
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _falsy(value: Any) -> bool:
    """Whether a section skips ``value`` (an inverted section shows for it): a missing,
    None or false value, or one whose truth cannot be told (a numpy array of several
    items raises ValueError on ``bool``), which LangChain's lookup takes as missing."""
    try:
        return value is _MISSING or value is None or not value
    except (ValueError, TypeError):
        return True


def _text(value: Any) -> str:
    """A value as a variable shows it: nothing for a missing, None or empty value (but
    one equal to ``0`` or ``False`` shows), or for one whose truth cannot be told (as
    missing)."""
    if value is _MISSING or value is None:
        return ""
    try:
        if not value and value not in (0, False):
            return ""
    except (ValueError, TypeError):
        return ""
    return str(value)


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def _emit(out: list[str], text: str, size: list[int]) -> None:
    size[0] += len(text)
    if size[0] > size[1]:
        raise InvalidInputError(
            f"a mustache render would exceed {size[1]} characters "
            "(TemplateLimits.max_output_chars; see set_template_limits)"
        )
    out.append(text)


def _render(nodes: list[_Node], scopes: list[Any], out: list[str], size: list[int]) -> None:
    for node in nodes:
        if node.kind == "text":
            _emit(out, node.value, size)
        elif node.kind in ("var", "raw"):
            text = _text(_lookup(node.value, scopes))
            _emit(out, _escape(text) if node.kind == "var" else text, size)
        elif node.kind == "inverted":
            if _falsy(_lookup(node.value, scopes)):
                _render(node.children, scopes, out, size)
        elif node.kind == "section":
            value = _lookup(node.value, scopes)
            if _falsy(value):
                continue
            # a sequence or iterator (a range, a generator) is looped over, as LangChain
            # loops; a str, a mapping or any other value is one scope
            looped = isinstance(value, (list, tuple)) or (
                isinstance(value, (Sequence, Iterator)) and not isinstance(value, str)
            )
            items = value if looped else [value]
            for item in items:
                scopes.append(item)
                try:
                    _render(node.children, scopes, out, size)
                finally:
                    scopes.pop()
        # a partial renders as nothing: there are no partials to include
