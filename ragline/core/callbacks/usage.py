"""Token usage summed across a run: ``get_usage_metadata_callback`` and ``get_openai_callback``.

Both are context managers: every model run started inside the ``with`` block (at any
depth, in threads and tasks ragline starts) reports to the handler they yield::

    with get_openai_callback() as cb:
        chain.invoke({"question": "..."})
    print(cb.total_tokens, cb.total_cost)

A model's usage is read from its message's ``usage_metadata`` (chat models) or from
``llm_output["token_usage"]`` (OpenAI's ``prompt_tokens`` / ``completion_tokens`` keys).

The prices (``OPENAI_PRICES``, US dollars per million tokens: prompt, cached prompt,
completion) are OpenAI's list prices for standard processing as published in August
2025; they were not re-checked against OpenAI's pricing page when this table was last
edited, so check them before relying on ``total_cost`` for billing. A model name with
a date or version suffix is priced as its base model (``gpt-4o-mini-2024-07-18`` as
``gpt-4o-mini``) unless the dated name has its own row; a model not in the table costs
0 and is listed in ``unpriced_models``.
"""

from __future__ import annotations

import contextlib
import decimal
import threading
from collections.abc import Iterator
from typing import Any

from ragline.core.callbacks.base import BaseCallbackHandler
from ragline.core.callbacks.manager import context_handler
from ragline.core.messages import add_usage

__all__ = [
    "OPENAI_PRICES",
    "OPENAI_PRICES_DATE",
    "OpenAICallbackHandler",
    "UsageMetadataCallbackHandler",
    "get_openai_callback",
    "get_usage_metadata_callback",
    "openai_cost",
]

OPENAI_PRICES_DATE = "2025-08"
"""When ``OPENAI_PRICES`` was taken from OpenAI's pricing page (year-month)."""

# model -> (prompt, cached prompt or None when there is no cache discount, completion),
# US dollars per 1,000,000 tokens, standard (not batch or flex) processing.
OPENAI_PRICES: dict[str, tuple[float, float | None, float]] = {
    "gpt-5": (1.25, 0.125, 10.00),
    "gpt-5-mini": (0.25, 0.025, 2.00),
    "gpt-5-nano": (0.05, 0.005, 0.40),
    "gpt-4.1": (2.00, 0.50, 8.00),
    "gpt-4.1-mini": (0.40, 0.10, 1.60),
    "gpt-4.1-nano": (0.10, 0.025, 0.40),
    "gpt-4o": (2.50, 1.25, 10.00),
    "gpt-4o-2024-05-13": (5.00, None, 15.00),
    "gpt-4o-mini": (0.15, 0.075, 0.60),
    "o1": (15.00, 7.50, 60.00),
    "o1-mini": (1.10, 0.55, 4.40),
    "o3": (2.00, 0.50, 8.00),
    "o3-mini": (1.10, 0.55, 4.40),
    "o4-mini": (1.10, 0.275, 4.40),
    "gpt-4-turbo": (10.00, None, 30.00),
    "gpt-4": (30.00, None, 60.00),
    "gpt-3.5-turbo": (0.50, None, 1.50),
}


def _price_row(model: str) -> tuple[float, float | None, float] | None:
    """The prices of ``model``: its own row, else the longest name it extends with ``-``."""
    row = OPENAI_PRICES.get(model)
    if row is not None:
        return row
    bases = [name for name in OPENAI_PRICES if model.startswith(name + "-")]
    return OPENAI_PRICES[max(bases, key=len)] if bases else None


def openai_cost(
    model: str, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0
) -> float | None:
    """The list price in US dollars of one call, or ``None`` for a model not in the table.

    Args:
        model: the model name the server reported (``"gpt-4o-mini-2024-07-18"``).
        prompt_tokens: all prompt tokens, cached ones included (as OpenAI counts them).
        completion_tokens: completion tokens (reasoning tokens included).
        cached_tokens: the prompt tokens read from OpenAI's prompt cache.

    Example:
        >>> round(openai_cost("gpt-4o-mini", 1_000_000, 1_000_000), 6)
        0.75
        >>> openai_cost("my-local-llama", 10, 10) is None
        True
    """
    row = _price_row(model)
    if row is None:
        return None
    prompt, cached, completion = row
    cached_price = prompt if cached is None else cached
    fresh = max(prompt_tokens - cached_tokens, 0)
    # summed as LangChain's handler sums it (price per 1K tokens times tokens / 1000;
    # fresh prompt, then cached prompt, then completion), so a printed total_cost carries
    # the same last digits
    return (
        _per_1k(prompt) * (fresh / 1000) + _per_1k(cached_price) * (cached_tokens / 1000)
    ) + _per_1k(completion) * (completion_tokens / 1000)


def _per_1k(per_million: float) -> float:
    """A price per 1,000,000 tokens as the nearest float to its price per 1,000 tokens."""
    return float(decimal.Decimal(repr(per_million)) / 1000)


def _usage_of(response: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The usage (LangChain's ``usage_metadata`` keys) and model name of an ``on_llm_end``
    result: the message's ``usage_metadata``, else ``llm_output["token_usage"]``."""
    llm_output = response.llm_output or {}
    model = llm_output.get("model_name")
    for batch in response.generations:
        for generation in batch:
            message = getattr(generation, "message", None)
            if message is None:
                continue
            model = (message.response_metadata or {}).get("model_name") or model
            counts = message.usage_metadata
            # a cache hit's {"total_cost": 0} alone counts no tokens (LangChain's handlers
            # skip it too)
            if counts and counts.keys() - {"total_cost"}:
                return dict(counts), model
    token_usage = llm_output.get("token_usage")
    if not token_usage:
        return None, model
    prompt, completion = (
        token_usage.get("prompt_tokens", 0),
        token_usage.get("completion_tokens", 0),
    )
    usage: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": token_usage.get("total_tokens", prompt + completion),
    }
    cached = (token_usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    if cached:
        usage["input_token_details"] = {"cache_read": cached}
    reasoning = (token_usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
    if reasoning:
        usage["output_token_details"] = {"reasoning": reasoning}
    return usage, model


class UsageMetadataCallbackHandler(BaseCallbackHandler):
    """Sums the token usage of every model run it sees, per model name.

    Attributes:
        usage_metadata: ``{model name: {"input_tokens", "output_tokens", "total_tokens",
            ...details}}``: as LangChain's, the usage a chat model's reply carries
            (``usage_metadata``) under the ``model_name`` of its ``response_metadata``;
            a reply without either, or a plain LLM's output, is not counted.
    """

    def __init__(self) -> None:
        self.usage_metadata: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return str(self.usage_metadata)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Add the run's usage to its model's sum (its first reply's, as LangChain's)."""
        try:
            message = getattr(response.generations[0][0], "message", None)
        except (IndexError, TypeError):
            return
        if getattr(message, "type", None) not in ("ai", "AIMessageChunk"):
            return
        usage = message.usage_metadata  # type: ignore[union-attr]
        key = (message.response_metadata or {}).get("model_name")  # type: ignore[union-attr]
        # a cache hit's {"total_cost": 0} alone counts no tokens
        if not usage or not key or not usage.keys() - {"total_cost"}:
            return
        usage = dict(usage)
        with self._lock:
            known = self.usage_metadata.get(key)
            # a model's first usage is kept as it came (LangChain's order too)
            summed = usage if known is None else add_usage(known, usage)  # type: ignore[arg-type]
            self.usage_metadata[key] = dict(summed)


class OpenAICallbackHandler(BaseCallbackHandler):
    """Sums tokens and list-price cost of every model run it sees (``OPENAI_PRICES``).

    Attributes:
        prompt_tokens, completion_tokens, total_tokens: summed over the runs.
        prompt_tokens_cached: prompt tokens read from OpenAI's prompt cache.
        reasoning_tokens: completion tokens spent on reasoning (o-series, gpt-5).
        successful_requests: model runs that reported usage, or a provider output
            without it (runs that report neither, such as a fake model's, are not
            counted, as in LangChain).
        total_cost: US dollars at list price; models not in the table add 0.
        unpriced_models: names of models seen that are not in the table.
    """

    def __init__(self) -> None:
        self.prompt_tokens = 0
        self.prompt_tokens_cached = 0
        self.completion_tokens = 0
        self.reasoning_tokens = 0
        self.total_tokens = 0
        self.successful_requests = 0
        self.total_cost = 0.0
        self.unpriced_models: set[str] = set()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"Tokens Used: {self.total_tokens}\n"
            f"\tPrompt Tokens: {self.prompt_tokens}\n"
            f"\t\tPrompt Tokens Cached: {self.prompt_tokens_cached}\n"
            f"\tCompletion Tokens: {self.completion_tokens}\n"
            f"\t\tReasoning Tokens: {self.reasoning_tokens}\n"
            f"Successful Requests: {self.successful_requests}\n"
            f"Total Cost (USD): ${self.total_cost}"
        )

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Add the run's tokens and cost."""
        usage, model = _usage_of(response)
        if usage is None and response.llm_output is None:
            # As LangChain counts: a run that reports neither usage nor a provider
            # output (a fake model, a streamed reply without usage) is not a request.
            return
        with self._lock:
            self.successful_requests += 1
            if usage is None:
                return
            prompt, completion = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
            cached = (usage.get("input_token_details") or {}).get("cache_read", 0) or 0
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.total_tokens += usage.get("total_tokens", prompt + completion)
            self.prompt_tokens_cached += cached
            self.reasoning_tokens += (usage.get("output_token_details") or {}).get(
                "reasoning", 0
            ) or 0
            cost = openai_cost(model or "", prompt, completion, cached)
            if cost is None:
                self.unpriced_models.add(model or "")
            else:
                self.total_cost += cost


@contextlib.contextmanager
def get_usage_metadata_callback(
    name: str = "usage_metadata_callback",
) -> Iterator[UsageMetadataCallbackHandler]:
    """Sum the token usage of every model run inside the ``with`` block, per model.

    Args:
        name: accepted for LangChain compatibility (the handler is not looked up by name).

    Example:
        >>> from ragline.core import AIMessage, FakeMessagesListChatModel
        >>> usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
        >>> reply = AIMessage("hi", usage_metadata=usage,
        ...     response_metadata={"model_name": "m-1"})
        >>> model = FakeMessagesListChatModel(responses=[reply])
        >>> with get_usage_metadata_callback() as cb:
        ...     _ = model.invoke("a"), model.invoke("b")
        >>> cb.usage_metadata["m-1"]["total_tokens"]
        14
    """
    with context_handler(UsageMetadataCallbackHandler()) as handler:
        yield handler  # type: ignore[misc]


@contextlib.contextmanager
def get_openai_callback() -> Iterator[OpenAICallbackHandler]:
    """Sum tokens and list-price cost (``OPENAI_PRICES``) of every model run inside the
    ``with`` block.

    Example:
        >>> from ragline.core import AIMessage, FakeMessagesListChatModel
        >>> reply = AIMessage("hi", response_metadata={"model_name": "gpt-4o-mini"},
        ...     usage_metadata={"input_tokens": 1000, "output_tokens": 100,
        ...                     "total_tokens": 1100})
        >>> with get_openai_callback() as cb:
        ...     _ = FakeMessagesListChatModel(responses=[reply]).invoke("a")
        >>> cb.total_tokens, round(cb.total_cost, 6)
        (1100, 0.00021)
    """
    with context_handler(OpenAICallbackHandler()) as handler:
        yield handler  # type: ignore[misc]
