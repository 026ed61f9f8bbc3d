"""Output parsers: turn a model's output (text or a message) into what the program needs.

Modules: ``_base.py`` (the bases, streaming runs, ``StrOutputParser``,
``CommaSeparatedListOutputParser``), ``_json.py`` (``JsonOutputParser``, also named
``SimpleJsonOutputParser``, ``PydanticOutputParser``, ``StructuredOutputParser``, format
instructions from a schema),
``_tools.py`` (parsers of tool calls), ``_retry.py`` (``OutputFixingParser``,
``RetryOutputParser``, ``RetryWithErrorOutputParser``).
"""

from ragline.core.output_parsers._base import (
    BaseOutputParser,
    BaseTransformOutputParser,
    CommaSeparatedListOutputParser,
    StrOutputParser,
)
from ragline.core.output_parsers._json import (
    JsonOutputParser,
    PydanticOutputParser,
    ResponseSchema,
    SimpleJsonOutputParser,
    StructuredOutputParser,
)
from ragline.core.output_parsers._retry import (
    OutputFixingParser,
    RetryOutputParser,
    RetryWithErrorOutputParser,
)
from ragline.core.output_parsers._tools import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)

__all__ = [
    "BaseOutputParser",
    "BaseTransformOutputParser",
    "CommaSeparatedListOutputParser",
    "JsonOutputKeyToolsParser",
    "JsonOutputParser",
    "JsonOutputToolsParser",
    "OutputFixingParser",
    "PydanticOutputParser",
    "PydanticToolsParser",
    "ResponseSchema",
    "RetryOutputParser",
    "RetryWithErrorOutputParser",
    "SimpleJsonOutputParser",
    "StrOutputParser",
    "StructuredOutputParser",
]
