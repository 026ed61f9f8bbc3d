"""Parity: small gaps issue 24 lists (session 20), LangChain as the oracle.

Each scenario runs the same calls through LangChain and ragline and compares what comes
back (a value, or the name of the error raised).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.utils.json import parse_partial_json as lc_parse_partial_json

from ragline.core.output_parsers import parse_partial_json
from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {"core.RemoveMessage"}


def outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return ("value", call(*args, **kwargs))
    except Exception as err:
        return ("raised", type(err).__name__)


# A raw tab, carriage return or other control character inside a string, in complete
# and cut-off texts; a raw newline is read in both modes.
_CONTROL_TEXTS = [
    '{"a": "x\ny"}',
    '{"a": "x\ty"}',
    '{"a": "x\ty',
    '{"a": "x\ny", "b": "z\tw"',
    '{"a": "x\r',
    '[1, "a\tb"]',
    '"ab\tc',
    '  {"k": "v\x01"}  ',
    '{"a": "x\ny\t',
    '{"n": [1, 2',
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("text", _CONTROL_TEXTS)
def test_parse_partial_json_strict(text: str, strict: bool) -> None:
    assert outcome(parse_partial_json, text, strict=strict) == outcome(
        lc_parse_partial_json, text, strict=strict
    )


def test_parse_partial_json_strict_every_prefix() -> None:
    doc = '{"a": "x\ty\r", "b": [1, 2.5, true, null], "c": {"d": "e\nf\\\\g\\"h\\u00e9"}}\n'
    for end in range(1, len(doc) + 1):
        for strict in (False, True):
            text = doc[:end]
            assert outcome(parse_partial_json, text, strict=strict) == outcome(
                lc_parse_partial_json, text, strict=strict
            ), (text, strict)


# A program fixing the record manager's clock (patch.object(rm, "get_time")) over a
# SQLRecordManager: LangChain stamps records with get_time(), so the second run at a
# later fixed stamp finds the first run's leftovers stale; ragline stamped them from its
# own clock (the wall clock, later than both fixed stamps), so nothing was deleted.
_SQL_FIXED_CLOCK = """
from unittest.mock import patch

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.indexing import index
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_classic.indexes import SQLRecordManager

rm = SQLRecordManager("fixed", db_url="sqlite:///:memory:")
rm.create_schema()
vs = InMemoryVectorStore(DeterministicFakeEmbedding(size=5))


def run(docs, at, cleanup="full"):
    with patch.object(rm, "get_time", return_value=at):
        return index(docs, rm, vs, cleanup=cleanup, source_id_key="source")


a = Document("alpha", metadata={"source": "a"})
b = Document("beta", metadata={"source": "b"})
b2 = Document("beta two", metadata={"source": "b"})
print(run([a, b], 1_600_000_000.0))
print(run([a], 1_600_000_100.0))
print(run([b2], 1_600_000_200.0, cleanup="incremental"))
print(run([a, b2], 1_600_000_300.0, cleanup="full"))
print(sorted(d.page_content for d in vs.get_by_ids(rm.list_keys())))
print(len(rm.list_keys(before=1_600_000_250.0)), len(rm.list_keys(after=1_600_000_250.0)))
"""


def test_sql_record_manager_follows_a_patched_clock() -> None:
    expected = _printed(_SQL_FIXED_CLOCK)
    assert expected.splitlines()[1].endswith("'num_deleted': 1}")
    assert _printed(_ported(_SQL_FIXED_CLOCK)) == expected


# RemoveMessage (a removal request, as LangGraph's add_messages reads it): ragline lacked
# the name, so a ported program kept LangChain's class, which ragline's helpers refused.
_REMOVE_MESSAGE = """
import warnings

from langchain_core.load import dumpd, dumps, loads
from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    RemoveMessage,
    convert_to_messages,
    convert_to_openai_messages,
    filter_messages,
    get_buffer_string,
    message_to_dict,
    messages_from_dict,
    trim_messages,
)

warnings.simplefilter("ignore")
gone = RemoveMessage(id="m1")
print(repr(gone))
print(gone)
print(gone.type, repr(gone.content), gone.id, gone.name, repr(gone.text))
print(repr(RemoveMessage("m2", name="n")), RemoveMessage(id="m1") == gone)
print(RemoveMessage(id="m3", content="").id, isinstance(gone, type(HumanMessage("x")).__mro__[1]))
for make in (lambda: RemoveMessage(), lambda: RemoveMessage(id="m4", content="text")):
    try:
        make()
        print("no error")
    except (TypeError, ValueError) as err:
        print("refused", isinstance(err, TypeError), isinstance(err, ValueError))
print(message_to_dict(gone))
print(messages_from_dict([message_to_dict(gone)]))
print(dumps(gone))
print(dumpd(gone))
print(repr(loads(dumps(gone))), loads(dumps(gone)) == gone)
print(convert_to_messages([gone, {"role": "remove", "content": "", "id": "q"}]))
history = [HumanMessage("hi", id="1"), gone, AIMessage("yo", id="2")]
print(filter_messages(history, include_types=["remove"]))
print(filter_messages(history, include_types=[RemoveMessage]))
print(filter_messages(history, exclude_types=["human"]))
print(filter_messages(history, include_ids=["m1"]))
print(trim_messages(history, max_tokens=2, token_counter=len, strategy="last"))
print(trim_messages(history, max_tokens=2, token_counter=len, strategy="first"))
print(gone.pretty_repr())
gone.pretty_print()
for call in (get_buffer_string, convert_to_openai_messages):
    try:
        call(history)
        print("no error")
    except ValueError:
        print("ValueError")
"""


def test_remove_message() -> None:
    expected = _printed(_REMOVE_MESSAGE)
    assert expected.splitlines()[0] == (
        "RemoveMessage(content='', additional_kwargs={}, response_metadata={}, id='m1')"
    )
    assert _printed(_ported(_REMOVE_MESSAGE)) == expected


# JsonOutputFunctionsParser is a cumulative transform parser in LangChain, with diff=
# (JSON Patch operations while streaming); ragline's refused diff= (warned and ignored)
# and was no BaseCumulativeTransformOutputParser.
def _function_parsers(lc: bool) -> tuple[Any, ...]:
    if lc:
        from langchain_core.messages import AIMessage as Message
        from langchain_core.messages import AIMessageChunk as Chunk
        from langchain_core.output_parsers.openai_functions import (
            JsonKeyOutputFunctionsParser as KeyParser,
        )
        from langchain_core.output_parsers.openai_functions import (
            JsonOutputFunctionsParser as Parser,
        )
        from langchain_core.output_parsers.transform import (
            BaseCumulativeTransformOutputParser as Cumulative,
        )
    else:
        from ragline.core.messages import AIMessage as Message  # type: ignore[assignment]
        from ragline.core.messages import AIMessageChunk as Chunk  # type: ignore[assignment]
        from ragline.core.output_parsers import (  # type: ignore[assignment]
            BaseCumulativeTransformOutputParser as Cumulative,
        )
        from ragline.core.output_parsers import (  # type: ignore[assignment]
            JsonKeyOutputFunctionsParser as KeyParser,
        )
        from ragline.core.output_parsers import (  # type: ignore[assignment]
            JsonOutputFunctionsParser as Parser,
        )
    return Message, Chunk, Parser, KeyParser, Cumulative


def _function_parser_run(lc: bool) -> list[Any]:
    import asyncio

    message_class, chunk_class, parser_class, key_parser_class, cumulative = _function_parsers(lc)
    arguments = '{"name": "Ann", "tags": ["a", "b"], "age": 3}'
    chunks = [
        chunk_class(
            content="",
            additional_kwargs={"function_call": {"arguments": arguments[i : i + 5]}}
            | ({"function_call": {"name": "f", "arguments": arguments[:5]}} if i == 0 else {}),
        )
        for i in range(0, len(arguments), 5)
    ]
    whole = message_class(
        content="", additional_kwargs={"function_call": {"name": "f", "arguments": arguments}}
    )
    parsers = [
        parser_class(),
        parser_class(diff=True),
        parser_class(args_only=False, diff=True),
        key_parser_class(key_name="tags", diff=True),
    ]
    seen: list[Any] = []
    for parser in parsers:

        async def collect(parser: Any = parser) -> list[Any]:
            async def items() -> Any:
                for chunk in chunks:
                    yield chunk

            return [item async for item in parser.atransform(items())]

        seen += [
            repr(parser),
            isinstance(parser, cumulative),
            parser.diff,
            list(parser.transform(iter(chunks))),
            asyncio.run(collect()),
            parser.invoke(whole),
        ]
    return seen


def test_json_output_functions_parser_is_cumulative_with_diff() -> None:
    expected = _function_parser_run(lc=True)
    assert expected[6:9] == ["JsonOutputFunctionsParser(diff=True)", True, True]
    assert _function_parser_run(lc=False) == expected
