"""BeautifulSoupTransformer: HTML documents cleaned to the text of chosen tags
(LangChain's ``langchain_community.document_transformers`` class, its options and text).

``transform_documents`` drops the elements with unwanted class names, then the unwanted
tags (``script``, ``style``), then joins the text of each wanted tag (``p``, ``li``,
``div``, ``a``) in document order, a link's text followed by its ``(href)``; with
``remove_lines`` (the default) blank lines go and the lines are joined with spaces. As
LangChain's, the documents given are changed in place and returned. Needs beautifulsoup4
(the ``html`` extra).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ragline.core import Document, InvalidInputError
from ragline.core._optional import require

__all__ = ["BeautifulSoupTransformer"]


def _soup(html: str) -> Any:
    bs4 = require("bs4", "html", package="beautifulsoup4")
    return bs4.BeautifulSoup(html, "html.parser")


def _strings(element: Any, *, remove_comments: bool) -> Iterator[str]:
    """Every piece of text under ``element``, stripped, in order; the text directly in a
    link with an ``href`` as ``text (href)``."""
    bs4 = require("bs4", "html", package="beautifulsoup4")
    for child in element.children:
        if isinstance(child, bs4.Comment) and remove_comments:
            continue
        if isinstance(child, bs4.Tag):
            yield from _strings(child, remove_comments=remove_comments)
        elif isinstance(child, bs4.NavigableString):
            href = element.get("href") if element.name == "a" else None
            yield f"{child.strip()} ({href})" if href else child.strip()


class BeautifulSoupTransformer:
    """Clean HTML documents down to the text of the tags that matter.

    Example:
        >>> doc = Document("<div><p>Hi <a href='/x'>there</a></p><script>x()</script></div>")
        >>> BeautifulSoupTransformer().transform_documents([doc])[0].page_content
        'Hi there (/x)'
    """

    def __init__(self) -> None:
        require("bs4", "html", package="beautifulsoup4")

    def __repr__(self) -> str:
        return "BeautifulSoupTransformer()"

    def transform_documents(
        self,
        documents: Sequence[Document],
        unwanted_tags: Sequence[str] = ("script", "style"),
        tags_to_extract: Sequence[str] = ("p", "li", "div", "a"),
        remove_lines: bool = True,
        *,
        unwanted_classnames: Sequence[str] = (),
        remove_comments: bool = False,
        **kwargs: Any,
    ) -> Sequence[Document]:
        """Clean each document's ``page_content`` (in place) and return the documents.

        Args:
            documents: Documents holding HTML.
            unwanted_tags: tags removed with everything inside them.
            tags_to_extract: tags whose text is kept.
            remove_lines: drop blank lines and join the rest with spaces.
            unwanted_classnames: elements with these classes are removed first.
            remove_comments: leave HTML comments out of the text.

        Raises:
            InvalidInputError: a value that is not a Document.
        """
        for doc in documents:
            if not isinstance(doc, Document):
                raise InvalidInputError(
                    f"BeautifulSoupTransformer transforms Documents, got {type(doc).__name__}"
                )
            content = self.remove_unwanted_classnames(doc.page_content, unwanted_classnames)
            content = self.remove_unwanted_tags(content, unwanted_tags)
            content = self.extract_tags(content, tags_to_extract, remove_comments=remove_comments)
            if remove_lines:
                content = self.remove_unnecessary_lines(content)
            doc.page_content = content
        return documents

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> Sequence[Document]:
        """Async ``transform_documents`` (the work is in this thread: it is quick)."""
        return self.transform_documents(documents, **kwargs)

    @staticmethod
    def remove_unwanted_classnames(html_content: str, unwanted_classnames: Sequence[str]) -> str:
        """``html_content`` without the elements that have any of these class names."""
        soup = _soup(html_content)
        for classname in unwanted_classnames:
            for element in soup.find_all(class_=classname):
                element.decompose()
        return str(soup)

    @staticmethod
    def remove_unwanted_tags(html_content: str, unwanted_tags: Sequence[str]) -> str:
        """``html_content`` without these tags (and what they hold)."""
        soup = _soup(html_content)
        for tag in unwanted_tags:
            for element in soup.find_all(tag):
                element.decompose()
        return str(soup)

    @staticmethod
    def extract_tags(
        html_content: str, tags: Sequence[str], *, remove_comments: bool = False
    ) -> str:
        """The text of every element with one of ``tags``, in document order, joined with
        spaces; an element's text is taken once (a wanted tag inside another is not read
        again)."""
        soup = _soup(html_content)
        parts: list[str] = []
        for element in soup.find_all():
            if element.name in tags:
                parts += _strings(element, remove_comments=remove_comments)
                element.decompose()
        return " ".join(parts)

    @staticmethod
    def remove_unnecessary_lines(content: str) -> str:
        """The non-blank lines of ``content``, stripped and joined with spaces."""
        return " ".join(line.strip() for line in content.split("\n") if line.strip())
