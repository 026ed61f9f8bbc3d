"""Parity: FewShotPromptWithTemplates and the JSON-reply functions of
``langchain_core.utils.json`` (port trial set 46, issue 24).

Each scenario is a small program run through LangChain and, after ``ragline port``,
through ragline; what it prints must be the same.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {
    "core.prompts.FewShotPromptWithTemplates",
    "core.output_parsers.parse_json_markdown",
    "core.output_parsers.parse_partial_json",
    "core.output_parsers.parse_and_check_json_markdown",
}

# The second pass: examples with doubled braces come out single, and a suffix written
# "{{items}}" leaves {items} for the second pass to fill (the transaction classifier).
_SECOND_PASS = """
import asyncio
from langchain_core.prompts import FewShotPromptWithTemplates, PromptTemplate

examples = [
    {"item": "{'desc': 'CITY WATER', 'amount': 81.2}", "label": '{"type": "water"}'},
    {"item": "{'desc': 'TENANT SMITH', 'amount': 1450}", "label": '{"type": "rent"}'},
]
escaped = [{k: v.replace("{", "{{").replace("}", "}}") for k, v in e.items()} for e in examples]
prompt = FewShotPromptWithTemplates(
    prefix=PromptTemplate(input_variables=["kinds"], template="Classify into {kinds}:"),
    suffix=PromptTemplate(input_variables=["items"], template="Now: {{items}} ({note})"),
    examples=escaped,
    example_prompt=PromptTemplate.from_template("item: {item}\\nlabel: {label}"),
    input_variables=["kinds", "items"],
    example_separator="\\n",
)
print(prompt.input_variables)
print(repr(prompt.partial(note="later").format(kinds="K", items="I")))
print(repr(prompt))
items = [{"desc": "ALLIANZ", "amount": 320.0}]
print(prompt.invoke({"kinds": ["rent", "water"], "items": items, "note": "n"}).to_string())
print(repr(asyncio.run(prompt.ainvoke({"kinds": "K", "items": "I", "note": "N"}))))
try:
    prompt.format(kinds="K", note="N")
except KeyError:
    print("KeyError: items left for the second pass is missing")
raw = FewShotPromptWithTemplates(
    suffix=PromptTemplate.from_template("Q: {q}"),
    examples=[{"item": "{x}", "label": "y"}],
    example_prompt=PromptTemplate.from_template("{item} -> {label}"),
    input_variables=["q"],
)
try:
    raw.format(q="?")
except KeyError:
    print("KeyError: an example's single braces are read in the second pass")
try:
    FewShotPromptWithTemplates(
        suffix=PromptTemplate.from_template("Q: {q}"),
        examples=[{"item": "a", "label": "b"}],
        example_prompt=PromptTemplate.from_template("{item} -> {label}"),
        input_variables=["other"],
        validate_template=True,
    )
except ValueError:
    print("ValueError: input_variables lack q")
try:
    FewShotPromptWithTemplates(
        suffix="Q: {q}",
        examples=[{"item": "a", "label": "b"}],
        example_prompt=PromptTemplate.from_template("{item} -> {label}"),
        input_variables=["q"],
    )
except ValueError:
    print("ValueError: the suffix is a str, not a prompt template")
"""

# jinja2 throughout, a partial variable the prefix takes, an example prompt that takes
# fewer variables than the examples hold, no prefix in the second prompt.
_JINJA2 = """
from langchain_core.prompts import FewShotPromptWithTemplates, PromptTemplate

examples = [
    {"fixtures": "ab,B", "passage": "Steve beat Dennis", "expected": {"f": "ab", "s": [3, 0]}},
    {"fixtures": "ab,B", "passage": "Dennis 2 Steve 3", "expected": {"f": "ab", "s": [3, 2]}},
]
prompt = FewShotPromptWithTemplates(
    examples=examples,
    example_prompt=PromptTemplate(
        template="Passage: {{ passage }}\\nJSON: {{ expected | tojson }}\\n",
        input_variables=["passage", "expected"],
        template_format="jinja2",
    ),
    input_variables=["fixtures", "passage"],
    partial_variables={"shared": examples[0]["fixtures"]},
    prefix=PromptTemplate(
        template="Fixtures for all examples:\\n{{ shared }}\\n",
        input_variables=["shared"],
        template_format="jinja2",
    ),
    suffix=PromptTemplate(
        template="=== END ===\\nFixtures:\\n{{ fixtures }}\\nPassage: {{ passage }}\\nJSON:",
        input_variables=["fixtures", "passage"],
        template_format="jinja2",
    ),
    template_format="jinja2",
)
print(sorted(prompt.input_variables), prompt.partial_variables)
print(prompt.format(passage="Ronnie won 3-1", fixtures="k7,A"))
bare = FewShotPromptWithTemplates(
    examples=[{"passage": "p", "expected": 1}],
    example_prompt=PromptTemplate.from_template("{passage}={expected}"),
    suffix=PromptTemplate.from_template("then {x}"),
    input_variables=["x"],
)
print(repr(bare.format(x="X")), repr(bare))
"""

_JSON_REPLIES = """
import json

from langchain_core.utils.json import (
    parse_and_check_json_markdown,
    parse_json_markdown,
    parse_partial_json,
)
from langchain_core.output_parsers.json import parse_partial_json as also_partial

for reply in [
    '```json\\n[{"type": "insurance"}, {"type": "rent"}]\\n```',
    'Sure:\\n```\\n{"type": "water"}\\n```\\nanything else?',
    '{"type": "main',
    '  `{"a": [1, 2`',
    '"text"',
]:
    print(repr(parse_json_markdown(reply)))
print(parse_partial_json('{"a": {"b": [1, tr'), also_partial('[1, 2'))
try:
    parse_json_markdown("no json here")
except ValueError:
    print("ValueError")
# a program catching the decoder's own error (redbox's streaming JSON parser)
for bad in ["no json here", "", "```json\\n```", "Sorry, {x"]:
    for parse in (parse_json_markdown, parse_partial_json):
        try:
            parse(bad)
        except json.JSONDecodeError as err:
            print("JSONDecodeError", repr(bad), err.pos)
print(parse_and_check_json_markdown('```json\\n{"a": 1, "b": 2}\\n```', ["a", "b"]))
try:
    parse_and_check_json_markdown('{"a": 1}', ["b"])
except ValueError as err:
    print(type(err).__name__)
"""


def _same(program: str, langchain_marker: str) -> None:
    ported = _ported(program)
    assert "langchain" not in ported
    langchain_printed = _printed(program)
    assert langchain_marker in langchain_printed
    assert _printed(ported) == langchain_printed


def test_the_joined_text_is_formatted_a_second_time_as_in_langchain() -> None:
    _same(_SECOND_PASS, "item: {'desc': 'CITY WATER', 'amount': 81.2}")


def test_jinja2_prefix_suffix_and_partial_variables_as_in_langchain() -> None:
    _same(_JINJA2, 'JSON: {"f": "ab", "s": [3, 0]}')


def test_json_reply_functions_parse_as_langchains() -> None:
    _same(_JSON_REPLIES, "[{'type': 'insurance'}, {'type': 'rent'}]")


# parse_json_markdown's parser= (review of c7f4658): LangChain's takes the function that
# reads the JSON (default: its partial parser); ragline's had no such keyword, a TypeError.
# json.loads refuses a cut-off reply where the default reads what arrived, and a parser
# of one's own gets the text stripped of the fence.
_JSON_PARSER_KEYWORD = """
import json

from langchain_core.utils.json import parse_json_markdown, parse_partial_json

seen = []


def upper_keys(text):
    seen.append(text)
    return {key.upper(): value for key, value in json.loads(text).items()}


print(parse_json_markdown('```json\\n{"a": 1}\\n```', parser=json.loads))
print(parse_json_markdown('{"a": [1, 2', parser=parse_partial_json))
print(parse_json_markdown('Here:\\n```json\\n{"é": "x"}\\n```', parser=upper_keys), seen)
try:
    parse_json_markdown('{"a": [1, 2', parser=json.loads)
except json.JSONDecodeError as err:
    print("JSONDecodeError", err.pos)
"""


def test_json_reply_parser_keyword_as_langchains() -> None:
    _same(_JSON_PARSER_KEYWORD, "{'É': 'x'}")
