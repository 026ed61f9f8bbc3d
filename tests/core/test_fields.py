"""Declared fields (ragline.core.fields): keyword constructors without pydantic."""

from __future__ import annotations

import doctest
from typing import ClassVar

import pytest

from ragline.core import fields as fields_module
from ragline.core.fields import Field, Fields, changed_fields, declared_fields


class Base(Fields):
    label: str = "base"
    tags: list[str] = []  # noqa: RUF012 - what users write; copied per instance
    counter: ClassVar[int] = 0
    _private: int = 3

    @property
    def shout(self) -> str:
        return self.label.upper()


class Child(Base):
    size: int
    extra: dict[str, int] = Field(default_factory=lambda: {"a": 1})


class Explicit(Child):
    def __init__(self, first: int, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.first = first


class Below(Explicit):
    depth: float = 0.5


def test_fields_are_collected_base_first_without_private_or_class_vars() -> None:
    assert list(declared_fields(Child)) == ["label", "tags", "size", "extra"]
    assert list(declared_fields(Below)) == ["label", "tags", "size", "extra", "depth"]


def test_keyword_constructor_sets_values_and_defaults() -> None:
    child = Child(size=3, label="x")
    assert (child.label, child.tags, child.size, child.extra) == ("x", [], 3, {"a": 1})
    assert child.shout == "X"


def test_mutable_defaults_and_factories_are_per_instance() -> None:
    one, two = Child(size=1), Child(size=2)
    one.tags.append("t")
    one.extra["b"] = 2
    assert two.tags == [] and two.extra == {"a": 1}
    assert Base.tags == []  # the class default is untouched


def test_missing_required_field_names_it() -> None:
    with pytest.raises(TypeError, match=r"^Child\(\) missing required field 'size'$"):
        Child(label="x")


def test_unknown_keyword_lists_the_fields() -> None:
    message = r"Child\(\) got unexpected keyword argument\(s\) 'sise'; its fields are: "
    with pytest.raises(TypeError, match=message + "extra, label, size, tags"):
        Child(size=1, sise=3)


def test_explicit_init_in_the_chain_still_works_above_and_below() -> None:
    below = Below(first=1, size=2, depth=0.25)
    assert (below.first, below.size, below.depth, below.label) == (1, 2, 0.25, "base")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'first'"):
        Below(size=2)


def test_post_init_runs_once_after_every_field_is_set() -> None:
    seen: list[tuple[str, int]] = []

    class Checked(Child):
        def __post_init__(self) -> None:
            seen.append((self.label, self.size))

    Checked(size=4)
    assert seen == [("base", 4)]


class Named(Fields):
    name: str
    description: str = ""
    labels: list[str] = []  # noqa: RUF012 - what users write


class Annotated(Named):
    name: str = "weather"  # a required base field gets a default


class Unannotated(Named):
    name = "Weather"  # the pydantic-v1 style LangChain examples use
    description = "useful for the weather"
    labels = ["sky"]  # noqa: RUF012
    size: int = 1


class BelowUnannotated(Unannotated):
    pass


def test_a_subclass_gives_an_inherited_field_a_new_default() -> None:
    assert (Annotated().name, Annotated(name="rain").name) == ("weather", "rain")
    made = Unannotated()
    assert (made.name, made.description, made.labels, made.size) == (
        "Weather",
        "useful for the weather",
        ["sky"],
        1,
    )
    made.labels.append("sun")
    assert Unannotated().labels == ["sky"]  # still copied per instance
    assert BelowUnannotated(name="x", size=2).name == "x"
    assert BelowUnannotated().name == "Weather"
    assert list(declared_fields(Unannotated)) == ["name", "description", "labels", "size"]
    with pytest.raises(TypeError, match=r"^Named\(\) missing required field 'name'$"):
        Named()


def test_field_takes_a_default_or_a_factory_not_both() -> None:
    with pytest.raises(TypeError, match="a default or a default_factory, not both"):
        Field(1, default_factory=list)
    assert Child.__dict__.get("extra") is None  # a factory leaves no class attribute


def test_pydantic_field_info_is_read_when_pydantic_is_installed() -> None:
    pydantic = pytest.importorskip("pydantic")

    class WithPydanticField(Fields):
        n: int = pydantic.Field(default=3, description="how many")
        items: list[int] = pydantic.Field(default_factory=list)
        needed: str = pydantic.Field(description="required")

    made = WithPydanticField(needed="x")
    assert (made.n, made.items, made.needed) == (3, [], "x")
    assert declared_fields(WithPydanticField)["n"].description == "how many"
    with pytest.raises(TypeError, match="missing required field 'needed'"):
        WithPydanticField()


def test_docstring_examples_run() -> None:
    result = doctest.testmod(fields_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_a_subclass_may_give_an_inherited_field_a_default() -> None:
    """LangChain subclasses override defaults (ConversationChain's prompt over
    LLMChain's required one); the subclass's value wins, given or default."""

    class Parent(Fields):
        prompt: str
        k: int = 5

    class Child(Parent):
        prompt: str = "default prompt"
        k: int = 10

    assert (Child().prompt, Child().k) == ("default prompt", 10)
    assert (Child(prompt="mine", k=1).prompt, Child(prompt="mine", k=1).k) == ("mine", 1)
    with pytest.raises(TypeError, match="Parent\\(\\) missing required field 'prompt'"):
        Parent()


def test_an_int_for_a_float_field_is_a_float_in_every_spelling_of_optional_float() -> None:
    """pydantic stores an int given for float / Optional[float] as a float, however the
    optional is spelled; under ``from __future__ import annotations`` the annotation is
    the source text, so each spelling is a different string."""
    import typing
    from typing import Optional, Union

    class Model(Fields):
        plain: float = 0.5
        bar: float | None = None
        bar_first_none: None | float = None  # noqa: RUF036
        optional: Optional[float] = None  # noqa: UP045 - the spelling under test
        typing_optional: typing.Optional[float] = None  # noqa: UP045
        union: Union[float, None] = None  # noqa: UP007
        union_none_first: Union[None, float] = None  # noqa: UP007, RUF036
        typing_union: typing.Union[float, None] = None  # noqa: UP007
        either: float | int = 0
        text: float | str = 0.5
        count: int = 0

    floats = ("plain", "bar", "bar_first_none", "optional", "typing_optional", "union")
    floats += ("union_none_first", "typing_union")
    kept = ("either", "text", "count")
    model = Model(**dict.fromkeys(floats + kept, 1))
    assert {name: type(getattr(model, name)) for name in floats + kept} == {
        **dict.fromkeys(floats, float),
        **dict.fromkeys(kept, int),
    }


def test_a_field_is_given_by_its_alias_or_its_name() -> None:
    """``Field(alias=...)`` (ragline's or pydantic's) names the keyword the constructor
    also takes the field by; a class with a hand-written ``__init__`` passing the keyword
    up gets it too. An alias is not a second field: the alias read back is an error."""
    import pydantic

    class Model(Fields):
        model_name: str = Field(alias="model")
        size: int = pydantic.Field(default=2, alias="n")

    class Custom(Model):
        def __init__(self, **kwargs: object) -> None:
            super().__init__(**kwargs)

    by_alias = Model(model="bird", n=5)
    assert (by_alias.model_name, by_alias.size) == ("bird", 5)
    by_name = Model(model_name="owl", size=7)
    assert (by_name.model_name, by_name.size) == ("owl", 7)
    assert Model(model="kite").size == 2
    assert Custom(model="wren").model_name == "wren"
    assert not hasattr(by_alias, "model")
    with pytest.raises(TypeError, match="missing required field 'model_name'"):
        Model(n=1)


def test_changed_fields_shows_what_differs_from_each_default_in_declaration_order() -> None:
    np = pytest.importorskip("numpy")

    class Shown(Fields):
        name: str
        size: int = 3
        tags: list = Field(default_factory=list)
        vector: object = None

    assert changed_fields(Shown(name="a")) == ["name='a'"]
    assert changed_fields(Shown(name="a", size=4, tags=["x"])) == [
        "name='a'",
        "size=4",
        "tags=['x']",
    ]
    # a factory default counts as None for the printing LangChain's memories do
    assert changed_fields(Shown(name="a"), factory_means_none=True) == ["name='a'", "tags=[]"]
    # an array compares element-wise: it counts as changed, and printing does not raise
    shown = changed_fields(Shown(name="a", vector=np.array([1, 2])))
    assert shown == ["name='a'", "vector=array([1, 2])"]
