"""Conversation machinery against LangChain, measured in the same run on fake models.

With fake models (no network, no real model) the time measured is the framework's own
cost per turn. Measures, each as microseconds per call (best of ``--repeat`` runs of
``--turns`` calls) on both sides, and their ratio:

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
sides are checked to give the same answers before anything is timed. The machine load
(1-minute load average) is printed before and after: compare ratios from one run.

Usage:
    .venv/bin/python benchmarks/conversations.py [--turns 300] [--repeat 3]
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

from _timing import best_of  # noqa: E402

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


def _per_call(turns: int, repeat: int, one: Callable[[], Any]) -> tuple[float, Any]:
    """Microseconds per call (best of ``repeat`` runs of ``turns`` calls) and the last result."""
    seconds, results = best_of(repeat, lambda: [one() for _ in range(turns)])
    return seconds / turns * 1e6, results[-1]


def _with_history(side: dict[str, Any], size: int, turns: int, repeat: int) -> tuple[Any, Any]:
    """(turn, the same chain invoked with the messages passed by hand), per call."""
    base = _history(side["messages"], size)
    history = side["history"](messages=list(base))
    chain = side["prompt"]() | side["chat_model"]()
    wrapped = side["with_history"](
        chain, lambda session_id: history, input_messages_key="question",
        history_messages_key="history",
    )  # fmt: skip
    config = {"configurable": {"session_id": "s"}}

    def turn() -> Any:
        history.messages = list(base)  # every turn reads the same history
        return wrapped.invoke({"question": "What is RAG?"}, config).content

    def by_hand() -> Any:
        messages = list(base)  # the same copy the turn makes
        return chain.invoke({"question": "What is RAG?", "history": messages}).content

    return _per_call(turns, repeat, turn), _per_call(turns, repeat, by_hand)


def measure(side: dict[str, Any], turns: int, repeat: int) -> dict[str, tuple[float, str]]:
    """Every figure: name -> (microseconds per call, the answer it gave)."""
    figures: dict[str, tuple[float, str]] = {}
    for size in HISTORY_SIZES:
        with_wrapper, without = _with_history(side, size, turns, repeat)
        figures[f"RunnableWithMessageHistory, {size} messages"] = with_wrapper
        figures[f"  its overhead, {size} messages"] = (with_wrapper[0] - without[0], without[1])

    llm_chain = side["llm_chain"](llm=side["llm"](), prompt=side["template"]("Explain {topic}."))
    figures["LLMChain.invoke"] = _per_call(
        turns, repeat, lambda: llm_chain.invoke({"topic": "RAG"})["text"]
    )

    conversation = side["conversation"](side["llm"]())
    base = _history(side["messages"], 10)

    def conversation_turn() -> Any:
        conversation.memory.chat_memory.messages = list(base)
        return conversation.invoke({"input": "What is RAG?"})["response"]

    figures["ConversationChain + buffer memory"] = _per_call(turns, repeat, conversation_turn)

    cached = side["cached_model"]()
    cached.invoke("What is RAG?")  # the entry every timed call hits
    figures["LLM cache hit (chat model)"] = _per_call(
        turns, repeat, lambda: cached.invoke("What is RAG?").content
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    ours, theirs = load_side(RAGLINE), load_side(LANGCHAIN)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    # alternate the sides so both see the same load: ours, theirs, ours, theirs ...
    ragline_figures = measure(ours, args.turns, args.repeat)
    langchain_figures = measure(theirs, args.turns, args.repeat)
    ragline_again = measure(ours, args.turns, args.repeat)
    langchain_again = measure(theirs, args.turns, args.repeat)
    elapsed = time.perf_counter() - started
    print(
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"turns={args.turns}, best of {args.repeat} (x2, sides alternated), one thread; "
        f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
        f"({elapsed:.0f} s)"
    )
    print(f"{'us per call':42} {'ragline':>10} {'LangChain':>11} {'ratio':>8}")
    for name, (value, answer) in ragline_figures.items():
        other, their_answer = langchain_figures[name]
        if not name.startswith("  ") and answer != their_answer:
            raise AssertionError(f"{name}: ragline said {answer!r}, LangChain {their_answer!r}")
        ours_best = min(value, ragline_again[name][0])
        theirs_best = min(other, langchain_again[name][0])
        ratio = theirs_best / ours_best if ours_best > 0 else float("inf")
        print(f"{name:42} {ours_best:10.1f} {theirs_best:11.1f} {ratio:7.1f}x")


if __name__ == "__main__":
    main()
