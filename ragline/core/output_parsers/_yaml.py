"""``YamlOutputParser``: a model's YAML reply validated into a pydantic model, as
LangChain's (langchain_classic.output_parsers).

The YAML is the reply's first ```` ``` ```` fence (```` ```yaml ```` / ```` ```yml ````
or bare) when it has one, else the whole reply; it is read with ``yaml.safe_load``
(the ``yaml`` extra) and validated into ``pydantic_object``. Streamed, it gives one
piece at the end. Format instructions are in ragline's own words.

Example:
    >>> from pydantic import BaseModel
    >>> class Joke(BaseModel):
    ...     setup: str
    ...     punchline: str
    >>> YamlOutputParser(pydantic_object=Joke).parse("```yaml\\nsetup: Why?\\npunchline: So.\\n```")
    Joke(setup='Why?', punchline='So.')
"""

from __future__ import annotations

import json
import re
from typing import Any

from ragline.core._optional import require
from ragline.core.exceptions import InvalidInputError, OutputParserException
from ragline.core.output_parsers._base import BaseOutputParser
from ragline.core.output_parsers._json import schema_json, validate_model
from ragline.core.tools._validate import is_pydantic_model

__all__ = ["YAML_FORMAT_INSTRUCTIONS", "YamlOutputParser"]

_FENCE = re.compile(r"```(?:ya?ml)?(?P<yaml>[^`]*)", re.MULTILINE | re.DOTALL)


# The template of YamlOutputParser's instructions (LangChain's name): ``{schema}`` is the
# JSON Schema's text; the wording is ragline's.
YAML_FORMAT_INSTRUCTIONS = (
    "Reply with one YAML document and nothing else. Its data must be valid against "
    "the JSON Schema below (fill in values: do not repeat the schema).\n"
    "```json\n{schema}\n```"
)


class YamlOutputParser(BaseOutputParser[Any]):
    """Parse a YAML reply into an instance of a pydantic model.

    Args:
        pydantic_object: the pydantic model class.

    Raises:
        InvalidInputError: ``pydantic_object`` is not a pydantic model class.
        OutputParserException: (when parsing) the text is not YAML, or does not validate.
    """

    _asdict_attrs = ("pydantic_object",)

    @property
    def _type(self) -> str:
        return "yaml"

    def __init__(self, *, pydantic_object: type) -> None:
        if not is_pydantic_model(pydantic_object):
            raise InvalidInputError(
                f"YamlOutputParser needs a pydantic model class, got {pydantic_object!r:.80}"
            )
        self.pydantic_object = pydantic_object

    def __repr__(self) -> str:
        named = f"name={self.name!r}, " if self.name else ""
        return f"YamlOutputParser({named}pydantic_object={self.pydantic_object!r})"

    @property
    def OutputType(self) -> Any:
        """The pydantic model class (what ``parse`` returns)."""
        return self.pydantic_object

    def parse(self, text: str) -> Any:
        yaml = require("yaml", "yaml", package="pyyaml")
        fenced = _FENCE.search(text.strip())
        body = fenced.group("yaml") if fenced else text
        try:
            return validate_model(self.pydantic_object, yaml.safe_load(body))
        except (yaml.YAMLError, ValueError) as err:
            raise OutputParserException(
                f"Failed to parse {self.pydantic_object.__name__} from completion {text}. "
                f"Got: {err}",
                llm_output=text,
            ) from err

    def get_format_instructions(self) -> str:
        shown = {k: v for k, v in schema_json(self.pydantic_object).items() if k != "title"}
        return YAML_FORMAT_INSTRUCTIONS.format(schema=json.dumps(shown, ensure_ascii=False))
