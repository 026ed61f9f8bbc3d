"""Parity: the ``name=`` a start event's handlers get (issue 24).

A run started by hand passes ``name`` to the handlers as the program gave it (an
explicit ``None`` included), for every kind of run, as LangChain's managers do; and the
LangChain-to-ragline bridge hands on what LangChain passed.
"""

from __future__ import annotations

import asyncio
from typing import Any

_SERIALIZED = {"name": "from_serialized"}


def _start_names(callbacks: Any, messages: Any) -> list[Any]:
    """Each kind of start, sync and async, with ``name`` not given, ``None`` and a name:
    whether the handler got the keyword, and its value."""
    seen: list[Any] = []

    def record(kind: str, kwargs: dict[str, Any]) -> None:
        seen.append((kind, "name" in kwargs, kwargs.get("name")))

    class Recorder(callbacks.BaseCallbackHandler):  # type: ignore[misc,name-defined]
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            record("chain", kwargs)

        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            record("llm", kwargs)

        def on_chat_model_start(self, serialized: Any, batch: Any, **kwargs: Any) -> None:
            record("chat_model", kwargs)

        def on_retriever_start(self, serialized: Any, query: Any, **kwargs: Any) -> None:
            record("retriever", kwargs)

        def on_tool_start(self, serialized: Any, input_str: Any, **kwargs: Any) -> None:
            record("tool", kwargs)

    chat = [[messages.HumanMessage(content="hi")]]
    choices: list[dict[str, Any]] = [{}, {"name": None}, {"name": "given"}]
    manager = callbacks.CallbackManager(handlers=[Recorder()])
    for given in choices:
        manager.on_chain_start(_SERIALIZED, {"a": 1}, **given)
        manager.on_llm_start(_SERIALIZED, ["p"], **given)
        manager.on_chat_model_start(_SERIALIZED, chat, **given)
        manager.on_retriever_start(_SERIALIZED, "q", **given)
        manager.on_tool_start(_SERIALIZED, "x", **given)

    async def run_async() -> None:
        started = callbacks.AsyncCallbackManager(handlers=[Recorder()])
        for given in choices:
            await started.on_chain_start(_SERIALIZED, {"a": 1}, **given)
            await started.on_llm_start(_SERIALIZED, ["p"], **given)
            await started.on_chat_model_start(_SERIALIZED, chat, **given)
            await started.on_retriever_start(_SERIALIZED, "q", **given)
            await started.on_tool_start(_SERIALIZED, "x", **given)

    asyncio.run(run_async())
    return seen


def test_a_hand_started_run_passes_name_as_given_as_langchains() -> None:
    import langchain_core.callbacks as lc_callbacks
    import langchain_core.messages as lc_messages

    import ragline.core as rl_core
    import ragline.core.callbacks as rl_callbacks

    expected = _start_names(lc_callbacks, lc_messages)
    assert expected[5:10] == [
        ("chain", True, None),
        ("llm", True, None),
        ("chat_model", True, None),
        ("retriever", True, None),
        ("tool", True, None),
    ]
    assert _start_names(rl_callbacks, rl_core) == expected


def test_the_bridge_hands_on_a_langchain_tools_name_as_langchain_passed_it() -> None:
    import langchain_core.callbacks as lc_callbacks
    import langchain_core.runnables as lc_runnables
    import langchain_core.tools as lc_tools

    import ragline.core as rl_core
    from ragline.interop.langchain import from_langchain

    @lc_tools.tool
    def shout(text: str) -> str:
        """Shout the text."""
        return text.upper()

    chain = lc_runnables.RunnableLambda(lambda x: {"text": x}) | shout

    def recorder(base: Any, seen: list[Any]) -> Any:
        class Recorder(base):  # type: ignore[misc,valid-type]
            def on_tool_start(self, serialized: Any, input_str: Any, **kwargs: Any) -> None:
                seen.append((serialized["name"], "name" in kwargs, kwargs.get("name")))

        return Recorder()

    expected: list[Any] = []
    assert (
        chain.invoke("hi", {"callbacks": [recorder(lc_callbacks.BaseCallbackHandler, expected)]})
        == "HI"
    )
    assert expected == [("shout", True, None)]
    got: list[Any] = []
    bridged = from_langchain(chain)
    assert bridged.invoke("hi", {"callbacks": [recorder(rl_core.BaseCallbackHandler, got)]}) == "HI"
    assert got == expected
