"""``XMLOutputParser``: a model's XML reply as nested dicts and lists, as LangChain's.

``parse`` reads the whole reply (inside a ```` ```xml ```` fence when there is one): an
element with text becomes ``{tag: text}``, one with child elements
``{tag: [child, ...]}`` (a child without children is ``{tag: text}``, ``None`` when
empty). Streaming yields each element without children as soon as it closes, wrapped in
its ancestors: ``{"movies": [{"film": [{"name": "Up"}]}]}``; text before the first
``<`` and after the root closes is skipped. ``parser="defusedxml"`` (the default, as in
LangChain) needs the defusedxml package; ``parser="xml"`` uses the standard library.
The format instructions are in ragline's own words.

Example:
    >>> XMLOutputParser(parser="xml").parse("<a><b>x</b><b>y</b></a>")
    {'a': [{'b': 'x'}, {'b': 'y'}]}
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from ragline.core.exceptions import OutputParserException
from ragline.core.output_parsers._base import BaseTransformOutputParser, text_of
from ragline.core.output_parsers._text import fields_repr

__all__ = ["XMLOutputParser"]

_FENCE = re.compile(r"```(?:xml)?(.*)```", re.DOTALL)


class XMLOutputParser(BaseTransformOutputParser[dict[str, Any]]):
    """Parse XML replies into dicts; see the module docstring.

    Args:
        tags: tag names the format instructions ask for (parsing accepts any).
        parser: ``"defusedxml"`` (safe against entity expansion; needs defusedxml) or
            ``"xml"`` (the standard library's parser).

    Raises:
        OutputParserException: the reply is not one well-formed XML document.
        ImportError: ``parser="defusedxml"`` without the defusedxml package.
    """

    tags: list[str] | None = None
    encoding_matcher: Any = None
    parser: Literal["defusedxml", "xml"] = "defusedxml"

    @property
    def _type(self) -> str:
        return "xml"

    def __post_init__(self) -> None:
        if self.parser not in ("defusedxml", "xml"):
            raise ValueError(f"XMLOutputParser(parser={self.parser!r}): use 'defusedxml' or 'xml'")

    def __repr__(self) -> str:
        return fields_repr(self)

    @property
    def OutputType(self) -> Any:
        return dict[str, Any]

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": True}

    def _etree(self) -> Any:
        if self.parser == "xml":
            return ET
        try:
            from defusedxml import ElementTree  # type: ignore[import-untyped]
        except ImportError as err:
            raise ImportError(
                "XMLOutputParser(parser='defusedxml') needs the defusedxml package "
                "(pip install defusedxml); or pass parser='xml' to use the standard "
                "library's parser on replies you trust"
            ) from err
        return ElementTree

    def parse(self, text: str) -> dict[str, Any]:
        fenced = _FENCE.search(text)
        body = (fenced.group(1) if fenced else text).strip()
        etree = self._etree()
        try:
            root = etree.fromstring(body)
        except ET.ParseError as err:
            raise OutputParserException(
                f"Failed to parse XML format from completion {text}. Got: {err}",
                llm_output=text,
            ) from err
        return _as_dict(root)

    def get_format_instructions(self) -> str:
        wanted = (
            f"Use these tags: {', '.join(self.tags)}."
            if self.tags
            else "Choose tag names that describe the content."
        )
        return (
            "Reply with one XML document and nothing else: a single root element, every "
            f"tag closed, values as element text. {wanted}"
        )

    # ---- streaming: each leaf element as it closes ------------------------------------
    def _parse_chunks(self, chunks: Iterator[Any]) -> Iterator[dict[str, Any]]:
        leaves = _LeafStream(self._etree())
        for chunk in chunks:
            yield from leaves.add(text_of(chunk))

    async def _aparse_chunks(self, chunks: AsyncIterator[Any]) -> AsyncIterator[dict[str, Any]]:
        leaves = _LeafStream(self._etree())
        async for chunk in chunks:
            for leaf in leaves.add(text_of(chunk)):
                yield leaf

    def _combine(self, total: Any, piece: Any) -> Any:
        return piece  # dicts do not add up: the run's output is the last piece


def _as_dict(element: Any) -> dict[str, Any]:
    if element.text and element.text.strip():
        return {element.tag: element.text}
    return {
        element.tag: [
            _as_dict(child) if len(child) else {child.tag: child.text} for child in element
        ]
    }


class _LeafStream:
    """Feeds streamed text to an incremental parser and gives out closed leaves."""

    def __init__(self, etree: Any) -> None:
        # defusedxml has no pull parser: with it chosen, the stream refuses entity
        # declarations itself (see add), as defusedxml refuses them in whole replies.
        self.defused = etree is not ET
        self.seen = ""  # the last characters fed, to find a declaration split in two
        self.pull: Any = ET.XMLPullParser(events=("start", "end"))
        self.started = False
        self.done = False
        self.pending = ""
        self.path: list[str] = []

    def add(self, text: str) -> list[dict[str, Any]]:
        if self.done:
            return []
        if not self.started:
            self.pending += text
            start = self.pending.find("<")
            if start < 0:
                return []
            text, self.started = self.pending[start:], True
        if self.defused and "<!ENTITY" in self.seen + text:
            raise OutputParserException(
                "XMLOutputParser(parser='defusedxml'): the reply declares an XML entity"
            )
        self.seen = (self.seen + text)[-8:]
        self.pull.feed(text)
        leaves: list[dict[str, Any]] = []
        element: Any
        for event, element in self.pull.read_events():
            if event == "start":
                self.path.append(element.tag)
                continue
            self.path.pop()
            if not len(element):
                leaf: dict[str, Any] = {element.tag: element.text}
                for tag in reversed(self.path):
                    leaf = {tag: [leaf]}
                leaves.append(leaf)
            if not self.path:
                self.done = True
                break
        return leaves
