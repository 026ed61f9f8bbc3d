"""The ``ragline`` command: index, query and ask, as a user runs them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragline.cli import main
from tests._openai_server import (
    CHAT_PATH,
    OpenAITestServer,
    Reply,
    chat_completion,
    chat_completion_chunks,
)

FILES = {
    "animals/cats.md": "# Cats\n\nCats purr when they are content and sleep most of the day.",
    "animals/dogs.txt": "Dogs bark at strangers and love long walks in the park.",
    "space/mars.txt": "Mars is a cold desert planet with the largest volcano in the solar system.",
    "space/notes.html": "<html><head><title>Moon</title><script>var x=1;</script></head>"
    "<body><p>The Moon causes the tides of the oceans.</p></body></html>",
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def store(corpus: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(folder), "--embedding", "hashing", "-q"]) == 0
    return folder


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragline.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


def generation(store: Path) -> Path:
    """The committed generation folder of a store (what ragline.json names)."""
    return store / json.loads((store / "ragline.json").read_text())["generation"]


def test_index_writes_a_store_with_its_manifest(store: Path) -> None:
    manifest = json.loads((store / "ragline.json").read_text())
    assert re.fullmatch("gen-[0-9a-f]{16}", manifest.pop("generation"))
    assert manifest == {
        "embedding": "hashing",
        "embedding_options": {},
        "chunk_size": 1000,
        "chunk_overlap": 150,
        "documents": 4,
        "chunks": 4,
        # the keyword index's tokenizer, fixed when the store was created
        "bm25": {"tokenizer": {"language": "english", "stem": False, "stopwords": False}},
        "format": 2,
    }
    assert sorted(path.name for path in generation(store).iterdir()) == [
        "bm25.json",
        "bm25.npz",
        "faiss",
        "records.sqlite",
    ]
    assert sorted(path.name for path in store.iterdir()) == [
        generation(store).name,
        "ragline.json",
        "ragline.lock",
    ]


def test_query_prints_ranked_chunks_with_sources(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "query",
                "Which planet has the largest volcano?",
                "--store",
                str(store),
                "-k",
                "2",
                "--json",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [row["rank"] for row in rows] == [1, 2]
    assert Path(rows[0]["source"]).name == "mars.txt"
    # ids are the chunks' content hashes (sha256 of text and metadata): unique, and the
    # same on every re-run (test_reindex_embeds_only_the_changed_chunks)
    assert re.fullmatch("[0-9a-f]{64}", rows[0]["id"]) and rows[0]["id"] != rows[1]["id"]
    assert rows[0]["content"] == FILES["space/mars.txt"]
    assert 0 <= rows[1]["score"] <= rows[0]["score"] <= 1
    # HTML went through BeautifulSoup: visible text only, title in metadata
    main(["query", "tides of the oceans", "--store", str(store), "-k", "1", "--json"])
    (moon,) = json.loads(capsys.readouterr().out)
    assert (
        moon["content"].strip() == "Moon\nThe Moon causes the tides of the oceans."
        or "var x" not in moon["content"]
    )
    assert moon["metadata"]["title"] == "Moon"


def test_query_text_output_filter_and_mmr(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = str(next(store.parent.glob("corpus/animals/dogs.txt")))
    filter_json = json.dumps({"source": source})
    assert (
        main(["query", "planets", "--store", str(store), "-k", "3", "--filter", filter_json]) == 0
    )
    out = capsys.readouterr().out
    assert out.count("[1]") == 1 and "[2]" not in out and "dogs.txt" in out
    assert main(["query", "animals", "--store", str(store), "-k", "2", "--search-type", "mmr"]) == 0
    out = capsys.readouterr().out
    assert "[1]" in out and "[2]" in out
    # what the scores mean comes first; MMR results show their relevance too
    assert out.startswith("score: relevance in [0, 1] = (1 + cosine) / 2 (ranked by MMR")


def test_score_threshold_drops_weak_matches(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "query",
        "Mars volcano desert planet",
        "--store",
        str(store),
        "-k",
        "4",
        "--json",
        "--search-type",
        "similarity_score_threshold",
        "--score-threshold",
        "0.99",
    ]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["query", "x", "--store", "{missing}"], "not a ragline store"),
        (["query", "x", "--store", "{store}", "--filter", "{bad"], "--filter is not valid JSON"),
        (
            ["query", "x", "--store", "{store}", "--filter", '{"a": {"$near": 1}}'],
            "unknown filter operator '$near'",
        ),
        (["query", "x", "--store", "{store}", "-k", "0"], "k must be"),
        (
            ["query", "x", "--store", "{store}", "--score-threshold", "0.5"],
            "goes with --search-type",
        ),
        (["index", "{missing}", "--store", "{store}"], "no such file or directory"),
        (
            [
                "index",
                "{corpus}",
                "--store",
                "{store}",
                "--chunk-size",
                "10",
                "--chunk-overlap",
                "10",
            ],
            "--chunk-overlap",
        ),
    ],
)
def test_errors_are_one_line_with_exit_status_2(
    args: list[str], message: str, store: Path, corpus: Path, tmp_path: Path
) -> None:
    values = {"store": str(store), "corpus": str(corpus), "missing": str(tmp_path / "missing")}
    result = run_cli(
        *[
            arg.format(**values)
            if arg.startswith("{") and arg.endswith("}") and arg[1:-1] in values
            else arg
            for arg in args
        ]
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ragline: error: ")
    assert message in lines[0]


def test_a_failed_index_leaves_the_previous_store_intact(
    store: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(corpus / "nothing-here"), "--store", str(store), "-q"]) == 2
    assert main(["query", "cats purr", "--store", str(store), "-k", "1", "--json"]) == 0
    assert Path(json.loads(capsys.readouterr().out)[0]["source"]).name == "cats.md"


def test_ask_without_a_model_shows_the_passages(store: Path) -> None:
    env = {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""}
    result = run_cli("ask", "Why do cats purr?", "--store", str(store), "-k", "1", env=env)
    assert result.returncode == 3  # no answer was produced
    assert result.stderr.strip().splitlines() == [
        "no chat model configured (set OPENAI_BASE_URL and/or OPENAI_API_KEY); showing the "
        "retrieved passages instead"
    ]
    assert "cats.md" in result.stdout and "Cats purr" in result.stdout


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        yield running


@pytest.mark.parametrize("chain", ["stuff", "refine"])
def test_ask_streams_the_answer_and_lists_sources(
    store: Path, server: OpenAITestServer, chain: str
) -> None:
    streamed = Reply(events=chat_completion_chunks(["They ", "are ", "content."]))
    # refine answers from the first passage (a plain call), then streams its refinement
    replies = (
        [streamed] if chain == "stuff" else [Reply(body=chat_completion("A draft.")), streamed]
    )
    server.enqueue(CHAT_PATH, *replies)
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test"}
    result = run_cli(
        "ask",
        "Why do cats purr?",
        "--store",
        str(store),
        "-k",
        "2",
        "--chain",
        chain,
        "--model",
        "tiny",
        env=env,
    )
    assert result.returncode == 0, result.stderr
    answer, sources = result.stdout.split("\nsources:\n")
    assert answer.strip() == "They are content."
    assert "cats.md" in sources.splitlines()[0]
    requests = server.requests_to(CHAT_PATH)
    assert len(requests) == len(replies)
    assert requests[-1].body["model"] == "tiny" and requests[-1].body["stream"] is True
    assert "Why do cats purr?" in json.dumps(requests[-1].body["messages"])


def _search_call(call_id: str, query: str) -> Reply:
    delta = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": "search_documents", "arguments": json.dumps({"query": query})},
    }
    return Reply(events=chat_completion_chunks([], finish_reason="tool_calls",
                                               tool_call_deltas=[[delta]]))  # fmt: skip


def test_ask_agent_searches_until_it_can_answer(store: Path, server: OpenAITestServer) -> None:
    server.enqueue(
        CHAT_PATH,
        _search_call("call_1", "why cats purr"),
        _search_call("call_2", "planet volcano"),
        Reply(events=chat_completion_chunks(["Cats purr ", "when content."])),
    )
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test"}
    result = run_cli("ask", "Why do cats purr?", "--store", str(store), "-k", "1", "--agent",
                     env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "> search_documents: why cats purr",
        "  1 passage(s)",
        "> search_documents: planet volcano",
        "  1 passage(s)",
    ]
    answer, sources = result.stdout.split("\nsources:\n")
    assert answer == "Cats purr when content.\n"
    assert sources.splitlines() == ["  [1] animals/cats.md § Cats", "  [2] space/mars.txt"]
    first, second, third = (request.body for request in server.requests_to(CHAT_PATH))
    assert [tool["function"]["name"] for tool in first["tools"]] == ["search_documents"]
    assert first["messages"][1] == {"role": "user", "content": "Why do cats purr?"}
    assert second["messages"][-1]["role"] == "tool"
    assert "Cats purr when they are content" in second["messages"][-1]["content"]
    assert "largest volcano" in third["messages"][-1]["content"]


def test_ask_agent_never_runs_a_search_cut_off_mid_arguments(
    store: Path, server: OpenAITestServer
) -> None:
    """A stream cut off inside the search's arguments (issue 31: the truncated query ran)
    goes back to the model as a parsing error; no search runs."""
    cut = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "search_documents", "arguments": '{"query": "why cats'},
    }
    server.enqueue(
        CHAT_PATH,
        Reply(events=chat_completion_chunks([], finish_reason="length", tool_call_deltas=[[cut]])),
        Reply(events=chat_completion_chunks(["I could not search."])),
    )
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test"}
    result = run_cli("ask", "Why do cats purr?", "--store", str(store), "--agent", env=env)
    assert result.returncode == 0, result.stderr
    assert "> search_documents" not in result.stderr
    assert result.stdout.startswith("I could not search.\n")
    second = server.requests_to(CHAT_PATH)[1].body
    assert second["messages"][-1]["content"] == (
        "Could not parse tool input: {'name': 'search_documents', 'arguments': "
        '\'{"query": "why cats\'} because the `arguments` is not valid JSON.'
    )


def test_ask_agent_stops_after_max_steps(store: Path, server: OpenAITestServer) -> None:
    server.enqueue(CHAT_PATH, *(_search_call(f"c{n}", "cats") for n in range(3)))
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test"}
    result = run_cli("ask", "Why?", "--store", str(store), "--agent", "--max-steps", "2", "-q",
                     env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Agent stopped due to max iterations.\n")
    assert result.stderr == "" and len(server.requests_to(CHAT_PATH)) == 2
    bad = run_cli("ask", "Why?", "--store", str(store), "--agent", "--max-steps", "0", env=env)
    assert (bad.returncode, bad.stderr) == (
        2,
        "ragline: error: --max-steps must be at least 1, got 0\n",
    )


# ---------------------------------------------------------------- incremental index

PARAGRAPHS = [f"Paragraph {n}: " + " ".join([f"word{n}"] * 140) for n in range(3)]  # ~600 chars


def _ids_by_text(store: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    assert main(["query", "anything", "--store", str(store), "-k", "50", "--json"]) == 0
    return {row["content"]: row["id"] for row in json.loads(capsys.readouterr().out)}


def test_reindex_embeds_only_the_changed_chunks(
    corpus: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Re-running index on a store: unchanged chunks skipped, edits replace their chunks only."""
    from ragline.embeddings import HashingEmbeddings

    embedded: list[str] = []
    original = HashingEmbeddings.embed_documents_array

    def counting(self: HashingEmbeddings, texts: list[str]) -> object:
        embedded.extend(texts)
        return original(self, texts)

    monkeypatch.setattr(HashingEmbeddings, "embed_documents_array", counting)
    long_file = corpus / "long.txt"  # three ~600-character paragraphs: three chunks
    long_file.write_text("\n\n".join(PARAGRAPHS), encoding="utf-8")
    folder = tmp_path / "store"

    def index(*extra: str) -> str:
        embedded.clear()  # queries embed too: count only this run
        assert main(["index", str(corpus), "--store", str(folder), *extra]) == 0
        return capsys.readouterr().out

    assert index("--embedding", "hashing") == "added 7, updated 0, skipped 0, deleted 0\n"
    assert len(embedded) == 7
    first_ids = _ids_by_text(folder, capsys)
    assert len(set(first_ids.values())) == 7
    assert sorted(path.name for path in folder.iterdir()) == [
        generation(folder).name,
        "ragline.json",
        "ragline.lock",
    ]

    # unchanged corpus; the embedding comes from the manifest
    assert index() == "added 0, updated 0, skipped 7, deleted 0\n"
    assert embedded == []
    assert _ids_by_text(folder, capsys) == first_ids

    # edit the last paragraph of long.txt (still too long to merge with another): that chunk only
    rewritten = "Paragraph 2 was rewritten: " + " ".join(["fresh"] * 100)
    long_file.write_text("\n\n".join([*PARAGRAPHS[:2], rewritten]), encoding="utf-8")
    assert index() == "added 1, updated 0, skipped 6, deleted 1\n"
    assert embedded == [rewritten]
    ids = _ids_by_text(folder, capsys)
    assert ids.pop(rewritten) not in first_ids.values()
    assert ids == {text: key for text, key in first_ids.items() if text != PARAGRAPHS[2]}

    # a deleted file: incremental cleanup keeps its chunks, --full deletes them
    (corpus / "space" / "mars.txt").unlink()
    assert index() == "added 0, updated 0, skipped 6, deleted 0\n"
    assert index("--full") == "added 0, updated 0, skipped 6, deleted 1\n"
    assert embedded == []
    assert (
        main(["query", "largest volcano planet", "--store", str(folder), "-k", "6", "--json"]) == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 6 and not any("mars" in row["source"] for row in rows)
    assert main(["query", "cats purr", "--store", str(folder), "-k", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["content"] == FILES["animals/cats.md"]
    assert json.loads((folder / "ragline.json").read_text())["chunks"] == 6


def test_reindex_with_another_embedding_is_refused(store: Path, corpus: Path) -> None:
    result = run_cli("index", str(corpus), "--store", str(store), "--embedding", "openai")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"ragline: error: {store} was built with the 'hashing' embedding, not 'openai'; "
        f"re-run with --embedding hashing, index into a new --store folder, or re-embed "
        f"everything with --rebuild"
    ]
    query = run_cli("query", "cats purr", "--store", str(store), "-k", "1", "--json")
    assert Path(json.loads(query.stdout)[0]["source"]).name == "cats.md"


def test_a_store_without_records_is_rebuilt(
    store: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without records.sqlite the saved chunks cannot be matched: start over, no duplicates."""
    (generation(store) / "records.sqlite").unlink()
    assert main(["index", str(corpus), "--store", str(store)]) == 0
    assert capsys.readouterr().out == "added 4, updated 0, skipped 0, deleted 0\n"
    assert len(_ids_by_text(store, capsys)) == 4


def test_a_failed_save_keeps_records_and_store_in_step(
    store: Path, corpus: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing of a run that fails to save is committed: the folder is as it was."""
    from ragline.core import PersistenceError
    from ragline.vectorstores import FAISS

    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    (corpus / "animals" / "dogs.txt").write_text("Dogs dig holes in the garden.", encoding="utf-8")

    def failing_save(self: FAISS, *args: object, **kwargs: object) -> None:
        raise PersistenceError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(FAISS, "save_local", failing_save)
        assert main(["index", str(corpus), "--store", str(store), "-q"]) == 2
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == before
    capsys.readouterr()
    assert main(["index", str(corpus), "--store", str(store)]) == 0
    assert capsys.readouterr().out == "added 1, updated 0, skipped 3, deleted 1\n"
    assert main(["query", "dig holes", "--store", str(store), "-k", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["content"] == "Dogs dig holes in the garden."


# ---------------------------------------------------------------- a new user's first runs


def test_version() -> None:
    result = run_cli("--version")
    assert (result.returncode, result.stdout) == (0, "ragline 0.1.0\n")


def test_unreadable_files_are_skipped_with_a_warning_and_a_count(
    corpus: Path, tmp_path: Path
) -> None:
    (corpus / "space" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (corpus / "animals" / "old.txt").write_bytes("Le caf\xe9 des chats".encode("latin-1"))
    folder = tmp_path / "store"
    result = run_cli("index", str(corpus), "--store", str(folder), "--embedding", "hashing", "-q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    warnings = result.stderr.strip().splitlines()
    old = corpus / "animals" / "old.txt"
    assert warnings[0] == (
        f"ragline: warning: skipped {old}: cannot decode {old} as utf-8: byte 0xe9 at offset 6 "
        f"(line 1) is invalid; pass the right encoding= or autodetect_encoding=True"
    )
    assert warnings[1] == (
        f"ragline: warning: skipped {corpus / 'space' / 'photo.png'}: binary data (a NUL byte), "
        f"not text"
    )
    assert warnings[2] == (
        "ragline: warning: 2 files could not be read and were not indexed (--strict to fail "
        "instead; --encoding or --autodetect-encoding for text in another encoding)"
    )
    assert len(warnings) == 3
    assert json.loads((folder / "ragline.json").read_text())["chunks"] == 4

    strict = run_cli("index", str(corpus), "--store", str(folder), "--strict", "-q")
    assert strict.returncode == 2 and "old.txt" in strict.stderr

    latin = run_cli("index", str(corpus), "--store", str(folder), "--encoding", "latin-1")
    assert latin.returncode == 0, latin.stderr
    assert latin.stdout == "added 1, updated 0, skipped 4, deleted 0\n"
    assert "photo.png" in latin.stderr and "old.txt" not in latin.stderr
    query = run_cli("query", "caf\xe9 des chats", "--store", str(folder), "-k", "1", "--json")
    assert json.loads(query.stdout)[0]["content"] == "Le caf\xe9 des chats"


def test_front_matter_no_store_can_keep_skips_that_file_alone(corpus: Path, tmp_path: Path) -> None:
    """NaN / inf front matter (issue 31: it stopped the whole run, naming no file) skips
    and counts that file as an unreadable one is; --strict stops on it, naming it."""
    infinite = corpus / "animals" / "huge.md"
    infinite.write_text("---\nscore: 1e999\n---\n# Huge\nBig cats.\n", encoding="utf-8")
    nested = corpus / "space" / "nan.md"
    nested.write_text("---\nmeta:\n  score: .nan\n---\n# NaN\nStars.\n", encoding="utf-8")
    folder = tmp_path / "store"
    args = ["index", str(corpus), "--store", str(folder), "--embedding", "hashing"]
    result = run_cli(*args, "-q")
    assert result.returncode == 0, result.stderr
    json_note = "which JSON cannot hold (stores keep metadata as JSON); use None or a string"
    assert result.stderr.strip().splitlines() == [
        f"ragline: warning: skipped {infinite}: a store cannot keep it: "
        f"metadatas[0]['score'] is inf, {json_note}",
        f"ragline: warning: skipped {nested}: a store cannot keep it: "
        f"metadatas[0]['meta']['score'] is nan, {json_note}",
        "ragline: warning: 2 files could not be read and were not indexed (--strict to fail "
        "instead; --encoding or --autodetect-encoding for text in another encoding)",
    ]
    assert json.loads((folder / "ragline.json").read_text())["chunks"] == 4

    strict = run_cli(*args, "--strict", "-q")
    assert strict.returncode == 2
    assert strict.stderr.strip().splitlines() == [
        f"ragline: error: cannot load {infinite}: a store cannot keep it: "
        f"metadatas[0]['score'] is inf, {json_note}"
    ]


def test_chunk_settings_are_remembered(corpus: Path, tmp_path: Path) -> None:
    """A store built with --chunk-size 500 is re-indexed with 500 when the flag is left out."""
    folder = tmp_path / "store"
    (corpus / "long.txt").write_text("\n\n".join(PARAGRAPHS), encoding="utf-8")
    args = ["index", str(corpus), "--store", str(folder), "--embedding", "hashing"]
    first = run_cli(*args, "--chunk-size", "700", "--chunk-overlap", "50")
    assert first.stdout == "added 10, updated 0, skipped 0, deleted 0\n", first.stderr
    again = run_cli(*args)
    assert again.stdout == "added 0, updated 0, skipped 10, deleted 0\n", again.stderr
    manifest = json.loads((folder / "ragline.json").read_text())
    assert (manifest["chunk_size"], manifest["chunk_overlap"]) == (700, 50)


def test_query_on_an_empty_manifest_says_how_to_recover(tmp_path: Path) -> None:
    (tmp_path / "ragline.json").write_text("{}")
    result = run_cli("query", "x", "--store", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"ragline: error: {tmp_path / 'ragline.json'}: not a valid store manifest (no "
        f"'embedding' name); re-index into it with --rebuild (index_paths(..., rebuild=True))"
    ]


def test_mmr_fetch_k_defaults_to_twice_k(corpus: Path, tmp_path: Path) -> None:
    """-k 21 with mmr used to fail (fetch_k fixed at 20); now fetch_k is max(20, 2k)."""
    for n in range(30):
        (corpus / f"note{n:02d}.txt").write_text(f"Note number {n} about tides.", encoding="utf-8")
    folder = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(folder), "--embedding", "hashing", "-q"]) == 0
    result = run_cli(
        "query", "tides", "--store", str(folder), "--search-type", "mmr", "-k", "21", "--json"
    )
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)) == 21
    small = run_cli(
        "query", "tides", "--store", str(folder), "--search-type", "mmr", "-k", "3",
        "--fetch-k", "2",
    )  # fmt: skip
    assert small.returncode == 2
    assert "--fetch-k (2) must be at least -k (3)" in small.stderr
    wrong = run_cli("query", "tides", "--store", str(folder), "--fetch-k", "30")
    assert wrong.returncode == 2
    assert "--fetch-k goes with --search-type mmr" in wrong.stderr
