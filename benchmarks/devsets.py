"""Retrieval dev sets built from Debian packages: corpus, queries and qrels (BEIR and TREC).

Three sets of known-item questions, of two kinds of text:

* ``postgresql``: the PostgreSQL 15 manual (Debian ``postgresql-doc-15``, HTML);
* ``django``: the Django 3.2 documentation (Debian ``python-django-doc``, Sphinx HTML);
* ``devil``: Ambrose Bierce's *The Devil's Dictionary* (Debian ``dict-devil``), satirical
  literature: each entry is a document and each question paraphrases what an entry
  says without naming its word (a "reverse dictionary" lookup).

The corpus is built here from the installed package; the questions are ours, written by
hand (see ``benchmarks/devsets/README.md`` for how) and kept in ``benchmarks/devsets/``
as ``NAME.tsv`` (``query id``, ``document id``, ``question``). A document is one
section of a manual page (the text between its heading and the next heading; nested
sections are documents of their own), with the id ``page.html#anchor``, or one
dictionary entry (``devil/word``). ``pyfaq`` (issue 30's weak-keyword case reproduced):
Python 3.11's FAQ questions, generated from its question headings (``faq-questions``),
against the library reference, tutorial, how-tos, language reference, "using" pages and
the FAQ answers, each answer without its question (README.md).

The build writes, under ``.cache/devsets/NAME/`` (not committed):

* ``corpus.jsonl`` (BEIR: ``_id``, ``title``, ``text``, ``metadata.page``),
  ``queries.jsonl`` (BEIR: ``_id``, ``text``), ``qrels/test.tsv`` (BEIR, with header);
* ``qrels.trec`` (TREC: ``qid 0 docid relevance``) and ``queries.tsv`` (TREC topics);
* ``qrels/pages.tsv``: the same judgements at the level of a source file relative to
  ``root`` in ``devset.json``, for ``ragline eval`` over a store indexed from that folder
  (``ragline index ROOT --store S``; the ``path`` metadata is the key);
* ``files/`` (the dictionary only): one text file per entry, the root to index;
* ``devset.json``: name, Debian package and version, root folder, counts.

Usage:
    python benchmarks/devsets.py build [NAME...] [--install] [--cache DIR]
    python benchmarks/devsets.py sample NAME [--count N] [--seed S]   # for writing questions
    python benchmarks/devsets.py fixtures        # the small copies in tests/data/devsets/

From another benchmark: ``from devsets import load_devset; data = load_devset("django")``
(builds on first use when the Debian package is installed).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
QUESTIONS = Path(__file__).resolve().parent / "devsets"
CACHE = REPO / ".cache" / "devsets"
FIXTURES = REPO / "tests" / "data" / "devsets"
sys.path.insert(0, str(REPO))


@dataclass(frozen=True)
class Source:
    """Where a dev set's text comes from."""

    package: str
    root: str  # the installed folder
    kind: str  # "html" or "dictd"
    skip: tuple[str, ...] = ()  # page path prefixes left out of the corpus
    not_asked: tuple[str, ...] = ()  # prefixes kept in the corpus but never sampled
    # the corpus keeps the judged pages and randomly drawn others up to this many
    # sections (None: every page); see README.md
    max_documents: int | None = None
    pattern: str = "*.html"  # the pages read ("*.en.html": the English ones, not their links)
    # DocBook pages whose section divs carry no id: the anchor is an <a id> in the heading
    anchors_in_headings: bool = False
    # pages whose question headings are the set's questions (generated, not written by
    # hand): their sections are titled with the page's title alone, so the question's
    # wording is not in the judged passage (``faq_questions``)
    faq: str | None = None
    # folders read (``pattern`` under each); () reads the whole root
    folders: tuple[str, ...] = ()
    drop: str = ""  # CSS selectors dropped from the pages besides navigation


SOURCES = {
    "postgresql": Source(
        "postgresql-doc-15",
        "/usr/share/doc/postgresql-doc-15/html",
        "html",
        skip=("bookindex.html",),
        not_asked=("release-", "index.html"),
        max_documents=1200,
    ),
    "django": Source(
        "python-django-doc",
        "/usr/share/doc/python-django-doc/html",
        "html",
        skip=(
            *("_modules/", "_static/", "_images/", "genindex.html", "search.html"),
            *("py-modindex.html", "contents.html"),
        ),
        not_asked=("releases/", "index.html", "internals/"),
        max_documents=1800,
    ),
    "devil": Source("dict-devil", "/usr/share/dictd/devil", "dictd"),
    "debfaq": Source(
        "debian-faq",
        "/usr/share/doc/debian/FAQ",
        "html",
        not_asked=("index.", "faqinfo."),
        pattern="*.en.html",
        anchors_in_headings=True,
    ),
    "debref": Source(
        "debian-reference-en",
        "/usr/share/debian-reference",
        "html",
        not_asked=("index.", "pr01."),
        pattern="*.en.html",
        anchors_in_headings=True,
    ),
    # The Debian Administrator's Handbook and the Securing Debian Manual (Publican
    # DocBook, anchors in the headings as in debfaq/debref): hand-written questions
    # worded unlike their answers (README.md, "the paraphrase sets")
    "handbook": Source(
        "debian-handbook",
        "/usr/share/doc/debian-handbook/html/en-US",
        "html",
        not_asked=(
            *("index.", "foreword.", "preface.", "sect.acknowledgments."),
            *("sect.book-structure.", "sect.who-is-this-book-for.", "sect.future-of-this-book."),
        ),
        anchors_in_headings=True,
    ),
    "harden": Source(
        "harden-doc",
        "/usr/share/doc/harden-doc/html/en-US",
        "html",
        not_asked=("index.", "credits.", "changelog", "references.", "securityreferences."),
        anchors_in_headings=True,
    ),
    # git's manual pages, guides and user manual (AsciiDoc / DocBook HTML); the file
    # formats, wire protocols and contributor guides are left out
    "gitdoc": Source(
        "git-doc",
        "/usr/share/doc/git-doc",
        "html",
        skip=(
            *("MyFirst", "gitformat-", "gitprotocol-", "SubmittingPatches", "ToolsForGit"),
            *("ReviewingGuidelines", "howto-index.", "index.", "technical/", "howto/"),
        ),
        anchors_in_headings=True,
    ),
    # Python 3.11's FAQ questions against its documentation (see README.md)
    "pyfaq": Source(
        "python3.11-doc",
        "/usr/share/doc/python3.11/html",
        "html",
        folders=("faq", "library", "howto", "tutorial", "reference", "using"),
        skip=("faq/index.html", "library/index.html"),
        faq="faq/",
        drop="nav.contents, div.contents",  # a page's own table of contents: the questions
        max_documents=4000,
    ),
}


@dataclass
class DevSet:
    """A loaded dev set: documents, queries and judgements (all ids are strings)."""

    name: str
    folder: Path
    corpus: dict[str, dict[str, Any]]  # id -> {"title", "text", "metadata"}
    queries: dict[str, str]  # id -> question
    qrels: dict[str, dict[str, int]]  # query id -> {doc id: relevance}
    info: dict[str, Any] = field(default_factory=dict)

    def texts(self) -> tuple[list[str], list[str]]:
        """Document ids and the text to index for each (title, blank line, text)."""
        ids = list(self.corpus)
        return ids, [_indexed_text(self.corpus[i]) for i in ids]


def _indexed_text(doc: dict[str, Any]) -> str:
    title = doc.get("title") or ""
    return f"{title}\n\n{doc['text']}" if title else doc["text"]


# ---------------------------------------------------------------- HTML sections

# containers that hold a section in DocBook (PostgreSQL) and Sphinx (Django) output
_NAV = (
    "div.navheader, div.navfooter, div.toc, div.list-of-tables, div.list-of-figures, "
    "div.list-of-examples, div#hd, div#ft, div.nav, div#sidebar, div.sphinxsidebar, "
    "a.headerlink, div.yui-b#sidebar, div.related"
)
_HEADING = re.compile(r"^h[1-6]$")


def html_sections(
    path: Path,
    relative: str,
    *,
    anchors_in_headings: bool = False,
    page_title_only: bool = False,
    drop: str = "",
) -> Iterator[dict[str, Any]]:
    """Yield the sections of one manual page: id, title, text, page (``page_title_only``:
    every section titled with the page's title, its own heading left out)."""
    from ragline.loaders._html import page_title, parse_html, visible_text

    soup = parse_html(path.read_bytes())
    # Sphinx appends the project to every title ("Making queries — Django 3.2 documentation")
    page = re.sub(
        r"\s+[—|-]\s+(Django|Python) [\d.]+ documentation$", "", page_title(soup) or relative
    )
    for node in soup.select(f"{_NAV}, {drop}" if drop else _NAV):
        node.decompose()
    body = soup.body or soup
    containers = []
    for heading in body.find_all(_HEADING):
        container = heading.find_parent(lambda tag: tag.has_attr("id") and tag.name != "span")
        if anchors_in_headings and (container is None or heading.has_attr("id")):
            # a heading with an id of its own (AsciiDoc) names its section div, not the
            # page's div#content around every section
            container = _docbook_section(heading) or container
        if container is None or (containers and containers[-1][0] is container):
            continue
        first = container.find(_HEADING)
        if first is not heading:
            continue  # a heading inside a section that already has one (a sub-title)
        title = " ".join(heading.get_text(" ").split())
        containers.append((container, title))
    # innermost first (reverse document order), cut out after reading: each section's
    # text is its own, without its subsections'
    sections = []
    for container, title in reversed(containers):
        anchor = container.get("id") or container.get("data-anchor")
        heading = container.find(_HEADING)
        if heading is not None:
            heading.decompose()
        text = visible_text(container)
        container.decompose()
        sections.append((anchor, title, text))
    seen: set[str] = set()
    for anchor, title, text in reversed(sections):
        doc_id = f"{relative}#{anchor}"
        if doc_id in seen or not text.strip():
            continue
        seen.add(doc_id)
        yield {
            "_id": doc_id,
            "title": page if title == page or page_title_only else f"{page} - {title}",
            "text": text,
            "metadata": {"page": relative},
        }


def _docbook_section(heading: Any) -> Any:
    """The ``div.section`` (or chapter ...) holding a heading whose anchor is an ``<a id>``
    inside it, as DocBook's XSL writes for the Debian FAQ and Debian Reference (their
    section divs carry no id); the anchor is noted on the div. AsciiDoc (git's manual
    pages) puts the id on the heading itself and older DocBook XSL (git's user manual)
    writes ``<a name>``: those are read when the heading holds no ``<a id>``."""
    anchor = heading.find("a", id=True)
    named = heading.find("a", attrs={"name": True})
    key = (
        anchor["id"]
        if anchor is not None
        else heading.get("id") or (named["name"] if named is not None else None)
    )
    container = heading.find_parent("div", class_=_DOCBOOK_DIVS)
    if key is None or container is None:
        return None
    container["data-anchor"] = key
    return container


_DOCBOOK_DIVS = ("section", "chapter", "appendix", "preface", "sect1", "sect2", "sect3")


def html_corpus(source: Source) -> Iterator[dict[str, Any]]:
    root = Path(source.root)
    paths = (
        sorted(path for folder in source.folders for path in (root / folder).rglob(source.pattern))
        if source.folders
        else sorted(root.rglob(source.pattern))
    )
    for path in paths:
        relative = path.relative_to(root).as_posix()
        if relative.startswith(source.skip):
            continue
        yield from html_sections(
            path,
            relative,
            anchors_in_headings=source.anchors_in_headings,
            page_title_only=source.faq is not None and relative.startswith(source.faq),
            drop=source.drop,
        )


def faq_questions(name: str) -> list[tuple[str, str, str]]:
    """The questions of a set built from a FAQ (``Source.faq``): every section of the FAQ
    pages whose heading ends with a question mark, in page order, with the section as the
    one judged document; the heading's text is the question."""
    source = SOURCES[name]
    if source.faq is None:
        raise SystemExit(f"{name} is not built from a FAQ")
    from ragline.loaders._html import parse_html

    root = Path(source.root)
    documents = {doc["_id"] for doc in html_corpus(source)}
    rows: list[tuple[str, str, str]] = []
    for path in sorted((root / source.faq).glob(source.pattern)):
        relative = path.relative_to(root).as_posix()
        if relative.startswith(source.skip):
            continue
        soup = parse_html(path.read_bytes())
        for node in soup.select(_NAV):
            node.decompose()
        for heading in (soup.body or soup).find_all(_HEADING):
            question = " ".join(heading.get_text(" ").split())
            container = heading.find_parent(lambda tag: tag.has_attr("id"))
            if not question.endswith("?") or container is None:
                continue
            doc_id = f"{relative}#{container['id']}"
            if doc_id in documents:  # a section with text of its own
                rows.append((f"{name}-{len(rows) + 1:03d}", doc_id, question))
    return rows


# ---------------------------------------------------------------- dictd entries


def _b64_number(text: str) -> int:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    value = 0
    for char in text:
        value = value * 64 + alphabet.index(char)
    return value


def dictd_corpus(source: Source) -> Iterator[dict[str, Any]]:
    """One document per entry of a dictd database (``.index`` + gzip ``.dict.dz``)."""
    with gzip.open(source.root + ".dict.dz") as handle:
        data = handle.read()
    seen: dict[str, int] = {}
    for line in Path(source.root + ".index").read_text(encoding="utf-8").splitlines():
        word, offset, length = line.split("\t")
        if word.startswith("00database"):
            continue
        raw = data[_b64_number(offset) : _b64_number(offset) + _b64_number(length)]
        body = raw.decode("utf-8").strip("\n")
        text = "\n".join(" ".join(line.split()) for line in body.splitlines()).strip()
        # "ABASEMENT, n.  A decent ...": the headword is the title
        head = re.match(r"^([^,\n]+),\s*", text)
        title = head.group(1) if head else word
        text = text[head.end() :] if head else text
        slug = re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-")
        seen[slug] = seen.get(slug, 0) + 1
        doc_id = f"devil/{slug}" if seen[slug] == 1 else f"devil/{slug}-{seen[slug]}"
        yield {
            "_id": doc_id,
            "title": title,
            "text": text,
            "metadata": {"page": doc_id.split("/", 1)[1] + ".txt"},
        }


# ---------------------------------------------------------------- build / load


def package_version(package: str) -> str | None:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True
    )
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def ensure_package(source: Source, install: bool) -> str:
    version = package_version(source.package)
    if version is None and install:
        subprocess.run(["apt-get", "install", "-y", "-q", source.package], check=True)
        version = package_version(source.package)
    if version is None:
        raise SystemExit(
            f"Debian package {source.package} is not installed; run "
            f"'apt-get install {source.package}' or pass --install"
        )
    return version


def read_questions(name: str) -> list[tuple[str, str, str]]:
    """(query id, document id, question) rows of ``benchmarks/devsets/NAME.tsv``."""
    rows = []
    with open(QUESTIONS / f"{name}.tsv", encoding="utf-8", newline="") as handle:
        for line in handle:
            if not line.strip() or line.startswith("#"):
                continue
            qid, doc_id, question = line.rstrip("\n").split("\t")
            rows.append((qid, doc_id, question))
    return rows


def _draw_pages(
    corpus: list[dict[str, Any]], judged: set[str], limit: int | None, seed: int = 18
) -> list[dict[str, Any]]:
    """The judged documents' pages, then whole pages drawn at random (seeded) while the
    corpus holds fewer than ``limit`` documents; corpus order is kept."""
    if limit is None or len(corpus) <= limit:
        return corpus
    pages: dict[str, int] = {}
    for doc in corpus:
        pages[doc["metadata"]["page"]] = pages.get(doc["metadata"]["page"], 0) + 1
    keep = {doc["metadata"]["page"] for doc in corpus if doc["_id"] in judged}
    size = sum(pages[page] for page in keep)
    others = sorted(set(pages) - keep)
    random.Random(seed).shuffle(others)
    for page in others:
        if size >= limit:
            break
        keep.add(page)
        size += pages[page]
    return [doc for doc in corpus if doc["metadata"]["page"] in keep]


def build(name: str, cache: Path = CACHE, *, install: bool = False, full: bool = False) -> Path:
    """Build dev set ``name`` into ``cache/name`` (``cache/name-full`` with every page)."""
    source = SOURCES[name]
    version = ensure_package(source, install)
    everything = list(html_corpus(source) if source.kind == "html" else dictd_corpus(source))
    questions = read_questions(name)
    judged = {doc_id for _, doc_id, _ in questions}
    corpus = everything if full else _draw_pages(everything, judged, source.max_documents)
    by_id = {doc["_id"]: doc for doc in corpus}
    missing = [doc_id for _, doc_id, _ in questions if doc_id not in by_id]
    if missing:
        raise SystemExit(
            f"{name}: {len(missing)} judged documents are not in the corpus built from "
            f"{source.package} {version} (e.g. {missing[:3]}); the questions were written "
            "for another version"
        )
    folder = cache / (f"{name}-full" if full and source.max_documents else name)
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    _write_jsonl(folder / "corpus.jsonl", corpus)
    _write_jsonl(folder / "queries.jsonl", [{"_id": q, "text": t} for q, _, t in questions])
    _write_qrels(folder, [(q, d) for q, d, _ in questions], by_id)
    root = source.root
    if source.kind == "dictd":
        root = str(folder / "files")
        (folder / "files").mkdir(exist_ok=True)
        for doc in corpus:
            text = _indexed_text(doc) + "\n"
            (folder / "files" / doc["metadata"]["page"]).write_text(text, encoding="utf-8")
    info = {
        "name": name,
        "package": source.package,
        "version": version,
        "root": root,
        "documents": len(corpus),
        "documents_in_package": len(everything),
        "pages": len({doc["metadata"]["page"] for doc in corpus}),
        "queries": len(questions),
    }
    (folder / "devset.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return folder


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_qrels(
    folder: Path, judged: list[tuple[str, str]], by_id: dict[str, dict[str, Any]]
) -> None:
    with open(folder / "qrels" / "test.tsv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(["query-id", "corpus-id", "score"])
        writer.writerows((q, d, 1) for q, d in judged)
    with open(folder / "qrels.trec", "w", encoding="utf-8") as handle:
        handle.writelines(f"{q} 0 {d} 1\n" for q, d in judged)
    with open(folder / "qrels" / "pages.tsv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(["query-id", "corpus-id", "score"])
        pages = dict.fromkeys((q, by_id[d]["metadata"]["page"]) for q, d in judged)
        writer.writerows((q, page, 1) for q, page in pages)


def load_folder(folder: Path) -> DevSet:
    """Read a BEIR folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``)."""
    corpus: dict[str, dict[str, Any]] = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            corpus[str(row["_id"])] = {
                "title": row.get("title", ""),
                "text": row["text"],
                "metadata": row.get("metadata", {}),
            }
    queries: dict[str, str] = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            queries[str(row["_id"])] = row["text"]
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    queries = {q: t for q, t in queries.items() if q in qrels}
    info_path = folder / "devset.json"
    info = json.loads(info_path.read_text()) if info_path.is_file() else {"name": folder.name}
    return DevSet(info.get("name", folder.name), folder, corpus, queries, qrels, info)


# sets searched together: one corpus of all their documents, the questions of the first
# group (the second adds its documents only, as distractors); checks on larger corpora,
# not dev sets of their own (docs/hybrid-search.md)
COMBINED = {
    "debian": (("debfaq", "debref"), ()),
    "debian-large": (("debfaq", "debref"), ("postgresql", "django")),
}


def load_devset(name: str, cache: Path = CACHE, *, install: bool = False) -> DevSet:
    """Load dev set ``name`` (a built-in name, a combined one, or a BEIR folder), building
    it if needed."""
    if name in COMBINED:
        asked, distractors = COMBINED[name]
        parts = [load_devset(part, cache, install=install) for part in (*asked, *distractors)]
        corpus: dict[str, dict[str, Any]] = {}
        for part in parts:
            clash = set(corpus) & set(part.corpus)
            if clash:
                raise SystemExit(f"{name}: document ids in two sets, e.g. {sorted(clash)[:3]}")
            corpus.update(part.corpus)
        questions = parts[: len(asked)]
        return DevSet(
            name,
            cache / name,
            corpus,
            {q: text for part in questions for q, text in part.queries.items()},
            {q: judged for part in questions for q, judged in part.qrels.items()},
            {"name": name, "questions": list(asked), "distractors": list(distractors)},
        )
    if name not in SOURCES:
        return load_folder(Path(name))
    folder = cache / name
    questions = QUESTIONS / f"{name}.tsv"
    stamp = folder / "devset.json"
    if not stamp.is_file() or stamp.stat().st_mtime < questions.stat().st_mtime:
        build(name, cache, install=install)
    return load_folder(folder)


# ---------------------------------------------------------------- authoring aids


def sample(name: str, count: int, seed: int) -> None:
    """Print randomly chosen sections (seeded) to write questions for."""
    source = SOURCES[name]
    corpus = list(html_corpus(source) if source.kind == "html" else dictd_corpus(source))
    asked = (
        {doc_id for _, doc_id, _ in read_questions(name)}
        if (QUESTIONS / f"{name}.tsv").is_file()
        else set()
    )
    pool = [
        doc
        for doc in corpus
        if not doc["metadata"]["page"].startswith(source.not_asked)
        and len(doc["text"]) >= (60 if source.kind == "dictd" else 400)
        and doc["_id"] not in asked
    ]
    for doc in random.Random(seed).sample(pool, count):
        print(f"=== {doc['_id']}\n# {doc['title']}\n{doc['text'][:700]}\n")


def fixtures(max_bytes: int = 90_000, queries_per_set: int = 20, seed: int = 7) -> None:
    """Write the small copies in tests/data/devsets: the first questions of each set, their
    documents, and randomly chosen other documents of the set up to ``max_bytes``."""
    for name in SOURCES:
        data = load_devset(name)
        rng = random.Random(seed)
        chosen = list(data.queries)[:queries_per_set]
        judged = {d for q in chosen for d in data.qrels[q]}
        others = [d for d in data.corpus if d not in judged and len(data.corpus[d]["text"]) < 2500]
        rng.shuffle(others)
        keep = list(judged)
        size = sum(len(json.dumps(data.corpus[d])) for d in keep)
        for doc_id in others:
            size += len(json.dumps(data.corpus[doc_id]))
            if size > max_bytes:
                break
            keep.append(doc_id)
        keep_set = set(keep)
        keep = [d for d in data.corpus if d in keep_set]  # corpus order
        folder = FIXTURES / name
        (folder / "qrels").mkdir(parents=True, exist_ok=True)
        _write_jsonl(folder / "corpus.jsonl", [{"_id": d, **data.corpus[d]} for d in keep])
        rows = [{"_id": q, "text": data.queries[q]} for q in chosen]
        _write_jsonl(folder / "queries.jsonl", rows)
        with open(folder / "qrels" / "test.tsv", "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
            writer.writerow(["query-id", "corpus-id", "score"])
            writer.writerows((q, d, r) for q in chosen for d, r in data.qrels[q].items())
        info = {**data.info, "documents": len(keep), "queries": len(chosen), "root": None}
        (folder / "devset.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        print(f"{name}: {len(keep)} documents, {len(chosen)} queries -> {folder}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("build", help="build dev sets into the cache folder")
    build_cmd.add_argument("names", nargs="*", default=list(SOURCES))
    build_cmd.add_argument("--install", action="store_true", help="apt-get install packages")
    build_cmd.add_argument("--cache", type=Path, default=CACHE)
    build_cmd.add_argument(
        "--full", action="store_true", help="every page (NAME-full), not the drawn subset"
    )
    sample_cmd = commands.add_parser("sample", help="print sections to write questions for")
    sample_cmd.add_argument("name", choices=list(SOURCES))
    sample_cmd.add_argument("--count", type=int, default=20)
    sample_cmd.add_argument("--seed", type=int, default=18)
    commands.add_parser("fixtures", help="write the small copies in tests/data/devsets")
    faq_cmd = commands.add_parser("faq-questions", help="write NAME.tsv from the FAQ's headings")
    faq_cmd.add_argument("name", choices=[n for n, s in SOURCES.items() if s.faq])
    args = parser.parse_args(argv)
    if args.command == "build":
        for name in args.names:
            folder = build(name, args.cache, install=args.install, full=args.full)
            info = json.loads((folder / "devset.json").read_text())
            print(f"{name}: {info['documents']} documents, {info['queries']} queries -> {folder}")
    elif args.command == "sample":
        sample(args.name, args.count, args.seed)
    elif args.command == "faq-questions":
        rows = faq_questions(args.name)
        source = SOURCES[args.name]
        with open(QUESTIONS / f"{args.name}.tsv", "w", encoding="utf-8") as handle:
            handle.write(
                f"# {source.package}: every question heading of {source.faq}*.html "
                "(devsets.py faq-questions); query id, judged section, question. See README.md.\n"
            )
            handle.writelines(f"{q}\t{d}\t{t}\n" for q, d, t in rows)
        print(f"{args.name}: {len(rows)} questions -> {QUESTIONS / (args.name + '.tsv')}")
    else:
        fixtures()
    return 0


if __name__ == "__main__":
    sys.exit(main())
