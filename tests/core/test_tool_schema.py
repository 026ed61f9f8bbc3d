"""Argument schemas (ragline.core.tools): function -> JSON Schema, checks, OpenAI specs."""

from __future__ import annotations

import dataclasses
import doctest
import enum
import re
import sys
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from typing_extensions import TypedDict

from ragline.core import InvalidInputError, ToolValidationError
from ragline.core.tools import (
    ArgsSchema,
    _convert,
    _schema,
    _validate,
    convert_to_openai_function,
    convert_to_openai_tool,
    parse_google_docstring,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Box(TypedDict):
    """A box."""

    width: int
    label: str


@dataclasses.dataclass
class Point:
    """A point."""

    x: int
    y: int = 0


def search(
    query: str,
    k: int = 4,
    kind: Literal["web", "news"] = "web",
    tags: Optional[list[str]] = None,  # noqa: UP045 - the spelling under test
    weight: Annotated[float, "how much the query counts"] = 1.0,
) -> str:
    """Search the index.

    Longer text about searching.

    Args:
        query: the text to look for.
        k: how many results
            to return.
        kind: where to look.
    """
    return query


def shapes(
    a,
    b: Any,
    c: int | None,
    d: list[int],
    e: dict[str, float],
    f: bool = False,
    g: Union[int, str] = 1,  # noqa: UP007
    h: tuple[int, str] = (1, "a"),
    i: set[int] | None = None,
    color: Color = Color.RED,
    box: Box | None = None,
    point: Point | None = None,
    t: tuple[int, ...] = (),
    one: Literal["x"] = "x",
    mixed: Literal["x", 1] = 1,
) -> None:
    """Every kind of parameter."""


def test_a_function_becomes_properties_required_and_descriptions():
    schema = ArgsSchema.from_function(search, parse_docstring=True)
    assert schema.name == "search"
    assert schema.description == "Search the index. Longer text about searching."
    assert schema.required == ["query"]
    assert schema.properties == {
        "query": {"description": "the text to look for.", "type": "string"},
        "k": {"default": 4, "description": "how many results to return.", "type": "integer"},
        "kind": {"default": "web", "description": "where to look.", "enum": ["web", "news"],
                 "type": "string"},
        "tags": {"anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}],
                 "default": None},
        "weight": {"default": 1.0, "description": "how much the query counts", "type": "number"},
    }  # fmt: skip


def test_without_parse_docstring_the_whole_docstring_describes_the_tool():
    schema = ArgsSchema.from_function(search)
    assert schema.description.startswith("Search the index.\n\nLonger text")
    assert "description" not in schema.properties["query"]
    assert schema.properties["weight"]["description"] == "how much the query counts"


def test_every_kind_of_type_hint_has_the_schema_pydantic_writes():
    properties = ArgsSchema.from_function(shapes).properties
    assert properties == {
        "a": {},
        "b": {},
        "c": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "d": {"items": {"type": "integer"}, "type": "array"},
        "e": {"additionalProperties": {"type": "number"}, "type": "object"},
        "f": {"default": False, "type": "boolean"},
        "g": {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": 1},
        "h": {"default": [1, "a"], "maxItems": 2, "minItems": 2,
              "prefixItems": [{"type": "integer"}, {"type": "string"}], "type": "array"},
        "i": {"anyOf": [{"items": {"type": "integer"}, "type": "array", "uniqueItems": True},
                        {"type": "null"}], "default": None},
        "color": {"default": "red", "enum": ["red", "blue"], "type": "string"},
        # inside an anyOf, pydantic's titles (LangChain leaves them there)
        "box": {"anyOf": [{"description": "A box.", "properties": {
                    "width": {"title": "Width", "type": "integer"},
                    "label": {"title": "Label", "type": "string"}},
                 "required": ["width", "label"], "title": "Box", "type": "object"},
                          {"type": "null"}], "default": None},
        "point": {"anyOf": [{"description": "A point.", "properties": {
                    "x": {"title": "X", "type": "integer"},
                    "y": {"default": 0, "title": "Y", "type": "integer"}},
                   "required": ["x"], "title": "Point", "type": "object"},
                            {"type": "null"}], "default": None},
        "t": {"default": [], "items": {"type": "integer"}, "type": "array"},
        "one": {"const": "x", "default": "x", "type": "string"},
        "mixed": {"default": 1, "enum": ["x", 1]},
    }  # fmt: skip
    assert ArgsSchema.from_function(shapes).required == ["a", "b", "c", "d", "e"]


def test_run_manager_callbacks_self_and_star_arguments_are_left_out():
    def hook(self, query: str, *args: Any, run_manager: Any = None, callbacks=None, **kw: Any):
        """Hook."""

    schema = ArgsSchema.from_function(hook)
    assert list(schema.properties) == ["query"]
    assert schema.validate({"query": "q", "extra": 1}, tool="hook") == {"query": "q", "extra": 1}


@pytest.mark.parametrize(
    ("docstring", "message"),
    [
        ("Only a summary.", "found no Google-style 'Args:' section"),
        ("Summary.\n\nArgs:\n    x: the x.\n    y: not a parameter.",
         "the docstring describes argument(s) 'y' that the function does not take"),
    ],
)  # fmt: skip
def test_parse_docstring_refuses_a_docstring_that_does_not_fit(docstring, message):
    def f(x: int) -> int:
        return x

    f.__doc__ = docstring
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        ArgsSchema.from_function(f, parse_docstring=True)
    lenient = ArgsSchema.from_function(f, parse_docstring=True, error_on_invalid_docstring=False)
    assert lenient.description == " ".join(docstring.split("\n\n")[0].split())


def test_google_docstrings_with_types_and_continuations():
    text = (
        "Sum.\n\nArgs:\n    a (int): first\n        and more.\n    b: second.\n\nReturns:\n    x."
    )
    assert parse_google_docstring(text, ["a", "b"]) == (
        "Sum.",
        {"a": "first and more.", "b": "second."},
    )


def test_unresolvable_type_hints_are_a_clear_error():
    namespace: dict[str, Any] = {}
    exec("def f(x: 'Missing') -> None:\n    'F.'", namespace)
    with pytest.raises(InvalidInputError, match="cannot resolve the type hints of tool 'f'"):
        ArgsSchema.from_function(namespace["f"])


# --------------------------------------------------------------------------- validation


def test_validation_converts_like_pydantic_lax_mode():
    schema = ArgsSchema.from_function(shapes)
    checked = schema.validate(
        {"a": object, "b": None, "c": "7", "d": ["1", 2.0], "e": {"x": "1.5"}, "f": "true",
         "g": "3", "h": ["4", "s"], "color": "blue", "mixed": "1", "one": "x"},
        tool="shapes",
    )  # fmt: skip
    assert checked == {
        "a": object, "b": None, "c": 7, "d": [1, 2], "e": {"x": 1.5}, "f": True,
        "g": "3", "h": [4, "s"], "color": Color.BLUE, "mixed": 1, "one": "x",
    }  # fmt: skip


def test_objects_become_the_dataclass_or_typed_dict_the_function_expects():
    schema = ArgsSchema.from_function(shapes)
    base = {"a": 1, "b": 2, "c": None, "d": [], "e": {}}
    checked = schema.validate({**base, "point": {"x": "3"}, "box": {"width": 1, "label": "l"}},
                              tool="shapes")  # fmt: skip
    assert checked["point"] == Point(3, 0)
    assert checked["box"] == {"width": 1, "label": "l"}


def test_every_problem_is_named_in_one_error():
    schema = ArgsSchema.from_function(shapes)
    with pytest.raises(ToolValidationError) as info:
        schema.validate({"a": 1, "c": "x", "d": [1, "two"], "e": {}, "zz": 1,
                         "color": "green", "point": {"y": 1}}, tool="shapes")  # fmt: skip
    error = info.value
    assert error.tool == "shapes"
    assert error.errors == [
        ("b", "missing (required)"),
        ("c", "expected an integer, got 'x'"),
        ("d[1]", "expected an integer, got 'two'"),
        ("zz", "unexpected argument"),
        ("color", "expected one of 'red', 'blue', got 'green'"),
        ("point.x", "missing (required)"),
    ]
    assert str(error).startswith("tool 'shapes' got invalid arguments: b: missing (required); ")
    assert str(error).endswith("(it takes: a, b, c, d, e, f, g, h, i, color, box, point, t, "
                               "one, mixed)")  # fmt: skip
    if "pydantic_core" in sys.modules:  # the class prints under its own name, not a local's
        assert repr(type(error)) == "<class 'ragline.core.tools._schema.ValidationError'>"


class Engine:
    pass


def start(engine: Engine) -> None:
    """Start."""


def test_a_plain_class_parameter_is_checked_with_isinstance():
    schema = ArgsSchema.from_function(start)
    engine = Engine()
    assert schema.properties == {"engine": {}}
    assert schema.validate({"engine": engine}, tool="start") == {"engine": engine}
    with pytest.raises(ToolValidationError, match="engine: expected a Engine, got 'x'"):
        schema.validate({"engine": "x"}, tool="start")


def test_json_schema_dicts_are_checked_with_their_bounds_and_patterns():
    schema = ArgsSchema.from_json_schema(
        {"title": "Lookup", "type": "object", "required": ["code"], "additionalProperties": False,
         "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                        "n": {"type": "integer", "minimum": 1, "maximum": 5},
                        "items": {"type": "array", "maxItems": 2}}}
    )  # fmt: skip
    assert schema.validate({"code": "ABC", "n": "5"}, tool="lookup") == {"code": "ABC", "n": 5}
    with pytest.raises(ToolValidationError) as info:
        schema.validate({"code": "abc", "n": 9, "items": [1, 2, 3], "x": 1}, tool="lookup")
    assert info.value.errors == [
        ("code", "expected to match '^[A-Z]{3}$', got 'abc'"),
        ("n", "expected <= 5, got 9"),
        ("items", "expected at most this many items: 2, got [1, 2, 3]"),
        ("x", "unexpected argument"),
    ]
    with pytest.raises(InvalidInputError, match="must be a JSON Schema of an object"):
        ArgsSchema.from_json_schema({"type": "string"})


def test_a_dict_that_is_not_a_mapping_of_arguments_is_refused():
    with pytest.raises(ToolValidationError, match="tool 'search' takes a dict of arguments"):
        ArgsSchema.from_function(search).validate(["q"], tool="search")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- pydantic


def test_pydantic_models_keep_field_descriptions_and_validate_with_pydantic():
    pydantic = pytest.importorskip("pydantic")

    class Inner(pydantic.BaseModel):
        depth: int = pydantic.Field(description="how deep")

    class Multiply(pydantic.BaseModel):
        """Multiply two integers together."""

        a: int = pydantic.Field(..., description="First integer")
        b: int = pydantic.Field(..., description="Second integer")
        inner: Optional[Inner] = None  # noqa: UP045

    schema = ArgsSchema.coerce(Multiply, name="multiply")
    assert schema.model is Multiply
    assert schema.description == "Multiply two integers together."
    assert schema.properties["a"] == {"description": "First integer", "type": "integer"}
    # inside an anyOf pydantic's titles stay, as LangChain leaves them there
    assert schema.properties["inner"]["anyOf"][0] == {
        "properties": {"depth": {"description": "how deep", "title": "Depth", "type": "integer"}},
        "required": ["depth"],
        "title": "Inner",
        "type": "object",
    }
    assert schema.validate({"a": "3", "b": 4}, tool="multiply") == {"a": 3, "b": 4}
    with pytest.raises(ToolValidationError) as info:
        schema.validate({"a": "x"}, tool="multiply")
    assert [path for path, _ in info.value.errors] == ["a", "b"]
    assert isinstance(info.value.__cause__, pydantic.ValidationError)


def test_pydantic_parameters_of_a_function_become_model_instances():
    pydantic = pytest.importorskip("pydantic")

    class Address(pydantic.BaseModel):
        city: str

    def ship(to: Address, copies: int = 1) -> str:
        """Ship."""
        return to.city

    ship.__annotations__["to"] = Address  # a local class: no string annotation to resolve
    schema = ArgsSchema.from_function(ship)
    assert schema.properties["to"] == {
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "type": "object",
    }
    checked = schema.validate({"to": {"city": "Oslo"}}, tool="ship")
    assert checked == {"to": Address(city="Oslo")}


def test_anything_else_as_args_schema_is_refused():
    with pytest.raises(InvalidInputError, match="args_schema of 't' must be a pydantic model"):
        ArgsSchema.coerce(42, name="t")


# --------------------------------------------------------------------------- OpenAI specs


def test_convert_to_openai_tool_for_functions_dicts_and_typed_dicts():
    assert convert_to_openai_tool(search) == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the index. Longer text about searching.",
            "parameters": ArgsSchema.from_function(search, parse_docstring=True).json_schema(),
        },
    }
    bare = {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}}
    assert convert_to_openai_tool(bare) == {"type": "function", "function": bare}
    assert convert_to_openai_tool({"type": "function", "function": bare}) == {
        "type": "function",
        "function": bare,
    }
    assert convert_to_openai_tool({"type": "web_search"}) == {"type": "web_search"}
    assert convert_to_openai_function(Box) == {
        "name": "Box",
        "description": "A box.",
        "parameters": {
            "properties": {"width": {"type": "integer"}, "label": {"type": "string"}},
            "required": ["width", "label"],
            "type": "object",
        },
    }
    empty = {"type": "object", "properties": {}}
    anthropic = {"name": "g", "description": "G.", "input_schema": empty}
    assert convert_to_openai_function(anthropic)["parameters"] == empty


def test_strict_mode_closes_every_object():
    spec = convert_to_openai_function(shapes, strict=True)
    assert spec["strict"] is True
    assert spec["parameters"]["additionalProperties"] is False
    box = spec["parameters"]["properties"]["box"]["anyOf"][0]
    assert box["additionalProperties"] is False


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        (lambda a: a, "cannot describe <function"),
        ({"description": "nameless"}, "a tool dict needs a 'name'"),
        (42, "cannot describe 42 as a tool"),
    ],
)
def test_what_cannot_be_described_is_refused(tool, message):
    with pytest.raises(InvalidInputError, match=message):
        convert_to_openai_tool(tool)


def test_specs_match_langchain_for_the_same_functions():
    """Differential: the tool specs a model sees are LangChain's (pydantic-made) ones.

    If this fails, compare the property that differs: ragline writes the schema by hand
    in _schema.py and must follow what pydantic emits for the same annotation (with its
    "title" keys inside anyOf branches, which LangChain leaves).
    """
    function_calling = pytest.importorskip("langchain_core.utils.function_calling")
    for function in (search, shapes):
        ours = convert_to_openai_tool(function)
        theirs = function_calling.convert_to_openai_tool(function)
        assert ours == theirs, function.__name__


def test_docstring_examples_run():
    for module in (_schema, _validate, _convert):
        result = doctest.testmod(module)
        assert result.failed == 0, module.__name__


def test_an_integer_past_a_floats_range_is_a_validation_error():
    # review of 6c8b1d9: float(10**400) raised OverflowError out of the tool
    def scale(x: float) -> float:
        """Scale."""
        return x

    schema = ArgsSchema.from_function(scale)
    assert schema.validate({"x": 4}, tool="scale") == {"x": 4.0}
    with pytest.raises(
        ToolValidationError, match=r"x: expected a number a float can hold, got 1000"
    ):
        schema.validate({"x": 10**400}, tool="scale")
