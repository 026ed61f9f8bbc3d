"""Griffe extension for the API reference: ragline's docstrings in Markdown's terms.

The docstrings are Google style with reST habits: ``>>>`` examples and ``Example::``
literal blocks. Markdown would read an example's output (``['ab cd', 'ef']``) as a link
reference and run the code into the paragraph, so before mkdocstrings renders a
docstring this turns each doctest run and each ``::`` block into a fenced code block.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

# :class:`~ragline.x.Name`, :meth:`from_rows` ...: shown as code, its last dotted part
# when the target starts with ~ (as Sphinx shows it)
ROLE = re.compile(r":(?:class|meth|func|attr|mod|exc|data|obj|ref):`(~?)([^`]+)`")


def _role(match: re.Match[str]) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def join_grouped_names(lines: list[str]) -> list[str]:
    """Join an Args entry that names several parameters over two lines
    (``chunk_size, chunk_overlap,`` / ``    keep_separator: as for ...``) into one line,
    the form griffe reads as one entry for several names; move a parenthesised note
    closing a section (``(others as Chain)``) to the end, as a paragraph."""
    out: list[str] = []
    notes: list[str] = []
    for line in lines:
        previous = out[-1] if out else ""
        stripped = line.strip()
        if (
            stripped.startswith("(")
            and stripped.endswith(")")
            and ": " not in stripped
            and _indent(line) > 0
            and previous.strip()
        ):
            # "(others as BaseCombineDocumentsChain)" closing an Args list: a note on the
            # remaining arguments, not an entry; it goes after the sections
            notes.append(stripped[1:-1][:1].upper() + stripped[2:-1] + ".")
            continue
        if (
            previous.rstrip().endswith((",", " /"))
            and ":" not in previous
            and line.strip()
            and _indent(line) > _indent(previous)
        ):
            out[-1] = f"{previous.rstrip()} {line.strip()}"
        else:
            out.append(line)
    for note in notes:
        out += ["", note]
    return out


def fence_examples(text: str) -> str:
    """Fence the ``>>>`` runs and ``::`` literal blocks of a docstring, and show its
    Sphinx roles (``:class:`Name```) as code."""
    lines = join_grouped_names(ROLE.sub(_role, text).splitlines())
    out: list[str] = []
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if in_fence or stripped.startswith("```"):
            out.append(line)
            i += 1
            continue
        if stripped.startswith(">>>"):
            margin = line[: _indent(line)]
            j = i
            while j < len(lines) and lines[j].strip() and _indent(lines[j]) >= len(margin):
                j += 1
            out += [f"{margin}```pycon", *lines[i:j], f"{margin}```"]
            i = j
            continue
        if stripped.endswith("::"):
            base = _indent(line)
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            k = j
            while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > base):
                k += 1
            while k > j and not lines[k - 1].strip():
                k -= 1
            if k > j:
                if stripped != "::":
                    out.append(line.rstrip()[:-1])
                    out.append("")
                cut = min(_indent(row) for row in lines[j:k] if row.strip()) - base
                margin = line[:base]
                out += [f"{margin}```python", *(row[cut:] for row in lines[j:k]), f"{margin}```"]
                i = k
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


class FencedExamples(Extension):
    """Fence the examples of every docstring griffe loads."""

    def on_instance(self, *, node: Any, obj: Any, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_examples(obj.docstring.value)
