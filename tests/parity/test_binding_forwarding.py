"""Parity: what a program reaches through a binding's unknown attributes (issue 24).

LangChain's bindings hand attributes they lack to the bound runnable; the same program
shape runs through LangChain and through ragline and what it reads is compared.
"""

from __future__ import annotations

from typing import Any


def _tool_chat(models: Any, messages: Any) -> Any:
    class ToolChat(models.FakeMessagesListChatModel):  # type: ignore[misc,name-defined]
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=tools, **kwargs)

        def config_first(self, config: Any = None, /) -> Any:
            return config

        def tags_kw(self, *, config: Any = None) -> Any:
            # LangChain's merge of an empty config has empty tags, ragline's no key
            return (config or {}).get("tags") or []

    return ToolChat(responses=[messages.AIMessage(content="done")])


def _listeners_view(models: Any, messages: Any) -> list[Any]:
    """``model.with_listeners(...)`` (with a listener taking the run alone, and one taking
    the run and its config) then ``bind_tools`` and the model's own fields."""
    chat = _tool_chat(models, messages)
    started: list[str] = []
    seen: list[Any] = []
    for listener in (lambda run: started.append(run.name), lambda run, config: None):
        listened = chat.with_listeners(on_start=listener)
        with_tools = listened.bind_tools(["a_tool"], tool_choice="auto")
        seen += [
            type(with_tools.bound).__name__,
            with_tools.kwargs,
            with_tools.invoke("hi").content,
            [reply.content for reply in listened.responses],
            listened.tags_kw(),
            listened.tags_kw(config={"tags": ["x"]}),
            hasattr(listened, "no_such_thing"),
        ]
    return [*seen, started]


def test_with_listeners_hands_unknown_attributes_to_the_model_as_langchains() -> None:
    import langchain_core.language_models as lc_models
    import langchain_core.messages as lc_messages

    import ragline.core as rl_core

    expected = _listeners_view(lc_models, lc_messages)
    assert expected[:3] == ["ToolChat", {"tools": ["a_tool"], "tool_choice": "auto"}, "done"]
    assert _listeners_view(rl_core, rl_core) == expected


def _positional_only_view(models: Any, messages: Any) -> list[Any]:
    """A bound method whose ``config`` is positional-only is handed back as it is (not
    given the binding's config), through ``with_config`` and ``with_types``."""
    chat = _tool_chat(models, messages)
    seen: list[Any] = []
    for binding in (chat.with_config(tags=["b"]), chat.with_types(input_type=str)):
        method = binding.config_first
        seen += [
            method.__self__ is chat,
            method(),
            method({"tags": ["c"]}),
            binding.tags_kw(),
            binding.tags_kw(config={"tags": ["d"]}),
        ]
    return seen


def test_a_positional_only_config_is_not_wrapped_as_langchains() -> None:
    import langchain_core.language_models as lc_models
    import langchain_core.messages as lc_messages

    import ragline.core as rl_core

    expected = _positional_only_view(lc_models, lc_messages)
    assert expected[:3] == [True, None, {"tags": ["c"]}]
    assert _positional_only_view(rl_core, rl_core) == expected


def test_the_config_position_is_read_once_per_function() -> None:
    from ragline.core import RunnableLambda
    from ragline.core.runnables import binding

    class Tagged(RunnableLambda):  # type: ignore[misc]
        def tags_of(self, x: Any, config: Any = None) -> Any:
            return (x, (config or {}).get("tags"))

    bound = Tagged(lambda x: x).with_config(tags=["b"])
    assert bound.tags_of(1) == (1, ["b"])
    assert binding._method_positions[Tagged.tags_of] == 1  # the bound method takes (x, config)
    binding._method_positions[Tagged.tags_of] = None  # a stale entry would be used as is
    assert bound.tags_of(1) == (1, None)
    del binding._method_positions[Tagged.tags_of]
    assert bound.tags_of(1, {"tags": ["c"]}) == (1, ["b", "c"])


def _fallbacks_view(models: Any, messages: Any, runnables: Any) -> list[Any]:
    """``primary.with_fallbacks([backup])`` then a method annotated to return a runnable
    (called on each, giving their fallbacks), one that is not, and a field."""

    class ToolChat(models.FakeMessagesListChatModel):  # type: ignore[misc,name-defined]
        label: str = "chat"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=tools, **kwargs)

        def tool_count(self, tools: Any) -> Any:
            return len(tools)

    # the annotation as an object: this module's names differ between the two libraries
    ToolChat.bind_tools.__annotations__["return"] = runnables.Runnable
    primary = ToolChat(responses=[messages.AIMessage(content="primary")], label="first")
    backup = ToolChat(responses=[messages.AIMessage(content="backup")], label="second")
    chained = primary.with_fallbacks([backup], exception_key=None)
    with_tools = chained.bind_tools(["a_tool"], tool_choice="auto")
    return [
        type(with_tools).__name__,
        [isinstance(r, runnables.RunnableBinding) for r in with_tools.runnables],
        [(r.bound.label, r.kwargs) for r in with_tools.runnables],
        with_tools.exceptions_to_handle,
        with_tools.invoke("hi").content,
        chained.tool_count(["a", "b"]),
        chained.label,
        hasattr(chained, "no_such_thing"),
    ]


def test_with_fallbacks_hands_attributes_to_each_runnable_as_langchains() -> None:
    import langchain_core.language_models as lc_models
    import langchain_core.messages as lc_messages
    import langchain_core.runnables as lc_runnables

    import ragline.core as rl_core

    expected = _fallbacks_view(lc_models, lc_messages, lc_runnables)
    assert expected[:3] == [
        "RunnableWithFallbacks",
        [True, True],
        [
            ("first", {"tools": ["a_tool"], "tool_choice": "auto"}),
            ("second", {"tools": ["a_tool"], "tool_choice": "auto"}),
        ],
    ]
    assert _fallbacks_view(rl_core, rl_core, rl_core) == expected


def _openai_fallbacks_view(chat_openai: Any) -> list[Any]:
    """``ChatOpenAI(...).with_fallbacks([ChatOpenAI(...)]).bind_tools(tools)``: each model
    bound with the tools (no request is made)."""

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    options = {"api_key": "not-used", "base_url": "http://127.0.0.1:9/v1"}
    primary = chat_openai(model="gpt-4o-mini", **options)
    backup = chat_openai(model="gpt-4o", **options)
    with_tools = primary.with_fallbacks([backup]).bind_tools([add], tool_choice="auto")
    return [
        type(with_tools).__name__,
        [
            (r.bound.model_name, r.kwargs["tools"][0]["function"]["name"], r.kwargs["tool_choice"])
            for r in with_tools.runnables
        ],
    ]


def test_chat_openai_bind_tools_through_fallbacks_binds_each_model_as_langchains() -> None:
    from langchain_openai import ChatOpenAI as LCChatOpenAI

    from ragline.chat_models import ChatOpenAI

    expected = _openai_fallbacks_view(LCChatOpenAI)
    assert expected == [
        "RunnableWithFallbacks",
        [("gpt-4o-mini", "add", "auto"), ("gpt-4o", "add", "auto")],
    ]
    assert _openai_fallbacks_view(ChatOpenAI) == expected
