"""CSVLoader: rows to documents, columns, dialects, and bad files."""

from __future__ import annotations

import codecs

import pytest

from ragline.core import InvalidInputError, LoaderError
from ragline.loaders import CSVLoader

PEOPLE = "name, age ,city,url\nAda, 36,London,https://a.example\nBob,40, Paris ,https://b.example\n"


@pytest.fixture
def people(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text(PEOPLE, encoding="utf-8")
    return path


def test_one_document_per_row(people) -> None:
    documents = CSVLoader(people).load()
    assert [d.page_content for d in documents] == [
        "name: Ada\nage: 36\ncity: London\nurl: https://a.example",
        "name: Bob\nage: 40\ncity: Paris\nurl: https://b.example",
    ]
    assert [d.metadata for d in documents] == [
        {"source": str(people), "row": 0},
        {"source": str(people), "row": 1},
    ]


def test_source_metadata_and_content_columns(people) -> None:
    loader = CSVLoader(people, source_column="url", metadata_columns=["city"])
    documents = loader.load()
    assert documents[1].page_content == "name: Bob\n age : 40\nurl: https://b.example".replace(
        " age :", "age:"
    )
    assert documents[1].metadata == {"source": "https://b.example", "row": 1, "city": " Paris "}
    only = CSVLoader(people, content_columns=["city", "name"], metadata_columns=["name"]).load()
    assert only[0].page_content == "name: Ada\ncity: London"  # header order
    assert only[0].metadata == {"source": str(people), "row": 0, "name": "Ada"}


def test_dialect_options(tmp_path) -> None:
    path = tmp_path / "semi.csv"
    path.write_text("a;b\n'x;1';2\n", encoding="utf-8")
    documents = CSVLoader(path, csv_args={"delimiter": ";", "quotechar": "'"}).load()
    assert documents[0].page_content == "a: x;1\nb: 2"


def test_fieldnames_for_a_file_without_header(tmp_path) -> None:
    path = tmp_path / "raw.csv"
    path.write_text("1,2\n3,4\n", encoding="utf-8")
    documents = CSVLoader(path, csv_args={"fieldnames": ["x", "y"]}).load()
    assert [d.page_content for d in documents] == ["x: 1\ny: 2", "x: 3\ny: 4"]


def test_quoted_newlines_and_blank_lines(tmp_path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('t,n\n"two\nlines",1\n\n\nlast,2\n', encoding="utf-8")
    documents = CSVLoader(path).load()
    assert [d.page_content for d in documents] == ["t: two\nlines\nn: 1", "t: last\nn: 2"]
    assert [d.metadata["row"] for d in documents] == [0, 1]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "a,b\n1,2\n3,4,5\n",
            r"ragged row in .*r\.csv: row 1 \(line 3\) has 3 cells, the header has 2",
        ),
        (
            "a,b\n1,2\n\n3\n",
            r"ragged row in .*r\.csv: row 1 \(line 4\) has 1 cells, the header has 2",
        ),
    ],
)
def test_ragged_row_is_an_error_naming_the_row(tmp_path, text, message) -> None:
    path = tmp_path / "r.csv"
    path.write_text(text, encoding="utf-8")
    stream = CSVLoader(path).lazy_load()
    assert next(stream).page_content == "a: 1\nb: 2"  # rows before the bad one still stream
    with pytest.raises(LoaderError, match=message):
        next(stream)


def test_missing_column_names_it_and_the_columns(people) -> None:
    with pytest.raises(
        LoaderError,
        match=r"people\.csv has no column\(s\) \['town'\]; its columns are \['name', ' age ', "
        r"'city', 'url'\]",
    ):
        CSVLoader(people, metadata_columns=["town"]).load()


def test_empty_file_and_duplicate_header(tmp_path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(LoaderError, match=r"empty\.csv has no header row"):
        CSVLoader(empty).load()
    twice = tmp_path / "twice.csv"
    twice.write_text("a,b,a\n1,2,3\n")
    with pytest.raises(LoaderError, match=r"twice\.csv repeats column name\(s\) \['a'\]"):
        CSVLoader(twice).load()


def test_strict_dialect_errors_name_the_line(tmp_path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text('a,b\n1,2\n"x"y,3\n', encoding="utf-8")
    with pytest.raises(LoaderError, match=r"malformed CSV in .*bad\.csv at line 3"):
        CSVLoader(path, csv_args={"strict": True}).load()


def test_encoding(tmp_path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("name\nJosé\n".encode("cp1252"))
    with pytest.raises(
        LoaderError, match=r"cannot decode .*latin\.csv as utf-8: byte 0xe9 at offset 8 \(line 2\)"
    ):
        CSVLoader(path).load()
    assert CSVLoader(path, encoding="cp1252").load()[0].page_content == "name: José"
    assert CSVLoader(path, autodetect_encoding=True).load()[0].page_content == "name: José"


def test_decode_error_names_the_autodetected_encoding(tmp_path) -> None:
    """A UTF-16 file (found by its byte-order mark) with a lone surrogate on line 2: the
    error names utf-16 and the surrogate's offset, not a utf-8 failure at the mark."""
    path = tmp_path / "wide.csv"
    path.write_bytes(codecs.BOM_UTF16_LE + "a\n".encode("utf-16-le") + b"\x00\xd8\n\x00")
    with pytest.raises(LoaderError, match=r"wide\.csv as utf-16: byte 0x00 at offset 6 is"):
        CSVLoader(path, autodetect_encoding=True).load()


def test_missing_file(tmp_path) -> None:
    with pytest.raises(LoaderError, match=r"file not found: .*none\.csv"):
        CSVLoader(tmp_path / "none.csv").load()


def test_bad_csv_args_fail_at_construction(tmp_path) -> None:
    with pytest.raises(
        InvalidInputError, match=r"unknown csv_args key\(s\) 'delim'; valid keys: delimiter"
    ):
        CSVLoader(tmp_path / "a.csv", csv_args={"delim": ";"})
    with pytest.raises(InvalidInputError, match="invalid csv_args"):
        CSVLoader(tmp_path / "a.csv", csv_args={"delimiter": ";;"})


def test_decode_error_position_is_exact_in_a_large_streamed_file(tmp_path) -> None:
    """The bad byte sits past the first 1 MiB read, after a character split across
    the read boundary: the error still gives its exact file offset and line."""
    path = tmp_path / "big.csv"
    line = "x" + "é" * 999 + "\n"  # 2000 bytes; the 1 MiB boundary splits an "é"
    path.write_bytes(b"t\n" + line.encode() * 600 + b"\xff\n")
    stream = CSVLoader(path).lazy_load()
    assert next(stream).page_content == "t: " + line.strip()
    with pytest.raises(LoaderError, match=r"byte 0xff at offset 1200002 \(line 602\)"):
        for _ in stream:
            pass


def test_80000_columns_load_and_their_names_are_checked(tmp_path) -> None:
    """A very wide header (issue 31: 80,000 columns took 91 s in a quadratic name check)
    loads, and repeated or empty names are judged as in a narrow file: one empty name
    is a column like any other, a repeated one (empty included) is refused by name."""
    names = [f"c{i}" for i in range(80_000)]
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(["", *names[1:]]) + "\n" + ",".join(map(str, range(80_000))) + "\n")
    (document,) = CSVLoader(wide, metadata_columns=["c79999"]).load()
    lines = document.page_content.split("\n")
    assert (len(lines), lines[0], lines[1], lines[-1]) == (79_999, ": 0", "c1: 1", "c79998: 79998")
    assert document.metadata == {"source": str(wide), "row": 0, "c79999": "79999"}

    repeated = tmp_path / "repeated.csv"
    repeated.write_text(",".join(["c5", "", *names[2:], "", "c5"]) + "\n")
    with pytest.raises(LoaderError, match=r"repeated\.csv repeats column name\(s\) \['', 'c5'\]$"):
        CSVLoader(repeated).load()
    with pytest.raises(LoaderError, match=r"has no column\(s\) \['nope'\]; its columns are \["):
        CSVLoader(wide, content_columns=["nope"]).load()
