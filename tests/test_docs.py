"""The documentation site (mkdocs.yml, docs/): it builds with ``mkdocs build --strict``,
works offline, and every code block in it runs.

Code blocks: each fenced ``python`` and ``bash`` block of a page runs, in the page's
order, in one scratch folder per page (so a block may use the files an earlier block of
its page wrote), with ragline's ``.venv`` first on ``PATH`` and a local OpenAI-protocol
server as the chat model (it answers ``echo: <the last user message>``). A block whose
first line is ``# not run by the tests: REASON`` is skipped, with that reason shown to
the reader too; ``test_few_blocks_are_skipped`` lists them. A block followed by a
``text`` block (only blank lines between) must print exactly that text. ``text`` blocks
are output, diagrams and synopses, never run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests._openai_server import OpenAITestServer

REPO_ROOT = Path(__file__).resolve().parent.parent
DOCS = REPO_ROOT / "docs"
SKIP = re.compile(r"# not run by the tests: (\S.*)")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass
class Block:
    page: str
    line: int
    language: str
    code: str
    output: str | None  # the text block right after it, when there is one

    @property
    def skip_reason(self) -> str | None:
        first = self.code.lstrip("\n").split("\n", 1)[0]
        match = SKIP.fullmatch(first.strip())
        return match.group(1) if match else None


def blocks(text: str, page: str = "page.md") -> list[Block]:
    """The fenced blocks of a Markdown text, each ``python``/``bash`` block with the
    ``text`` block that follows it."""
    found = list(FENCE.finditer(text))
    result = []
    for i, match in enumerate(found):
        language = match.group(1)
        if language not in ("python", "bash"):
            continue
        output = None
        if i + 1 < len(found) and found[i + 1].group(1) == "text":
            between = text[match.end() : found[i + 1].start()]
            if not between.strip():
                output = found[i + 1].group(2)
        line = text.count("\n", 0, match.start()) + 1
        result.append(Block(page, line, language, match.group(2), output))
    return result


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def page_blocks() -> dict[str, list[Block]]:
    return {
        str(p.relative_to(DOCS)): blocks(p.read_text(encoding="utf-8"), str(p.relative_to(DOCS)))
        for p in pages()
    }


def test_fences_are_read_as_a_reader_sees_them() -> None:
    text = (
        "Intro\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
        "```bash\n# not run by the tests: needs a GPU\nnvidia-smi\n```\n"
        "```text\na diagram\n```\n"
        "```python\nx = 2\n```\nprose\n```text\nnot output\n```\n"
    )
    found = blocks(text)
    assert [(b.language, b.line, b.output, b.skip_reason) for b in found] == [
        ("python", 3, "1\n", None),
        ("bash", 11, "a diagram\n", "needs a GPU"),
        ("python", 18, None, None),
    ]


def test_every_fence_is_python_bash_or_text() -> None:
    """Any other fence (none named, ``sh``, ``py``) would be neither run nor known to be
    output: each fence is one of the three."""
    other = {}
    for path in pages():
        text = path.read_text(encoding="utf-8")
        other[str(path.relative_to(DOCS))] = [
            (text.count("\n", 0, m.start()) + 1, m.group(1))
            for m in FENCE.finditer(text)
            if m.group(1) not in ("python", "bash", "text")
        ]
    assert {page: found for page, found in other.items() if found} == {}


def test_few_blocks_are_skipped() -> None:
    """Skipped blocks are the exceptions, each with its reason: they install packages,
    run the whole suite, or start a server or cluster that runs until stopped."""
    skipped = [
        (page, b.skip_reason)
        for page, found in page_blocks().items()
        for b in found
        if b.skip_reason
    ]
    ran = [b for found in page_blocks().values() for b in found if not b.skip_reason]
    assert len(ran) >= 15
    assert len(skipped) <= 10, skipped


def _environment(server: OpenAITestServer) -> dict[str, str]:
    venv_bin = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "test",
        "RAGLINE_MODEL": "local-model",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(REPO_ROOT),
        "NO_COLOR": "1",
    }


def _run(block: Block, cwd: Path, env: dict[str, str]) -> str:
    if block.language == "python":
        command = [sys.executable, "-c", block.code]
    else:
        command = ["bash", "-euo", "pipefail", "-c", block.code]
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    where = f"docs/{block.page}:{block.line}"
    assert result.returncode == 0, f"{where} exited {result.returncode}:\n{result.stderr}"
    return result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(p for p, found in page_blocks().items() if found))
def test_the_code_blocks_of_a_page_run(page: str, tmp_path: Path) -> None:
    with OpenAITestServer() as server:
        env = _environment(server)
        for block in page_blocks()[page]:
            if block.skip_reason:
                continue
            stdout = _run(block, tmp_path, env)
            if block.output is not None:
                assert stdout == block.output, f"docs/{page}:{block.line} printed other text"


# ---- the site -------------------------------------------------------------------------


def test_docstrings_are_fenced_for_the_reference() -> None:
    """scripts/griffe_doctests.py: without it, a doctest's output ``['ab', 'cd']`` is a
    Markdown link reference (a broken one, which --strict refuses)."""
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        from griffe_doctests import fence_examples
    finally:
        sys.path.remove(str(REPO_ROOT / "scripts"))
    docstring = (
        "See :class:`~ragline.retrievers.HybridRetriever` and :meth:`from_rows`.\n\n"
        "Example::\n\n    x = 1\n\n    y = 2\n\n"
        "Args:\n    a, b,\n        c: three at once.\n    (others as :class:`Chain`)\n\n"
        "    >>> split('ab cd')\n    ['ab', 'cd']\n\nDone."
    )
    assert fence_examples(docstring).split("\n") == [
        "See `HybridRetriever` and `from_rows`.",
        "",
        "Example:",
        "",
        "```python",
        "x = 1",
        "",
        "y = 2",
        "```",
        "",
        "Args:",
        "    a, b, c: three at once.",
        "",
        "    ```pycon",
        "    >>> split('ab cd')",
        "    ['ab', 'cd']",
        "    ```",
        "",
        "Done.",
        "",
        "Others as `Chain`.",
    ]


# An address that the browser would fetch by itself: a script, a stylesheet, a font, an
# image or frame, a CSS import or url(). Plain links (<a href>) are not fetched.
FETCHED = re.compile(
    r"""<(?:script|img|iframe|source|embed)\b[^>]*\bsrc=["']?(?:https?:)?//"""
    r"""|<link\b[^>]*\bhref=["']?(?:https?:)?//"""
    r"""|@import\s+(?:url\()?["']?(?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//""",
    re.IGNORECASE,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO_ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return out


def test_the_fetch_pattern_finds_what_a_browser_would_load() -> None:
    fetched = [
        '<script src="https://cdn.example/x.js"></script>',
        "<link rel=stylesheet href=//fonts.example/css>",
        '@import url("https://fonts.example/css2?family=Roboto");',
        "src: url(https://fonts.example/roboto.woff2)",
        '<img alt="" src="http://example.org/a.png">',
    ]
    local = [
        '<script src="assets/javascripts/bundle.js"></script>',
        '<a href="https://example.org/">a link</a>',
        '<link rel="stylesheet" href="../assets/stylesheets/main.css">',
        'xmlns="http://www.w3.org/2000/svg"',
    ]
    assert [bool(FETCHED.search(s)) for s in fetched + local] == [True] * 5 + [False] * 4


def test_the_theme_fetches_nothing_at_run_time() -> None:
    """Material fetches Google's fonts unless ``font: false``, the repository's stars from
    GitHub's API when ``repo_url`` is set, and mermaid from a CDN for a ``mermaid`` fence
    (test_every_fence_is_python_bash_or_text keeps those out)."""
    config = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^  font: false$", config, re.MULTILINE)
    assert not re.search(r"^(repo_url|extra_javascript|extra_css):", config, re.MULTILINE)


@pytest.mark.slow
def test_the_site_builds_and_loads_nothing_from_elsewhere(site: Path) -> None:
    built = {str(p.relative_to(site)) for p in site.rglob("*.html")}
    assert {"index.html", "getting-started/index.html", "reference/core/index.html"} <= built
    outside = {
        str(path.relative_to(site)): FETCHED.findall(path.read_text("utf-8", errors="replace"))
        for path in site.rglob("*")
        if path.suffix in (".html", ".css")
    }
    assert {path: found for path, found in outside.items() if found} == {}


@pytest.mark.slow
def test_the_api_reference_documents_every_public_name(site: Path) -> None:
    """Each package's page has an entry for each name its ``__all__`` lists (written by
    scripts/mkdocs_hooks.py from the packages' exports)."""
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        from mkdocs_hooks import PACKAGES, exports
    finally:
        sys.path.remove(str(REPO_ROOT / "scripts"))
    missing = {}
    for package in PACKAGES:
        page = (site / "reference" / package / "index.html").read_text("utf-8")
        missing[package] = [
            name
            for name, module in exports(package)
            if f'id="{module}.{name}"' not in page and f'#{module}.{name}"' not in page
        ]
    assert {p: names for p, names in missing.items() if names} == {}
    assert len(exports("vectorstores")) >= 10
