"""Parity: what still differed in port-trial sets 7 to 13 (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or catch.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import langchain_core.chat_history as lc_chat_history
import langchain_core.messages as lc_messages
import langchain_core.prompts as lc_prompts
import langchain_text_splitters as lc_splitters
import pytest
from langchain_core.documents import Document as LCDocument

import ragline.core.chat_history as rl_chat_history
import ragline.core.messages as rl_messages
import ragline.core.prompts as rl_prompts
import ragline.splitters as rl_splitters
from ragline.core.documents import Document
from ragline.core.exceptions import InvalidInputError, MissingVariableError, RaglineError


def _caught(run: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as caught:
        run()
    return caught.value


def _printed(error: BaseException) -> tuple[str, str]:
    """What a program prints: the class name and the repr's head."""
    return type(error).__name__, repr(error).split("(")[0]


def _builtins(error: BaseException) -> set[str]:
    """The built-in exceptions an `except` clause could name to catch it."""
    kinds = (KeyError, ValueError, TypeError, RuntimeError, NotImplementedError)
    return {kind.__name__ for kind in kinds if isinstance(error, kind)}


# Exception classes a program prints with type(e).__name__ (format_document_sources,
# string_prompt_template_subclass, gbagents_session_history_chat,
# intuition_create_documents_from_docs): ragline's class prints LangChain's built-in name
# and stays ragline's error, so `except` clauses written for either catch it.


def _prompt_missing(mod: Any) -> Callable[[], Any]:
    return lambda: mod.PromptTemplate.from_template("{topic}: {outline}").invoke({"topic": "x"})


def _chat_prompt_missing(mod: Any) -> Callable[[], Any]:
    prompt = mod.ChatPromptTemplate.from_messages([("system", "{style}"), ("human", "{q}")])
    return lambda: prompt.invoke({"q": "x"})


def _placeholder_missing(mod: Any) -> Callable[[], Any]:
    return lambda: mod.MessagesPlaceholder("history").format_messages(q="x")


def _few_shot_example_missing(mod: Any) -> Callable[[], Any]:
    prompt = mod.FewShotPromptTemplate(
        examples=[{"q": "2+2"}],
        example_prompt=mod.PromptTemplate.from_template("{q} = {a}"),
        suffix="{input}",
        input_variables=["input"],
    )
    return lambda: prompt.format(input="3+3")


def _format_document_missing(mod: Any) -> Callable[[], Any]:
    document = (LCDocument if mod is lc_prompts else Document)(page_content="x")
    prompt = mod.PromptTemplate.from_template("{page_content} [{source}]")
    return lambda: mod.format_document(document, prompt)


def _history_str_with_a_tuple(mod: Any) -> Callable[[], Any]:
    history = mod.InMemoryChatMessageHistory()
    history.messages.append(("human", "hi"))
    return lambda: str(history)


def _create_documents_from_documents(mod: Any) -> Callable[[], Any]:
    splitter = mod.RecursiveCharacterTextSplitter(chunk_size=20, chunk_overlap=0)
    document = (LCDocument if mod is lc_splitters else Document)(page_content="a b c")
    return lambda: splitter.create_documents([document])


@pytest.mark.parametrize(
    ("scenario", "lc_mod", "rl_mod", "ragline_class"),
    [
        (_prompt_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_chat_prompt_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_placeholder_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_few_shot_example_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_format_document_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_history_str_with_a_tuple, lc_chat_history, rl_chat_history, InvalidInputError),
        (_create_documents_from_documents, lc_splitters, rl_splitters, InvalidInputError),
    ],
)
def test_error_prints_langchains_class_name_and_stays_raglines(
    scenario: Callable[[Any], Callable[[], Any]],
    lc_mod: Any,
    rl_mod: Any,
    ragline_class: type[RaglineError],
) -> None:
    theirs = _caught(scenario(lc_mod))
    ours = _caught(scenario(rl_mod))
    assert _printed(ours) == _printed(theirs)
    assert _builtins(theirs) <= _builtins(ours)
    assert isinstance(ours, ragline_class)
    # the traceback names ragline's class; pickling brings back the same class
    assert type(ours).__qualname__ != type(ours).__name__
    assert type(pickle.loads(pickle.dumps(ours))) is type(ours)


def test_get_buffer_string_refuses_a_non_message_with_langchains_class() -> None:
    theirs = _caught(lambda: lc_messages.get_buffer_string([("human", "hi")]))  # type: ignore[list-item]
    ours = _caught(lambda: rl_messages.get_buffer_string([("human", "hi")]))  # type: ignore[list-item]
    assert _printed(ours) == _printed(theirs) == ("ValueError", "ValueError")
    assert isinstance(ours, InvalidInputError)
