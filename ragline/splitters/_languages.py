"""Per-language separator presets for ``RecursiveCharacterTextSplitter.from_language``.

The presets are regular expressions (``from_language`` sets ``is_separator_regex=True``),
tried in order: a splitter first cuts at the most structural boundary present in the text
(a class, a function, a heading) and falls back to blank lines, lines, words, characters.
They match the presets LangChain users know, so ported code cuts in the same places.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType

from ragline.core import InvalidInputError
from ragline.core._checks import check_choice

__all__ = ["LANGUAGE_BY_SUFFIX", "Language", "language_for_path", "separators_for_language"]


class Language(str, Enum):
    """Programming and markup languages with a separator preset.

    Example:
        >>> Language("python") is Language.PYTHON
        True
    """

    CPP = "cpp"
    GO = "go"
    JAVA = "java"
    KOTLIN = "kotlin"
    JS = "js"
    TS = "ts"
    PHP = "php"
    PROTO = "proto"
    PYTHON = "python"
    R = "r"
    RST = "rst"
    RUBY = "ruby"
    RUST = "rust"
    SCALA = "scala"
    SWIFT = "swift"
    MARKDOWN = "markdown"
    LATEX = "latex"
    HTML = "html"
    SOL = "sol"
    CSHARP = "csharp"
    COBOL = "cobol"
    C = "c"
    LUA = "lua"
    PERL = "perl"
    HASKELL = "haskell"
    ELIXIR = "elixir"
    POWERSHELL = "powershell"
    VISUALBASIC6 = "visualbasic6"


# Every line-oriented preset ends with the same fallbacks.
_LINES = ["\n\n", "\n", " ", ""]


def _keywords(*words: str) -> list[str]:
    """Separators that cut before a line starting with one of ``words``."""
    return [f"\n{word}" for word in words] + _LINES


_C_FAMILY = _keywords(
    "class ", "void ", "int ", "float ", "double ", "if ", "for ", "while ", "switch ", "case "
)

_VB_VISIBILITY = r"(?:Public|Private|Friend|Global|Static)\s+"

_PRESETS: dict[Language, list[str]] = {
    Language.C: _C_FAMILY,
    Language.CPP: _C_FAMILY,
    Language.GO: _keywords("func ", "var ", "const ", "type ", "if ", "for ", "switch ", "case "),
    Language.JAVA: _keywords(
        "class ",
        "public ",
        "protected ",
        "private ",
        "static ",
        "if ",
        "for ",
        "while ",
        "switch ",
        "case ",
    ),
    Language.KOTLIN: _keywords(
        "class ",
        "public ",
        "protected ",
        "private ",
        "internal ",
        "companion ",
        "fun ",
        "val ",
        "var ",
        "if ",
        "for ",
        "while ",
        "when ",
        "else ",
    ),
    Language.JS: _keywords(
        "function ",
        "const ",
        "let ",
        "var ",
        "class ",
        "if ",
        "for ",
        "while ",
        "switch ",
        "case ",
        "default ",
    ),
    Language.TS: _keywords(
        "enum ",
        "interface ",
        "namespace ",
        "type ",
        "class ",
        "function ",
        "const ",
        "let ",
        "var ",
        "if ",
        "for ",
        "while ",
        "switch ",
        "case ",
        "default ",
    ),
    Language.PHP: _keywords(
        "function ", "class ", "if ", "foreach ", "while ", "do ", "switch ", "case "
    ),
    Language.PROTO: _keywords("message ", "service ", "enum ", "option ", "import ", "syntax "),
    Language.PYTHON: _keywords("class ", "def ", "\tdef "),
    Language.R: _keywords(
        "function ",
        "setClass\\(",
        "setMethod\\(",
        "setGeneric\\(",
        "if ",
        "else ",
        "for ",
        "while ",
        "repeat ",
        "library\\(",
        "require\\(",
    ),
    # reStructuredText: section underlines, then explicit-markup blocks.
    Language.RST: ["\n=+\n", "\n-+\n", "\n\\*+\n", "\n\n.. *\n\n", *_LINES],
    Language.RUBY: _keywords(
        "def ", "class ", "if ", "unless ", "while ", "for ", "do ", "begin ", "rescue "
    ),
    Language.ELIXIR: _keywords(
        "def ",
        "defp ",
        "defmodule ",
        "defprotocol ",
        "defmacro ",
        "defmacrop ",
        "if ",
        "unless ",
        "case ",
        "cond ",
        "with ",
        "for ",
        "do ",
    ),
    Language.RUST: _keywords("fn ", "const ", "let ", "if ", "while ", "for ", "loop ", "match "),
    Language.SCALA: _keywords(
        "class ", "object ", "def ", "val ", "var ", "if ", "for ", "while ", "match ", "case "
    ),
    Language.SWIFT: _keywords(
        "func ", "class ", "struct ", "enum ", "if ", "for ", "while ", "do ", "switch ", "case "
    ),
    # Markdown: headings, code fences, then the three horizontal-rule spellings.
    Language.MARKDOWN: ["\n#{1,6} ", "```\n", "\n\\*\\*\\*+\n", "\n---+\n", "\n___+\n", *_LINES],
    Language.LATEX: [
        *(
            f"\n\\\\{command}"
            for command in (
                "chapter{",
                "section{",
                "subsection{",
                "subsubsection{",
                "begin{enumerate}",
                "begin{itemize}",
                "begin{description}",
                "begin{list}",
                "begin{quote}",
                "begin{quotation}",
                "begin{verse}",
                "begin{verbatim}",
                "begin{align}",
            )
        ),
        "$$",
        "$",
        " ",
        "",
    ],
    # HTML: cut before block-level and then inline tags; no line fallbacks.
    Language.HTML: [
        *(
            f"<{tag}"
            for tag in (
                "body",
                "div",
                "p",
                "br",
                "li",
                "h1",
                "h2",
                "h3",
                "h4",
                "h5",
                "h6",
                "span",
                "table",
                "tr",
                "td",
                "th",
                "ul",
                "ol",
                "header",
                "footer",
                "nav",
                "head",
                "style",
                "script",
                "meta",
                "title",
            )
        ),
        "",
    ],
    Language.CSHARP: _keywords(
        "interface ",
        "enum ",
        "delegate ",
        "event ",
        "class ",
        "abstract ",
        "public ",
        "protected ",
        "private ",
        "static ",
        "return ",
        "if ",
        "continue ",
        "for ",
        "foreach ",
        "while ",
        "switch ",
        "break ",
        "case ",
        "else ",
        "try ",
        "throw ",
        "finally ",
        "catch ",
    ),
    Language.SOL: _keywords(
        "pragma ",
        "using ",
        "contract ",
        "interface ",
        "library ",
        "constructor ",
        "type ",
        "function ",
        "event ",
        "modifier ",
        "error ",
        "struct ",
        "enum ",
        "if ",
        "for ",
        "while ",
        "do while ",
        "assembly ",
    ),
    # COBOL has no blank-line convention: lines are the first fallback.
    Language.COBOL: [
        *(
            f"\n{word}"
            for word in (
                "IDENTIFICATION DIVISION.",
                "ENVIRONMENT DIVISION.",
                "DATA DIVISION.",
                "PROCEDURE DIVISION.",
                "WORKING-STORAGE SECTION.",
                "LINKAGE SECTION.",
                "FILE SECTION.",
                "INPUT-OUTPUT SECTION.",
                "OPEN ",
                "CLOSE ",
                "READ ",
                "WRITE ",
                "IF ",
                "ELSE ",
                "MOVE ",
                "PERFORM ",
                "UNTIL ",
                "VARYING ",
                "ACCEPT ",
                "DISPLAY ",
                "STOP RUN.",
            )
        ),
        "\n",
        " ",
        "",
    ],
    Language.LUA: _keywords("local ", "function ", "if ", "for ", "while ", "repeat "),
    Language.HASKELL: _keywords(
        "main :: ",
        "main = ",
        "let ",
        "in ",
        "do ",
        "where ",
        ":: ",
        "= ",
        "data ",
        "newtype ",
        "type ",
        "module ",
        "import ",
        "qualified ",
        "import qualified ",
        "class ",
        "instance ",
        "case ",
        "| ",
        "= {",
        ", ",
    ),
    Language.POWERSHELL: _keywords(
        "function ",
        "param ",
        "if ",
        "foreach ",
        "for ",
        "while ",
        "switch ",
        "class ",
        "try ",
        "catch ",
        "finally ",
    ),
    # Visual Basic 6: declarations (optionally with a visibility keyword) but never the
    # matching "End Sub" / "End Function" lines.
    Language.VISUALBASIC6: [
        rf"\n(?!End\s){_VB_VISIBILITY}?Sub\s+",
        rf"\n(?!End\s){_VB_VISIBILITY}?Function\s+",
        rf"\n(?!End\s){_VB_VISIBILITY}?Property\s+(?:Get|Let|Set)\s+",
        rf"\n(?!End\s){_VB_VISIBILITY}?Type\s+",
        rf"\n(?!End\s){_VB_VISIBILITY}?Enum\s+",
        r"\n(?!End\s)If\s+",
        r"\nElseIf\s+",
        r"\nElse\s+",
        r"\nSelect\s+Case\s+",
        r"\nCase\s+",
        r"\nFor\s+",
        r"\nDo\s+",
        r"\nWhile\s+",
        r"\nWith\s+",
        r"\n\n",
        r"\n",
        " ",
        "",
    ],
}


def separators_for_language(language: Language | str) -> list[str]:
    """Return the regex separators of ``language``'s preset, most structural first.

    Args:
        language: a ``Language`` member or its value (``"python"``).

    Returns:
        A new list of regular expressions (``""`` last: split into characters).

    Raises:
        InvalidInputError: ``language`` is unknown or has no preset (``Language.PERL``).

    Example:
        >>> separators_for_language(Language.PYTHON)[:2]
        ['\\nclass ', '\\ndef ']
    """
    check_choice("language", language, [m.value for m in Language], error=InvalidInputError)
    member = Language(language)
    preset = _PRESETS.get(member)
    if preset is None:
        supported = ", ".join(m.value for m in Language if m in _PRESETS)
        raise InvalidInputError(
            f"language {member.value!r} has no separator preset; presets exist for {supported}"
        )
    return list(preset)


LANGUAGE_BY_SUFFIX: Mapping[str, Language] = MappingProxyType(
    {
        ".py": Language.PYTHON,
        ".md": Language.MARKDOWN,
        # HTML arrives as text with Markdown headings and paragraphs (the loaders'
        # structured layout): split it like Markdown, at headings, paragraphs, lines
        ".html": Language.MARKDOWN,
        ".htm": Language.MARKDOWN,
    }
)
"""File suffix (lower case) -> the preset ``ragline index`` splits such files with.

Example:
    >>> LANGUAGE_BY_SUFFIX[".py"]
    <Language.PYTHON: 'python'>
"""


def language_for_path(
    path: str, mapping: Mapping[str, Language] = LANGUAGE_BY_SUFFIX
) -> Language | None:
    """The preset for a file name by its suffix (case does not matter), or None for plain text.

    Example:
        >>> language_for_path("src/Main.PY")
        <Language.PYTHON: 'python'>
        >>> language_for_path("notes.txt") is None
        True
    """
    dot = path.rfind(".")
    if dot == -1 or "/" in path[dot:] or "\\" in path[dot:]:
        return None
    return mapping.get(path[dot:].lower())
