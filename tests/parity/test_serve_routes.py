"""Parity: ``add_routes(..., playground_type="chat")`` as LangServe takes it.

A chat chain is served by LangServe and by ragline with the chat playground asked for;
LangServe's own client reads both the same way, and both serve a playground page.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from ragline.core import ChatPromptTemplate, FakeListChatModel, MessagesPlaceholder
from ragline.core.exceptions import ConfigurationError
from ragline.serve import BackgroundServer, add_routes, create_app

langserve = pytest.importorskip("langserve")
lc_fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")
lc_prompts = pytest.importorskip("langchain_core.prompts")
lc_messages = pytest.importorskip("langchain_core.messages")

COVERS = {"serve.add_routes"}


def chat_chain(ns: Any) -> Any:
    prompt = ns.ChatPromptTemplate.from_messages(
        [("system", "Be brief."), ns.MessagesPlaceholder("messages")]
    )
    return prompt | ns.FakeListChatModel(responses=["Etna erupts."])


class _Ours:
    ChatPromptTemplate = ChatPromptTemplate
    MessagesPlaceholder = MessagesPlaceholder
    FakeListChatModel = FakeListChatModel


class _Theirs:
    ChatPromptTemplate = lc_prompts.ChatPromptTemplate
    MessagesPlaceholder = lc_prompts.MessagesPlaceholder
    FakeListChatModel = lc_fakes.FakeListChatModel


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, BackgroundServer]]:
    from fastapi import FastAPI

    ours = create_app()
    add_routes(ours, chat_chain(_Ours), path="/chat", playground_type="chat")
    theirs = FastAPI()
    langserve.add_routes(theirs, chat_chain(_Theirs), path="/chat", playground_type="chat")
    with BackgroundServer(ours) as mine, BackgroundServer(theirs) as other:
        yield {"ragline": mine, "langserve": other}


def test_a_chat_playground_route_answers_as_langserves(servers):
    question = {"messages": [lc_messages.HumanMessage(content="What does Etna do?")]}
    answers = {}
    for which, server in servers.items():
        remote = langserve.RemoteRunnable(server.url + "/chat")
        reply = remote.invoke(question)
        answers[which] = (type(reply).__name__, reply.content)
        with urllib.request.urlopen(server.url + "/chat/playground/") as page:
            assert page.status == 200, which
    assert answers["ragline"] == answers["langserve"] == ("AIMessage", "Etna erupts.")


def test_an_unknown_playground_type_is_refused_by_name():
    with pytest.raises(ConfigurationError, match="playground_type 'chatty' is not one of"):
        add_routes(create_app(), chat_chain(_Ours), path="/x", playground_type="chatty")
