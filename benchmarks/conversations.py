"""Conversation machinery against LangChain, measured in the same run on fake models.

With fake models (no network, no real model) the time measured is the framework's own
cost per turn. Measures, each as microseconds per call on both sides, and their ratio
(LangChain's time over ragline's):

* ``RunnableWithMessageHistory`` around ``ChatPromptTemplate | FakeListChatModel`` with
  an in-memory history holding 10 and 1,000 messages (the history is reset to that
  length before each turn, on both sides, so every turn reads the same history); also
  the *overhead* of the wrapper: the turn minus the same chain invoked with the same
  messages passed by hand;
* ``LLMChain.invoke`` (``PromptTemplate`` and ``FakeListLLM``);
* ``ConversationChain`` with ``ConversationBufferMemory`` (history reset to 10 messages
  before each turn);
* an LLM-cache hit (``InMemoryCache``, a chat model answering a prompt already cached).

LangChain's side is langchain-core and langchain-classic (the ``bench`` extra). Both
sides are checked to give the same answers before anything is timed. Timings are
round-robin (each round times ``--turns`` calls of every competitor in turn, a tenth of
that at 1,000 messages; a figure is the competitor's fastest of ``--rounds`` rounds), so
load from other processes on a shared machine hurts both sides alike; ``--cpu`` counts
this process's CPU time instead of wall time. The 1-minute load average is printed
before and after: compare ratios from one run.

Usage:
    .venv/bin/python benchmarks/conversations.py [--turns 200] [--rounds 7] [--cpu]
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
warnings.filterwarnings("ignore")

from _timing import interleaved  # noqa: E402

ANSWER = "Retrieval-augmented generation grounds answers in documents."
HISTORY_SIZES = (10, 1000)


def _history(messages: Any, size: int) -> list[Any]:
    human, ai = messages
    return [human(f"question {i}") if i % 2 == 0 else ai(f"answer {i}") for i in range(size)]


def _side(n: SimpleNamespace) -> dict[str, Any]:
    """What ``measure`` builds each figure from, out of one library's classes."""
    return {
        "messages": (n.HumanMessage, n.AIMessage),
        "prompt": lambda: n.ChatPromptTemplate.from_messages(
            [
                ("system", "You are terse."),
                n.MessagesPlaceholder("history"),
                ("human", "{question}"),
            ]
        ),
        "chat_model": lambda: n.FakeListChatModel(responses=[ANSWER]),
        "llm": lambda: n.FakeListLLM(responses=[ANSWER]),
        "history": n.InMemoryChatMessageHistory,
        "with_history": n.RunnableWithMessageHistory,
        "template": n.PromptTemplate.from_template,
        "llm_chain": n.LLMChain,
        "conversation": lambda llm: n.ConversationChain(
            llm=llm, memory=n.ConversationBufferMemory()
        ),
        "cached_model": lambda: n.FakeListChatModel(responses=[ANSWER], cache=n.InMemoryCache()),
    }


# Where each side's classes come from (the names are the same on both sides).
RAGLINE = {
    "ragline.chains": ["ConversationChain", "LLMChain"],
    "ragline.memory": ["ConversationBufferMemory"],
    "ragline.core": [
        "AIMessage", "ChatPromptTemplate", "FakeListChatModel", "FakeListLLM", "HumanMessage",
        "InMemoryCache", "InMemoryChatMessageHistory", "MessagesPlaceholder", "PromptTemplate",
        "RunnableWithMessageHistory",
    ],
}  # fmt: skip
LANGCHAIN = {
    "langchain_classic.chains": ["ConversationChain", "LLMChain"],
    "langchain_classic.memory": ["ConversationBufferMemory"],
    "langchain_core.caches": ["InMemoryCache"],
    "langchain_core.chat_history": ["InMemoryChatMessageHistory"],
    "langchain_core.language_models": ["FakeListChatModel", "FakeListLLM"],
    "langchain_core.messages": ["AIMessage", "HumanMessage"],
    "langchain_core.prompts": ["ChatPromptTemplate", "MessagesPlaceholder", "PromptTemplate"],
    "langchain_core.runnables.history": ["RunnableWithMessageHistory"],
}


def load_side(names: dict[str, list[str]]) -> dict[str, Any]:
    """One library's side, its classes imported from ``names``."""
    found = {
        name: getattr(importlib.import_module(module), name)
        for module, module_names in names.items()
        for name in module_names
    }
    warnings.simplefilter("ignore")  # LangChain's deprecation notices would fill the table
    return _side(SimpleNamespace(**found))


def _turns(side: dict[str, Any], size: int) -> dict[str, Callable[[int], Any]]:
    """A ``RunnableWithMessageHistory`` turn over ``size`` stored messages, and the same
    chain invoked with the same messages passed by hand (the turn minus it: the wrapper's
    own cost)."""
    base = _history(side["messages"], size)
    history = side["history"](messages=list(base))
    chain = side["prompt"]() | side["chat_model"]()
    wrapped = side["with_history"](
        chain, lambda session_id: history, input_messages_key="question",
        history_messages_key="history",
    )  # fmt: skip
    config = {"configurable": {"session_id": "s"}}

    def turn(i: int) -> Any:
        history.messages = list(base)  # every turn reads the same history
        return wrapped.invoke({"question": "What is RAG?"}, config).content

    def by_hand(i: int) -> Any:
        messages = list(base)  # the same copy the turn makes
        return chain.invoke({"question": "What is RAG?", "history": messages}).content

    return {"turn": turn, "by hand": by_hand}


def calls(side: dict[str, Any]) -> dict[str, Callable[[int], Any]]:
    """Every timed call of one side: figure name -> a function of the call's index."""
    functions: dict[str, Callable[[int], Any]] = {}
    for size in HISTORY_SIZES:
        pair = _turns(side, size)
        functions[f"RunnableWithMessageHistory, {size} messages"] = pair["turn"]
        functions[f"  same chain, history by hand, {size}"] = pair["by hand"]

    llm_chain = side["llm_chain"](llm=side["llm"](), prompt=side["template"]("Explain {topic}."))
    functions["LLMChain.invoke"] = lambda i: llm_chain.invoke({"topic": "RAG"})["text"]

    conversation = side["conversation"](side["llm"]())
    base = _history(side["messages"], 10)

    def conversation_turn(i: int) -> Any:
        conversation.memory.chat_memory.messages = list(base)
        return conversation.invoke({"input": "What is RAG?"})["response"]

    functions["ConversationChain + buffer memory"] = conversation_turn

    cached = side["cached_model"]()
    cached.invoke("What is RAG?")  # the entry every timed call hits
    functions["LLM cache hit (chat model)"] = lambda i: cached.invoke("What is RAG?").content
    return functions


def check_same_answers(ours: dict[str, Callable[[int], Any]], theirs: dict[str, Any]) -> None:
    """Both sides give the same answer for every figure before anything is timed."""
    for name, function in ours.items():
        answer, their_answer = function(0), theirs[name](0)
        if answer != their_answer:
            raise AssertionError(f"{name}: ragline said {answer!r}, LangChain {their_answer!r}")


def measure(
    ours: dict[str, Callable[[int], Any]],
    theirs: dict[str, Callable[[int], Any]],
    *,
    turns: int,
    rounds: int,
    clock: Callable[[], float],
) -> dict[str, tuple[float, float]]:
    """name -> (ragline, LangChain) microseconds per call.

    The two sides run round-robin; a turn and its chain-by-hand twin run in the same
    rounds, so the overhead (their difference) comes from one stretch of machine load.
    """
    groups: list[list[str]] = []
    for name in ours:
        if name.startswith("  same chain"):
            groups[-1].append(name)
        else:
            groups.append([name])
    figures = {}
    for group in groups:
        functions = {}
        for name in group:
            functions[("ragline", name)] = ours[name]
            functions[("langchain", name)] = theirs[name]
        slow = any("1000" in name for name in group)
        best = interleaved(
            functions,  # type: ignore[arg-type]
            calls=max(1, turns // 10) if slow else turns,
            rounds=rounds,
            clock=clock,
        )
        for name in group:
            figures[name] = (best[("ragline", name)] * 1e6, best[("langchain", name)] * 1e6)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cpu", action="store_true", help="CPU time of this process, not wall")
    args = parser.parse_args()

    ours, theirs = calls(load_side(RAGLINE)), calls(load_side(LANGCHAIN))
    check_same_answers(ours, theirs)
    clock = time.process_time if args.cpu else time.perf_counter
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    figures = measure(ours, theirs, turns=args.turns, rounds=args.rounds, clock=clock)
    elapsed = time.perf_counter() - started
    print(
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"{'process CPU time' if args.cpu else 'wall time'}, {args.turns} calls per round "
        f"(a tenth at 1,000 messages), fastest of {args.rounds} rounds, sides round-robin, "
        f"one thread; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
        f"({elapsed:.0f} s)"
    )
    print(f"{'us per call':42} {'ragline':>10} {'LangChain':>11} {'ratio':>8}")
    rows = dict(figures)
    for size in HISTORY_SIZES:  # the wrapper's own cost: the turn minus the chain by hand
        turn = rows[f"RunnableWithMessageHistory, {size} messages"]
        by_hand = rows.pop(f"  same chain, history by hand, {size}")
        rows[f"  its overhead, {size} messages"] = (turn[0] - by_hand[0], turn[1] - by_hand[1])
    order = [name for name in ours if not name.startswith("  same chain")]
    for size in HISTORY_SIZES:
        order.insert(order.index(f"RunnableWithMessageHistory, {size} messages") + 1,
                     f"  its overhead, {size} messages")  # fmt: skip
    for name in order:
        mine, other = rows[name]
        ratio = f"{other / mine:7.1f}x" if mine > 0 else "    n/a"
        print(f"{name:42} {mine:10.1f} {other:11.1f} {ratio}")


if __name__ == "__main__":
    main()
