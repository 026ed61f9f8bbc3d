"""Callback handlers the parity tests share, one class per library's handler base."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import BaseCallbackHandler as LCHandler

from ragline.core import BaseCallbackHandler


class _PromptLogging:
    """The prompts each model call was sent (mixed into each library's handler class)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_llm_start(self, serialized: Any, prompts: list[str], **kw: Any) -> None:
        self.prompts.extend(prompts)


class LCPromptLog(_PromptLogging, LCHandler):
    pass


class PromptLog(_PromptLogging, BaseCallbackHandler):
    pass
