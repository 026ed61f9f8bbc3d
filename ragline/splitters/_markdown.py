"""Split Markdown at its headers, recording the header path of every section."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.core import Document, InvalidInputError, Runnable, RunnableConfig
from ragline.core._checks import check_flag

from ._base import check_text

__all__ = ["MarkdownHeaderTextSplitter"]

_FENCES = ("```", "~~~")


class MarkdownHeaderTextSplitter(Runnable[Sequence[Document], list[Document]]):
    """Split Markdown into sections, one per header, with the header path as metadata.

    Each section's metadata maps the names in ``headers_to_split_on`` to the text of the
    enclosing headers, e.g. ``{"Header 1": "Guide", "Header 2": "Install"}``. Lines that
    look like headers inside fenced code blocks (```` ``` ```` or ``~~~``) are code,
    not headers. Output matches LangChain's splitter, except that lines inside code
    blocks keep their indentation (LangChain strips every line).

    Args:
        headers_to_split_on: ``(marker, name)`` pairs, e.g. ``[("#", "Header 1"),
            ("##", "Header 2")]``; headers of other levels are ordinary text.
        return_each_line: return every block of consecutive lines separately instead of
            joining neighbouring blocks that share their headers.
        strip_headers: leave the header lines out of the section text.

    Raises:
        InvalidInputError: ``headers_to_split_on`` is empty or not a list of pairs of
            non-empty strings.

    Example:
        >>> splitter = MarkdownHeaderTextSplitter([("#", "H1"), ("##", "H2")])
        >>> [(d.page_content, d.metadata) for d in splitter.split_text(
        ...     "# Guide\\nWelcome.\\n## Install\\nRun pip.")]
        [('Welcome.', {'H1': 'Guide'}), ('Run pip.', {'H1': 'Guide', 'H2': 'Install'})]
    """

    def __init__(
        self,
        headers_to_split_on: Sequence[tuple[str, str]],
        *,
        return_each_line: bool = False,
        strip_headers: bool = True,
    ) -> None:
        if isinstance(headers_to_split_on, str) or not headers_to_split_on:
            raise InvalidInputError(
                "headers_to_split_on must be a non-empty list of (marker, name) pairs, "
                f"got {headers_to_split_on!r}"
            )
        for pair in headers_to_split_on:
            if (
                not isinstance(pair, (tuple, list))
                or len(pair) != 2
                or not all(isinstance(part, str) and part for part in pair)
            ):
                raise InvalidInputError(
                    f"headers_to_split_on holds {pair!r}; each item must be a (marker, name) "
                    "pair of non-empty strings such as ('##', 'Header 2')"
                )
        check_flag("return_each_line", return_each_line)
        check_flag("strip_headers", strip_headers)
        # Longest marker first, so "##" is not taken for "#".
        self.headers_to_split_on = sorted(
            ((marker, name) for marker, name in headers_to_split_on),
            key=lambda pair: len(pair[0]),
            reverse=True,
        )
        self.return_each_line = return_each_line
        self.strip_headers = strip_headers

    def _header(self, line: str) -> tuple[str, str, int] | None:
        """(name, text, level) if ``line`` is one of the headers to split on."""
        for marker, name in self.headers_to_split_on:
            if line.startswith(marker) and (len(line) == len(marker) or line[len(marker)] == " "):
                return name, line[len(marker) :].strip(), marker.count("#")
        return None

    def split_text(self, text: str) -> list[Document]:
        """Split Markdown ``text`` into sections.

        Returns:
            Documents whose metadata holds the header path of their section.

        Raises:
            InvalidInputError: ``text`` is not a str.
        """
        check_text(text)
        blocks: list[tuple[list[str], dict[str, str]]] = []  # lines and their headers
        lines: list[str] = []
        headers: list[tuple[str, str, int]] = []  # the open headers: name, text, level
        metadata: dict[str, str] = {}  # the header path before the current line
        fence = ""  # the opening fence while inside a code block

        def close_block() -> None:
            if lines:
                blocks.append((lines.copy(), metadata.copy()))
                lines.clear()

        for raw in text.split("\n"):
            line = raw.strip()
            if fence:
                if line.startswith(fence):
                    fence = ""
                else:
                    lines.append(raw)  # code keeps its indentation
                    continue
            elif (line.startswith("```") and line.count("```") == 1) or line.startswith("~~~"):
                fence = line[:3]
                lines.append(line)
                continue
            header = self._header(line)
            if header is not None:
                level = header[2]
                while headers and headers[-1][2] >= level:
                    headers.pop()
                headers.append(header)
                close_block()
                if not self.strip_headers:
                    lines.append(line)
            elif line:
                lines.append(line)
            else:
                close_block()
            metadata = {name: header_text for name, header_text, _ in headers}
        close_block()
        if self.return_each_line:
            return [Document("\n".join(body), metadata=meta) for body, meta in blocks]
        return self._aggregate(blocks)

    def _aggregate(self, blocks: list[tuple[list[str], dict[str, str]]]) -> list[Document]:
        """Join neighbouring blocks under the same headers (with a Markdown line break)."""
        sections: list[tuple[str, dict[str, str]]] = []
        for body, meta in blocks:
            content = "\n".join(body)
            if sections and sections[-1][1] == meta:
                sections[-1] = (sections[-1][0] + "  \n" + content, meta)
            elif (
                sections
                and not self.strip_headers
                and len(sections[-1][1]) < len(meta)
                and sections[-1][0].split("\n")[-1].startswith("#")
            ):
                # A section that is only a header line joins its first subsection.
                sections[-1] = (sections[-1][0] + "  \n" + content, meta)
            else:
                sections.append((content, meta))
        return [Document(content, metadata=meta) for content, meta in sections]

    def split_documents(self, documents: Sequence[Document]) -> list[Document]:
        """Split each document; sections carry its metadata plus their header path.

        Raises:
            InvalidInputError: an item is not a Document.
        """
        sections = []
        for document in documents:
            if not isinstance(document, Document):
                raise InvalidInputError(
                    f"documents must hold Document objects, got {type(document).__name__}"
                )
            for section in self.split_text(document.page_content):
                section.metadata = {**document.metadata, **section.metadata}
                sections.append(section)
        return sections

    def invoke(
        self, input: Sequence[Document], config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Split documents as a Runnable run (see ``split_documents``)."""
        self._reject_kwargs(kwargs)
        return self._call_with_config(self.split_documents, input, config)  # type: ignore[no-any-return]
