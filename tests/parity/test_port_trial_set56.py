"""Parity: differences found by the fifty-sixth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# dumps_load_messages_pretty_json, message_serialization_dumpd_load: `load` is both a
# function of langchain_core.load and a submodule of it; port took the submodule, so the
# ported program called a module ('module' object is not callable).
_LOAD_FUNCTION = """
from langchain_core.load import {names}
from langchain_core.messages import AIMessage, HumanMessage

history = [HumanMessage("Where is Lyon?"), AIMessage("In France.", name="geo")]
text = dumps(history, pretty=True)
back = load(dumpd(history))
print(text)
print(back, back == history)
print(loads(text) == history)
"""


def test_load_imported_from_langchain_core_load_is_the_function() -> None:
    for names in ("dumps, dumpd, load, loads", "load, dumps, loads, dumpd"):
        source = _LOAD_FUNCTION.format(names=names)
        ported = _ported(source)
        assert "import ragline.core.load as load" not in ported
        langchain_printed = _printed(source)
        assert langchain_printed.endswith(" True\nTrue\n")
        assert _printed(ported) == langchain_printed


# A submodule imported by name from its package still ports as the module when the
# package does not also bind that name (the case the submodule branch exists for).
_SUBMODULE = """
from langchain_core import messages, documents

print(messages.get_buffer_string([messages.HumanMessage("hi"), messages.AIMessage("yo")]))
print(documents.Document(page_content="x", metadata={"a": 1}))
"""


def test_a_submodule_imported_from_its_package_still_ports_as_the_module() -> None:
    ported = _ported(_SUBMODULE)
    assert "as messages" in ported and "as documents" in ported
    langchain_printed = _printed(_SUBMODULE)
    assert langchain_printed.startswith("Human: hi\nAI: yo\n")
    assert _printed(ported) == langchain_printed


# tiktoken_counter_role_match_trim: a token counter picks the role with `match msg:` and
# `case SystemMessage(msg):`. LangChain's messages (pydantic) have no __match_args__, so
# a positional sub-pattern raises TypeError; ragline's dataclass messages matched it,
# bound `msg` to the content and failed later with an AttributeError.
_MATCH_POSITIONAL = """
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

def role(msg):
    match msg:
        case HumanMessage(name="bob"):
            return "bob"
        case HumanMessage():
            return "user"
        case AIMessage(content=text) if text:
            return "assistant:" + text
        case {kind}({pattern}):
            return "positional"
    return "other"

for msg in [HumanMessage("hi", name="bob"), HumanMessage("hey"), AIMessage("yo"),
            ToolMessage("1", tool_call_id="t")]:
    print(role(msg))
for value in [SystemMessage("be brief"), {value}]:
    try:
        print(role(value))
    except TypeError as error:
        print(type(error).__name__, error)
"""


def test_a_positional_class_pattern_on_a_message_raises_as_langchains() -> None:
    for kind, pattern, value in (
        ("SystemMessage", "text", 'SystemMessage("x")'),
        ("SystemMessage", "text, _", 'SystemMessage("x")'),
        ("Document", "text", 'Document(page_content="p")'),
    ):
        source = _MATCH_POSITIONAL.format(kind=kind, pattern=pattern, value=value)
        langchain_printed = _printed(source)
        assert langchain_printed.count("positional sub-pattern") == (
            2 if kind == "SystemMessage" else 1
        )
        assert _printed(_ported(source)) == langchain_printed


# react_build_ai_message_from_chunks: a helper ends with AIMessage(content=...,
# tool_calls=calls or None). LangChain refuses None with pydantic's ValidationError (a
# ValueError); ragline failed inside with a TypeError ('NoneType' object is not iterable),
# which `except ValueError` written for LangChain does not catch.
_TOOL_CALLS_NONE = """
from langchain_core.messages import {cls}

for field in ("tool_calls", "invalid_tool_calls"):
    try:
        {cls}(content="done", **{{field: None}})
    except ValueError as error:
        print(field, "refused, a ValueError:", isinstance(error, ValueError))
print({cls}(content="ok", tool_calls=[{{"name": "a", "args": {{}}, "id": "1"}}]).tool_calls)
"""


def test_tool_calls_none_is_refused_with_a_value_error_as_langchains() -> None:
    for cls in ("AIMessage", "AIMessageChunk"):
        source = _TOOL_CALLS_NONE.format(cls=cls)
        langchain_printed = _printed(source)
        assert langchain_printed.count("refused, a ValueError: True") == 2
        assert _printed(_ported(source)) == langchain_printed
