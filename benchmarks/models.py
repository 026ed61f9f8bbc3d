"""Prompt | model | parser overhead against langchain-core, measured in the same run.

With a fake chat model (no network, no real model) the time measured is the framework's
own cost: formatting the prompt, converting messages, running callbacks, streaming
chunks through the parser. Measures:

* ``invoke`` of ``ChatPromptTemplate | FakeListChatModel | StrOutputParser`` (calls per
  second), with no callbacks and with a run-collecting callback handler;
* ``stream`` of the same chain over a 200-character answer (chunks per second);
* partial-JSON streaming: ``FakeListChatModel | JsonOutputParser`` over a 1 kB JSON
  answer streamed character by character (answers per second);
* import time of the pieces in a fresh interpreter (best of 5).

Both sides produce the same outputs (checked before timing). Figures are the best of
``--repeat`` runs.

Usage:
    .venv/bin/python benchmarks/models.py [--calls 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import warnings
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
warnings.filterwarnings("ignore")

from _timing import best_of, import_time  # noqa: E402

ANSWER = "Retrieval-augmented generation grounds answers in documents. " * 3 + "Done."
JSON_ANSWER = json.dumps(
    {
        "answer": "Paris",
        "sources": [{"id": i, "title": f"Doc {i}", "score": i / 10} for i in range(20)],
    }
)
MESSAGES = [("system", "You answer in {language}. Context: {context}"), ("human", "{question}")]
INPUT = {
    "language": "English",
    "context": "Paris is the capital of France.",
    "question": "Capital?",
}


def ragline_side() -> dict[str, Any]:
    from ragline.core import (
        ChatPromptTemplate,
        FakeListChatModel,
        JsonOutputParser,
        RunCollectorCallbackHandler,
        StrOutputParser,
    )

    return {
        "chain": lambda: (
            ChatPromptTemplate.from_messages(MESSAGES)
            | FakeListChatModel(responses=[ANSWER])
            | StrOutputParser()
        ),
        "json": lambda: FakeListChatModel(responses=[JSON_ANSWER]) | JsonOutputParser(),
        "collector": RunCollectorCallbackHandler,
    }


def langchain_side() -> dict[str, Any]:
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.output_parsers import JsonOutputParser, StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler

    return {
        "chain": lambda: (
            ChatPromptTemplate.from_messages(MESSAGES)
            | FakeListChatModel(responses=[ANSWER])
            | StrOutputParser()
        ),
        "json": lambda: FakeListChatModel(responses=[JSON_ANSWER]) | JsonOutputParser(),
        "collector": RunCollectorCallbackHandler,
    }


def measure(side: dict[str, Any], calls: int, repeat: int) -> dict[str, float]:
    chain, json_chain = side["chain"](), side["json"]()
    figures = {}
    seconds, _ = best_of(repeat, lambda: [chain.invoke(INPUT) for _ in range(calls)])
    figures["invoke / s"] = calls / seconds
    collector = side["collector"]()
    config = {"callbacks": [collector]}
    seconds, _ = best_of(repeat, lambda: [chain.invoke(INPUT, config) for _ in range(calls)])
    figures["invoke with callbacks / s"] = calls / seconds
    streams = max(1, calls // 20)
    seconds, _ = best_of(repeat, lambda: [list(chain.stream(INPUT)) for _ in range(streams)])
    figures["streamed chunks / s"] = streams * len(ANSWER) / seconds
    answers = max(1, calls // 200)
    seconds, _ = best_of(repeat, lambda: [list(json_chain.stream("q")) for _ in range(answers)])
    figures["partial-JSON answers / s"] = answers / seconds
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    ours, theirs = ragline_side(), langchain_side()
    # Same answers on both sides before anything is timed.
    assert ours["chain"]().invoke(INPUT) == theirs["chain"]().invoke(INPUT) == ANSWER
    assert list(ours["chain"]().stream(INPUT)) == list(theirs["chain"]().stream(INPUT))
    assert list(ours["json"]().stream("q"))[-1] == list(theirs["json"]().stream("q"))[-1]

    print(
        f"python {platform.python_version()}, {platform.machine()}, calls={args.calls}, "
        f"best of {args.repeat}"
    )
    ragline_figures = measure(ours, args.calls, args.repeat)
    langchain_figures = measure(theirs, args.calls, args.repeat)
    print(f"{'':28} {'ragline':>12} {'langchain-core':>15} {'ratio':>7}")
    for name, value in ragline_figures.items():
        other = langchain_figures[name]
        print(f"{name:28} {value:12,.1f} {other:15,.1f} {value / other:6.1f}x")
    statement = (
        "from ragline.core import ChatPromptTemplate, FakeListChatModel, "
        "StrOutputParser; ChatPromptTemplate, FakeListChatModel, StrOutputParser"
    )
    ours_import = import_time(statement, repeat=5)
    theirs_import = import_time(
        "from langchain_core.prompts import ChatPromptTemplate; "
        "from langchain_core.language_models import FakeListChatModel; "
        "from langchain_core.output_parsers import StrOutputParser",
        repeat=5,
    )
    print(
        f"{'import time (s)':28} {ours_import:12.3f} {theirs_import:15.3f} "
        f"{theirs_import / ours_import:6.1f}x faster"
    )


if __name__ == "__main__":
    main()
