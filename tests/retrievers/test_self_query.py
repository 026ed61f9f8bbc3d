"""SelfQueryRetriever, its filter-expression parser, output parser and translators.

Exact trees for the parser (every value kind, nesting, the one-argument and/or rule),
clear errors for bad expressions and replies, each translator's output, and the
retriever's search over ragline's stores (limit, use_original_query, search_kwargs,
async, verbose logging, refused stores and options).
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from typing import Any

import pytest

from ragline.core import (
    ConfigurationError,
    Document,
    FakeListLLM,
    FilterError,
    InvalidInputError,
    OutputParserException,
    RunnableLambda,
)
from ragline.core.structured_query import (
    Comparator,
    Comparison,
    Operation,
    Operator,
    StructuredQuery,
    Visitor,
)
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import (
    AttributeInfo,
    FilterTranslator,
    RedisTranslator,
    SelfQueryRetriever,
    StructuredQueryOutputParser,
    get_parser,
    get_query_constructor_prompt,
    load_query_constructor_runnable,
)
from ragline.vectorstores import FAISS, InMemoryVectorStore, VectorStore


def eq(attribute: str, value: Any) -> Comparison:
    return Comparison(comparator=Comparator.EQ, attribute=attribute, value=value)


# ---------------------------------------------------------------- parser: exact trees


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('eq("genre", "drama")', eq("genre", "drama")),
        ("eq('genre', 'drama')", eq("genre", "drama")),
        ('eq("n", 3)', eq("n", 3)),
        ('eq("n", -3)', eq("n", -3)),
        ('eq("n", +3)', eq("n", 3)),
        ('eq("x", 2.5)', eq("x", 2.5)),
        ('eq("x", 1e3)', eq("x", 1000.0)),
        ('eq("x", .5)', eq("x", 0.5)),
        ('eq("x", 7.)', eq("x", 7.0)),
        ('eq("b", true)', eq("b", True)),
        ('eq("b", FALSE)', eq("b", False)),
        ('eq("d", "2024-02-29")', eq("d", {"date": "2024-02-29", "type": "date"})),
        ('eq("d", 2024-02-29)', eq("d", {"date": "2024-02-29", "type": "date"})),
        (
            'eq("t", "2024-02-29T23:59:01Z")',
            eq("t", {"datetime": "2024-02-29T23:59:01Z", "type": "datetime"}),
        ),
        (
            'eq("s", "say \\"hi\\"")',
            eq("s", 'say \\"hi\\'),
        ),  # quotes at the ends stripped
        ('eq("s", "it\'s")', eq("s", "it's")),
        ('eq("s", "")', eq("s", "")),
        ('eq("s", "a, b) c")', eq("s", "a, b) c")),
        (
            'in("l", [1, "a", 2.5, true, []])',
            Comparison(comparator="in", attribute="l", value=[1, "a", 2.5, True, []]),
        ),
        ('in("l", [])', Comparison(comparator="in", attribute="l", value=[])),
        ('and(eq("a", 1))', eq("a", 1)),
        ('or(eq("a", 1))', eq("a", 1)),
        ('not(eq("a", 1))', Operation(operator="not", arguments=[eq("a", 1)])),
        (
            ' and (\n eq("a", 1) ,\tor(eq("b", 2), lt("c", 3), eq("d", 4)) ) ',
            Operation(
                operator=Operator.AND,
                arguments=[
                    eq("a", 1),
                    Operation(
                        operator=Operator.OR,
                        arguments=[
                            eq("b", 2),
                            Comparison(comparator=Comparator.LT, attribute="c", value=3),
                            eq("d", 4),
                        ],
                    ),
                ],
            ),
        ),
    ],
)
def test_parser_builds_the_exact_tree(text: str, expected: Any) -> None:
    assert get_parser().parse(text) == expected


def test_a_date_that_is_no_calendar_date_warns_and_is_kept() -> None:
    with pytest.warns(UserWarning, match="2024-02-30"):
        found = get_parser().parse('eq("d", "2024-02-30")')
    assert found == eq("d", {"date": "2024-02-30", "type": "date"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected a function call"),
        ('"drama"', "expected a function call"),
        ('eq("genre", "drama"', "expected ',' or ')'"),
        ('eq("genre" "drama")', "expected ',' or ')'"),
        ('eq("genre", "drama") and', "nothing more after"),
        ("eq(genre, 1)", "expected '(' after the function name 'genre'"),
        ('eq("a", nope)', "expected '(' after the function name 'nope'"),
        ('eq("a", )', "expected a value"),
        ('in("a", [1, 2)', "expected ',' or ']'"),
        (
            'between("a", 1, 2)',
            "unknown function 'between'; the filter functions are and, or, not, eq",
        ),
        ('eq("a")', "eq() takes 2 arguments (an attribute and a value), got 1"),
        ('eq("a", 1, 2)', "eq() takes 2 arguments"),
        ("eq(1, 2)", "eq()'s first argument is an attribute name, got 1"),
        ("and()", "and() needs at least one filter argument"),
        ('and(eq("a", 1), 2)', "and() joins filters (function calls), got 2"),
        ('eq("t", "2024-13-01T00:00:00")', "the datetime '2024-13-01T00:00:00' is not in ISO 8601"),
        ("true()", "expected a function call"),
    ],
)
def test_bad_expressions_raise_value_errors_saying_what(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=_literal(message)):
        get_parser().parse(text)


def test_the_error_says_where() -> None:
    with pytest.raises(
        ValueError, match=_literal("at character 12: expected ',' or ')', found '\"b\")'")
    ):
        get_parser().parse('eq("a", "x" "b")')


def test_allowed_lists_restrict_the_parser() -> None:
    parser = get_parser(
        allowed_comparators=[Comparator.EQ, Comparator.GT],
        allowed_operators=[Operator.AND],
        allowed_attributes=["genre", "year"],
    )
    assert parser.parse('and(eq("genre", "x"), gt("year", 1))') == Operation(
        operator="and",
        arguments=[eq("genre", "x"), Comparison(comparator="gt", attribute="year", value=1)],
    )
    with pytest.raises(
        ValueError, match="the comparator 'lt' is not allowed here; allowed: eq, gt"
    ):
        parser.parse('lt("year", 1)')
    with pytest.raises(ValueError, match="the operator 'or' is not allowed here; allowed: and"):
        parser.parse('or(eq("genre", "x"), eq("year", 1))')
    with pytest.raises(
        ValueError, match="names the attribute 'studio', which is not one of 'genre', 'year'"
    ):
        parser.parse('eq("studio", "x")')


def test_parser_refuses_what_is_not_text() -> None:
    with pytest.raises(ValueError, match="a filter expression is a str, got int"):
        get_parser().parse(3)  # type: ignore[arg-type]


def _literal(text: str) -> str:
    import re

    return re.escape(text)


# ---------------------------------------------------------------- output parser


def test_output_parser_reads_the_json_reply() -> None:
    parser = StructuredQueryOutputParser.from_components()
    reply = '```json\n{"query": "space", "filter": "gt(\\"year\\", 2000)", "limit": "4"}\n```'
    assert parser.parse(reply) == StructuredQuery(
        query="space", filter=Comparison(comparator="gt", attribute="year", value=2000), limit=4
    )
    assert parser.parse('{"query": null, "filter": "NO_FILTER", "limit": 0}') == StructuredQuery(
        query=" ", filter=None, limit=None
    )
    assert parser.parse('{"query": "x", "filter": "", "limit": 2.0}') == StructuredQuery(
        "x", None, 2
    )
    assert parser.invoke('{"query": "x", "filter": "NO_FILTER"}') == StructuredQuery("x")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("no JSON", "could not read a structured query"),
        ("[1, 2]", "expected a JSON object, got list"),
        ('{"query": "x"}', "the JSON object lacks 'filter'"),
        ("{}", "lacks 'query' and 'filter'"),
        ('{"query": 3, "filter": "NO_FILTER"}', "'query' must be a string, got 3"),
        (
            '{"query": "x", "filter": "NO_FILTER", "limit": "many"}',
            "'limit' must be a whole number, got 'many'",
        ),
        (
            '{"query": "x", "filter": "NO_FILTER", "limit": 2.5}',
            "'limit' must be a whole number, got 2.5",
        ),
        ('{"query": "x", "filter": "eq(\\"a\\""}', "expected ',' or ')'"),
    ],
)
def test_output_parser_errors_hold_the_reason_and_the_reply(reply: str, reason: str) -> None:
    with pytest.raises(OutputParserException, match=_literal(reason)) as caught:
        StructuredQueryOutputParser.from_components().parse(reply)
    assert caught.value.llm_output == reply
    assert reply in str(caught.value)


# ---------------------------------------------------------------- translators


def test_filter_translator_writes_ragline_filters() -> None:
    tree = get_parser().parse(
        'or(and(eq("a", 1), ne("b", "x")), gt("c", 1.5), gte("c", 2), lt("c", 3), lte("c", 4), '
        'in("d", ["p", "q"]), nin("d", "r"), eq("e", "2024-01-31"))'
    )
    query, kwargs = FilterTranslator().visit_structured_query(StructuredQuery("q", tree, 3))
    assert query == "q"
    assert kwargs == {
        "filter": {
            "$or": [
                {"$and": [{"a": {"$eq": 1}}, {"b": {"$ne": "x"}}]},
                {"c": {"$gt": 1.5}},
                {"c": {"$gte": 2}},
                {"c": {"$lt": 3}},
                {"c": {"$lte": 4}},
                {"d": {"$in": ["p", "q"]}},
                {"d": {"$nin": ["r"]}},
                {"e": {"$eq": "2024-01-31"}},
            ]
        }
    }
    assert FilterTranslator().visit_structured_query(StructuredQuery("only text")) == (
        "only text",
        {},
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'contain("a", "x")',
            "FilterTranslator cannot translate the comparator contain: it takes eq, ne",
        ),
        ('like("a", "x%")', "cannot translate the comparator like"),
        ('not(eq("a", 1))', "FilterTranslator cannot translate the operator not: it takes and, or"),
        ('gt("d", "2024-01-31")', "ragline's filter language orders numbers only"),
    ],
)
def test_filter_translator_refuses_what_the_filter_language_cannot_say(
    text: str, message: str
) -> None:
    with pytest.raises(ValueError, match=_literal(message)):
        FilterTranslator().visit_structured_query(StructuredQuery("q", get_parser().parse(text)))


def test_dates_in_a_list_are_compared_as_their_iso_text() -> None:
    """in / nin take dates as eq does (the range error above suggests them)."""
    tree = get_parser().parse(
        'or(in("d", ["2024-01-31", 2024-02-29T10:00:00]), nin("e", ["2023-12-01", 5]))'
    )
    assert FilterTranslator().visit_structured_query(StructuredQuery("q", tree))[1] == {
        "filter": {
            "$or": [
                {"d": {"$in": ["2024-01-31", "2024-02-29T10:00:00"]}},
                {"e": {"$nin": ["2023-12-01", 5]}},
            ]
        }
    }
    store = InMemoryVectorStore.from_documents(
        [
            Document("a", metadata={"d": "2024-01-31"}, id="a"),
            Document("b", metadata={"d": "2024-02-01"}, id="b"),
            Document("c", metadata={"d": "2024-02-29T10:00:00"}, id="c"),
        ],
        EMBEDDINGS,
    )
    retriever = SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[_reply('in("d", ["2024-01-31", "2024-02-29T10:00:00"])')]),
        store,
        "things",
        [AttributeInfo(name="d", description="the day", type="date")],
    )
    assert sorted(d.id for d in retriever.invoke("q")) == ["a", "c"]
    redis = RedisTranslator({"day": "tag"}).visit_comparison(
        get_parser().parse('eq("day", ["2024-01-31", "2024-02-01"])')
    )
    assert (str(redis), dict(redis)) == (
        r"@day:{2024\-01\-31|2024\-02\-01}",  # escaped as LangChain prints it
        {"day": {"$in": ["2024-01-31", "2024-02-01"]}},
    )


SCHEMA = {"color": "tag", "year": "numeric", "job": "text"}


def test_redis_translator_builds_redis_filter_expressions() -> None:
    translator = RedisTranslator(SCHEMA)
    tree = get_parser().parse(
        'and(eq("color", "red"), or(gt("year", 2020), contain("job", "car dealer")), '
        'ne("color", "blue"))'
    )
    expression = translator.visit_structured_query(StructuredQuery("q", tree))[1]["filter"]
    assert str(expression) == (
        '(@color:{red} ((@year:[(2020 +inf] | @job:("car dealer")) (-@color:{blue})))'
    )
    assert dict(expression) == {
        "$and": [
            {"color": {"$eq": "red"}},
            {
                "$and": [
                    {"$or": [{"year": {"$gt": 2020}}, {"job": {"$eq": "car dealer"}}]},
                    {"color": {"$ne": "blue"}},
                ]
            },
        ]
    }


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        (
            'eq("size", 1)',
            ValueError,
            "the attribute 'size' is not an indexed field of the Redis store",
        ),
        ('gt("color", "red")', ValueError, "the tag field 'color' compares with eq / ne only"),
        ('lt("job", "a")', ValueError, "the text field 'job' compares with eq / ne only"),
        ('like("job", "car%")', ValueError, "RedisTranslator cannot translate the comparator like"),
        ('in("color", ["red"])', ValueError, "cannot translate the comparator in"),
        ('eq("year", "new")', FilterError, "RedisNum('year') compares with a number, got 'new'"),
    ],
)
def test_redis_translator_refuses_clearly(text: str, error: type, message: str) -> None:
    with pytest.raises(error, match=_literal(message)):
        RedisTranslator(SCHEMA).visit_structured_query(
            StructuredQuery("q", get_parser().parse(text))
        )


def test_a_visitor_sees_each_node_kind() -> None:
    class Names(Visitor):
        def visit_operation(self, operation: Operation) -> Any:
            return [operation.operator.value, *(a.accept(self) for a in operation.arguments)]

        def visit_comparison(self, comparison: Comparison) -> Any:
            return f"{comparison.attribute} {comparison.comparator} {comparison.value}"

        def visit_structured_query(self, structured_query: StructuredQuery) -> Any:
            return structured_query.filter.accept(self) if structured_query.filter else None

    query = StructuredQuery("q", get_parser().parse('or(eq("a", 1), not(lt("b", 2)))'))
    assert query.accept(Names()) == ["or", "a eq 1", ["not", "b lt 2"]]
    assert str(Comparator.NIN) == "nin" and str(Operator.NOT) == "not"
    assert Comparison("gte", "x", 1).comparator is Comparator.GTE


# ---------------------------------------------------------------- the retriever

TEXTS = ["red apple pie", "green apple tart", "red car engine", "blue car door", "red boat sail"]
METADATAS = [
    {"color": "red", "year": 2019, "kind": "food"},
    {"color": "green", "year": 2020, "kind": "food"},
    {"color": "red", "year": 2021, "kind": "vehicle"},
    {"color": "blue", "year": 2022, "kind": "vehicle"},
    {"color": "red", "year": 2023, "kind": "vehicle"},
]
INFO = [
    AttributeInfo(name="color", description="the colour", type="string"),
    AttributeInfo(name="year", description="the year made", type="integer"),
    {"name": "kind", "description": "food or vehicle", "type": "string"},
]
EMBEDDINGS = HashingEmbeddings(dimension=64)


def _store(kind: str) -> VectorStore:
    docs = [
        Document(t, metadata=m, id=str(i))
        for i, (t, m) in enumerate(zip(TEXTS, METADATAS, strict=True))
    ]
    cls = FAISS if kind == "faiss" else InMemoryVectorStore
    return cls.from_documents(docs, EMBEDDINGS)


def _reply(filter: str, query: str = "red", **extra: Any) -> str:
    return json.dumps({"query": query, "filter": filter, **extra})


@pytest.mark.parametrize("kind", ["faiss", "in_memory"])
@pytest.mark.parametrize(
    ("filter", "expected"),
    [
        ('eq("color", "red")', {"0", "2", "4"}),
        ('and(eq("color", "red"), gt("year", 2020))', {"2", "4"}),
        ('or(eq("color", "green"), gte("year", 2023))', {"1", "4"}),
        ('in("color", ["green", "blue"])', {"1", "3"}),
        ('nin("color", ["red"])', {"1", "3"}),
        ('and(ne("kind", "food"), lte("year", 2021))', {"2"}),
        ("NO_FILTER", {"0", "1", "2", "3", "4"}),
    ],
)
def test_retriever_finds_the_documents_the_filter_selects(
    kind: str, filter: str, expected: set[str]
) -> None:
    retriever = SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[_reply(filter)]),
        _store(kind),
        "things",
        INFO,
        search_kwargs={"k": 10},
    )
    assert {d.id for d in retriever.invoke("anything")} == expected


def test_limit_sets_k_over_search_kwargs_and_original_query_is_used() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    store = _store("in_memory")
    search = store.search

    def spy(query: str, search_type: str, **kwargs: Any) -> list[Document]:
        seen.append((query, kwargs))
        return search(query, search_type, **kwargs)

    store.search = spy  # type: ignore[method-assign]
    retriever = SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[_reply('eq("kind", "vehicle")', query="car", limit=2)] * 2),
        store,
        "things",
        INFO,
        enable_limit=True,
        search_kwargs={"k": 5, "filter": {"color": "blue"}},
    )
    assert len(retriever.invoke("red cars please")) == 2
    assert seen[-1] == ("car", {"k": 2, "filter": {"kind": {"$eq": "vehicle"}}})
    retriever.use_original_query = True
    retriever.invoke("red cars please")
    assert seen[-1][0] == "red cars please"


def test_async_and_sync_agree() -> None:
    reply = _reply('gt("year", 2020)', query="red car")
    retriever = SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[reply] * 2), _store("faiss"), "things", INFO
    )
    assert asyncio.run(retriever.ainvoke("q")) == retriever.invoke("q")


def test_verbose_logs_the_generated_query(caplog: pytest.LogCaptureFixture) -> None:
    retriever = SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[_reply('eq("color", "red")')]),
        _store("in_memory"),
        "things",
        INFO,
        verbose=True,
    )
    with caplog.at_level(logging.INFO, logger="ragline.retrievers"):
        retriever.invoke("q")
    assert caplog.messages == [
        "Generated Query: query='red' filter=Comparison("
        "comparator=<Comparator.EQ: 'eq'>, attribute='color', value='red') limit=None"
    ]


def test_from_llm_offers_the_translators_comparators_unless_told() -> None:
    prompt_seen: list[str] = []

    def model(prompt: Any) -> str:
        prompt_seen.append(prompt.to_string())
        return _reply("NO_FILTER")

    SelfQueryRetriever.from_llm(RunnableLambda(model), _store("in_memory"), "things", INFO).invoke(
        "q"
    )
    assert "one of eq | ne | gt | gte | lt | lte | in | nin," in prompt_seen[-1]
    assert "one of and | or and each" in prompt_seen[-1]
    SelfQueryRetriever.from_llm(
        RunnableLambda(model), _store("in_memory"), "things", INFO,
        chain_kwargs={"allowed_comparators": [Comparator.EQ]},
    ).invoke("q")  # fmt: skip
    assert "one of eq," in prompt_seen[-1]


def test_a_disallowed_comparator_in_the_reply_is_an_output_parser_exception() -> None:
    retriever = SelfQueryRetriever.from_llm(
        FakeListLLM(responses=[_reply('like("color", "re%")')]), _store("in_memory"), "things", INFO
    )
    with pytest.raises(OutputParserException, match="the comparator 'like' is not allowed here"):
        retriever.invoke("q")


def test_constructor_form_and_llm_chain_alias() -> None:
    chain = load_query_constructor_runnable(
        FakeListLLM(responses=[_reply('eq("year", 2022)')]), "things", INFO
    )
    retriever = SelfQueryRetriever(vectorstore=_store("in_memory"), llm_chain=chain)
    assert retriever.query_constructor is chain and retriever.llm_chain is chain
    assert isinstance(retriever.structured_query_translator, FilterTranslator)
    assert [d.id for d in retriever.invoke("q")] == ["3"]


def test_bad_options_are_refused_by_name() -> None:
    store = _store("in_memory")
    chain = RunnableLambda(lambda request: StructuredQuery(request["query"]))
    with pytest.raises(InvalidInputError, match="needs query_constructor, a Runnable"):
        SelfQueryRetriever(vectorstore=store)
    with pytest.raises(InvalidInputError, match="not both"):
        SelfQueryRetriever(vectorstore=store, query_constructor=chain, llm_chain=chain)
    with pytest.raises(
        InvalidInputError, match="must be a Visitor \\(with visit_structured_query\\), got dict"
    ):
        SelfQueryRetriever(
            vectorstore=store, query_constructor=chain, structured_query_translator={}
        )  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="search_kwargs must be a dict, got list"):
        SelfQueryRetriever(vectorstore=store, query_constructor=chain, search_kwargs=[])  # type: ignore[arg-type]
    with pytest.raises(
        ConfigurationError,
        match="search_type 'simlarity' is not one of 'similarity', 'similarity_score_threshold'",
    ):
        SelfQueryRetriever(vectorstore=store, query_constructor=chain, search_type="simlarity")
    retriever = SelfQueryRetriever(
        vectorstore=store, query_constructor=chain, search_kwargs={"kk": 2}
    )
    with pytest.raises(
        InvalidInputError, match="search 'kk' not accepted by search_type 'similarity'"
    ):
        retriever.invoke("q")


def test_from_llm_refuses_a_translator_that_is_no_visitor_by_name() -> None:
    with pytest.raises(
        InvalidInputError, match="must be a Visitor \\(with visit_structured_query\\), got dict"
    ):
        SelfQueryRetriever.from_llm(
            FakeListLLM(responses=["x"]),
            _store("in_memory"),
            "things",
            INFO,
            structured_query_translator={},  # type: ignore[arg-type]
        )


def test_a_store_without_a_built_in_translator_is_refused() -> None:
    with pytest.raises(
        ValueError, match="SelfQueryRetriever has no built-in translator for object"
    ):
        SelfQueryRetriever.from_llm(FakeListLLM(responses=["x"]), object(), "things", INFO)


def test_prompt_holds_the_data_source_and_the_question() -> None:
    prompt = get_query_constructor_prompt("Recipes {and} cars", INFO, enable_limit=True)
    text = prompt.format(query="two red cars")
    assert '"content": "Recipes {and} cars"' in text
    assert '"kind": {\n            "description": "food or vehicle",' in text
    assert '"limit": int' in text
    assert text.endswith("Question:\ntwo red cars\n\nStructured request:\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        custom = get_query_constructor_prompt(
            "x", INFO, examples=[("q?", {"query": "q", "filter": "NO_FILTER"})]
        )
    assert (
        '<< Example 1 >>\nQuestion:\nq?\n\nStructured request:\n```json\n{\n    "query": "q",'
        in custom.format(query="z")
    )
    with pytest.raises(ValueError, match="an attribute description needs a 'name'"):
        get_query_constructor_prompt("x", [{"description": "d", "type": "t"}])


@pytest.mark.redis
def test_redis_store_with_an_inferred_schema(redis_url: str) -> None:
    """The translator reads the store's fields when it translates: fields inferred from
    documents added after the retriever was built are found."""
    import uuid

    from ragline.vectorstores import Redis

    store = Redis(EMBEDDINGS, index_name=f"sq-{uuid.uuid4().hex[:8]}", redis_url=redis_url)
    try:
        replies = [_reply('and(eq("color", "red"), gte("year", 2021))')] * 2
        retriever = SelfQueryRetriever.from_llm(
            FakeListLLM(responses=replies), store, "things", INFO, search_kwargs={"k": 10}
        )
        assert isinstance(retriever.structured_query_translator, RedisTranslator)
        store.add_texts(TEXTS, METADATAS, ids=[str(i) for i in range(len(TEXTS))])
        assert sorted(d.id for d in retriever.invoke("q")) == ["2", "4"]
        assert sorted(d.id for d in asyncio.run(retriever.ainvoke("q"))) == ["2", "4"]
    finally:
        store.drop_index(delete_documents=True)
        store.close()
