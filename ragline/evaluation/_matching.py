"""Evaluators without a model: exact match, regular-expression match, JSON checks.

``load_evaluator("exact_match")`` scores 1 when the prediction equals the reference
(optionally ignoring case, punctuation or digits), ``"regex_match"`` when the reference,
read as a pattern, matches at the start of the prediction (``re.match``),
``"json_validity"`` when the prediction parses as JSON (``{"score": 0, "reasoning":
the parser's message}`` when not), and ``"json_equality"`` gives whether the two parse
to equal values (``{"score": True}``: a bool, as LangChain's; lists compare
order-free), ``"json_edit_distance"`` the normalized Damerau-Levenshtein distance
between the two values written canonically (sorted keys, no spaces), and
``"json_schema_validation"`` whether the prediction fits the reference JSON Schema (a
schema, its JSON text, or a pydantic class; needs the ``jsonschema`` package). JSON may
sit in a Markdown fence (```json ... ```).
"""

from __future__ import annotations

import json
import operator
import re
import string
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

from ragline.core import MissingDependencyError
from ragline.core._partial_json import parse_partial_json
from ragline.evaluation._evaluator_base import StringEvaluator

__all__ = [
    "ExactMatchStringEvaluator",
    "JsonEditDistanceEvaluator",
    "JsonEqualityEvaluator",
    "JsonSchemaEvaluator",
    "JsonValidityEvaluator",
    "RegexMatchStringEvaluator",
]

_STRIP = " \n\r\t`"
_FENCE = re.compile(r"```(json)?(.*)", re.DOTALL)
_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)
_NO_DIGITS = str.maketrans("", "", string.digits)


def _markdown_json(text: str, parse: Callable[[str], Any]) -> Any:
    """``parse`` the text, or the part after a Markdown code fence when that fails."""
    try:
        return parse(text.strip(_STRIP))
    except json.JSONDecodeError:
        fenced = _FENCE.search(text)
        body = text if fenced is None else fenced.group(2)
    return parse(body.strip(_STRIP))


def _lenient_json(text: str) -> Any:
    """JSON with control characters allowed in strings; truncated JSON completed."""
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError as err:
        try:
            return parse_partial_json(text)
        except ValueError:
            raise err from None  # the decoder's own error, so a fenced text is retried


def _parse_json(value: Any) -> Any:
    """A text as (fenced, lenient) JSON; anything else is taken as already parsed."""
    return _markdown_json(value, _lenient_json) if isinstance(value, str) else value


class _ComparesTexts(StringEvaluator):
    """The evaluators here read the prediction and the reference only: their hook is
    ``_compare``."""

    def _evaluate_strings(
        self,
        *,
        prediction: Any,
        reference: Any = None,
        input: Any = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return self._compare(prediction, reference)

    @abstractmethod
    def _compare(self, prediction: Any, reference: Any) -> dict[str, Any]:
        """The grade of ``prediction`` (``reference`` is None where none is needed)."""


class ExactMatchStringEvaluator(_ComparesTexts):
    """Score 1 when the prediction equals the reference, else 0 (``"exact_match"``).

    Example:
        >>> ExactMatchStringEvaluator(ignore_case=True).evaluate_strings(
        ...     prediction="Paris", reference="paris")
        {'score': 1}
    """

    def __init__(
        self,
        *,
        ignore_case: bool = False,
        ignore_punctuation: bool = False,
        ignore_numbers: bool = False,
        **_: Any,
    ) -> None:
        self.ignore_case = ignore_case
        self.ignore_punctuation = ignore_punctuation
        self.ignore_numbers = ignore_numbers

    @property
    def requires_reference(self) -> bool:
        return True

    @property
    def input_keys(self) -> list[str]:
        return ["reference", "prediction"]

    @property
    def evaluation_name(self) -> str:
        return "exact_match"

    def _normal(self, text: str) -> str:
        if self.ignore_case:
            text = text.lower()
        if self.ignore_punctuation:
            text = text.translate(_NO_PUNCTUATION)
        if self.ignore_numbers:
            text = text.translate(_NO_DIGITS)
        return text

    def _compare(self, prediction: Any, reference: Any) -> dict[str, Any]:
        return {"score": int(self._normal(prediction) == self._normal(reference))}


class RegexMatchStringEvaluator(_ComparesTexts):
    """Score 1 when the reference pattern matches the prediction's start (``"regex_match"``).

    Example:
        >>> RegexMatchStringEvaluator().evaluate_strings(
        ...     prediction="2024-05-01", reference=r"\\d{4}-\\d{2}-\\d{2}")
        {'score': 1}
    """

    def __init__(self, *, flags: int = 0, **_: Any) -> None:
        self.flags = flags

    @property
    def requires_reference(self) -> bool:
        return True

    @property
    def input_keys(self) -> list[str]:
        return ["reference", "prediction"]

    @property
    def evaluation_name(self) -> str:
        return "regex_match"

    def _compare(self, prediction: Any, reference: Any) -> dict[str, Any]:
        return {"score": int(bool(re.match(reference, prediction, flags=self.flags)))}


class JsonValidityEvaluator(_ComparesTexts):
    """Score 1 when the prediction is valid JSON, else 0 with the parser's message."""

    def __init__(self, **_: Any) -> None:
        pass

    @property
    def evaluation_name(self) -> str:
        return "json_validity"

    def _compare(self, prediction: Any, reference: Any) -> dict[str, Any]:
        try:
            _markdown_json(prediction, json.loads)
        except Exception as err:
            return {"score": 0, "reasoning": str(err)}
        return {"score": 1}


class JsonEqualityEvaluator(_ComparesTexts):
    """Whether prediction and reference parse to equal JSON values (``"json_equality"``).

    Args:
        operator: compares the two parsed values (default ``==``); its result is the score.
    """

    def __init__(self, operator: Callable[[Any, Any], Any] | None = None, **_: Any) -> None:
        self.operator = operator or _equal

    @property
    def requires_reference(self) -> bool:
        return True

    @property
    def evaluation_name(self) -> str:
        return "json_equality"

    def _compare(self, prediction: Any, reference: Any) -> dict[str, Any]:
        parsed = _parse_json(prediction)
        label = _parse_json(reference)
        if isinstance(label, list):
            if not isinstance(parsed, list):
                return {"score": 0}
            parsed, label = sorted(parsed, key=str), sorted(label, key=str)
        return {"score": self.operator(parsed, label)}


_equal = operator.eq


def _canonical_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class JsonEditDistanceEvaluator(_ComparesTexts):
    """How far apart prediction and reference are as JSON (``"json_edit_distance"``).

    Args:
        string_distance: the distance of the two canonical texts (default: normalized
            Damerau-Levenshtein, as LangChain's default).
        canonicalize: writes a parsed value as text (default: sorted keys, no spaces).

    Example:
        >>> JsonEditDistanceEvaluator().evaluate_strings(
        ...     prediction='{"b": 2, "a": 1}', reference='{"a": 1, "b": 2}')
        {'score': 0.0}
    """

    def __init__(
        self,
        string_distance: Callable[[str, str], float] | None = None,
        canonicalize: Callable[[Any], Any] | None = None,
        **_: Any,
    ) -> None:
        if string_distance is None:
            # here, not at import: _distances brings in the chain machinery
            from ragline.evaluation._distances import StringDistance, normalized_distance

            string_distance = normalized_distance(StringDistance.DAMERAU_LEVENSHTEIN)
        self._string_distance = string_distance
        self._canonicalize = canonicalize or _canonical_json

    @property
    def requires_reference(self) -> bool:
        return True

    @property
    def evaluation_name(self) -> str:
        return "json_edit_distance"

    def _compare(self, prediction: Any, reference: Any) -> dict[str, Any]:
        parsed = self._canonicalize(_parse_json(prediction))
        label = self._canonicalize(_parse_json(reference))
        return {"score": self._string_distance(parsed, label)}


class JsonSchemaEvaluator(_ComparesTexts):
    """Whether the prediction fits the reference JSON Schema (``"json_schema_validation"``).

    ``{"score": True}``, or ``{"score": False, "reasoning": repr(the ValidationError)}``.

    Raises:
        MissingDependencyError: the ``jsonschema`` package is not installed.

    Example:
        >>> JsonSchemaEvaluator().evaluate_strings(
        ...     prediction='{"age": 3}', reference='{"type": "object"}')
        {'score': True}
    """

    def __init__(self, **_: Any) -> None:
        _jsonschema()

    @property
    def requires_reference(self) -> bool:
        return True

    @property
    def evaluation_name(self) -> str:
        return "json_schema_validation"

    def _parse_json(self, value: Any) -> Any:
        if isinstance(value, str):
            return _parse_json(value)
        for method in ("model_json_schema", "schema"):  # a pydantic class (v2, then v1)
            if callable(getattr(value, method, None)):
                return getattr(value, method)()
        return value

    def _compare(self, prediction: Any, reference: Any) -> dict[str, Any]:
        jsonschema = _jsonschema()
        try:
            jsonschema.validate(
                instance=self._parse_json(prediction), schema=self._parse_json(reference)
            )
        except jsonschema.ValidationError as err:
            return {"score": False, "reasoning": repr(err)}
        return {"score": True}


def _jsonschema() -> Any:
    try:
        import jsonschema
    except ImportError as err:
        raise MissingDependencyError(
            "The json_schema_validation evaluator needs the jsonschema package; install it "
            "with: pip install jsonschema"
        ) from err
    return jsonschema
