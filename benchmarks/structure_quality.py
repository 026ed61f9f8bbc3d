"""Retrieval quality of chunks cut the way ``ragline index`` cuts HTML pages, before and
after the split along sections (issue 29): nDCG@10 for dense, BM25 and the default hybrid.

``retrieval_quality.py`` chunks dev-set documents that are already single sections, so a
change in how ``ragline index`` reads and splits pages cannot show there. Here the pages
themselves are indexed as ``ragline index`` does (``FileLoader`` then ``split_documents``
of ``ragline.store_folder``, 1,000 characters, overlap 150), once with the code of a given
git commit (``--before``, default ``HEAD``: exported with ``git archive`` and run in a
subprocess) and once with the working tree (or ``--after COMMIT``), and the same
retrievers run on both:

* ``dense``: FAISS over the packaged MiniLM (normalised; vectors cached in
  ``.cache/embeddings`` as ``retrieval_quality.py`` caches them);
* ``bm25``: ragline's BM25Retriever (lowercase word tokens), scored as a store folder's
  keyword index (``idf="lucene", only_matching=True``);
* ``default hybrid``: ``HybridRetriever`` with its defaults.

Each retriever returns 30 chunks per question. A chunk *answers* a question when it comes
from the judged page and holds the judged section: at least half of the section's 5-word
shingles are in the chunk, or at least half of the chunk's are in the section (one part
of a long section). All answering chunks count as one judged item (the first one ranks);
every other chunk is an item of its own, so nDCG@10 = 1 / log2(1 + rank of the first
answering chunk) within the top 10.

Sets:

* ``pydocs``: ``benchmarks/devsets/pydocs-sections.tsv``, known-item questions written by
  hand for Python 3.11's library reference (Debian ``python3-doc``,
  ``/usr/share/doc/python3/html``); each names a page and an anchor (an API entry
  ``<dt id>`` or a ``<section id>``). ``benchmarks/devsets/README.md`` keeps the Python
  documentation out of the tuning sets, for held-out evaluation; this set only measures
  the split (nothing was tuned on it).
* ``django``, ``postgresql``: the questions and judged sections of
  ``benchmarks/devsets.py`` (built into ``.cache/devsets``), over pages of their corpora,
  read from the installed HTML (``python-django-doc``, ``postgresql-doc-15``); the judged
  section's text is the dev set's document text.

Pages per set: the judged ones, then others drawn at random (seed 29) up to ``--pages``
(default 120; ``--pages 0``: the judged pages only). MiniLM on the shared 2-core machine
embeds about 5 chunks a second under load, so the recorded run used ``--pages 0``.

Usage:
    .venv/bin/python benchmarks/structure_quality.py [pydocs django postgresql]
        [--before COMMIT] [--after COMMIT] [--pages 120]

Figures (one run, ``--before 567934d --after a7012b9 --pages 0``: the judged pages only;
the shared 2-core machine at load 10-17). nDCG@10 before -> after, and chunks::

    pydocs (40 questions, 40 pages; 2,399 -> 3,924 chunks)
    dense              0.567 -> 0.729  (+0.162)
    bm25               0.702 -> 0.701  (-0.001)
    default hybrid     0.662 -> 0.780  (+0.118)

    django (70 questions, 47 pages; 1,993 -> 2,951 chunks)
    dense              0.792 -> 0.795  (+0.004)
    bm25               0.792 -> 0.783  (-0.009)
    default hybrid     0.862 -> 0.864  (+0.003)

    postgresql (70 questions, 67 pages; 1,145 -> 1,382 chunks)
    dense              0.853 -> 0.818  (-0.034)
    bm25               0.812 -> 0.816  (+0.004)
    default hybrid     0.873 -> 0.863  (-0.010)

Sphinx API reference pages (pydocs, whose answers are ``<dt>``/``<dd>`` entries) gain
most: the signature now starts the chunk holding its description. On Django's prose
pages the change is within noise. On PostgreSQL's DocBook pages dense search loses 0.034:
their sections are short, so chunks are smaller and carry less context each (a
known-item question there often names words from the section's neighbours); BM25 is
unchanged. ``retrieval_quality.py``'s figures are unchanged by construction (its
documents are single sections already, and the devil set is not HTML).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ["OMP_NUM_THREADS"] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

REPO = Path(__file__).resolve().parent.parent
DEVSETS = REPO / "benchmarks" / "devsets"
CACHE = REPO / ".cache" / "devsets"
PYDOCS = Path("/usr/share/doc/python3/html")
HTML_ROOTS = {
    "django": Path("/usr/share/doc/python-django-doc/html"),
    "postgresql": Path("/usr/share/doc/postgresql-doc-15/html"),
}
K, DEPTH, SEED = 10, 30, 29
_WORD = re.compile(r"\w+")


@dataclass
class Judged:
    """One question and the section that answers it."""

    query: str
    page: str
    section_text: str


def shingles(text: str, n: int = 5) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    if len(words) < n:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def answers(chunk_text: str, section: set[tuple[str, ...]]) -> bool:
    chunk = shingles(chunk_text)
    if not chunk or not section:
        return False
    shared = len(chunk & section)
    return shared >= 0.5 * len(section) or shared >= 0.5 * len(chunk)


# ---- the sets ---------------------------------------------------------------------


def anchor_text(page: Path, anchor: str) -> str:
    """The text of the section an anchor names: a ``<dt id>`` with its ``<dd>``, or a
    section element without its nested sections (and permalink marks)."""
    from ragline.loaders._html import parse_html, visible_text

    soup = parse_html(page.read_bytes())
    element = soup.find(id=anchor)
    if element is None:
        raise SystemExit(f"{page}: no element with id {anchor!r}")
    for mark in soup.select("a.headerlink"):
        mark.decompose()
    if element.name == "dt":
        description = element.find_next_sibling("dd")
        parts = [visible_text(element)]
        if description is not None:
            parts.append(visible_text(description))
        return "\n".join(parts)
    for nested in element.find_all(["section", "dl"]):
        if nested.name == "section":
            nested.decompose()
    return visible_text(element)


def pydocs_set(pages: int) -> tuple[dict[str, Judged], list[str], Path]:
    judged: dict[str, Judged] = {}
    for line in (DEVSETS / "pydocs-sections.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        query_id, target, query = line.split("\t")
        page, anchor = target.split("#", 1)
        judged[query_id] = Judged(query, page, anchor_text(PYDOCS / page, anchor))
    every = [f"library/{p.name}" for p in (PYDOCS / "library").glob("*.html")]
    return judged, pick_pages(judged, every, pages), PYDOCS


def pick_pages(judged: dict[str, Judged], every: list[str], pages: int) -> list[str]:
    """The judged pages, then others drawn at random (seed 29) up to ``pages`` in all."""
    keep = sorted({j.page for j in judged.values()})
    others = sorted(set(every) - set(keep))
    random.Random(SEED).shuffle(others)
    return keep + others[: max(0, pages - len(keep))]


def devset(name: str, pages: int) -> tuple[dict[str, Judged], list[str], Path]:
    folder = CACHE / name
    if not (folder / "corpus.jsonl").exists():
        raise SystemExit(f"{folder}: build it first: python benchmarks/devsets.py build {name}")
    corpus = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            corpus[row["_id"]] = row
    judged = {}
    for line in (DEVSETS / f"{name}.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        query_id, doc_id, query = line.split("\t")
        doc = corpus[doc_id]
        judged[query_id] = Judged(query, doc["metadata"]["page"], doc["text"])
    every = sorted({doc["metadata"]["page"] for doc in corpus.values()})
    return judged, pick_pages(judged, every, pages), HTML_ROOTS[name]


# ---- chunks, from a given version of ragline ------------------------------------------


def write_chunks(root: str, pages_file: str, out: str) -> None:
    """(Run in a subprocess, with the ragline to measure first on sys.path.)"""
    from ragline.store_folder import split_documents
    from ragline.store_folder._corpus import FileLoader

    load = FileLoader()
    pages = json.loads(Path(pages_file).read_text(encoding="utf-8"))
    documents = []
    for page in pages:
        documents.extend(load([str(Path(root) / page), page]))
    chunks = split_documents(documents, chunk_size=1000, chunk_overlap=150)
    with open(out, "w", encoding="utf-8") as handle:
        for chunk in chunks:
            row = {
                "path": chunk.metadata["path"],
                "section": chunk.metadata.get("section"),
                "text": chunk.page_content,
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def chunks_of(tree: Path, root: Path, pages: list[str], work: Path, label: str) -> list[Any]:
    from ragline.core import Document

    pages_file, out = work / f"{label}-pages.json", work / f"{label}-chunks.jsonl"
    pages_file.write_text(json.dumps(pages), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    # ragline is imported from the tree before this module (which puts the repository
    # first on sys.path) is
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); import ragline; "
        f"assert ragline.__file__.startswith({str(tree)!r}), ragline.__file__; "
        f"sys.path.insert(1, {str(REPO / 'benchmarks')!r}); "
        "import structure_quality as s; s.write_chunks(*sys.argv[1:])"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(root), str(pages_file), str(out)], check=True, env=env
    )
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return [
        Document(row["text"], {"path": row["path"], "section": row["section"]}, id=str(n))
        for n, row in enumerate(rows)
    ]


def export(commit: str, work: Path) -> Path:
    """The ragline package of ``commit`` in a folder of its own."""
    tree = work / f"tree-{commit}"
    if tree.exists():
        return tree
    archive = work / "tree.tar"
    with open(archive, "wb") as handle:
        subprocess.run(["git", "archive", commit, "ragline"], cwd=REPO, stdout=handle, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


# ---- scoring -----------------------------------------------------------------------------


def evaluate(chunks: list[Any], judged: dict[str, Judged], embeddings: Any) -> dict[str, Any]:
    from ragline.evaluation import evaluate_rankings
    from ragline.retrievers import BM25Retriever, BM25Tokenizer, HybridRetriever
    from ragline.vectorstores import FAISS

    start = time.perf_counter()
    vectors = embeddings.embed_documents_array([c.page_content for c in chunks])
    embed_seconds = time.perf_counter() - start
    store = FAISS.from_embeddings(
        [(c.page_content, v) for c, v in zip(chunks, vectors, strict=True)],
        embeddings,
        metadatas=[c.metadata for c in chunks],
        ids=[c.id for c in chunks],
        metric="cosine",
    )
    # a store folder's keyword scoring (the retriever's default is LangChain's)
    bm25 = BM25Retriever.from_documents(
        chunks, k=DEPTH, preprocess_func=BM25Tokenizer(), idf="lucene", only_matching=True
    )
    retrievers = {
        "dense": store.as_retriever(search_kwargs={"k": DEPTH}),
        "bm25": bm25,
        "default hybrid": HybridRetriever(store, bm25, k=DEPTH),
    }
    sections = {qid: shingles(j.section_text) for qid, j in judged.items()}
    queries = {qid: j.query for qid, j in judged.items()}
    qrels = {qid: {"ANSWER": 1} for qid in judged}
    rows = {}
    for label, retriever in retrievers.items():
        rankings = {}
        for qid, j in judged.items():
            ranked = []
            for chunk in retriever.invoke(j.query):
                hit = chunk.metadata["path"] == j.page and answers(
                    chunk.page_content, sections[qid]
                )
                ranked.append("ANSWER" if hit else f"chunk-{chunk.id}")
            rankings[qid] = ranked
        rows[label] = evaluate_rankings(rankings, queries, qrels, k=K, name=label)
    return {"rows": rows, "chunks": len(chunks), "embed_seconds": embed_seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", default=["pydocs", "django", "postgresql"])
    parser.add_argument("--before", default="HEAD", help="the commit to compare with")
    parser.add_argument("--after", default=None, help="a commit (default: the working tree)")
    parser.add_argument(
        "--pages", type=int, default=120, help="pages per set: the judged ones, then random ones"
    )
    args = parser.parse_args()
    from retrieval_quality import cached_minilm

    embeddings = cached_minilm()
    with tempfile.TemporaryDirectory(prefix="ragline-structure-") as scratch:
        work = Path(scratch)
        before_tree = export(args.before, work)
        after_tree = REPO if args.after is None else export(args.after, work)
        for name in args.sets:
            if name == "pydocs":
                judged, pages, root = pydocs_set(args.pages)
            else:
                judged, pages, root = devset(name, args.pages)
            results = {}
            for label, tree in (("before", before_tree), ("after", after_tree)):
                chunks = chunks_of(tree, root, pages, work, f"{name}-{label}")
                results[label] = evaluate(chunks, judged, embeddings)
            print(f"\n{name}: {len(judged)} questions, {len(pages)} pages")
            before, after = results["before"], results["after"]
            print(
                f"  chunks: before {before['chunks']}, after {after['chunks']} "
                f"(embedded in {before['embed_seconds']:.0f} s / {after['embed_seconds']:.0f} s)"
            )
            print(f"  {'nDCG@10':<16}{'before':>8}{'after':>8}{'change':>8}   R@10 b/a   MRR b/a")
            for label in before["rows"]:
                b, a = before["rows"][label], after["rows"][label]
                print(
                    f"  {label:<16}{b.ndcg:8.3f}{a.ndcg:8.3f}{a.ndcg - b.ndcg:+8.3f}"
                    f"   {b.recall:.3f}/{a.recall:.3f}   {b.mrr:.3f}/{a.mrr:.3f}"
                )
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
