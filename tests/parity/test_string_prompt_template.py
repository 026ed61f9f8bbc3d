"""Parity: StringPromptTemplate, the base of a program's own prompt, against LangChain's.

The same subclass bodies on each library's base: an agent-style prompt that renders
its tools and the steps so far into the template (the shape of LangChain's classic
custom-agent prompts), and a prompt with a partial variable. Compared: the text and
the prompt value ``invoke`` / ``format_prompt`` / ``format`` give, ``partial``, the printed
form, name and input schema, piping into a fake model, and a missing variable (a
``KeyError`` in both).
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import StringPromptTemplate as LCStringPromptTemplate

from ragline.core import FakeListLLM
from ragline.core.prompts import StringPromptTemplate

COVERS = {"core.prompts.StringPromptTemplate"}

TEMPLATE = "Tools:\n{tools}\n\nQuestion: {input}\n{agent_scratchpad}"


def make(base: Any) -> tuple[Any, Any]:
    class ToolPrompt(base):
        template: str
        tools: list[str]

        def format(self, **kwargs: Any) -> str:
            steps = kwargs.pop("intermediate_steps")
            notes = "".join(f"Did: {step}\nSaw: {seen}\n" for step, seen in steps)
            kwargs["agent_scratchpad"] = notes + "Next:"
            kwargs["tools"] = "\n".join(f"- {tool}" for tool in self.tools)
            return self.template.format(**kwargs)

    class Dated(base):
        template: str = "[{day}] {text}"

        def format(self, **kwargs: Any) -> str:
            return self.template.format(**self._merge_partial_and_user_variables(**kwargs))

    return ToolPrompt, Dated


LC_TOOLS, LC_DATED = make(LCStringPromptTemplate)
RL_TOOLS, RL_DATED = make(StringPromptTemplate)

INPUT = {"input": "2+2?", "intermediate_steps": [("add 2 2", "4"), ("check", "ok")]}


def outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except Exception as err:
        return ("raised", isinstance(err, KeyError))


def both(make_prompt: Any, lc_class: Any, rl_class: Any) -> tuple[Any, Any]:
    return make_prompt(lc_class), make_prompt(rl_class)


def test_an_agent_style_prompt():
    lc, rl = both(
        lambda cls: cls(
            template=TEMPLATE,
            tools=["calc", "search"],
            input_variables=["input", "intermediate_steps"],
        ),
        LC_TOOLS,
        RL_TOOLS,
    )
    assert repr(rl) == repr(lc)
    assert rl.invoke(INPUT).to_string() == lc.invoke(INPUT).to_string()
    assert rl.invoke(INPUT).to_messages()[0].content == lc.invoke(INPUT).to_messages()[0].content
    assert rl.format_prompt(**INPUT).to_string() == lc.format_prompt(**INPUT).to_string()
    assert rl.format(**dict(INPUT)) == lc.format(**dict(INPUT))
    assert rl.get_name() == lc.get_name()
    assert rl.get_input_jsonschema()["required"] == lc.get_input_jsonschema()["required"]
    assert outcome(rl.invoke, {"input": "x"})[0] == "raised"
    assert outcome(rl.invoke, {"input": "x"}) == outcome(lc.invoke, {"input": "x"})
    replies = ["Final answer: 4"]
    assert (rl | FakeListLLM(responses=replies)).invoke(INPUT) == (
        lc | LCFakeListLLM(responses=replies)
    ).invoke(INPUT)
    assert asyncio.run(rl.ainvoke(INPUT)).to_string() == asyncio.run(lc.ainvoke(INPUT)).to_string()


def test_partial_variables():
    lc, rl = both(lambda cls: cls(input_variables=["day", "text"]), LC_DATED, RL_DATED)
    assert repr(rl) == repr(lc)
    lc_mon, rl_mon = lc.partial(day="Mon"), rl.partial(day="Mon")
    assert repr(rl_mon) == repr(lc_mon)
    assert rl_mon.invoke({"text": "hi"}).to_string() == lc_mon.invoke({"text": "hi"}).to_string()
    assert rl_mon.invoke("solo").to_string() == lc_mon.invoke("solo").to_string()
    assert rl_mon.format(text="x") == lc_mon.format(text="x")
    lc_given = LC_DATED(input_variables=["text"], partial_variables={"day": lambda: "Tue"})
    rl_given = RL_DATED(input_variables=["text"], partial_variables={"day": lambda: "Tue"})
    assert rl_given.format(text="y") == lc_given.format(text="y")
    assert rl_given.pretty_repr() == lc_given.pretty_repr()
    assert outcome(RL_DATED)[0] == outcome(LC_DATED)[0] == "raised"
