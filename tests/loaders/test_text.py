"""TextLoader and the shared encoding rules."""

from __future__ import annotations

import codecs

import pytest

from ragline.core import InvalidInputError, LoaderError
from ragline.loaders import TextLoader

CP1252_TEXT = "Café crème brûlée, naïve “quotes” – déjà vu.\n"


def test_loads_utf8_text_with_source(tmp_path) -> None:
    path = tmp_path / "note.txt"
    path.write_text("héllo\nwörld\n", encoding="utf-8")
    [document] = TextLoader(path).load()
    assert document.page_content == "héllo\nwörld\n"
    assert document.metadata == {"source": str(path)}


def test_source_is_the_path_as_given(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("x")
    assert TextLoader("a.txt").load()[0].metadata == {"source": "a.txt"}


def test_utf8_byte_order_mark_is_dropped(tmp_path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes(codecs.BOM_UTF8 + b"hi")
    assert TextLoader(path).load()[0].page_content == "hi"


def test_missing_file_names_it(tmp_path) -> None:
    path = tmp_path / "nope.txt"
    with pytest.raises(LoaderError, match=r"file not found: .*nope\.txt"):
        TextLoader(path).load()


def test_a_directory_is_not_a_file(tmp_path) -> None:
    with pytest.raises(LoaderError, match="is a directory, not a file"):
        TextLoader(tmp_path).load()


def test_invalid_bytes_name_the_file_and_encoding(tmp_path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(CP1252_TEXT.encode("cp1252"))
    with pytest.raises(LoaderError) as caught:
        TextLoader(path).load()
    message = str(caught.value)
    assert str(path) in message
    assert "as utf-8" in message
    assert "byte 0xe9 at offset 3 (line 1)" in message
    assert "autodetect_encoding=True" in message


def test_explicit_encoding_is_used_and_checked(tmp_path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(CP1252_TEXT.encode("cp1252"))
    assert TextLoader(path, encoding="cp1252").load()[0].page_content == CP1252_TEXT
    path.write_bytes("Привет".encode())
    with pytest.raises(LoaderError, match=r"as ascii: byte 0xd0 at offset 0 \(line 1\)"):
        TextLoader(path, encoding="ascii").load()


def test_unknown_encoding_fails_at_construction(tmp_path) -> None:
    with pytest.raises(InvalidInputError, match="encoding 'utf-99' is not a known text encoding"):
        TextLoader(tmp_path / "a.txt", encoding="utf-99")


@pytest.mark.parametrize("encoding", ["base64", "rot13", 5])
def test_a_codec_that_is_not_a_text_encoding_fails_at_construction(tmp_path, encoding) -> None:
    """codecs.lookup knows 'base64' and 'rot13', but they cannot decode a file to text."""
    with pytest.raises(
        InvalidInputError, match=f"encoding {encoding!r} is not a known text encoding"
    ):
        TextLoader(tmp_path / "a.txt", encoding=encoding)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"plain ascii", "plain ascii"),
        ("ünïcode".encode(), "ünïcode"),
        (codecs.BOM_UTF8 + b"sig", "sig"),
        ("wide ✓".encode("utf-16"), "wide ✓"),  # has a byte-order mark
        ("wider ✓".encode("utf-32"), "wider ✓"),
        (CP1252_TEXT.encode("cp1252"), CP1252_TEXT),
        # 0x81 is undefined in cp1252, so only latin-1 decodes this
        (b"caf\xe9 \x81", "café \x81"),
    ],
)
def test_autodetect_tries_bom_then_utf8_cp1252_latin1(tmp_path, data, expected) -> None:
    path = tmp_path / "any.txt"
    path.write_bytes(data)
    assert TextLoader(path, autodetect_encoding=True).load()[0].page_content == expected


def test_explicit_encoding_wins_over_autodetect(tmp_path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes("Привет".encode("cp1251"))
    loader = TextLoader(path, encoding="cp1251", autodetect_encoding=True)
    assert loader.load()[0].page_content == "Привет"


async def test_aload(tmp_path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("async")
    assert [d.page_content for d in await TextLoader(path).aload()] == ["async"]


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        (None, "file_path must be a str or a pathlib.Path naming a file, got NoneType: None"),
        (3, "got int: 3"),
        (b"notes.txt", "got bytes"),
        ("", "file_path must name a file, got an empty string"),
    ],
)
def test_a_path_that_names_no_file_is_refused_when_built(path: object, fragment: str) -> None:
    """TextLoader(None) and the like fail at construction with a message naming the
    argument (every file loader alike), not a raw TypeError inside the first load."""
    from ragline.loaders import CSVLoader, JSONLoader, MarkdownLoader

    builds = [TextLoader, CSVLoader, MarkdownLoader, lambda p: JSONLoader(p, jq_schema=".")]
    for build in builds:
        with pytest.raises(InvalidInputError) as info:
            build(path)
        assert fragment in str(info.value), build
