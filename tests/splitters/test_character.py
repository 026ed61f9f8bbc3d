"""Character and recursive splitters: hand-checked chunk boundaries, options and errors."""

from __future__ import annotations

import pytest

from ragline.core import Document, InvalidInputError, RunnableLambda
from ragline.splitters import (
    CharacterTextSplitter,
    Language,
    LatexTextSplitter,
    MarkdownTextSplitter,
    PythonCodeTextSplitter,
    RecursiveCharacterTextSplitter,
    TextSplitter,
)


def chunks_and_starts(splitter: TextSplitter, text: str) -> list[tuple[str, int]]:
    return [(d.page_content, d.metadata["start_index"]) for d in splitter.create_documents([text])]


# ---- CharacterTextSplitter ---------------------------------------------------------------


def test_character_splitter_merges_words_with_overlap() -> None:
    splitter = CharacterTextSplitter(separator=" ", chunk_size=9, chunk_overlap=4)
    assert splitter.split_text("one two three four") == ["one two", "two three", "four"]


def test_character_splitter_default_cuts_at_blank_lines() -> None:
    splitter = CharacterTextSplitter(chunk_size=11, chunk_overlap=0)
    assert splitter.split_text("alpha\n\nbeta\n\ngamma delta") == ["alpha\n\nbeta", "gamma delta"]


def test_character_splitter_keeps_a_piece_larger_than_chunk_size_whole() -> None:
    splitter = CharacterTextSplitter(separator=" ", chunk_size=3, chunk_overlap=0)
    assert splitter.split_text("a verylongword b") == ["a", "verylongword", "b"]


@pytest.mark.parametrize(
    ("keep", "expected"),
    [
        (False, ["a", "b", "c"]),
        (True, ["a", ".b", ".c"]),
        ("start", ["a", ".b", ".c"]),
        ("end", ["a.", "b.", "c"]),
    ],
)
def test_keep_separator_modes(keep: object, expected: list[str]) -> None:
    splitter = CharacterTextSplitter(
        separator=".", chunk_size=2, chunk_overlap=0, keep_separator=keep
    )
    assert splitter.split_text("a.b.c") == expected


def test_strip_whitespace_false_keeps_spaces() -> None:
    splitter = CharacterTextSplitter(
        separator="|", chunk_size=4, chunk_overlap=0, strip_whitespace=False
    )
    assert splitter.split_text(" ab | cd ") == [" ab ", " cd "]
    stripped = CharacterTextSplitter(separator="|", chunk_size=4, chunk_overlap=0)
    assert stripped.split_text(" ab | cd ") == ["ab", "cd"]


def test_regex_separator_rejoins_with_the_matched_text() -> None:
    # LangChain would re-insert the pattern itself ("\s+") between the pieces.
    splitter = CharacterTextSplitter(
        separator=r"\s+", is_separator_regex=True, chunk_size=9, chunk_overlap=0
    )
    assert splitter.split_text("ab  cd\tef gh") == ["ab  cd\tef", "gh"]


def test_lookaround_separator_cuts_without_consuming() -> None:
    splitter = CharacterTextSplitter(
        separator=r"(?=[A-Z])", is_separator_regex=True, chunk_size=6, chunk_overlap=0
    )
    assert splitter.split_text("OneTwoThree") == ["OneTwo", "Three"]


def test_literal_separator_is_not_a_regex() -> None:
    splitter = CharacterTextSplitter(separator=".", chunk_size=3, chunk_overlap=0)
    assert splitter.split_text("ab.cd") == ["ab", "cd"]  # "." as a regex would cut everywhere


# ---- RecursiveCharacterTextSplitter -------------------------------------------------------


def test_recursive_splitter_prefers_paragraphs_then_lines_then_words() -> None:
    # "\nSecond line." (the separator stays in front) is 13 characters: cut at " " too.
    splitter = RecursiveCharacterTextSplitter(chunk_size=13, chunk_overlap=0)
    text = "First line.\nSecond line.\n\nNew paragraph."
    assert splitter.split_text(text) == ["First line.", "Second line.", "New", "paragraph."]


def test_recursive_splitter_overlap_repeats_words() -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=4)
    assert splitter.split_text("aa bb cc dd ee ff") == ["aa bb cc", "cc dd ee", "ee ff"]


def test_recursive_splitter_falls_back_to_characters() -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=3, chunk_overlap=1)
    assert splitter.split_text("abcdefg") == ["abc", "cde", "efg"]


def test_recursive_splitter_with_custom_separators() -> None:
    splitter = RecursiveCharacterTextSplitter(
        separators=[";", ","], chunk_size=6, chunk_overlap=0, keep_separator=False
    )
    # No "" fallback: a piece still too long after "," stays whole; the pieces on either
    # side of a piece that was cut further are merged separately.
    assert splitter.split_text("a,b;cccccccc,d;e") == ["a,b", "cccccccc", "d", "e"]


def test_from_language_python_cuts_at_functions() -> None:
    splitter = RecursiveCharacterTextSplitter.from_language(
        Language.PYTHON, chunk_size=30, chunk_overlap=0
    )
    code = "def a():\n    pass\n\ndef b():\n    return 2\n"
    assert splitter.split_text(code) == ["def a():\n    pass", "def b():\n    return 2"]
    assert PythonCodeTextSplitter(chunk_size=30, chunk_overlap=0).split_text(code) == (
        splitter.split_text(code)
    )


def test_from_language_accepts_the_value_string() -> None:
    by_value = RecursiveCharacterTextSplitter.from_language(
        "markdown", chunk_size=12, chunk_overlap=0
    )
    text = "# A\ntext\n## B\nmore"
    assert by_value.split_text(text) == ["# A\ntext", "## B\nmore"]
    assert MarkdownTextSplitter(chunk_size=12, chunk_overlap=0).split_text(text) == [
        "# A\ntext",
        "## B\nmore",
    ]


def test_latex_preset_cuts_at_sections() -> None:
    text = "\\section{A}\nalpha\n\\section{B}\nbeta"
    preset = RecursiveCharacterTextSplitter.from_language("latex", chunk_size=20, chunk_overlap=0)
    assert preset.split_text(text) == ["\\section{A}\nalpha", "\\section{B}\nbeta"]
    # LatexTextSplitter reads the patterns as plain text, as LangChain's does
    assert LatexTextSplitter(chunk_size=20, chunk_overlap=0).split_text(text) == [
        "\\section{A}\nalpha\n\\s",
        "ection{B}\nbeta",
    ]


def test_every_language_but_perl_has_a_preset() -> None:
    for language in Language:
        if language is Language.PERL:
            continue
        separators = RecursiveCharacterTextSplitter.get_separators_for_language(language)
        assert separators[-1] == "" or separators[-1] == " "
        RecursiveCharacterTextSplitter.from_language(language, chunk_size=10, chunk_overlap=0)
    with pytest.raises(
        InvalidInputError, match="'perl' has no separator preset; presets exist for cpp"
    ):
        RecursiveCharacterTextSplitter.from_language(Language.PERL)
    with pytest.raises(InvalidInputError, match="language 'klingon' is not one of 'cpp', 'go'"):
        RecursiveCharacterTextSplitter.from_language("klingon")


# ---- start_index ---------------------------------------------------------------------------


def test_start_index_is_the_true_offset_of_repeated_text() -> None:
    # LangChain reports 5 for the second chunk: it searches from the end of the
    # previous chunk minus the overlap and finds the middle "TODO" first.
    splitter = RecursiveCharacterTextSplitter(chunk_size=9, chunk_overlap=4, add_start_index=True)
    assert chunks_and_starts(splitter, "TODO\nTODO\nTODO") == [("TODO\nTODO", 0), ("TODO", 10)]


def test_start_index_with_repeated_lines_and_overlap() -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=2, add_start_index=True)
    # LangChain: [0, 3, 3].
    assert chunks_and_starts(splitter, "ok\nok\nok\nok") == [("ok\nok", 0), ("ok", 6), ("ok", 9)]


def test_start_index_skips_stripped_whitespace() -> None:
    splitter = CharacterTextSplitter(
        separator="|", chunk_size=4, chunk_overlap=0, add_start_index=True
    )
    assert chunks_and_starts(splitter, "  ab|  cd ") == [("ab", 2), ("cd", 7)]


def test_start_index_of_a_chunk_joined_over_dropped_empty_pieces() -> None:
    # With keep_separator=False, "a\n\n\n\nb" merges as "a\n\nb" (one separator), which is not
    # a substring; the start is still the offset of its first character.
    splitter = CharacterTextSplitter(chunk_size=10, chunk_overlap=0, add_start_index=True)
    assert chunks_and_starts(splitter, "x\n\n\n\na\n\n\n\nb") == [("x\n\na\n\nb", 0)]


def test_metadata_is_copied_into_every_chunk() -> None:
    splitter = CharacterTextSplitter(separator=" ", chunk_size=1, chunk_overlap=0)
    shared = {"source": "a.txt", "tags": ["x"]}
    docs = splitter.create_documents(["a b"], metadatas=[shared])
    assert [d.metadata for d in docs] == [shared, shared]
    docs[0].metadata["tags"].append("changed")
    assert docs[1].metadata == {"source": "a.txt", "tags": ["x"]}
    assert shared == {"source": "a.txt", "tags": ["x"]}


def test_split_documents_keeps_metadata_and_drops_ids() -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0, add_start_index=True)
    docs = splitter.split_documents(
        [Document("ab cd ef", {"p": 1}, id="doc-1"), Document("gh", {"p": 2})]
    )
    assert docs == [
        Document("ab cd", {"p": 1, "start_index": 0}),
        Document("ef", {"p": 1, "start_index": 6}),
        Document("gh", {"p": 2, "start_index": 0}),
    ]


def test_empty_and_whitespace_texts_give_no_chunks() -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0)
    assert splitter.split_text("") == []
    assert splitter.split_text(" \n\n  ") == []
    assert splitter.create_documents([]) == []


# ---- Runnable -------------------------------------------------------------------------------


def test_splitter_is_a_runnable_in_a_chain() -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0)
    load = RunnableLambda(lambda text: [Document(text, {"source": "t"})])
    chain = load | splitter
    assert chain.invoke("ab cd ef") == [
        Document("ab cd", {"source": "t"}),
        Document("ef", {"source": "t"}),
    ]
    assert splitter.batch([[Document("a")], [Document("b c")]]) == [
        [Document("a")],
        [Document("b c")],
    ]


async def test_splitter_ainvoke() -> None:
    splitter = CharacterTextSplitter(separator=" ", chunk_size=1, chunk_overlap=0)
    assert await splitter.ainvoke([Document("a b")]) == [Document("a"), Document("b")]


def test_invoke_rejects_bound_options() -> None:
    splitter = CharacterTextSplitter()
    with pytest.raises(TypeError, match="takes no keyword options, got chunk_size"):
        splitter.invoke([Document("a")], chunk_size=3)


# ---- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"chunk_size": 0}, "chunk_size must be an int >= 1, got 0"),
        ({"chunk_size": -5}, "chunk_size must be an int >= 1, got -5"),
        ({"chunk_size": 10.5}, "chunk_size must be an int >= 1, got 10.5"),
        ({"chunk_size": True}, "chunk_size must be an int >= 1, got True"),
        ({"chunk_overlap": -1}, "chunk_overlap must be an int >= 0, got -1"),
        (
            {"chunk_size": 100, "chunk_overlap": 101},
            r"chunk_overlap \(101\) must not be larger than chunk_size \(100\)",
        ),
        (
            {"chunk_size": 10, "chunk_overlap": 20},
            r"chunk_overlap \(20\) must not be larger than chunk_size \(10\)",
        ),
        (
            {"keep_separator": "middle"},
            "keep_separator 'middle' is not one of False, True, 'start', 'end'",
        ),
        ({"length_function": 3}, "length_function must be callable, got int"),
        ({"add_start_index": "yes"}, "add_start_index must be a bool, got 'yes'"),
    ],
)
def test_bad_options_raise(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        RecursiveCharacterTextSplitter(**options)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=message):
        CharacterTextSplitter(**options)  # type: ignore[arg-type]


def test_bad_separators_raise() -> None:
    with pytest.raises(
        InvalidInputError, match=r"separator '\(' is not a valid regular expression"
    ):
        CharacterTextSplitter(separator="(", is_separator_regex=True)
    with pytest.raises(
        InvalidInputError, match="separators must be a non-empty list of str, got '\\\\n\\\\n'"
    ):
        RecursiveCharacterTextSplitter(separators="\n\n")  # type: ignore[arg-type]
    with pytest.raises(
        InvalidInputError, match=r"separators must be a non-empty list of str, got \[\]"
    ):
        RecursiveCharacterTextSplitter(separators=[])
    with pytest.raises(InvalidInputError, match="a separator must be a str, got int"):
        RecursiveCharacterTextSplitter(separators=["\n", 3])  # type: ignore[list-item]


@pytest.mark.parametrize("bad", [None, 42, b"bytes", ["a list"]])
def test_non_string_text_raises(bad: object) -> None:
    for splitter in (CharacterTextSplitter(), RecursiveCharacterTextSplitter()):
        with pytest.raises(
            InvalidInputError, match=f"text must be a str, got {type(bad).__name__}"
        ):
            splitter.split_text(bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError, match="text must be a str"):
            splitter.create_documents([bad])  # type: ignore[list-item]


def test_create_documents_input_errors() -> None:
    splitter = CharacterTextSplitter()
    with pytest.raises(
        InvalidInputError, match=r"texts must be a list of str, got a str; pass \[text\]"
    ):
        splitter.create_documents("one text")
    with pytest.raises(InvalidInputError, match="metadatas has 1 items but texts has 2"):
        splitter.create_documents(["a", "b"], metadatas=[{}])
    with pytest.raises(InvalidInputError, match="metadatas must hold dicts, got list"):
        splitter.create_documents(["a"], metadatas=[["source", "a.txt"]])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="documents must hold Document objects, got str"):
        splitter.split_documents(["not a document"])  # type: ignore[list-item]
    with pytest.raises(
        InvalidInputError, match="documents must be a list of Document, got a Document"
    ):
        splitter.invoke(Document("a"))  # type: ignore[arg-type]


def test_options_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        CharacterTextSplitter("\n")  # type: ignore[misc]


def test_a_user_subclass_only_writes_split_text() -> None:
    class PipeSplitter(TextSplitter):
        def split_text(self, text: str) -> list[str]:
            return [part for part in text.split("|") if part]

    splitter = PipeSplitter(chunk_size=10, chunk_overlap=0, add_start_index=True)
    # Starts are searched after the previous chunk's start: repeats stay in order.
    assert chunks_and_starts(splitter, "ab|ab|cd") == [("ab", 0), ("ab", 3), ("cd", 6)]
    assert splitter.invoke([Document("x|y")]) == [
        Document("x", {"start_index": 0}),
        Document("y", {"start_index": 2}),
    ]


def test_a_programs_own_document_class_lacking_a_field_is_named_with_what_it_lacks() -> None:
    # a program's own class is read by its page_content and metadata (as LangChain's
    # splitters read them); one with metadata=None is refused, and the error names the
    # class by module and says what it lacks (a bare 'got Document' read as a contradiction)
    class Document:
        def __init__(self, page_content: str, metadata: object) -> None:
            self.page_content, self.metadata = page_content, metadata

    splitter = CharacterTextSplitter(chunk_size=5, chunk_overlap=0, separator=" ")
    assert [d.page_content for d in splitter.split_documents([Document("aa bb", {})])] == ["aa bb"]
    with pytest.raises(
        InvalidInputError,
        match=r"got (tests\.splitters\.)?test_character\.Document with page_content str and "
        r"metadata NoneType; another class than ragline's Document needs a str page_content "
        r"and a dict metadata$",
    ):
        splitter.split_documents([Document("aa bb", None)])  # type: ignore[list-item]
