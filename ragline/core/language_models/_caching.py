"""The LLM-cache hook of the language models: which cache a call uses, and its key.

A model's ``cache`` option: ``None`` (the default) uses the global cache when one is set
(``set_llm_cache``), ``True`` requires it, ``False`` never caches, a ``BaseCache`` is
used for this model only. The key is the prompt (a chat model's messages as JSON, their
ids left out) and the call's invocation parameters (model class and settings, ``stop``,
every bound option such as tools) as sorted JSON, so two calls share an entry only when
nothing that could change the answer differs.

A chat model's ``invoke`` / ``ainvoke`` look up inside the model's run (a hit is
reported to callbacks as a run with its result, like a call); an LLM's look up first,
and a hit makes no run (as LangChain's do; its ``generate`` calls the model once for
the prompts the cache lacks). Both store what the model returned; with
``streaming=True`` the streamed answer is stored once complete. ``stream`` on a model
that streams bypasses the cache, as LangChain does.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ragline.core._message_dicts import message_fields

# a module reference: caches._base imports the language models' outputs, so either
# package may be imported first
from ragline.core.caches import _base as _caches
from ragline.core.exceptions import ConfigurationError
from ragline.core.language_models._outputs import ChatGeneration, Generation

__all__ = ["CacheSlot", "cache_slot"]


class CacheSlot:
    """Where one call's answer is looked up and stored."""

    __slots__ = ("cache", "llm_string", "prompt")

    def __init__(self, cache: _caches.BaseCache, prompt: str, llm_string: str) -> None:
        self.cache, self.prompt, self.llm_string = cache, prompt, llm_string

    def lookup(self) -> list[Generation] | None:
        return self.cache.lookup(self.prompt, self.llm_string) or None

    async def alookup(self) -> list[Generation] | None:
        return await self.cache.alookup(self.prompt, self.llm_string) or None

    def update(self, generation: Generation) -> None:
        self.cache.update(self.prompt, self.llm_string, [_detached(generation)])

    async def aupdate(self, generation: Generation) -> None:
        await self.cache.aupdate(self.prompt, self.llm_string, [_detached(generation)])


def _detached(generation: Generation) -> Generation:
    """The generation with its own message: the caller keeps (and may change) the reply."""
    message = getattr(generation, "message", None)
    if message is None:
        return generation
    return ChatGeneration(message=copy.copy(message), generation_info=generation.generation_info)


def _resolve(option: Any, owner: str) -> _caches.BaseCache | None:
    if option is None or option is True:
        cache = _caches.get_llm_cache()
        if cache is None and option is True:
            raise ConfigurationError(
                f"{owner} has cache=True but no global cache is set; call "
                "set_llm_cache(InMemoryCache()) first, or pass cache=<a cache>"
            )
        return cache
    if option is False:
        return None
    if isinstance(option, _caches.BaseCache):
        return option
    raise ConfigurationError(
        f"{owner}.cache must be None, True, False or a BaseCache, got {type(option).__name__}"
    )


def _prompt_text(model_input: Any) -> str:
    if isinstance(model_input, str):
        return model_input
    dicts = []
    for message in model_input:
        fields = message_fields(message)  # read only: no copies
        fields["data"] = {**fields["data"], "id": None}  # fresh ids: the same prompt
        dicts.append(fields)
    # key order is fixed by the message classes, so no sort_keys (the slow part)
    return json.dumps(dicts, ensure_ascii=False, default=repr)


def cache_slot(
    model: Any, model_input: Any, invocation_params: dict[str, Any], bound: dict[str, Any]
) -> CacheSlot | None:
    """The slot for this call, or None when the model does not cache. The key has every
    option bound to the call, also where ``invocation_params`` leaves them out (LLMs)."""
    cache = _resolve(getattr(model, "cache", None), type(model).__name__)
    if cache is None:
        return None
    llm_string = json.dumps(
        {**invocation_params, **bound, "_class": type(model).__qualname__},
        sort_keys=True,
        ensure_ascii=False,
        default=repr,
    )
    return CacheSlot(cache, _prompt_text(model_input), llm_string)
