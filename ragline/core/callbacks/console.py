"""ConsoleCallbackHandler: every run's start and end, printed as it happens (``set_debug``).

Each line names the run by its path from the outermost run (``[chain:RunnableSequence >
llm:FakeListChatModel]``), in LangChain's printed form, so a log read by eye (or by a
script written for LangChain's) reads the same: a coloured ``[chain/start]`` tag, the
bold path, then the run's inputs or outputs as indented JSON (``[inputs]`` /
``[outputs]`` where they are not JSON, a prompt value or a message say). An end says how
long the run took (``[12ms]``, ``[1.52s]``).

:class:`FunctionCallbackHandler` hands each line to a function instead of printing it
(a logger's ``info``, a list's ``append``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ragline.core.callbacks.stdout import _BOLD, _RESET, get_colored_text
from ragline.core.callbacks.tracers import BaseTracer, Run

__all__ = ["ConsoleCallbackHandler", "FunctionCallbackHandler"]


def _as_json(value: Any, fallback: str) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):  # a prompt value, a message, a circular dict ...
        return fallback


def _took(run: Run) -> str:
    seconds = ((run.end_time or run.start_time) - run.start_time).total_seconds()
    return f"{seconds * 1000:.0f}ms" if seconds < 1 else f"{seconds:.2f}s"


class FunctionCallbackHandler(BaseTracer):
    """Give each run's start and end, as one text, to ``function``.

    Args:
        function: called with each text (a chain's, prompt's, parser's, model's or
            tool's start, end or error; retriever runs are not reported).

    Example:
        >>> from ragline.core import RunnableLambda
        >>> lines = []
        >>> def double(x):
        ...     return x * 2
        >>> RunnableLambda(double).invoke(3, {"callbacks": [FunctionCallbackHandler(lines.append)]})
        6
        >>> print(lines[0].replace("\\x1b", "^"))
        ^[32;1m^[1;3m[chain/start]^[0m ^[1m[chain:double] Entering Chain run with input:
        ^[0m{
          "input": 3
        }
    """

    name = "function_callback_handler"

    def __init__(self, function: Callable[[str], None]) -> None:
        super().__init__()
        if not callable(function):
            raise TypeError(f"FunctionCallbackHandler takes a function, got {function!r}")
        self.function_callback = function

    def _persist_run(self, run: Run) -> None:
        """Nothing to keep: each run was reported as it started and ended."""

    def get_parents(self, run: Run) -> list[Run]:
        """The runs enclosing ``run`` that this handler saw, innermost first."""
        parents = []
        parent_id = run.parent_run_id
        while parent_id is not None:
            parent = self._open.get(parent_id)
            if parent is None:
                break
            parents.append(parent)
            parent_id = parent.parent_run_id
        return parents

    def get_breadcrumbs(self, run: Run) -> str:
        """``kind:name`` of the outermost run down to ``run``, joined by `` > ``."""
        path = [*reversed(self.get_parents(run)), run]
        return " > ".join(f"{one.run_type}:{one.name}" for one in path)

    def _say(self, tag: str, color: str, heading: str, body: str) -> None:
        self.function_callback(f"{get_colored_text(tag, color)} {_BOLD}{heading}{_RESET}{body}")

    def _started(self, run: Run, kind: str, inputs: Any) -> None:
        self._say(
            f"[{kind}/start]",
            "green",
            f"[{self.get_breadcrumbs(run)}] Entering {self._label(run, kind)} run with input:\n",
            _as_json(inputs, "[inputs]"),
        )

    def _ended(self, run: Run, kind: str, fallback: str) -> None:
        label, crumbs = self._label(run, kind), self.get_breadcrumbs(run)
        if run.error is None:
            self._say(
                f"[{kind}/end]",
                "blue",
                f"[{crumbs}] [{_took(run)}] Exiting {label} run with output:\n",
                _as_json(run.outputs, fallback),
            )
        else:
            self._say(
                f"[{kind}/error]",
                "red",
                f"[{crumbs}] [{_took(run)}] {label} run errored with error:\n",
                _as_json(run.error, "[error]"),
            )

    @staticmethod
    def _label(run: Run, kind: str) -> str:
        # a prompt's or parser's run is a chain event with its own run type
        return run.run_type.capitalize() if kind == "chain" else kind.upper()

    def _on_chain_start(self, run: Run) -> None:
        self._started(run, "chain", run.inputs)

    def _on_chain_end(self, run: Run) -> None:
        self._ended(run, "chain", "[outputs]")

    _on_chain_error = _on_chain_end

    def _on_llm_start(self, run: Run) -> None:
        inputs = run.inputs
        if "prompts" in inputs:
            inputs = {"prompts": [str(prompt).strip() for prompt in inputs["prompts"]]}
        self._started(run, "llm", inputs)

    def _on_llm_end(self, run: Run) -> None:
        self._ended(run, "llm", "[response]")

    _on_llm_error = _on_llm_end

    def _on_tool_start(self, run: Run) -> None:
        given = run.inputs.get("input", run.inputs) if isinstance(run.inputs, dict) else run.inputs
        text = str(given).strip()  # arguments as a dict print as Python's repr of it
        self._say(
            "[tool/start]",
            "green",
            f"[{self.get_breadcrumbs(run)}] Entering Tool run with input:\n",
            f'"{text}"',
        )

    def _on_tool_end(self, run: Run) -> None:
        crumbs = self.get_breadcrumbs(run)
        if run.error is not None:
            self._say(
                "[tool/error]",
                "red",
                f"[{crumbs}] [{_took(run)}] ",
                f"Tool run errored with error:\n{run.error}",
            )
        elif run.outputs:
            output = str(run.outputs.get("output", run.outputs)).strip()
            self._say(
                "[tool/end]",
                "blue",
                f"[{crumbs}] [{_took(run)}] Exiting Tool run with output:\n",
                f'"{output}"',
            )

    _on_tool_error = _on_tool_end


class ConsoleCallbackHandler(FunctionCallbackHandler):
    """Print each run's start and end (what :func:`ragline.core.set_debug` turns on).

    Pass it in a run's ``callbacks`` to print that run and the runs inside it only;
    :class:`FunctionCallbackHandler` shows the printed form.
    """

    name = "console_callback_handler"

    def __init__(self) -> None:
        super().__init__(print)
