"""Agent executor overhead and tool-schema building: ragline against langchain-classic /
langchain-core, measured in the same run.

    .venv/bin/python benchmarks/agents.py [--rounds 7] [--cpu] [--quick]

executor: an agent whose fake model answers instantly and a trivial tool (``echo``), run
for 1, 5 and 20 tool steps then a final answer, so the figures are the frameworks' own
cost: the executor loop, the agent chain (scratchpad, prompt, model, parser) and the
tool runs, with LangChain's defaults on both sides (the agent runnable streamed, no
callback handler). Two agents:

- ReAct: ``create_react_agent`` with each library's ``FakeListLLM`` scripted with
  ``Action: echo`` replies, LangChain hub's ReAct prompt;
- tool calling: ``create_tool_calling_agent`` with each library's
  ``FakeMessagesListChatModel`` scripted with ``AIMessage`` tool calls (LangChain's fake
  gets a ``bind_tools`` that returns the model, which it lacks).

For each: milliseconds per run, and the marginal cost of one step (microseconds: the run
with N steps minus the run with none, over N).

schema: describing a typed, documented function to a model:
``convert_to_openai_tool(function)``, and ``@tool`` then ``convert_to_openai_tool(tool)``.

Ratios are LangChain's time over ragline's (above 1: ragline is faster). Timings are
round-robin (each round times a block of calls of every competitor in turn; a figure is
the competitor's fastest round), so load from other processes on a shared machine hurts
both alike; the load average is printed, and ``--cpu`` measures this process's CPU time
instead of wall time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import interleaved

STEPS = (1, 5, 20)
ACT = " I should echo.\nAction: echo\nAction Input: x"
DONE = " I know.\nFinal Answer: ok"
QUESTION = {"input": "Echo x."}


def search(
    query: str,
    k: int = 4,
    kind: Literal["web", "news"] = "web",
    tags: Optional[list[str]] = None,  # noqa: UP045 - the spelling users write
) -> str:
    """Search the index.

    Args:
        query: what to look for.
        k: how many results.
        kind: where to look.
        tags: only results with these tags.
    """
    return query


# --------------------------------------------------------------------------- ragline


def ragline_executors(steps: int) -> dict[str, Any]:
    from ragline.agents import (
        REACT_PROMPT,
        AgentExecutor,
        create_react_agent,
        create_tool_calling_agent,
    )
    from ragline.core import (
        AIMessage,
        ChatPromptTemplate,
        FakeListLLM,
        FakeMessagesListChatModel,
        MessagesPlaceholder,
    )
    from ragline.tools import tool

    @tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    llm = FakeListLLM(responses=[ACT] * steps + [DONE])
    react = AgentExecutor(agent=create_react_agent(llm, [echo], REACT_PROMPT), tools=[echo],
                          max_iterations=None)  # fmt: skip
    call = AIMessage("", tool_calls=[{"name": "echo", "args": {"text": "x"}, "id": "c1"}])
    chat = FakeMessagesListChatModel(responses=[call] * steps + [AIMessage("ok")])
    prompt = ChatPromptTemplate.from_messages(
        [("human", "{input}"), MessagesPlaceholder("agent_scratchpad")]
    )
    tools_agent = AgentExecutor(agent=create_tool_calling_agent(chat, [echo], prompt),
                                tools=[echo], max_iterations=None)  # fmt: skip
    return {"react": react, "tool calling": tools_agent}


def ragline_schema() -> dict[str, Callable[[int], Any]]:
    from ragline.core import convert_to_openai_tool
    from ragline.tools import tool

    return {
        "convert_to_openai_tool(function)": lambda i: convert_to_openai_tool(search),
        "@tool + convert_to_openai_tool": lambda i: convert_to_openai_tool(tool(search)),
    }


# --------------------------------------------------------------------------- LangChain


def langchain_executors(steps: int) -> dict[str, Any]:
    from langchain_classic.agents import (
        AgentExecutor,
        create_react_agent,
        create_tool_calling_agent,
    )
    from langchain_core.language_models import FakeListLLM
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate
    from langchain_core.tools import tool

    from ragline.agents import REACT_PROMPT

    class ToolsFake(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    @tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    llm = FakeListLLM(responses=[ACT] * steps + [DONE])
    prompt = PromptTemplate.from_template(REACT_PROMPT.template)
    react = AgentExecutor(agent=create_react_agent(llm, [echo], prompt), tools=[echo],
                          max_iterations=None)  # fmt: skip
    call = AIMessage("", tool_calls=[{"name": "echo", "args": {"text": "x"}, "id": "c1"}])
    chat = ToolsFake(responses=[call] * steps + [AIMessage("ok")])
    chat_prompt = ChatPromptTemplate.from_messages(
        [("human", "{input}"), MessagesPlaceholder("agent_scratchpad")]
    )
    tools_agent = AgentExecutor(agent=create_tool_calling_agent(chat, [echo], chat_prompt),
                                tools=[echo], max_iterations=None)  # fmt: skip
    return {"react": react, "tool calling": tools_agent}


def langchain_schema() -> dict[str, Callable[[int], Any]]:
    from langchain_core.tools import tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return {
        "convert_to_openai_tool(function)": lambda i: convert_to_openai_tool(search),
        "@tool + convert_to_openai_tool": lambda i: convert_to_openai_tool(tool(search)),
    }


# --------------------------------------------------------------------------- running


def check_same_answers() -> None:
    """Both executors do the same work: same output, same number of steps."""
    for steps in (0, 3):
        ours, theirs = ragline_executors(steps), langchain_executors(steps)
        for kind in ours:
            a = ours[kind].invoke(QUESTION)
            b = theirs[kind].invoke(QUESTION)
            assert a["output"] == b["output"] == "ok", (kind, a, b)


def executor_rows(rounds: int, clock: Callable[[], float], quick: bool) -> list[list[str]]:
    rows = []
    base: dict[tuple[str, str], float] = {}
    for steps in (0, *STEPS):
        ours, theirs = ragline_executors(steps), langchain_executors(steps)
        calls = max(1, (40 if quick else 200) // (steps + 1))
        for kind in ours:
            figures = interleaved(
                {
                    "ragline": lambda i, e=ours[kind]: e.invoke(QUESTION),
                    "langchain": lambda i, e=theirs[kind]: e.invoke(QUESTION),
                },
                calls=calls,
                rounds=rounds,
                clock=clock,
            )
            if steps == 0:
                base[(kind, "ragline")] = figures["ragline"]
                base[(kind, "langchain")] = figures["langchain"]
                continue
            per_step = {name: (figures[name] - base[(kind, name)]) / steps for name in figures}
            rows.append(
                [
                    kind,
                    str(steps),
                    f"{figures['ragline'] * 1e3:.2f}",
                    f"{figures['langchain'] * 1e3:.2f}",
                    f"{figures['langchain'] / figures['ragline']:.1f}x",
                    f"{per_step['ragline'] * 1e6:.0f}",
                    f"{per_step['langchain'] * 1e6:.0f}",
                    f"{per_step['langchain'] / per_step['ragline']:.1f}x",
                ]
            )
    return rows


def schema_rows(rounds: int, clock: Callable[[], float], quick: bool) -> list[list[str]]:
    ours, theirs = ragline_schema(), langchain_schema()
    assert ours["convert_to_openai_tool(function)"](0)["function"]["parameters"]["required"] == [
        "query"
    ]
    rows = []
    for name in ours:
        figures = interleaved(
            {"ragline": ours[name], "langchain": theirs[name]},
            calls=50 if quick else 300,
            rounds=rounds,
            clock=clock,
        )
        rows.append(
            [
                name,
                f"{figures['ragline'] * 1e6:.0f}",
                f"{figures['langchain'] * 1e6:.0f}",
                f"{figures['langchain'] / figures['ragline']:.1f}x",
            ]
        )
    return rows


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cpu", action="store_true", help="CPU time of this process, not wall")
    parser.add_argument("--quick", action="store_true", help="fewer calls per round")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    clock = time.process_time if args.cpu else time.perf_counter
    load_before = os.getloadavg()
    check_same_answers()
    executor = executor_rows(args.rounds, clock, args.quick)
    schema = schema_rows(args.rounds, clock, args.quick)
    print(f"clock: {'process CPU time' if args.cpu else 'wall time'}, rounds {args.rounds}, "
          f"{os.cpu_count()} cores, load average before "
          f"{' '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    print()
    print(table(["agent", "steps", "ragline ms/run", "LangChain ms/run", "ratio",
                 "ragline µs/step", "LangChain µs/step", "ratio/step"], executor))  # fmt: skip
    print()
    print(table(["tool schema from a function", "ragline µs", "LangChain µs", "ratio"], schema))


if __name__ == "__main__":
    main()
