"""Kill-based convergence of a store folder at 100,000 chunks (issue 26).

``tests/test_crash_convergence.py`` kills a re-index at every write point of a small
corpus. This test does the same at scale, with two kills: a store folder of 100,400
chunks (one paragraph each, 400 files), embedded by the hashing embedding (dimension 32:
synthetic vectors, no model), which ``auto`` turns into IVF-SQ8 with exact re-ranking,
vectors in segment files and documents in SQLite. Version 1 of the corpus edits a third
of the paragraphs of four files (336 chunks replaced); version 0 edits them back, so
both re-indexes make the same writes. Then:

1. an unharmed re-index 0 -> 1 counts its write points (and converges);
2. the re-index 1 -> 0 is SIGKILLed halfway through its write points (among the adds
   and deletes), the corpus changes (version 2: four other files edited, one removed),
   and an unharmed run must converge to a fresh index of it;
3. from version 0 again, the re-index 0 -> 1 is SIGKILLed three write points before its
   end, among the commit's file writes (the faiss index, the SQLite copies, the vector
   segments, the manifest), and the next run must converge too.

Each check compares the whole store with a fresh index of the corpus: ids, texts,
records, manifest counts, the keyword index, no leftover files (``tests/_crash.py``).
Runs commit once, at their end (a checkpoint at every batch would rewrite 100k chunks
each time).
"""

from __future__ import annotations

import random
from pathlib import Path

from ragline.store_folder import StoreFolder
from tests._crash import Setup, check, converge, corpus_chunks, new_setup, trial

FILES, PARAGRAPHS = 400, 251  # 100,400 chunks: above auto's flat limit of 100,000
SEED = 26


def write_corpus(root: Path, version: int) -> None:
    """Version ``version`` of the corpus: version 0 writes every file with variant 0;
    a later one edits every third paragraph of four files (its own) and version 2 also
    drops the last file. Each paragraph is longer than half a chunk: one chunk each."""
    rng = random.Random(SEED * 1_000 + version)
    edited = set(rng.sample(range(FILES - 1), 4)) if version else set(range(FILES))
    root.mkdir(parents=True, exist_ok=True)
    for number in range(FILES):
        path = root / f"f{number:04d}.txt"
        if number == FILES - 1 and version == 2:
            path.unlink(missing_ok=True)
            continue
        if number not in edited:
            continue
        paragraphs = []
        for position in range(PARAGRAPHS):
            variant = version if position % 3 == 0 else 0
            words = " ".join(f"w{(number * 31 + position * 7 + i) % 997}" for i in range(20))
            paragraphs.append(f"File {number} paragraph {position} variant {variant}: {words}")
        path.write_text("\n\n".join(paragraphs), encoding="utf-8")


def build(setup: Setup) -> None:
    """Version 0 indexed in this process, in large batches (the first build is not the
    subject of the test)."""
    write_corpus(setup.corpus, 0)
    chunks = corpus_chunks(setup.corpus)
    assert len(chunks) == FILES * PARAGRAPHS
    folder = StoreFolder(setup.store)
    with folder.writer(
        embedding="hashing",
        embedding_options={"dimension": 32},
        checkpoint_seconds=float("inf"),
        durable=False,
    ) as writer:
        writer.index(chunks, cleanup="full", batch_size=2_000)


def test_kills_of_a_re_index_at_100k_chunks_converge(tmp_path: Path) -> None:
    setup = new_setup(tmp_path / "scale", None, SEED)
    setup.batch_size, setup.checkpoint_seconds = 500, float("inf")  # one commit a run
    build(setup)
    store = StoreFolder(setup.store).open_store()
    assert store.index_factory == "IVF256,SQ8"  # type: ignore[attr-defined]
    del store
    write_corpus(setup.corpus, 1)
    points = trial("folder", setup, 0).points  # the write points of a re-index 0 -> 1
    assert points >= 20
    assert check("folder", setup) == []
    write_corpus(setup.corpus, 0)
    assert trial("folder", setup, points // 2).killed  # 1 -> 0: the same writes, undone
    write_corpus(setup.corpus, 2)
    assert converge("folder", setup) == [], f"after a kill at write point {points // 2}"
    write_corpus(setup.corpus, 0)
    assert converge("folder", setup) == [], "back to version 0"
    write_corpus(setup.corpus, 1)
    assert trial("folder", setup, points - 3).killed
    write_corpus(setup.corpus, 2)
    assert converge("folder", setup) == [], f"after a kill at write point {points - 3}"
