"""Parity: LLMCheckerChain (draft, list the claims, check them, answer again) against
langchain_classic's (``langchain_classic.chains.LLMCheckerChain``).

The same scripted model replies go through both libraries' ``LLMCheckerChain.from_llm``.
With a scripted model the replies do not depend on the prompts' wording, so the default
prompts (each library's own) give the same answers. Compared: the outputs of ``invoke``,
``run``, ``ainvoke``; what ``verbose=True`` prints (the inner sequence prints its own run
in both); the run tree (chain names and the keys each step is given, one model call per
step, in order); the exact prompts when the caller gives the four prompts; the keys;
custom ``input_key``/``output_key``; and the deprecated ``llm=`` form (it warns).
"""

from __future__ import annotations

import asyncio
import re
import warnings
from typing import Any

import pytest
from langchain_classic.chains import LLMCheckerChain as LCLLMCheckerChain
from langchain_classic.chains.llm_checker import prompt as lc_checker_prompts
from langchain_core.callbacks import BaseCallbackHandler as LCHandler
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.chains import LLMCheckerChain, _llm_checker
from ragline.core import BaseCallbackHandler, FakeListLLM, PromptTemplate
from tests.parity._handlers import LCPromptLog, PromptLog

COVERS = {"chains.LLMCheckerChain"}

REPLIES = [
    " Ostriches lay the biggest eggs.",
    "- Ostriches are birds.\n- Ostriches lay eggs.",
    "- Ostriches are birds. True\n- Ostriches lay eggs. True",
    " Among birds, the ostrich lays the biggest eggs.",
]
QUESTION = "Which bird lays the biggest eggs?"
TEMPLATES = [
    "Q: {question}",
    "Claims in: {statement}",
    "Check: {assertions}",
    "Checked: {checked_assertions} / again: {question}",
]


class _Recording:
    """The events a scenario compares (mixed into each library's handler class)."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
        self.events.append(("chain", kw.get("name"), sorted(inputs)))

    def on_chain_end(self, outputs: Any, **kw: Any) -> None:
        self.events.append(("end", sorted(outputs)))

    def on_llm_start(self, serialized: Any, prompts: list[str], **kw: Any) -> None:
        self.events.append(("llm", len(prompts)))


class LCRecorder(_Recording, LCHandler):
    pass


class Recorder(_Recording, BaseCallbackHandler):
    pass


def build(which: str, custom_prompts: bool = False, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if which == "langchain":
            prompts = [LCPromptTemplate.from_template(t) for t in TEMPLATES]
            llm: Any = LCFakeListLLM(responses=REPLIES)
            cls: Any = LCLLMCheckerChain
        else:
            prompts = [PromptTemplate.from_template(t) for t in TEMPLATES]
            llm = FakeListLLM(responses=REPLIES)
            cls = LLMCheckerChain
        return cls.from_llm(llm, *(prompts if custom_prompts else ()), **kw)


BOTH = pytest.mark.parametrize("which", ["langchain", "ragline"])


def test_invoke_run_and_ainvoke_give_the_last_reply_under_result() -> None:
    results = {}
    for which in ("langchain", "ragline"):
        results[which] = (
            build(which).invoke({"query": QUESTION}),
            build(which).run(QUESTION),
            asyncio.run(build(which).ainvoke({"query": QUESTION})),
            build(which).input_keys,
            build(which).output_keys,
        )
    assert results["ragline"] == results["langchain"]
    assert results["ragline"][0] == {
        "query": QUESTION,
        "result": " Among birds, the ostrich lays the biggest eggs.",
    }


def test_verbose_prints_the_chain_and_its_inner_sequence(capsys: Any) -> None:
    printed = {}
    for which in ("langchain", "ragline"):
        build(which, verbose=True).run(QUESTION)
        printed[which] = capsys.readouterr().out
    assert printed["ragline"] == printed["langchain"]
    assert "Entering new SequentialChain chain" in printed["ragline"]
    # without verbose, the inner sequence still prints (it is built verbose in both)
    for which in ("langchain", "ragline"):
        build(which).run(QUESTION)
        printed[which] = capsys.readouterr().out
    assert printed["ragline"] == printed["langchain"]


def test_the_run_tree_has_four_steps_passing_their_keys_on() -> None:
    lc, rl = LCRecorder(), Recorder()
    build("langchain").invoke({"query": QUESTION}, {"callbacks": [lc]})
    build("ragline").invoke({"query": QUESTION}, {"callbacks": [rl]})
    assert rl.events == lc.events
    chains = [event for event in rl.events if event[0] == "chain"]
    assert [event[2] for event in chains[2:]] == [
        ["question"],
        ["question", "statement"],
        ["assertions", "question", "statement"],
        ["assertions", "checked_assertions", "question", "statement"],
    ]
    assert sum(event[0] == "llm" for event in rl.events) == 4


def test_given_prompts_are_asked_in_order_with_each_steps_output() -> None:
    lc, rl = LCPromptLog(), PromptLog()
    lc_result = build("langchain", custom_prompts=True).run(QUESTION, callbacks=[lc])
    rl_result = build("ragline", custom_prompts=True).run(QUESTION, callbacks=[rl])
    assert (rl_result, rl.prompts) == (lc_result, lc.prompts)
    assert rl.prompts[3] == (
        "Checked: - Ostriches are birds. True\n- Ostriches lay eggs. True / again: " + QUESTION
    )


def test_own_input_and_output_keys() -> None:
    outputs = {
        which: build(which, input_key="q", output_key="a").invoke({"q": QUESTION})
        for which in ("langchain", "ragline")
    }
    assert (
        outputs["ragline"]
        == outputs["langchain"]
        == {
            "q": QUESTION,
            "a": " Among birds, the ostrich lays the biggest eggs.",
        }
    )


def test_the_deprecated_llm_form_warns_and_runs_the_same_steps() -> None:
    with pytest.warns(UserWarning, match="llm"):
        lc = LCLLMCheckerChain(llm=LCFakeListLLM(responses=REPLIES))
    with pytest.warns(UserWarning, match="llm") as caught:
        rl = LLMCheckerChain(llm=FakeListLLM(responses=REPLIES))
    assert [w.filename for w in caught] == [__file__]  # the line that built it
    assert rl.run(QUESTION) == lc.run(QUESTION)


def _word_runs(text: str, n: int = 4) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z]+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@pytest.mark.parametrize(
    "name",
    [
        "CREATE_DRAFT_ANSWER_PROMPT",
        "LIST_ASSERTIONS_PROMPT",
        "CHECK_ASSERTIONS_PROMPT",
        "REVISED_ANSWER_PROMPT",
    ],
)
def test_default_prompts_are_ragline_wording_with_langchains_variables(name: str) -> None:
    ours = getattr(_llm_checker, name)
    theirs = getattr(lc_checker_prompts, name)
    assert sorted(ours.input_variables) == sorted(theirs.input_variables)
    # no four words in a row taken from LangChain's text
    assert _word_runs(ours.template) & _word_runs(theirs.template) == set()
