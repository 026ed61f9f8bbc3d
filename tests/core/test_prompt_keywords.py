"""PromptTemplate's keywords: LangChain's fields name= and optional_variables= are kept
(b090691 dropped them with a warning calling them unknown), and the warning for a
keyword it drops points at the user's line, from_template included."""

from __future__ import annotations

import json
import warnings

from langchain_core.prompts import PromptTemplate as LcPromptTemplate

from ragline.core.prompts import PromptTemplate


def _no_warnings(build):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return build()


def test_name_is_kept_and_printed_first_as_langchains() -> None:
    ours = _no_warnings(lambda: PromptTemplate(template="hi {x}", name="greeting"))
    theirs = LcPromptTemplate(template="hi {x}", name="greeting")
    assert ours.name == theirs.name == "greeting"
    assert (
        repr(ours)
        == repr(theirs)
        == (
            "PromptTemplate(name='greeting', input_variables=['x'], input_types={}, "
            "partial_variables={}, template='hi {x}')"
        )
    )
    assert ours.partial(x="a").name == theirs.partial(x="a").name == "greeting"
    assert ours.model_dump()["name"] == "greeting"


def test_optional_variables_are_kept_as_langchains() -> None:
    ours = _no_warnings(lambda: PromptTemplate(template="hi {x}", optional_variables=["y"]))
    theirs = LcPromptTemplate(template="hi {x}", optional_variables=["y"])
    assert ours.optional_variables == theirs.optional_variables == ["y"]
    assert str(ours) == str(theirs)
    assert ours.format(x="a") == theirs.format(x="a") == "hi a"
    assert ours.partial(x="a").optional_variables == ["y"]


def test_the_dropped_keyword_warning_points_at_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _line() + 1
        PromptTemplate(template="hi {x}", input_variable=["x"])
        line2 = _line() + 1
        PromptTemplate.from_template("hi {x}", input_variable=["x"])
    assert [(w.category, w.filename, w.lineno) for w in caught] == [
        (UserWarning, __file__, line),
        (UserWarning, __file__, line2),
    ]
    assert "'input_variable' (did you mean 'input_variables'?)" in str(caught[0].message)


def _line() -> int:
    import sys

    return sys._getframe(1).f_lineno


def test_name_and_optional_variables_go_through_dumps_and_loads_as_langchains() -> None:
    from langchain_core.load import dumpd as lc_dumpd

    from ragline.core.load import dumpd, loads

    ours = PromptTemplate(template="hi {x}", name="g", optional_variables=["y"], tags=["t"])
    theirs = LcPromptTemplate(template="hi {x}", name="g", optional_variables=["y"], tags=["t"])
    assert dumpd(ours) == lc_dumpd(theirs)
    back = _no_warnings(lambda: loads(json.dumps(lc_dumpd(theirs))))
    assert (back.name, back.optional_variables, back.tags) == ("g", ["y"], ["t"])
