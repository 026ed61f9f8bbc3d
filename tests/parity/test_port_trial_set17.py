"""Parity: differences found by the seventeenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

import warnings
from typing import Any

import langchain_classic.memory as lc_memory
import langchain_core.language_models as lc_models
import pytest

import ragline.core as rl
import ragline.memory as rl_memory


def _memories_given_a_stray_keyword(memory: Any, models: Any) -> list[Any]:
    built = [
        # sinzng_buffer_memory_k_kwarg: k belongs to the window memory, not this one
        memory.ConversationBufferMemory(k=2, return_messages=True),
        memory.ConversationBufferMemory(k=2),
        memory.ConversationBufferWindowMemory(k=1, window=5, return_messages=True),
        memory.ConversationSummaryMemory(llm=models.FakeListLLM(responses=["s1", "s2"]), k=3),
    ]
    read = []
    for mem in built:
        mem.save_context({"input": "안녕"}, {"output": "무슨일이야?"})
        mem.save_context({"input": "배고파"}, {"output": "나도"})
        loaded = mem.load_memory_variables({})
        read.append(
            {
                key: [(m.type, m.content) for m in value] if isinstance(value, list) else value
                for key, value in loaded.items()
            }
        )
        read.append(hasattr(mem, "k") and mem.k)
    return read


def test_a_memory_given_an_unknown_keyword_keeps_working() -> None:
    # sinzng_buffer_memory_k_kwarg: LangChain's memories drop keywords they do not
    # declare (pydantic's extra="ignore"); ragline raised TypeError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _memories_given_a_stray_keyword(lc_memory, lc_models)
        assert _memories_given_a_stray_keyword(rl_memory, rl) == expected


def test_the_dropped_keywords_are_named_in_a_warning() -> None:
    with pytest.warns(UserWarning, match=r"ConversationBufferMemory\(\) ignores 'k', 'window'"):
        rl_memory.ConversationBufferMemory(k=2, window=3)
