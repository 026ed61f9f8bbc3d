"""Parity: SelfQueryRetriever and its query constructor against LangChain's.

The oracle is LangChain's own pipeline: its query-constructor parser (lark), its output
parser, its SelfQueryRetriever over LangChain's FAISS with LangChain's ChromaTranslator
(a translator into the same ``{"$and": [{"year": {"$gt": 2000}}]}`` dicts that
LangChain's FAISS filters with), and its RedisTranslator, whose RediSearch query text a
real Redis Stack runs. ragline's side is its own parser, ``SelfQueryRetriever.from_llm``
over ragline's FAISS and InMemoryVectorStore (built-in translator: ragline's filter
language) and over ragline's Redis (RedisTranslator). The same scripted model reply goes
through both: the same StructuredQuery, the same documents in the same order, and an
OutputParserException in both for a reply that does not parse. The prompts differ by
design (ragline's own wording); only their variables are LangChain's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_classic.chains.query_constructor.base import (
    StructuredQueryOutputParser as LCStructuredQueryOutputParser,
)
from langchain_classic.chains.query_constructor.base import (
    construct_examples as lc_construct_examples,
)
from langchain_classic.chains.query_constructor.base import (
    fix_filter_directive as lc_fix_filter_directive,
)
from langchain_classic.chains.query_constructor.base import (
    get_query_constructor_prompt as lc_get_query_constructor_prompt,
)
from langchain_classic.chains.query_constructor.parser import get_parser as lc_get_parser
from langchain_classic.chains.query_constructor.schema import AttributeInfo as LCAttributeInfo
from langchain_classic.retrievers.self_query.base import (
    SelfQueryRetriever as LCSelfQueryRetriever,
)
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import Embeddings as LCEmbeddings
from langchain_core.exceptions import OutputParserException as LCOutputParserException
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.structured_query import Comparison as LCComparison
from langchain_core.structured_query import Operation as LCOperation
from langchain_core.structured_query import StructuredQuery as LCStructuredQuery

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from langchain_community.query_constructors.chroma import ChromaTranslator
    from langchain_community.query_constructors.redis import RedisTranslator as LCRedisTranslator
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_community.vectorstores.redis.schema import RedisModel

from ragline.core import Document, FakeListLLM, OutputParserException
from ragline.core.structured_query import Comparison, Operation, StructuredQuery
from ragline.embeddings import Embeddings
from ragline.retrievers import (
    AttributeInfo,
    FilterTranslator,
    RedisTranslator,
    SelfQueryRetriever,
    StructuredQueryOutputParser,
    construct_examples,
    fix_filter_directive,
    get_parser,
    get_query_constructor_prompt,
)
from ragline.vectorstores import FAISS, InMemoryVectorStore, Redis
from tests.parity._letters import letter_counts

COVERS = {
    "retrievers.SelfQueryRetriever",
    "retrievers.AttributeInfo",
    "retrievers.StructuredQueryOutputParser",
    "retrievers.get_parser",
    "retrievers.get_query_constructor_prompt",
    "retrievers.load_query_constructor_runnable",
    "retrievers.RedisTranslator",
    "retrievers.construct_examples",
    "retrievers.fix_filter_directive",
    "core.Comparator",
    "core.Comparison",
    "core.Expr",
    "core.FilterDirective",
    "core.Operation",
    "core.Operator",
    "core.StructuredQuery",
    "core.Visitor",
}

TEXTS = [
    "a heist inside a dream",
    "a quiet family drama by the sea",
    "robots fall in love in space",
    "a courtroom drama about a stolen painting",
    "dinosaurs escape from a theme park",
    "a long drama about a space station crew",
    "toys come alive when nobody looks",
    "a detective story in a rainy city",
]
METADATAS: list[dict[str, Any]] = [
    {"genre": "thriller", "year": 2010, "rating": 8.8, "director": "Nolan"},
    {"genre": "drama", "year": 1998, "rating": 7.1, "director": "Kore-eda"},
    {"genre": "animated", "year": 2008, "rating": 8.4, "director": "Stanton"},
    {"genre": "drama", "year": 2004, "rating": 6.9, "director": "Lumet"},
    {"genre": "science fiction", "year": 1993, "rating": 8.2, "director": "Spielberg"},
    {"genre": "drama", "year": 2014, "rating": 8.7, "director": "Nolan"},
    {"genre": "animated", "year": 1995, "rating": 8.3, "director": "Lasseter"},
    {"genre": "thriller", "year": 2001, "rating": 7.4, "director": "Fincher"},
]
CONTENTS = "Short descriptions of films"
ATTRIBUTES = [
    ("genre", "The film's genre", "string"),
    ("year", "The year the film came out", "integer"),
    ("rating", "The film's rating, 1-10", "float"),
    ("director", "The director's surname", "string"),
]


class Letters(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [letter_counts(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return letter_counts(text)


class LCLetters(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [letter_counts(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return letter_counts(text)


def plain(node: Any) -> Any:
    """A filter tree or structured query of either library as plain tuples."""
    if isinstance(node, (LCStructuredQuery, StructuredQuery)):
        return ("query", node.query, plain(node.filter), node.limit)
    if isinstance(node, (LCComparison, Comparison)):
        return ("comparison", str(node.comparator.value), node.attribute, node.value)
    if isinstance(node, (LCOperation, Operation)):
        return ("operation", str(node.operator.value), [plain(arg) for arg in node.arguments])
    return node


# ---------------------------------------------------------------- the expression parser

EXPRESSIONS = [
    'eq("genre", "drama")',
    "eq('genre', 'drama')",
    'and(eq("genre", "drama"), gt("year", 2000))',
    'or(lt("rating", 7.5), eq("director", "Nolan"), gte("year", 2010))',
    'and(eq("genre", "drama"))',
    'or(and(gt("year", 1990), lt("year", 2000)), eq("genre", "animated"))',
    'not(eq("genre", "drama"))',
    'in("director", ["Nolan", \'Lumet\', "Fincher"])',
    'nin("year", [1993, 1995])',
    'in("genre", [])',
    'gt("rating", 8.25)',
    'gt("rating", -1.5e1)',
    'lte("rating", .5)',
    'eq("count", -3)',
    'eq("seen", true)',
    'eq("seen", False)',
    'eq("seen", TRUE)',
    'gte("released", "2020-01-31")',
    "gte('released', '2020-01-31')",
    'gte("released", 2020-01-31)',
    'lt("at", "2023-05-01T10:30:00")',
    'lt("at", "2023-05-01T10:30:00Z")',
    'eq("title", "it\'s \\"quoted\\"")',
    ' and( eq( "genre" , "drama" ) ,\n  gt("year",2000) ) ',
    'contain("tags", "space")',
    'like("title", "star%")',
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_parser_reads_expressions_as_langchains(expression: str) -> None:
    assert plain(get_parser().parse(expression)) == plain(lc_get_parser().parse(expression))


BAD_EXPRESSIONS = [
    'eq("genre", "drama"',
    'foo("genre", "drama")',
    'eq(genre, "drama")',
    '"drama"',
    'eq("genre", "drama") extra',
    'and(eq("a", 1), 5)',
    'eq("a", nope)',
    'lt("at", "2023-13-01T10:30:00")',
    "",
]


@pytest.mark.parametrize("expression", BAD_EXPRESSIONS)
def test_bad_expressions_raise_in_both(expression: str) -> None:
    with pytest.raises(Exception):  # noqa: B017 (LangChain's are lark's or ValueError)
        lc_get_parser().parse(expression)
    with pytest.raises(ValueError):
        get_parser().parse(expression)


def test_disallowed_functions_and_attributes_raise_in_both() -> None:
    cases = [
        ({"allowed_comparators": ["eq"]}, 'gt("year", 2000)'),
        ({"allowed_operators": ["and"]}, 'or(eq("a", 1), eq("b", 2))'),
        ({"allowed_attributes": ["genre"]}, 'eq("year", 2000)'),
    ]
    for options, expression in cases:
        with pytest.raises(ValueError):
            lc_get_parser(**options).parse(expression)
        with pytest.raises(ValueError):
            get_parser(**options).parse(expression)
        # and without the restriction both read it
        assert plain(get_parser().parse(expression)) == plain(lc_get_parser().parse(expression))


# ---------------------------------------------------------------- the output parser

REPLIES = [
    '{"query": "space", "filter": "NO_FILTER"',  # cut off: read as far as it went
    '{"query": "space", "filter": "eq(\\"genre\\", \\"drama\\")"} and some words after',
    '```json\n{"query": "space", "filter": "gt(\\"year\\", 2000)"}\n```',
    '{"query": "space", "filter": "NO_FILTER"}',
    '{"query": "", "filter": "eq(\\"genre\\", \\"drama\\")"}',
    '{"query": null, "filter": ""}',
    '{"query": "drama", "filter": "NO_FILTER", "limit": 2}',
    '{"query": "drama", "filter": "NO_FILTER", "limit": 0}',
    'Here you go:\n```json\n{\n  "query": "dream",\n  "filter": '
    '"and(eq(\\"director\\", \\"Nolan\\"), gte(\\"rating\\", 8.5))"\n}\n```',
]
BAD_REPLIES = [
    "no JSON here",
    '{"query": "space"}',
    '{"filter": "NO_FILTER"}',
    '{"query": "space", "filter": "gt(\\"year\\", "}',
    '{"query": "space", "filter": "between(\\"year\\", 1, 2)"}',
]


@pytest.mark.parametrize("reply", REPLIES)
def test_output_parser_reads_replies_as_langchains(reply: str) -> None:
    ours = StructuredQueryOutputParser.from_components().parse(reply)
    theirs = LCStructuredQueryOutputParser.from_components().parse(reply)
    assert plain(ours) == plain(theirs)


@pytest.mark.parametrize("reply", BAD_REPLIES)
def test_output_parser_refuses_what_langchains_refuses(reply: str) -> None:
    with pytest.raises(LCOutputParserException):
        LCStructuredQueryOutputParser.from_components().parse(reply)
    with pytest.raises(OutputParserException):
        StructuredQueryOutputParser.from_components().parse(reply)


def test_fix_invalid_drops_what_is_not_allowed() -> None:
    """Where LangChain's fix_invalid works (a filter dropped whole, or kept whole) both
    agree; where it would drop an operation's argument, LangChain's raises (its fixed
    argument list keeps the dropped ones as None, which Operation refuses) and ragline
    drops it, as LangChain documents fix_invalid (see docs/differences-from-langchain.md)."""
    options: dict[str, Any] = {
        "allowed_comparators": ["eq", "gt", "lt"],
        "allowed_operators": ["and"],
        "allowed_attributes": ["genre", "year"],
        "fix_invalid": True,
    }
    ours_parser = StructuredQueryOutputParser.from_components(**options)
    lc_parser = LCStructuredQueryOutputParser.from_components(**options)
    for expression, expected in [
        ('like(\\"title\\", \\"a%\\")', None),
        ('or(eq(\\"genre\\", \\"drama\\"), gt(\\"year\\", 1))', None),
        ('eq(\\"studio\\", 3)', None),
        (
            'and(eq(\\"genre\\", \\"drama\\"), gt(\\"year\\", 1))',
            (
                "operation",
                "and",
                [("comparison", "eq", "genre", "drama"), ("comparison", "gt", "year", 1)],
            ),
        ),
    ]:
        reply = '{"query": "x", "filter": "' + expression + '"}'
        assert (
            plain(ours_parser.parse(reply))
            == plain(lc_parser.parse(reply))
            == ("query", "x", expected, None)
        )
    reply = (
        '{"query": "x", "filter": "and(eq(\\"genre\\", \\"drama\\"), like(\\"title\\", '
        '\\"a%\\"), gt(\\"studio\\", 3), or(lt(\\"year\\", 2000), eq(\\"year\\", 2014)))"}'
    )
    with pytest.raises(LCOutputParserException):
        lc_parser.parse(reply)
    assert plain(ours_parser.parse(reply)) == (
        "query",
        "x",
        ("comparison", "eq", "genre", "drama"),
        None,
    )


def test_fix_filter_directive_called_directly_as_langchains() -> None:
    allowed: dict[str, Any] = {
        "allowed_comparators": ["eq", "lt"],
        "allowed_operators": ["or"],
        "allowed_attributes": ["genre", "year"],
    }
    for expression in [
        'eq("genre", "drama")',
        'gt("year", 2000)',
        'eq("studio", "A24")',
        'or(eq("genre", "drama"), lt("year", 2000))',
        'and(eq("genre", "drama"), lt("year", 2000))',
    ]:
        ours = fix_filter_directive(get_parser().parse(expression), **allowed)
        theirs = lc_fix_filter_directive(lc_get_parser().parse(expression), **allowed)
        assert plain(ours) == plain(theirs)
    assert fix_filter_directive(None, **allowed) is None
    kept = get_parser().parse('gt("year", 2000)')
    assert fix_filter_directive(kept) is kept  # nothing restricted: as given


def test_construct_examples_as_langchains() -> None:
    pairs = [
        (
            "dramas after 2000",
            {"query": "", "filter": 'and(eq("genre", "drama"), gt("year", 2000))'},
        ),
        ("three films about space", {"query": "space", "filter": "NO_FILTER", "limit": 3}),
    ]
    assert construct_examples(pairs) == lc_construct_examples(pairs)


# ---------------------------------------------------------------- the prompt's shape


def test_prompt_takes_langchains_variables() -> None:
    ours_info = [AttributeInfo(name=n, description=d, type=t) for n, d, t in ATTRIBUTES]
    lc_info = [LCAttributeInfo(name=n, description=d, type=t) for n, d, t in ATTRIBUTES]
    for options in (
        {},
        {"enable_limit": True},
        {"examples": [("films by Nolan", {"query": "", "filter": 'eq("director", "Nolan")'})]},
    ):
        ours = get_query_constructor_prompt(CONTENTS, ours_info, **options)  # type: ignore[arg-type]
        theirs = lc_get_query_constructor_prompt(CONTENTS, lc_info, **options)
        assert ours.input_variables == theirs.input_variables == ["query"]
        text = ours.format(query="dramas after 2000")
        assert text.rstrip().endswith("dramas after 2000\n\nStructured request:")
        assert '"year": {' in text and CONTENTS in text
    assert dict(ours_info[1]) == dict(lc_info[1])


# ---------------------------------------------------------------- the retriever


def _info(library: str) -> list[Any]:
    cls = AttributeInfo if library == "ragline" else LCAttributeInfo
    return [cls(name=n, description=d, type=t) for n, d, t in ATTRIBUTES]


def _langchain_retriever(reply: str, **options: Any) -> LCSelfQueryRetriever:
    store = LCFAISS.from_documents(
        [LCDocument(page_content=t, metadata=m) for t, m in zip(TEXTS, METADATAS, strict=True)],
        LCLetters(),
    )
    return LCSelfQueryRetriever.from_llm(
        LCFakeListLLM(responses=[reply]),
        store,
        CONTENTS,
        _info("langchain"),
        structured_query_translator=ChromaTranslator(),
        **options,
    )


def _ragline_retriever(kind: str, reply: str, **options: Any) -> SelfQueryRetriever:
    docs = [Document(page_content=t, metadata=m) for t, m in zip(TEXTS, METADATAS, strict=True)]
    store_class = FAISS if kind == "faiss" else InMemoryVectorStore
    store = store_class.from_documents(docs, Letters())
    return SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[reply]), store, CONTENTS, _info("ragline"), **options
    )


SCENARIOS: dict[str, tuple[str, dict[str, Any]]] = {
    "and": (
        '{"query": "drama", "filter": "and(eq(\\"genre\\", \\"drama\\"), gt(\\"year\\", 2000))"}',
        {},
    ),
    "or": (
        '{"query": "a story", "filter": '
        '"or(lt(\\"rating\\", 7.2), eq(\\"director\\", \\"Nolan\\"))"}',
        {},
    ),
    "nested": (
        '{"query": "space", "filter": "or(and(gte(\\"year\\", 1993), lte(\\"year\\", 2004)), '
        'eq(\\"genre\\", \\"thriller\\"))"}',
        {"search_kwargs": {"k": 3}},
    ),
    "no filter": (
        '```json\n{"query": "drama by the sea", "filter": "NO_FILTER"}\n```',
        {"search_kwargs": {"k": 2}},
    ),
    "empty query": ('{"query": "", "filter": "eq(\\"genre\\", \\"animated\\")"}', {}),
    "limit": ('{"query": "drama", "filter": "NO_FILTER", "limit": 3}', {"enable_limit": True}),
    "limit over k": (
        '{"query": "space", "filter": "gt(\\"rating\\", 8.0)", "limit": 2}',
        {"enable_limit": True, "search_kwargs": {"k": 5}},
    ),
    "original query": (
        '{"query": "zzz", "filter": "eq(\\"director\\", \\"Nolan\\")"}',
        {"use_original_query": True},
    ),
    "mmr": (
        '{"query": "drama", "filter": "gte(\\"year\\", 1995)"}',
        {"search_type": "mmr", "search_kwargs": {"k": 3, "fetch_k": 6}},
    ),
}
QUESTION = "dramas in space after 2000"


@pytest.mark.parametrize("kind", ["faiss", "in_memory"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_retriever_returns_langchains_documents(kind: str, name: str) -> None:
    reply, options = SCENARIOS[name]
    theirs = [
        (d.page_content, d.metadata)
        for d in _langchain_retriever(reply, **options).invoke(QUESTION)
    ]
    ours = [
        (d.page_content, d.metadata)
        for d in _ragline_retriever(kind, reply, **options).invoke(QUESTION)
    ]
    if name == "empty query" and kind == "in_memory":
        # the query " " embeds as the zero vector: every document ties, and the
        # in-memory store breaks ties as LangChain's InMemoryVectorStore, not its FAISS
        ours, theirs = sorted(ours, key=str), sorted(theirs, key=str)
    assert ours == theirs
    assert theirs  # every scenario finds something


def test_retriever_async_and_query_constructor_match_langchains() -> None:
    reply, options = SCENARIOS["and"]
    lc = _langchain_retriever(reply, **options)
    ours = _ragline_retriever("faiss", reply, **options)
    theirs_docs = asyncio.run(lc.ainvoke(QUESTION))
    our_docs = asyncio.run(ours.ainvoke(QUESTION))
    assert [d.page_content for d in our_docs] == [d.page_content for d in theirs_docs]
    assert plain(ours.llm_chain.invoke({"query": QUESTION})) == plain(
        lc.llm_chain.invoke({"query": QUESTION})
    )


@pytest.mark.parametrize(
    "reply",
    [
        "I cannot help with that.",
        '{"query": "x", "filter": "like(\\"genre\\", \\"dra%\\")"}',  # not offered by either
        '{"query": "x", "filter": "not(eq(\\"genre\\", \\"drama\\"))"}',
        '{"query": "x", "filter": "eq(\\"studio\\", \\"A24\\")"}',  # not a described attribute
        '{"query": "x", "filter": "eq(\\"genre\\", \\"drama\\""}',
    ],
)
def test_bad_replies_raise_output_parser_exception_in_both(reply: str) -> None:
    with pytest.raises(LCOutputParserException):
        _langchain_retriever(reply).invoke(QUESTION)
    with pytest.raises(OutputParserException):
        _ragline_retriever("faiss", reply).invoke(QUESTION)


def test_run_tree_names_the_query_constructor_as_langchain() -> None:
    from langchain_core.tracers.context import collect_runs as lc_collect_runs

    from ragline.core.callbacks import collect_runs

    reply, _ = SCENARIOS["and"]
    with lc_collect_runs() as lc_runs:
        _langchain_retriever(reply).invoke(QUESTION)
    with collect_runs() as runs:
        _ragline_retriever("faiss", reply).invoke(QUESTION)
    lc_root, root = lc_runs.traced_runs[0], runs.traced_runs[0]
    assert (root.name, root.run_type) == (lc_root.name, lc_root.run_type)
    assert [(c.name, c.run_type) for c in root.child_runs] == [
        (c.name, c.run_type) for c in lc_root.child_runs
    ]


@pytest.mark.parametrize("name", ["and", "or", "limit over k"])
def test_a_langchain_translator_serves_a_ported_program(name: str) -> None:
    """A LangChain program over a store without a built-in translator passes one
    (``ChromaTranslator``, which ``ragline port`` leaves as it is): after porting, the
    same translator object works with ragline's retriever and FAISS."""
    reply, options = SCENARIOS[name]
    theirs = [d.page_content for d in _langchain_retriever(reply, **options).invoke(QUESTION)]
    docs = [Document(page_content=t, metadata=m) for t, m in zip(TEXTS, METADATAS, strict=True)]
    ours = SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[reply]),
        FAISS.from_documents(docs, Letters()),
        CONTENTS,
        _info("ragline"),
        structured_query_translator=ChromaTranslator(),
        **options,
    )
    assert [d.page_content for d in ours.invoke(QUESTION)] == theirs


def test_verbose_logs_the_generated_query_as_langchain(caplog: pytest.LogCaptureFixture) -> None:
    reply, _ = SCENARIOS["and"]
    with caplog.at_level(logging.INFO):
        _langchain_retriever(reply, verbose=True).invoke(QUESTION)
        theirs = [r.getMessage() for r in caplog.records if r.name.startswith("langchain")]
        caplog.clear()
        _ragline_retriever("faiss", reply, verbose=True).invoke(QUESTION)
        ours = [r.getMessage() for r in caplog.records if r.name.startswith("ragline")]
    assert ours == theirs
    assert theirs[0].startswith("Generated Query: query='drama' filter=Operation(")


def test_filter_dicts_are_chromas_where_both_say_the_same() -> None:
    """ragline's filter language and ChromaTranslator's dicts agree on the comparators
    LangChain's FAISS reads (ne included: LangChain's FAISS spells it $neq, so it is
    compared here as a dict)."""
    expression = (
        'and(eq("genre", "drama"), ne("director", "Nolan"), or(gt("year", 1990), '
        'lte("rating", 7.0)), gte("year", 1995), lt("year", 2020))'
    )
    ours = FilterTranslator().visit_structured_query(
        StructuredQuery(query="q", filter=get_parser().parse(expression))
    )
    theirs = ChromaTranslator().visit_structured_query(
        LCStructuredQuery(query="q", filter=lc_get_parser().parse(expression))
    )
    assert ours == theirs


# ---------------------------------------------------------------- Redis

REDIS_SCHEMA = {
    "tag": [{"name": "genre"}, {"name": "director"}],
    "numeric": [{"name": "year"}, {"name": "rating"}],
}


@pytest.fixture
def redis_indexes(redis_url: str) -> Iterator[tuple[Any, str, Redis]]:
    import redis as redis_py

    name = uuid.uuid4().hex[:8]
    client = redis_py.Redis.from_url(redis_url, protocol=2)
    for i, (text, metadata) in enumerate(zip(TEXTS, METADATAS, strict=True)):
        client.hset(f"lc-{name}:{i}", mapping={"content": text, **metadata})
    client.execute_command(
        "FT.CREATE", f"lc-{name}", "ON", "HASH", "PREFIX", "1", f"lc-{name}:", "SCHEMA",
        "content", "TEXT", "genre", "TAG", "director", "TAG", "year", "NUMERIC",
        "rating", "NUMERIC",
    )  # fmt: skip
    ours = Redis.from_texts(
        TEXTS, Letters(), METADATAS, index_name=f"rl-{name}", redis_url=redis_url,
        index_schema={"genre": "tag", "director": "tag", "year": "numeric", "rating": "numeric"},
    )  # fmt: skip
    yield client, f"lc-{name}", ours
    client.execute_command("FT.DROPINDEX", f"lc-{name}", "DD")
    client.close()
    ours.drop_index(delete_documents=True)
    ours.close()


REDIS_FILTERS = [
    'eq("genre", "drama")',
    'ne("director", "Nolan")',
    'and(eq("genre", "drama"), gt("year", 2000))',
    'or(lt("rating", 7.2), eq("director", "Nolan"))',
    'or(and(gte("year", 1993), lte("year", 2004)), eq("genre", "thriller"))',
    'and(contain("genre", "animated"), lt("year", 2000), gte("rating", 8))',
]


@pytest.mark.redis
@pytest.mark.parametrize("expression", REDIS_FILTERS)
def test_redis_self_query_selects_what_langchains_query_selects(
    redis_indexes: tuple[Any, str, Redis], expression: str
) -> None:
    client, lc_index, store = redis_indexes
    lc_filter = LCRedisTranslator(RedisModel(**REDIS_SCHEMA)).visit_structured_query(
        LCStructuredQuery(query="q", filter=lc_get_parser().parse(expression))
    )[1]["filter"]
    reply = json.dumps({"query": "a film", "filter": expression})
    retriever = SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[reply]), store, CONTENTS, _info("ragline"), search_kwargs={"k": 20}
    )
    found = sorted(d.page_content for d in retriever.invoke(QUESTION))
    ours = retriever.structured_query_translator.visit_structured_query(
        StructuredQuery(query="q", filter=get_parser().parse(expression))
    )[1]["filter"]
    reply_rows = client.execute_command(
        "FT.SEARCH", lc_index, str(lc_filter), "RETURN", "1", "content", "LIMIT", "0", "100",
        "DIALECT", "2",
    )  # fmt: skip
    assert str(ours) == str(lc_filter)
    assert found == sorted(fields[1].decode() for fields in reply_rows[2::2])
    assert found


def test_redis_translator_offers_langchains_comparators_but_like() -> None:
    assert [*RedisTranslator.allowed_comparators, "like"] == [
        str(c.value) for c in LCRedisTranslator.allowed_comparators
    ]
    assert [str(o.value) for o in RedisTranslator.allowed_operators] == [
        str(o.value) for o in LCRedisTranslator.allowed_operators
    ]
