"""JSONLoader: the path language, JSON Lines, content and metadata, and bad files."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest

from ragline.core import InvalidInputError, LoaderError
from ragline.loaders import JSONLoader

CHAT = {
    "title": "support",
    "messages": [
        {"role": "user", "content": "Hello?", "meta": {"id": 1}},
        {"role": "bot", "content": "Hi!", "meta": {"id": 2}},
    ],
    "odd key": {"a.b": "dotted"},
}


@pytest.fixture
def chat(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (".messages[].content", ["Hello?", "Hi!"]),
        (".messages[1].content", ["Hi!"]),
        (".messages[-2].role", ["user"]),
        (".title", ["support"]),
        ('."odd key"["a.b"]', ["dotted"]),
        ('.["odd key"]."a.b"', ["dotted"]),
        (".messages[].meta.id", None),  # numbers: rejected unless text_content=False
    ],
)
def test_path_expressions(chat, path, expected) -> None:
    if expected is None:
        with pytest.raises(
            LoaderError,
            match=r"content at \.messages\[0\]\.meta\.id in .*chat\.json is a number, not a string",
        ):
            JSONLoader(chat, path).load()
        return
    assert [d.page_content for d in JSONLoader(chat, path).load()] == expected


def test_metadata_source_and_seq_num(chat) -> None:
    documents = JSONLoader(chat, ".messages[].content").load()
    assert [d.metadata for d in documents] == [
        {"source": str(chat), "seq_num": 1},
        {"source": str(chat), "seq_num": 2},
    ]


def test_content_key_and_metadata_func(chat) -> None:
    def add_role(record: dict, metadata: dict) -> dict:
        return {**metadata, "role": record["role"], "id": record["meta"]["id"]}

    documents = JSONLoader(
        chat, ".messages[]", content_key="content", metadata_func=add_role
    ).load()
    assert [(d.page_content, d.metadata) for d in documents] == [
        ("Hello?", {"source": str(chat), "seq_num": 1, "role": "user", "id": 1}),
        ("Hi!", {"source": str(chat), "seq_num": 2, "role": "bot", "id": 2}),
    ]
    parsable = JSONLoader(
        chat,
        ".messages[]",
        content_key=".meta.id",
        is_content_key_jq_parsable=True,
        text_content=False,
    )
    assert [d.page_content for d in parsable.load()] == ["1", "2"]


def test_metadata_func_cannot_drop_source(chat) -> None:
    loader = JSONLoader(chat, ".title", metadata_func=lambda record, metadata: {"kind": "title"})
    assert loader.load()[0].metadata == {"kind": "title", "source": str(chat)}


def test_text_content_false_serialises_other_values(chat) -> None:
    documents = JSONLoader(chat, ".messages[0].meta", text_content=False).load()
    assert documents[0].page_content == '{"id": 1}'
    whole = JSONLoader(chat, ".", text_content=False).load()
    assert json.loads(whole[0].page_content) == CHAT


def test_iterating_an_object_yields_its_values(tmp_path) -> None:
    path = tmp_path / "d.json"
    path.write_text('{"a": "x", "b": "y"}')
    assert [d.page_content for d in JSONLoader(path, ".[]").load()] == ["x", "y"]


def test_empty_array_gives_no_documents(tmp_path) -> None:
    path = tmp_path / "empty.json"
    path.write_text('{"items": []}')
    assert JSONLoader(path, ".items[]").load() == []


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        (
            ".messages[].text",
            r"no key 'text' at \.messages\[0\] \(keys there: \['content', 'meta', 'role'\]\)",
        ),
        (".nothing", r"no key 'nothing' at \. \(keys there: \['messages', 'odd key', 'title'\]\)"),
        (".messages[5]", r"index 5 is out of range at \.messages \(length 2\)"),
        (".title[]", r"\.title is a string; \[\] needs an array or object"),
        (".title.x", r"\.title is a string, not an object with key 'x'"),
        (".messages.x", r"\.messages is an array, not an object with key 'x'"),
    ],
)
def test_path_matching_nothing_names_path_file_and_place(chat, path, reason) -> None:
    expected = f"JSON path {re.escape(repr(path))} matches nothing in .*chat\\.json: {reason}"
    with pytest.raises(LoaderError, match=expected):
        JSONLoader(chat, path).load()


def test_content_key_missing(chat) -> None:
    with pytest.raises(
        LoaderError,
        match=r"content_key 'body' matches nothing in .*chat\.json: no key 'body' at "
        r"\.messages\[0\]",
    ):
        JSONLoader(chat, ".messages[]", content_key="body").load()


@pytest.mark.parametrize("bad", ["messages", ".messages[", ".a..b", ".[x]", ".a b", ""])
def test_malformed_paths_fail_at_construction(tmp_path, bad) -> None:
    with pytest.raises(InvalidInputError, match="JSON path"):
        JSONLoader(tmp_path / "a.json", bad)


def test_json_lines(tmp_path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"msg": ["a", "b"]}\n\n{"msg": ["c"]}\n', encoding="utf-8")
    documents = JSONLoader(path, ".msg[]", json_lines=True).load()
    assert [(d.page_content, d.metadata["seq_num"]) for d in documents] == [
        ("a", 1),
        ("b", 2),
        ("c", 3),
    ]


def test_json_lines_errors_name_the_line(tmp_path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"msg": "a"}\n{"msg": \n{"other": 1}\n', encoding="utf-8")
    stream = JSONLoader(path, ".msg", json_lines=True).lazy_load()
    assert next(stream).page_content == "a"  # lazily, line by line
    with pytest.raises(
        LoaderError, match=r"log\.jsonl line 2 is not valid JSON: Expecting value at column 9"
    ):
        next(stream)
    path.write_text('{"msg": "a"}\n{"other": 1}\n', encoding="utf-8")
    with pytest.raises(
        LoaderError, match=r"matches nothing in .*log\.jsonl: line 2: no key 'msg' at \."
    ):
        JSONLoader(path, ".msg", json_lines=True).load()


def test_invalid_json_and_missing_file(tmp_path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "a": [1, 2,,]\n}')
    with pytest.raises(
        LoaderError, match=r"broken\.json is not valid JSON: Expecting value at line 2 column 14"
    ):
        JSONLoader(path, ".a[]").load()
    with pytest.raises(LoaderError, match=r"file not found: .*none\.json"):
        JSONLoader(tmp_path / "none.json", ".").load()


def test_encoding(tmp_path) -> None:
    path = tmp_path / "latin.jsonl"
    path.write_bytes('{"t": "ok"}\n{"t": "café"}\n'.encode("cp1252"))
    with pytest.raises(
        LoaderError,
        match=r"cannot decode .*latin\.jsonl as utf-8: byte 0xe9 at offset 22 \(line 2\)",
    ):
        JSONLoader(path, ".t", json_lines=True).load()
    assert [
        d.page_content for d in JSONLoader(path, ".t", json_lines=True, encoding="cp1252").load()
    ] == ["ok", "café"]


def test_json_nested_too_deeply_is_a_loader_error(tmp_path) -> None:
    """json.loads gives up with RecursionError on deep nesting: a LoaderError names the file."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    with pytest.raises(LoaderError, match=r"deep\.json nests arrays or objects too deeply"):
        JSONLoader(deep, ".").load()
    lines = tmp_path / "deep.jsonl"
    lines.write_text('{"a": 1}\n' + "[" * 100_000 + "\n")
    with pytest.raises(LoaderError, match=r"deep\.jsonl line 2 nests arrays or objects too deeply"):
        JSONLoader(lines, ".", text_content=False, json_lines=True).load()


def test_a_jq_expression_outside_the_subset_needs_the_jq_package(tmp_path, monkeypatch) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"items": [{"t": "x", "c": "y"}, {"t": "u", "c": "v"}]}', encoding="utf-8")
    expression = '.items[] | .t + "-" + .c'
    if importlib.util.find_spec("jq") is not None:
        assert [d.page_content for d in JSONLoader(path, expression).load()] == ["x-y", "u-v"]
    monkeypatch.setitem(sys.modules, "jq", None)  # as if jq were not installed
    with pytest.raises(InvalidInputError, match="install the jq package"):
        JSONLoader(path, expression)


@pytest.mark.parametrize(
    ("expression", "name"),
    [
        (".items[] | $ENV.RAGLINE_TEST_SECRET", "$ENV"),
        (".items[] | env.RAGLINE_TEST_SECRET", "env"),
        ('.items[] | "\\(.t) \\(env | .RAGLINE_TEST_SECRET)"', "env"),
        (".items[] | input_filename", "input_filename"),
        (".items[] | (.t | debug)", "debug"),
        (".items[] | .c, inputs", "inputs"),
    ],
)
def test_a_jq_expression_reading_outside_the_document_is_refused(
    tmp_path, monkeypatch, expression, name
) -> None:
    """jq's ``$ENV`` / ``env`` would put the process environment (API keys) in the
    documents; ``input``, ``debug`` and friends read other inputs or write to stderr. A
    JSONLoader path reads the document only: such an expression is refused when built."""
    pytest.importorskip("jq")
    monkeypatch.setenv("RAGLINE_TEST_SECRET", "s3cret")
    path = tmp_path / "a.json"
    path.write_text('{"items": [{"t": "x", "c": "y"}]}', encoding="utf-8")
    with pytest.raises(InvalidInputError, match=re.escape(f"uses {name!r}")):
        JSONLoader(path, expression)
    with pytest.raises(InvalidInputError, match=re.escape(f"uses {name!r}")):
        JSONLoader(path, ".items[]", content_key=expression, is_content_key_jq_parsable=True)


def test_a_jq_expression_naming_env_as_a_key_or_a_string_still_runs(tmp_path) -> None:
    pytest.importorskip("jq")
    path = tmp_path / "a.json"
    path.write_text(
        '{"items": [{"env": "dev", "t": "input"}, {"env": "prod", "t": "debug"}]}',
        encoding="utf-8",
    )
    expression = '.items[] | select(.t == "input" or .t == "env") | .env + " # \\(.t)"'
    loaded = JSONLoader(path, expression + " # env in a comment").load()
    assert [d.page_content for d in loaded] == ["dev # input"]
    loaded = JSONLoader(path, '.items[] | {env: .env, "input": .t} | .env + "/" + .input').load()
    assert [d.page_content for d in loaded] == ["dev/input", "prod/debug"]
