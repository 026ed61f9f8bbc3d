"""``with_structured_output`` overhead against langchain-core, measured in the same run.

Both sides use a fake chat model that answers every call with the same tool call (no
network, no real model), so the time measured is the framework's own: binding the
schema as a tool, running the model, parsing the call's arguments (into a pydantic
instance, or a dict). LangChain's ``FakeMessagesListChatModel`` has no ``bind_tools``;
the one added here only binds the tools, as its base class expects.

Measured, each in calls per second and as the *overhead* over a plain ``invoke`` of the
same model (structured call time minus plain call time, per call):

* ``with_structured_output(Joke)`` (a pydantic model) ``.invoke``;
* ``with_structured_output(JOKE_SCHEMA)`` (a JSON Schema dict) ``.invoke``;
* the same with ``include_raw=True``;
* building the structured runnable (``model.with_structured_output(Joke)``).

Both sides produce the same outputs (checked before timing). Each figure is the fastest
of ``--rounds`` rounds of ``--calls`` calls, the sides interleaved round by round (see
``_timing.interleaved``); ``--cpu`` counts process CPU time instead of wall time.

Usage:
    .venv/bin/python benchmarks/structured_output.py [--calls 500] [--rounds 5] [--cpu]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
warnings.filterwarnings("ignore")

from _timing import interleaved  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402


class Joke(BaseModel):
    """A joke to tell."""

    setup: str = Field(description="the question")
    punchline: str = Field(description="the answer")
    rating: int | None = None


JOKE_SCHEMA = {
    "title": "Joke",
    "description": "A joke to tell.",
    "type": "object",
    "properties": {
        "setup": {"type": "string", "description": "the question"},
        "punchline": {"type": "string", "description": "the answer"},
        "rating": {"type": "integer"},
    },
    "required": ["setup", "punchline"],
}
ARGS = {"setup": "Why did the chicken cross the road?", "punchline": "To get to the other side."}
CALL = {"name": "Joke", "args": ARGS, "id": "call_1"}
QUESTION = "Tell me a joke about chickens."


def ragline_side() -> dict[str, Any]:
    from ragline.core import AIMessage, FakeMessagesListChatModel

    return {"model": FakeMessagesListChatModel(responses=[AIMessage("", tool_calls=[CALL])])}


def langchain_side() -> dict[str, Any]:
    from langchain_core.language_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.utils.function_calling import convert_to_openai_tool

    class ToolCallingFake(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
            specs = [convert_to_openai_tool(tool) for tool in tools]
            return self.bind(tools=specs, tool_choice=tool_choice, **kwargs)

    return {"model": ToolCallingFake(responses=[AIMessage("", tool_calls=[CALL])])}


def runnables(side: dict[str, Any]) -> dict[str, Any]:
    model = side["model"]
    return {
        "plain model": model,
        "pydantic": model.with_structured_output(Joke),
        "JSON Schema dict": model.with_structured_output(JOKE_SCHEMA),
        "pydantic, include_raw": model.with_structured_output(Joke, include_raw=True),
    }


def check(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    expected = {
        "pydantic": Joke(**ARGS),
        "JSON Schema dict": ARGS,
    }
    for name, value in expected.items():
        assert ours[name].invoke(QUESTION) == theirs[name].invoke(QUESTION) == value, name
    mine, other = (side["pydantic, include_raw"].invoke(QUESTION) for side in (ours, theirs))
    assert mine["parsed"] == other["parsed"] == Joke(**ARGS)
    assert mine["parsing_error"] is other["parsing_error"] is None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="time process CPU, not wall time")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter

    ours_side, theirs_side = ragline_side(), langchain_side()
    ours, theirs = runnables(ours_side), runnables(theirs_side)
    check(ours, theirs)

    functions: dict[str, Any] = {}
    for name in ours:
        functions[f"ragline {name}"] = lambda i, r=ours[name]: r.invoke(QUESTION)
        functions[f"langchain {name}"] = lambda i, r=theirs[name]: r.invoke(QUESTION)
    for label, side in (("ragline", ours_side), ("langchain", theirs_side)):
        functions[f"{label} building"] = lambda i, m=side["model"]: m.with_structured_output(Joke)
    seconds = interleaved(functions, calls=args.calls, rounds=args.rounds, clock=clock)

    load = os.getloadavg()[0]
    print(
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load {load:.1f}, calls={args.calls}, best of {args.rounds} rounds, "
        f"{'CPU' if args.cpu else 'wall'} time"
    )
    print(f"{'per call (us)':34} {'ragline':>9} {'langchain':>10} {'ratio':>7}")
    rows = [*ours, "building"]
    for name in rows:
        mine, other = seconds[f"ragline {name}"], seconds[f"langchain {name}"]
        print(f"{name:34} {mine * 1e6:9.1f} {other * 1e6:10.1f} {other / mine:6.1f}x")
    print(f"{'overhead over a plain invoke (us)':34}")
    base_ours, base_theirs = seconds["ragline plain model"], seconds["langchain plain model"]
    for name in [row for row in ours if row != "plain model"]:
        mine = seconds[f"ragline {name}"] - base_ours
        other = seconds[f"langchain {name}"] - base_theirs
        print(f"  {name:32} {mine * 1e6:9.1f} {other * 1e6:10.1f} {other / mine:6.1f}x")


if __name__ == "__main__":
    main()
