"""Parity: ragline's Redis filters and drop_index against langchain_community's.

LangChain's filter expressions (RedisTag, RedisNum, RedisText with & and |) must print
the same query text as LangChain's, and select the same documents. The oracle for the
selection is LangChain's query text itself, run by a real Redis Stack (FT.SEARCH) on an
index of the same documents with LangChain's field types (langchain_community's Redis
store cannot run against this redis-py: it imports a module redis-py renamed).
``Redis.drop_index`` must work when called as LangChain calls it (on the class, with a
name), and return what LangChain's returns.
"""

from __future__ import annotations

import string
import uuid
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from langchain_community.vectorstores.redis import Redis as LCRedis
    from langchain_community.vectorstores.redis import RedisFilter as LCRedisFilter
    from langchain_community.vectorstores.redis import RedisNum as LCRedisNum
    from langchain_community.vectorstores.redis import RedisTag as LCRedisTag
    from langchain_community.vectorstores.redis import RedisText as LCRedisText

from ragline.core import FilterError
from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS, Redis, RedisFilter, RedisNum, RedisTag, RedisText

pytestmark = pytest.mark.redis

COVERS = {
    "vectorstores.Redis",
    "vectorstores.RedisFilter",
    "vectorstores.RedisFilterExpression",
    "vectorstores.RedisNum",
    "vectorstores.RedisTag",
    "vectorstores.RedisText",
}

TEXTS = ["red apple", "green apple", "red car", "blue car", "old red boat", "new blue boat"]
# maker: tags holding spaces and punctuation (lower case, no comma: LangChain's index
# lowercases tags and splits them at commas)
METADATAS = [
    {"color": "red", "year": 2019, "job": "fruit seller", "maker": "smith & sons"},
    {"color": "green", "year": 2020, "job": "fruit seller", "maker": "o'neil-bros."},
    {"color": "red", "year": 2021, "job": "car dealer", "maker": "smith & sons"},
    {"color": "blue", "year": 2022, "job": "car dealer", "maker": "a.b {co} [1]"},
    {"color": "red", "year": 2023, "job": "boat builder", "maker": 'x@y: 100% "z"'},
    {"color": "blue", "year": 2024, "job": "boat builder", "maker": "(a+b=c)~d/e;f!g#h$i^j*k<l>"},
]
SCHEMA = {
    "tag": [{"name": "color"}, {"name": "maker"}],
    "numeric": [{"name": "year"}],
    "text": [{"name": "job"}],
}


def _vector(text: str) -> list[float]:
    # four fixed directions, so both stores rank the same way: one per word family
    return [
        1.0 + ("red" in text),
        1.0 + ("blue" in text),
        1.0 + ("apple" in text),
        1.0 + ("boat" in text),
    ]


class Words(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [_vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return _vector(text)


def _langchain_index(client: Any, name: str) -> None:
    """The documents as LangChain's store lays them out: one hash per document, the
    metadata fields indexed with LangChain's types (TAG, NUMERIC, TEXT)."""
    for i, (text, metadata) in enumerate(zip(TEXTS, METADATAS, strict=True)):
        client.hset(f"{name}:{i}", mapping={"content": text, **metadata})
    client.execute_command(
        "FT.CREATE", name, "ON", "HASH", "PREFIX", "1", f"{name}:", "SCHEMA",
        "content", "TEXT", "color", "TAG", "year", "NUMERIC", "job", "TEXT", "maker", "TAG",
    )  # fmt: skip


def _langchain_selects(client: Any, name: str, expression: Any) -> list[str]:
    """What LangChain's query text selects: FT.SEARCH with str(expression)."""
    reply = client.execute_command(
        "FT.SEARCH", name, str(expression), "RETURN", "1", "content", "LIMIT", "0", "100",
        "DIALECT", "2",
    )  # fmt: skip
    return sorted(fields[1].decode() for fields in reply[2::2])


@pytest.fixture
def stores(redis_url: str) -> Iterator[tuple[Any, str, Redis]]:
    import redis as redis_py

    name = uuid.uuid4().hex[:8]
    client = redis_py.Redis.from_url(redis_url, protocol=2)
    _langchain_index(client, f"lc-{name}")
    ours = Redis.from_texts(
        TEXTS, Words(), METADATAS, index_name=f"rl-{name}", redis_url=redis_url,
        index_schema=SCHEMA,
    )  # fmt: skip
    yield client, f"lc-{name}", ours
    client.execute_command("FT.DROPINDEX", f"lc-{name}", "DD")
    client.close()
    ours.drop_index(delete_documents=True)
    ours.close()


# (LangChain's library, ragline's library) -> the same expression built in each
Build = Callable[[Any, Any, Any, Any], Any]
EXPRESSIONS: dict[str, Build] = {
    "tag ==": lambda tag, num, text, f: tag("color") == "red",
    "tag == list": lambda tag, num, text, f: tag("color") == ["green", "blue"],
    "tag !=": lambda tag, num, text, f: tag("color") != "red",
    "num >": lambda tag, num, text, f: num("year") > 2021,
    "num >=": lambda tag, num, text, f: num("year") >= 2021,
    "num <": lambda tag, num, text, f: num("year") < 2021,
    "num <=": lambda tag, num, text, f: num("year") <= 2021,
    "num ==": lambda tag, num, text, f: num("year") == 2022,
    "num !=": lambda tag, num, text, f: num("year") != 2022,
    "text ==": lambda tag, num, text, f: text("job") == "car dealer",
    "text !=": lambda tag, num, text, f: text("job") != "car dealer",
    "and": lambda tag, num, text, f: (tag("color") == "red") & (num("year") > 2020),
    "or": lambda tag, num, text, f: (tag("color") == "green") | (num("year") >= 2024),
    "nested": lambda tag, num, text, f: (
        ((tag("color") == "red") & (num("year") < 2023)) | (text("job") == "boat builder")
    ),
    "helpers": lambda tag, num, text, f: (f.tag("color") == "blue") & (f.num("year") < 2024),
    "none": lambda tag, num, text, f: tag("color") == None,  # noqa: E711 (LangChain's "any")
    # tag values with spaces and punctuation: escaped in the query text
    "tag == spaces": lambda tag, num, text, f: tag("maker") == "smith & sons",
    "tag == punctuation": lambda tag, num, text, f: tag("maker") == "(a+b=c)~d/e;f!g#h$i^j*k<l>",
    "tag == quotes": lambda tag, num, text, f: tag("maker") == 'x@y: 100% "z"',
    "tag == list, punctuation": lambda tag, num, text, f: (
        tag("maker") == ["o'neil-bros.", "a.b {co} [1]"]
    ),
    "tag != punctuation": lambda tag, num, text, f: tag("maker") != "smith & sons",
    "tag, punctuation and": lambda tag, num, text, f: (
        (tag("maker") == "smith & sons") & (tag("color") == "red") & (num("year") > 2019)
    ),
    "tag, punctuation or": lambda tag, num, text, f: (
        (tag("maker") == "o'neil-bros.") | (tag("maker") != "smith & sons")
    ),
    # text values are not escaped (LangChain's phrase is the value as written)
    "text == punctuation": lambda tag, num, text, f: text("job") == "fruit-seller",
    "text != punctuation": lambda tag, num, text, f: text("job") != "Car, dealer.",
    # an empty value is no condition (optional filters): alone it selects everything, and
    # it drops out of & and |, leaving the other side
    "tag == empty": lambda tag, num, text, f: tag("color") == "",
    "tag != empty": lambda tag, num, text, f: tag("color") != "",
    "tag == empty list": lambda tag, num, text, f: tag("color") == [],
    "tag == empty items": lambda tag, num, text, f: tag("color") == ["", None],
    "tag == list, some empty": lambda tag, num, text, f: tag("color") == [None, "green", ""],
    "tag != list, some empty": lambda tag, num, text, f: tag("color") != ("", "red"),
    "text == empty": lambda tag, num, text, f: text("job") == "",
    "text != empty": lambda tag, num, text, f: text("job") != "",
    "text != none": lambda tag, num, text, f: text("job") != None,  # noqa: E711
    "text % empty": lambda tag, num, text, f: text("job") % "",
    "text % none": lambda tag, num, text, f: text("job") % None,
    "num < none": lambda tag, num, text, f: num("year") < None,
    "empty and": lambda tag, num, text, f: (tag("color") == "") & (num("year") > 2020),
    "and empty": lambda tag, num, text, f: (num("year") > 2020) & (text("job") == ""),
    "empty or": lambda tag, num, text, f: (text("job") % None) | (tag("color") == "blue"),
    "or empty": lambda tag, num, text, f: (tag("color") == "blue") | (num("year") >= None),
    "empty and empty": lambda tag, num, text, f: (tag("color") == []) & (text("job") != ""),
    "empty or empty": lambda tag, num, text, f: (num("year") == None) | (tag("color") != ""),  # noqa: E711
    "empty nested": lambda tag, num, text, f: (
        ((tag("color") == "") | (num("year") < 2022))
        & ((text("job") == None) | (tag("maker") == [""]))  # noqa: E711
        | ((tag("color") == "red") & (text("job") % ""))
    ),
}
LC_LIBRARY = (LCRedisTag, LCRedisNum, LCRedisText, LCRedisFilter)
LIBRARY = (RedisTag, RedisNum, RedisText, RedisFilter)


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_expression_prints_as_langchains(name: str) -> None:
    build = EXPRESSIONS[name]
    assert str(build(*LIBRARY)) == str(build(*LC_LIBRARY))


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_expression_selects_langchains_documents(name: str, stores: tuple[Any, str, Redis]) -> None:
    client, index, ours = stores
    build = EXPRESSIONS[name]
    expected = _langchain_selects(client, index, build(*LC_LIBRARY))
    found = ours.similarity_search("red boat", k=6, filter=build(*LIBRARY))
    assert sorted(d.page_content for d in found) == expected
    assert expected, "every scenario selects something"
    retriever = ours.as_retriever(search_kwargs={"k": 6, "filter": build(*LIBRARY)})
    assert sorted(d.page_content for d in retriever.invoke("red boat")) == expected


EMPTY_TAGS: list[Any] = [None, "", [], (), set(), [""], [None], ("", None), {""}]

# every printable ASCII character, alone and inside words, and other whitespace / letters
TAG_VALUES = [
    *string.printable,
    *(f"a{char}b" for char in string.printable),
    "smith & sons",
    "  two  spaces ",
    "café au lait",
    "\\{already} \\escaped",
    "x" * 300,
]


@pytest.mark.parametrize("value", TAG_VALUES)
def test_tag_values_print_escaped_as_langchains(value: str) -> None:
    for build in (
        lambda tag: tag("t") == value,
        lambda tag: tag("t") != value,
        lambda tag: tag("t") == [value, "x y"],
        lambda tag: tag("t") != ("x.y", value),
        lambda tag: (tag("t") == value) & (tag("u") != value) | (tag("v") == {value}),
    ):
        assert str(build(RedisTag)) == str(build(LCRedisTag))


# every field and operator with each empty value LangChain takes as no condition
EMPTY_CONDITIONS: list[Callable[[Any, Any, Any], Any]] = [
    *(lambda tag, num, text, v=v: tag("t") == v for v in EMPTY_TAGS),
    *(lambda tag, num, text, v=v: tag("t") != v for v in EMPTY_TAGS),
    lambda tag, num, text: num("n") == None,  # noqa: E711
    lambda tag, num, text: num("n") != None,  # noqa: E711
    lambda tag, num, text: num("n") > None,
    lambda tag, num, text: num("n") >= None,
    lambda tag, num, text: num("n") < None,
    lambda tag, num, text: num("n") <= None,
    *(lambda tag, num, text, v=v: text("x") == v for v in (None, "")),
    *(lambda tag, num, text, v=v: text("x") != v for v in (None, "")),
    *(lambda tag, num, text, v=v: text("x") % v for v in (None, "")),
]
CONDITIONS: list[Callable[[Any, Any, Any], Any]] = [
    lambda tag, num, text: tag("t") == ["a b", "", "c"],
    lambda tag, num, text: num("n") > 3,
    lambda tag, num, text: text("x") != "some words",
]


@pytest.mark.parametrize("index", range(len(EMPTY_CONDITIONS)))
def test_empty_values_are_no_condition_as_in_langchain(index: int) -> None:
    empty = EMPTY_CONDITIONS[index]
    lc, ours = LC_LIBRARY[:3], LIBRARY[:3]
    assert str(empty(*ours)) == str(empty(*lc)) == "*"
    for condition in CONDITIONS:
        # (how to combine the empty one a with b, the filter that leaves)
        for combine, leaves in (
            (lambda a, b: a & b, lambda b: b),
            (lambda a, b: b & a, lambda b: b),
            (lambda a, b: a | b, lambda b: b),
            (lambda a, b: b | a, lambda b: b),
            (lambda a, b: (a & b) | (b & a), lambda b: b | b),
            (lambda a, b: (a | a) & b, lambda b: b),
        ):
            built = combine(empty(*ours), condition(*ours))
            assert str(built) == str(combine(empty(*lc), condition(*lc)))
            assert dict(built) == dict(leaves(condition(*ours)))
    assert dict(empty(*ours)) == {}


@pytest.mark.parametrize("value", TAG_VALUES)
def test_text_values_print_as_langchains(value: str) -> None:
    for build in (
        lambda text: text("t") == value,
        lambda text: text("t") != value,
        lambda text: (text("t") == value) | (text("u") != value),
    ):
        assert str(build(RedisText)) == str(build(LCRedisText))


def test_tags_that_langchains_text_runs_as_syntax_are_matched_as_values(redis_url: str) -> None:
    """The documented difference: ragline's store sends tag values as query parameters, so
    a value LangChain leaves unescaped (| tab newline ? `) is still the value itself."""
    import redis as redis_py

    values = ["a|b", "a", "b", "new\nline", "tab\there", "q?x", "t`x"]
    name = f"tags-{uuid.uuid4().hex[:8]}"
    client = redis_py.Redis.from_url(redis_url, protocol=2)
    for i, value in enumerate(values):
        client.hset(f"lc-{name}:{i}", mapping={"content": value, "m": value})
    client.execute_command(
        "FT.CREATE", f"lc-{name}", "ON", "HASH", "PREFIX", "1", f"lc-{name}:", "SCHEMA",
        "content", "TEXT", "m", "TAG",
    )  # fmt: skip
    ours = Redis.from_texts(
        values, Words(), [{"m": value} for value in values], index_name=f"rl-{name}",
        redis_url=redis_url, index_schema={"tag": [{"name": "m"}]},
    )  # fmt: skip
    try:
        langchain = {
            v: _langchain_selects(client, f"lc-{name}", LCRedisTag("m") == v) for v in values
        }
        assert langchain == {
            "a|b": ["a", "b"], "a": ["a"], "b": ["b"],
            "new\nline": [], "tab\there": [], "q?x": [], "t`x": [],
        }  # fmt: skip
        for value in values:
            expression = RedisTag("m") == value
            assert str(expression) == str(LCRedisTag("m") == value)
            found = ours.similarity_search("x", k=10, filter=expression)
            assert [d.page_content for d in found] == [value]
    finally:
        client.execute_command("FT.DROPINDEX", f"lc-{name}", "DD")
        client.close()
        ours.drop_index(delete_documents=True)
        ours.close()


def test_expressions_work_on_every_ragline_store() -> None:
    store = FAISS.from_texts(TEXTS, Words(), METADATAS, metric="cosine")
    found = store.similarity_search(
        "red", k=6, filter=(RedisTag("color") == "red") & (RedisNum("year") > 2020)
    )
    assert sorted(d.page_content for d in found) == ["old red boat", "red car"]


def test_what_the_filter_language_cannot_say_is_refused() -> None:
    with pytest.raises(FilterError, match="wildcard and fuzzy"):
        RedisText("job") % "car*"
    with pytest.raises(FilterError, match="compares with a number"):
        _ = RedisNum("year") > "2020"
    # a tag compares with str values only (LangChain's takes str() of other truthy
    # values and 0 / False as no condition; ragline's stores keep 1 and "1" apart)
    for value in (0, False, 1, [1], ["red", 0], ("red", b"blue"), {"red": 1}):
        with pytest.raises(FilterError, match="compares with a str or a list of str"):
            _ = RedisTag("color") == value
    with pytest.raises(FilterError, match="combines with another"):
        (RedisTag("color") == "red") & {"year": 2020}  # type: ignore[operator]


def test_drop_index_called_as_langchain_calls_it(redis_url: str) -> None:
    name = f"rl-drop-{uuid.uuid4().hex[:8]}"
    store = Redis.from_texts(TEXTS, Words(), METADATAS, index_name=name, redis_url=redis_url)
    assert store.count() == 6
    # LangChain: a static method, the name and delete_documents given, the URL a keyword
    import redis as redis_py

    lc_name = f"lc-drop-{uuid.uuid4().hex[:8]}"
    client = redis_py.Redis.from_url(redis_url, protocol=2)
    _langchain_index(client, lc_name)
    assert LCRedis.drop_index(lc_name, True, redis_url=redis_url) is True
    assert Redis.drop_index(name, True, redis_url=redis_url) is True
    assert LCRedis.drop_index(lc_name, True, redis_url=redis_url) is False  # already gone
    assert Redis.drop_index(name, True, redis_url=redis_url) is False
    assert Redis.drop_index(index_name=name, delete_documents=False, redis_url=redis_url) is False
    # the documents went with the index (delete_documents=True)
    assert list(client.scan_iter(match=f"doc:{name}|*")) == []
    client.close()
    store.close()
