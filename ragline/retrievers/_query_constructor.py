"""The query constructor: a model turns a question into a :class:`StructuredQuery`.

:func:`get_query_constructor_prompt` asks the model for a JSON object with the search
text (``"query"``), a filter in the expression language of :mod:`._query_parser`
(``"filter"``; ``"NO_FILTER"`` when there is none) and, with ``enable_limit``, a result
count (``"limit"``). :class:`StructuredQueryOutputParser` reads that reply back, and
:func:`load_query_constructor_runnable` is ``prompt | llm | parser``. The names, the
prompt's variables and the parsing rules are LangChain's; the prompt's wording and its
default examples are ragline's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ragline.core import (
    BaseOutputParser,
    BasePromptTemplate,
    FewShotPromptTemplate,
    OutputParserException,
    PromptTemplate,
    Runnable,
)
from ragline.core._partial_json import parse_json_markdown
from ragline.core.structured_query import (
    Comparator,
    Comparison,
    FilterDirective,
    Operation,
    Operator,
    StructuredQuery,
)
from ragline.retrievers._query_parser import get_parser

__all__ = [
    "AttributeInfo",
    "StructuredQueryOutputParser",
    "construct_examples",
    "fix_filter_directive",
    "get_query_constructor_prompt",
    "load_query_constructor_runnable",
]


@dataclass(frozen=True)
class AttributeInfo:
    """A metadata attribute the model may filter on: its name, what it means, its type.

    ``dict(info)`` gives ``{"name": ..., "description": ..., "type": ...}``.

    Example:
        >>> dict(AttributeInfo(name="year", description="release year", type="integer"))
        {'name': 'year', 'description': 'release year', 'type': 'integer'}
    """

    name: str
    description: str
    type: str

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        yield from (("name", self.name), ("description", self.description), ("type", self.type))

    def model_dump(self) -> dict[str, Any]:
        """The attribute as a dict (pydantic's spelling)."""
        return dict(self)


class StructuredQueryOutputParser(BaseOutputParser[StructuredQuery]):
    """The model's JSON reply (``{"query": ..., "filter": ..., "limit": ...}``, fenced
    or not) as a :class:`StructuredQuery`.

    An empty or null ``query`` becomes ``" "``; a ``filter`` of ``"NO_FILTER"`` or an
    empty one means no filter; otherwise ``ast_parse`` (a function from the expression
    text to a filter tree) reads it. A missing or zero ``limit`` means none.

    Raises:
        OutputParserException: the reply is not such a JSON object or its filter does
            not parse; the message holds the reply and the reason.
    """

    ast_parse: Callable[[str], Any]

    @property
    def OutputType(self) -> Any:
        return StructuredQuery

    def parse(self, text: str) -> StructuredQuery:
        try:
            return self._parse(text)
        except Exception as err:
            raise OutputParserException(
                f"could not read a structured query from the model's reply ({err}); "
                f"the reply was:\n{text}",
                llm_output=text,
            ) from err

    def _parse(self, text: str) -> StructuredQuery:
        try:
            parsed = parse_json_markdown(text)
        except ValueError:  # cut off (max_tokens): what arrived, as LangChain reads it
            parsed = parse_json_markdown(text, partial=True)
        if not isinstance(parsed, dict):
            raise ValueError(f"expected a JSON object, got {type(parsed).__name__}")
        missing = [key for key in ("query", "filter") if key not in parsed]
        if missing:
            raise ValueError(f"the JSON object lacks {' and '.join(map(repr, missing))}")
        query = parsed["query"] or " "
        if not isinstance(query, str):
            raise ValueError(f"'query' must be a string, got {query!r}")
        raw = parsed["filter"]
        filter = None if raw == "NO_FILTER" or not raw else self.ast_parse(raw)
        limit = parsed.get("limit") or None
        if limit is not None:
            limit = _whole_number(limit)
        return StructuredQuery(query=query, filter=filter, limit=limit)

    @classmethod
    def from_components(
        cls,
        allowed_comparators: Sequence[Comparator] | None = None,
        allowed_operators: Sequence[Operator] | None = None,
        allowed_attributes: Sequence[str] | None = None,
        fix_invalid: bool = False,
    ) -> StructuredQueryOutputParser:
        """A parser whose filters may use only the given comparators, operators and
        attributes (None: any). With ``fix_invalid`` the filter is parsed in full and
        what is not allowed is dropped (:func:`fix_filter_directive`) instead of
        raising."""
        if not fix_invalid:
            return cls(
                ast_parse=get_parser(
                    allowed_comparators, allowed_operators, allowed_attributes
                ).parse
            )
        parser = get_parser()

        def ast_parse(raw: str) -> FilterDirective | None:
            return fix_filter_directive(
                parser.parse(raw),
                allowed_comparators=allowed_comparators,
                allowed_operators=allowed_operators,
                allowed_attributes=allowed_attributes,
            )

        return cls(ast_parse=ast_parse)


def _whole_number(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"'limit' must be a whole number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value)
    raise ValueError(f"'limit' must be a whole number, got {value!r}")


def fix_filter_directive(
    filter: FilterDirective | None,
    *,
    allowed_comparators: Sequence[Comparator] | None = None,
    allowed_operators: Sequence[Operator] | None = None,
    allowed_attributes: Sequence[str] | None = None,
) -> FilterDirective | None:
    """``filter`` without the comparisons and operations that are not allowed.

    A comparison with a comparator or attribute not allowed, or an operation whose
    operator is not allowed, is dropped; an operation left with no argument is dropped,
    and an ``and`` / ``or`` left with one is that one. Nothing allowed left: None.
    """
    if filter is None or not (allowed_comparators or allowed_operators or allowed_attributes):
        return filter
    if isinstance(filter, Comparison):
        if allowed_comparators and filter.comparator not in allowed_comparators:
            return None
        if allowed_attributes and filter.attribute not in allowed_attributes:
            return None
        return filter
    if isinstance(filter, Operation):
        if allowed_operators and filter.operator not in allowed_operators:
            return None
        kept = [
            fixed
            for argument in filter.arguments
            if (
                fixed := fix_filter_directive(
                    argument,
                    allowed_comparators=allowed_comparators,
                    allowed_operators=allowed_operators,
                    allowed_attributes=allowed_attributes,
                )
            )
            is not None
        ]
        if not kept:
            return None
        if len(kept) == 1 and filter.operator in (Operator.AND, Operator.OR):
            return kept[0]
        return Operation(operator=filter.operator, arguments=kept)
    return filter


# ---------------------------------------------------------------- the prompt (own wording)

_SCHEMA = """\
Answer with one JSON object in a markdown code block, in this form:

```json
{{{{
    "query": string \\ the words to search the document texts for
    "filter": string \\ a condition on the documents' metadata{limit_line}
}}}}
```

"query" holds only what the text of a document should be about; leave out every \
condition that the filter expresses. If nothing is left, use an empty string.

"filter" is one expression, or the string "NO_FILTER" when the question sets no \
condition. An expression is built from:
- a comparison: `comp(attr, val)`, where `comp` is one of {{allowed_comparators}}, \
`attr` is the name of a metadata attribute in double quotes and `val` the value to \
compare it with
- a logical operation: `op(expr1, expr2, ...)`, where `op` is one of \
{{allowed_operators}} and each argument is a comparison or another operation

Use only the attributes described for the data source, with values of the type the \
attribute has. Write dates as "YYYY-MM-DD" and lists as ["a", "b"].{limit_rule}
"""

_LIMIT_LINE = '\n    "limit": int \\ how many documents the question asks for'
_LIMIT_RULE = '\nGive "limit" only when the question asks for a number of documents.'

DEFAULT_SCHEMA_PROMPT = PromptTemplate.from_template(_SCHEMA.format(limit_line="", limit_rule=""))
SCHEMA_WITH_LIMIT_PROMPT = PromptTemplate.from_template(
    _SCHEMA.format(limit_line=_LIMIT_LINE, limit_rule=_LIMIT_RULE)
)

_BOOKS = {
    "content": "Summaries of novels",
    "attributes": {
        "author": {"type": "string", "description": "The novel's author"},
        "pages": {"type": "integer", "description": "Number of pages"},
        "language": {"type": "string", "description": "Language it was written in"},
    },
}


# The examples are literal text: ragline's FewShotPromptTemplate renders only the
# prefix and suffix as templates, so the examples' braces are written once (LangChain's
# are doubled, as its template renders the examples again).
def _example(i: int, question: str, answer: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "i": i,
        "data_source": "```json\n" + json.dumps(_BOOKS, indent=4) + "\n```",
        "user_query": question,
        "structured_request": "```json\n" + json.dumps(dict(answer), indent=4) + "\n```",
    }


def _braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


DEFAULT_EXAMPLES = [
    _example(
        1,
        "Short novels by Ursula K. Le Guin or Italo Calvino, under 250 pages",
        {
            "query": "",
            "filter": 'and(or(eq("author", "Ursula K. Le Guin"), eq("author", "Italo Calvino")), '
            'lt("pages", 250))',
        },
    ),
    _example(2, "Novels about the sea", {"query": "the sea", "filter": "NO_FILTER"}),
]
EXAMPLES_WITH_LIMIT = [
    *DEFAULT_EXAMPLES,
    _example(
        3,
        "Three novels written in French about a long journey",
        {"query": "a long journey", "filter": 'eq("language", "French")', "limit": 3},
    ),
]

EXAMPLE_PROMPT = PromptTemplate.from_template(
    "<< Example {i} >>\nData source:\n{data_source}\n\nQuestion:\n{user_query}\n\n"
    "Structured request:\n{structured_request}\n"
)
USER_SPECIFIED_EXAMPLE_PROMPT = PromptTemplate.from_template(
    "<< Example {i} >>\nQuestion:\n{user_query}\n\nStructured request:\n"
    "```json\n{structured_request}\n```\n"
)

_PREFIX = "Your task is to turn a question into a search request over a document store.\n\n{schema}"
_PREFIX_WITH_DATA_SOURCE = _PREFIX + "\n<< Data source >>\n```json\n{data_source}\n```\n"
_SUFFIX = (
    "<< Example {i} >>\nData source:\n```json\n{data_source}\n```\n\n"
    "Question:\n{{query}}\n\nStructured request:\n"
)
_SUFFIX_WITHOUT_DATA_SOURCE = "<< Example {i} >>\nQuestion:\n{{query}}\n\nStructured request:\n"


def construct_examples(
    input_output_pairs: Sequence[tuple[str, Mapping[str, Any]]],
) -> list[dict[str, Any]]:
    """``(question, answer dict)`` pairs as example dicts (``i`` from 1, ``user_query``,
    ``structured_request``: the answer as indented JSON with its braces doubled, as
    LangChain's, for a template that renders the examples again).

    :func:`get_query_constructor_prompt` does not double them: ragline's
    ``FewShotPromptTemplate`` keeps examples literal.
    """
    return [
        {**example, "structured_request": _braces(example["structured_request"])}
        for example in _examples_from_pairs(input_output_pairs)
    ]


def _examples_from_pairs(
    input_output_pairs: Sequence[tuple[str, Mapping[str, Any]]],
) -> list[dict[str, Any]]:
    return [
        {"i": i, "user_query": question, "structured_request": json.dumps(dict(answer), indent=4)}
        for i, (question, answer) in enumerate(input_output_pairs, start=1)
    ]


def _data_source(
    document_contents: str, attribute_info: Sequence[AttributeInfo | Mapping[str, Any]]
) -> str:
    """The data source as JSON, its braces doubled for the prompt template."""
    described: dict[str, Any] = {}
    for info in attribute_info:
        fields = dict(info)
        if "name" not in fields:
            raise ValueError(f"an attribute description needs a 'name', got {fields!r}")
        described[fields.pop("name")] = fields
    source = {"content": document_contents, "attributes": described}
    return _braces(json.dumps(source, indent=4, ensure_ascii=False))


def get_query_constructor_prompt(
    document_contents: str,
    attribute_info: Sequence[AttributeInfo | Mapping[str, Any]],
    *,
    examples: Sequence[Any] | None = None,
    allowed_comparators: Sequence[Comparator] = tuple(Comparator),
    allowed_operators: Sequence[Operator] = tuple(Operator),
    enable_limit: bool = False,
    schema_prompt: BasePromptTemplate | None = None,
    **kwargs: Any,
) -> FewShotPromptTemplate:
    """The few-shot prompt that asks a model for a structured query (input ``{query}``).

    Args:
        document_contents: what the documents' texts are.
        attribute_info: the metadata attributes (``AttributeInfo`` or dicts with
            ``name``, ``description``, ``type``).
        examples: ``(question, answer dict)`` pairs, or example dicts for the default
            example prompt (``i``, ``data_source``, ``user_query``,
            ``structured_request``); default: ragline's own examples.
        allowed_comparators / allowed_operators: what the prompt offers the model.
        enable_limit: also ask for ``limit`` (a result count).
        schema_prompt: replaces the description of the answer's form; takes
            ``{allowed_comparators}`` and ``{allowed_operators}``.
        **kwargs: passed on to ``FewShotPromptTemplate``.
    """
    schema_prompt = schema_prompt or (
        SCHEMA_WITH_LIMIT_PROMPT if enable_limit else DEFAULT_SCHEMA_PROMPT
    )
    schema = schema_prompt.format(
        allowed_comparators=" | ".join(str(c) for c in allowed_comparators),
        allowed_operators=" | ".join(str(o) for o in allowed_operators),
    )
    data_source = _data_source(document_contents, attribute_info)
    if examples and isinstance(examples[0], tuple):
        pairs = cast("Sequence[tuple[str, Mapping[str, Any]]]", examples)
        example_list = _examples_from_pairs(pairs)
        example_prompt = USER_SPECIFIED_EXAMPLE_PROMPT
        prefix = _PREFIX_WITH_DATA_SOURCE.format(schema=_braces(schema), data_source=data_source)
        suffix = _SUFFIX_WITHOUT_DATA_SOURCE.format(i=len(example_list) + 1)
    else:
        example_list = list(examples or (EXAMPLES_WITH_LIMIT if enable_limit else DEFAULT_EXAMPLES))
        example_prompt = EXAMPLE_PROMPT
        prefix = _PREFIX.format(schema=_braces(schema))
        suffix = _SUFFIX.format(i=len(example_list) + 1, data_source=data_source)
    return FewShotPromptTemplate(
        examples=example_list,
        example_prompt=example_prompt,
        input_variables=["query"],
        prefix=prefix,
        suffix=suffix,
        **kwargs,
    )


def load_query_constructor_runnable(
    llm: Runnable[Any, Any],
    document_contents: str,
    attribute_info: Sequence[AttributeInfo | Mapping[str, Any]],
    *,
    examples: Sequence[Any] | None = None,
    allowed_comparators: Sequence[Comparator] = tuple(Comparator),
    allowed_operators: Sequence[Operator] = tuple(Operator),
    enable_limit: bool = False,
    schema_prompt: BasePromptTemplate | None = None,
    fix_invalid: bool = False,
    **kwargs: Any,
) -> Runnable[dict[str, Any], StructuredQuery]:
    """``prompt | llm | parser``: ``{"query": question}`` in, a :class:`StructuredQuery`
    out. The parser allows only the given comparators, operators and the described
    attributes (``fix_invalid``: drops the rest instead of raising). The other
    arguments are :func:`get_query_constructor_prompt`'s.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> import json
        >>> reply = json.dumps({"query": "dogs", "filter": 'gt("year", 2000)'})
        >>> year = AttributeInfo(name="year", description="year", type="integer")
        >>> chain = load_query_constructor_runnable(FakeListLLM(responses=[reply]), "Pets", [year])
        >>> chain.invoke({"query": "dog stories after 2000"}).filter
        Comparison(comparator=<Comparator.GT: 'gt'>, attribute='year', value=2000)
    """
    prompt = get_query_constructor_prompt(
        document_contents,
        attribute_info,
        examples=examples,
        allowed_comparators=allowed_comparators,
        allowed_operators=allowed_operators,
        enable_limit=enable_limit,
        schema_prompt=schema_prompt,
        **kwargs,
    )
    allowed_attributes = [dict(info)["name"] for info in attribute_info]
    parser = StructuredQueryOutputParser.from_components(
        allowed_comparators=allowed_comparators,
        allowed_operators=allowed_operators,
        allowed_attributes=allowed_attributes,
        fix_invalid=fix_invalid,
    )
    return prompt | llm | parser
