"""Output parsers: turn a model's output (text or a message) into what the program needs.

Modules: ``_base.py`` (the bases, streaming runs, ``StrOutputParser``, ``ListOutputParser``
and ``CommaSeparatedListOutputParser``), ``_cumulative.py``
(``BaseCumulativeTransformOutputParser``: streams by re-parsing all it received),
``_json.py`` (``JsonOutputParser``, also named ``SimpleJsonOutputParser``,
``PydanticOutputParser``, ``StructuredOutputParser``, format instructions from a schema),
``_json_markdown.py`` (``parse_json_markdown`` and its kin: the same reading as functions),
``_tools.py`` (parsers of tool calls), ``_functions.py`` (parsers of the older OpenAI
function calls), ``_retry.py`` (``OutputFixingParser``,
``RetryOutputParser``, ``RetryWithErrorOutputParser``), ``_text.py`` (the enum, datetime,
yes/no and regex parsers, the Markdown and numbered list parsers), ``_xml.py``
(``XMLOutputParser``), ``_yaml.py`` (``YamlOutputParser``), ``_combining.py``
(``CombiningOutputParser``).
"""

from ragline.core.output_parsers._base import (
    BaseGenerationOutputParser,
    BaseOutputParser,
    BaseTransformOutputParser,
    CommaSeparatedListOutputParser,
    ListOutputParser,
    StrOutputParser,
)
from ragline.core.output_parsers._combining import CombiningOutputParser
from ragline.core.output_parsers._cumulative import BaseCumulativeTransformOutputParser
from ragline.core.output_parsers._functions import (
    JsonKeyOutputFunctionsParser,
    JsonOutputFunctionsParser,
    OutputFunctionsParser,
    PydanticAttrOutputFunctionsParser,
    PydanticOutputFunctionsParser,
)
from ragline.core.output_parsers._json import (
    JSON_FORMAT_INSTRUCTIONS,
    PYDANTIC_FORMAT_INSTRUCTIONS,
    STRUCTURED_FORMAT_INSTRUCTIONS,
    STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS,
    JsonOutputParser,
    PydanticOutputParser,
    ResponseSchema,
    SimpleJsonOutputParser,
    StructuredOutputParser,
)
from ragline.core.output_parsers._json_markdown import (
    parse_and_check_json_markdown,
    parse_json_markdown,
    parse_partial_json,
)
from ragline.core.output_parsers._retry import (
    NAIVE_FIX_PROMPT,
    NAIVE_RETRY_PROMPT,
    NAIVE_RETRY_WITH_ERROR_PROMPT,
    OutputFixingParser,
    RetryOutputParser,
    RetryWithErrorOutputParser,
)
from ragline.core.output_parsers._text import (
    BooleanOutputParser,
    DatetimeOutputParser,
    EnumOutputParser,
    MarkdownListOutputParser,
    NumberedListOutputParser,
    RegexDictParser,
    RegexParser,
)
from ragline.core.output_parsers._tools import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)
from ragline.core.output_parsers._xml import XMLOutputParser
from ragline.core.output_parsers._yaml import YAML_FORMAT_INSTRUCTIONS, YamlOutputParser

__all__ = [
    "JSON_FORMAT_INSTRUCTIONS",
    "NAIVE_FIX_PROMPT",
    "NAIVE_RETRY_PROMPT",
    "NAIVE_RETRY_WITH_ERROR_PROMPT",
    "PYDANTIC_FORMAT_INSTRUCTIONS",
    "STRUCTURED_FORMAT_INSTRUCTIONS",
    "STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS",
    "YAML_FORMAT_INSTRUCTIONS",
    "BaseCumulativeTransformOutputParser",
    "BaseGenerationOutputParser",
    "BaseOutputParser",
    "BaseTransformOutputParser",
    "BooleanOutputParser",
    "CombiningOutputParser",
    "CommaSeparatedListOutputParser",
    "DatetimeOutputParser",
    "EnumOutputParser",
    "JsonKeyOutputFunctionsParser",
    "JsonOutputFunctionsParser",
    "JsonOutputKeyToolsParser",
    "JsonOutputParser",
    "JsonOutputToolsParser",
    "ListOutputParser",
    "MarkdownListOutputParser",
    "NumberedListOutputParser",
    "OutputFixingParser",
    "OutputFunctionsParser",
    "PydanticAttrOutputFunctionsParser",
    "PydanticOutputFunctionsParser",
    "PydanticOutputParser",
    "PydanticToolsParser",
    "RegexDictParser",
    "RegexParser",
    "ResponseSchema",
    "RetryOutputParser",
    "RetryWithErrorOutputParser",
    "SimpleJsonOutputParser",
    "StrOutputParser",
    "StructuredOutputParser",
    "XMLOutputParser",
    "YamlOutputParser",
    "parse_and_check_json_markdown",
    "parse_json_markdown",
    "parse_partial_json",
]
