"""Parity: a keyword that names no field, given to a constructor.

LangChain's models, retrievers, tools, output parsers, chat histories and memories are
pydantic models that drop such a keyword, so a program with a stray one (a typo, an
option of another class) runs there. ragline builds the same object and warns, naming
the keyword. LangChain's chains forbid extra keywords; ragline's refuse them too.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_classic.chains import LLMChain as LCLLMChain
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.chat_history import InMemoryChatMessageHistory as LCHistory
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.messages import HumanMessage as LCHumanMessage
from langchain_core.output_parsers import (
    CommaSeparatedListOutputParser as LCCommaSeparatedListOutputParser,
)
from langchain_core.prompts import AIMessagePromptTemplate as LCAIMessagePromptTemplate
from langchain_core.prompts import ChatMessagePromptTemplate as LCChatMessagePromptTemplate
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import FewShotPromptTemplate as LCFewShotPromptTemplate
from langchain_core.prompts import HumanMessagePromptTemplate as LCHumanMessagePromptTemplate
from langchain_core.prompts import MessagesPlaceholder as LCMessagesPlaceholder
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.prompts import SystemMessagePromptTemplate as LCSystemMessagePromptTemplate
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from langchain_core.tools import StructuredTool as LCStructuredTool

from ragline.chains import LLMChain
from ragline.core import (
    AIMessagePromptTemplate,
    BaseRetriever,
    ChatMessagePromptTemplate,
    ChatPromptTemplate,
    CommaSeparatedListOutputParser,
    Document,
    FakeListChatModel,
    FakeListLLM,
    FewShotPromptTemplate,
    HumanMessage,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
    SystemMessagePromptTemplate,
)
from ragline.core.callbacks import BaseCallbackHandler
from ragline.core.chat_history import InMemoryChatMessageHistory
from ragline.tools import StructuredTool

COVERS: set[str] = set()


def double(a: int) -> int:
    """Double a number."""
    return 2 * a


def _quiet(make: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


def test_a_tool_with_a_misspelt_option_is_built_and_warned() -> None:
    theirs = LCStructuredTool.from_function(double, handle_tool_errors=True)
    with pytest.warns(UserWarning, match=r"StructuredTool\(\) ignores 'handle_tool_errors'"):
        ours = StructuredTool.from_function(double, handle_tool_errors=True)
    assert (
        (ours.name, ours.description, ours.handle_tool_error)
        == (
            theirs.name,
            theirs.description,
            theirs.handle_tool_error,
        )
        == ("double", "Double a number.", False)
    )
    assert ours.invoke({"a": 3}) == theirs.invoke({"a": 3}) == 6


def test_a_model_with_a_hosted_models_option_is_built_and_warned() -> None:
    theirs = LCFakeListChatModel(responses=["hi"], temperature=0.2)
    with pytest.warns(UserWarning, match=r"FakeListChatModel\(\) ignores 'temperature'"):
        ours = FakeListChatModel(responses=["hi"], temperature=0.2)
    assert not hasattr(ours, "temperature") and not hasattr(theirs, "temperature")
    assert ours.invoke("x").content == theirs.invoke("x").content == "hi"
    with pytest.warns(UserWarning, match=r"FakeListLLM\(\) ignores 'model_name', 'top_p'"):
        llm = FakeListLLM(responses=["ok"], model_name="gpt", top_p=0.9)
    assert llm.invoke("x") == LCFakeListLLM(responses=["ok"], model_name="gpt").invoke("x")


def test_the_warning_points_at_the_line_that_built_the_object() -> None:
    with pytest.warns(UserWarning) as caught:
        FakeListChatModel(responses=["hi"], temperature=0.2)
    assert [w.filename for w in caught] == [__file__]


def test_a_retriever_and_a_history_drop_the_keyword_too() -> None:
    class Ours(BaseRetriever):
        documents: list[Document]

        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> Any:
            return [d for d in self.documents if query in d.page_content]

    class Theirs(LCBaseRetriever):
        documents: list[LCDocument]

        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> Any:
            return [d for d in self.documents if query in d.page_content]

    texts = ["apples and pears", "cars"]
    theirs = Theirs(documents=[LCDocument(t) for t in texts], k=1)
    with pytest.warns(UserWarning, match=r"Ours\(\) ignores 'k': not among its fields"):
        ours = Ours(documents=[Document(t) for t in texts], k=1)
    assert (
        [d.page_content for d in ours.invoke("apples")]
        == [d.page_content for d in theirs.invoke("apples")]
        == ["apples and pears"]
    )
    lc_history = LCHistory(session_id="abc")
    with pytest.warns(UserWarning, match=r"InMemoryChatMessageHistory\(\) ignores 'session_id'"):
        history = InMemoryChatMessageHistory(session_id="abc")
    history.add_message(HumanMessage("hi"))
    lc_history.add_message(LCHumanMessage("hi"))
    assert [m.content for m in history.messages] == [m.content for m in lc_history.messages]


def test_an_output_parser_drops_the_keyword_too() -> None:
    theirs = LCCommaSeparatedListOutputParser(strip=True)
    with pytest.warns(UserWarning, match=r"CommaSeparatedListOutputParser\(\) ignores 'strip'"):
        ours = CommaSeparatedListOutputParser(strip=True)
    assert ours.parse("a, b,c") == theirs.parse("a, b,c") == ["a", "b", "c"]


def test_a_chat_prompt_keeps_its_name_and_drops_a_stray_keyword() -> None:
    started: dict[str, list[Any]] = {"ours": [], "theirs": []}

    class Ours(BaseCallbackHandler):
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            started["ours"].append(kwargs.get("name"))

    class Theirs(LCBaseCallbackHandler):
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            started["theirs"].append(kwargs.get("name"))

    theirs = LCChatPromptTemplate([("human", "{q}")], name="qa", input_variable=["q"])
    with pytest.warns(
        UserWarning, match=r"ChatPromptTemplate\(\) ignores 'input_variable' \(did you mean"
    ):
        ours = ChatPromptTemplate([("human", "{q}")], name="qa", input_variable=["q"])
    assert repr(ours) == repr(theirs)
    assert (ours.name, ours.partial(q="x").name) == (theirs.name, theirs.partial(q="x").name)
    assert (
        ours.invoke({"q": "hi"}, {"callbacks": [Ours()]}).to_string()
        == theirs.invoke({"q": "hi"}, {"callbacks": [Theirs()]}).to_string()
    )
    assert started["ours"] == started["theirs"] == ["qa"]


def test_a_chat_prompt_given_messages_by_keyword_drops_a_stray_keyword() -> None:
    theirs = LCChatPromptTemplate(messages=[("human", "{q}")], input_variable=["q"])
    with pytest.warns(UserWarning, match=r"ChatPromptTemplate\(\) ignores 'input_variable'"):
        ours = ChatPromptTemplate(messages=[("human", "{q}")], input_variable=["q"])
    assert repr(ours) == repr(theirs)
    assert ours.invoke({"q": "hi"}).to_string() == theirs.invoke({"q": "hi"}).to_string()


def test_a_placeholder_drops_a_stray_keyword() -> None:
    history = [("human", "a"), ("ai", "b"), ("human", "c")]
    theirs = LCMessagesPlaceholder(variable_name="history", foo=1, n_messages=2)
    with pytest.warns(UserWarning) as caught:
        ours = MessagesPlaceholder(variable_name="history", foo=1, n_messages=2)
    assert [str(w.message) for w in caught] == [
        "MessagesPlaceholder() ignores 'foo': not an option of a prompt template "
        "(its options are: variable_name, optional, n_messages)"
    ]
    assert [w.filename for w in caught] == [__file__]
    assert (
        repr(ours) == repr(theirs) == "MessagesPlaceholder(variable_name='history', n_messages=2)"
    )
    assert (
        repr(ours.format_messages(history=history))
        == repr(theirs.format_messages(history=history))
        == "[AIMessage(content='b', additional_kwargs={}, response_metadata={}, tool_calls=[], "
        "invalid_tool_calls=[]), HumanMessage(content='c', additional_kwargs={}, "
        "response_metadata={})]"
    )
    with pytest.warns(UserWarning, match=r"ignores 'optinal' \(did you mean 'optional'\?\)"):
        MessagesPlaceholder("history", optinal=True)


@pytest.mark.parametrize(
    ("ours_class", "their_class"),
    [
        (HumanMessagePromptTemplate, LCHumanMessagePromptTemplate),
        (SystemMessagePromptTemplate, LCSystemMessagePromptTemplate),
        (AIMessagePromptTemplate, LCAIMessagePromptTemplate),
    ],
)
def test_a_message_template_drops_a_stray_keyword(ours_class: Any, their_class: Any) -> None:
    theirs = [
        their_class(prompt=LCPromptTemplate.from_template("{q}!"), foo=1),
        their_class.from_template("{q}!", foo=1),
    ]
    with pytest.warns(UserWarning) as caught:
        ours = [
            ours_class(prompt=PromptTemplate.from_template("{q}!"), foo=1),
            ours_class.from_template("{q}!", foo=1),
        ]
    assert [str(w.message) for w in caught] == 2 * [
        f"{ours_class.__name__}() ignores 'foo': not an option of a prompt template "
        "(its options are: prompt, additional_kwargs)"
    ]
    assert [w.filename for w in caught] == [__file__, __file__]
    assert [repr(t) for t in ours] == [repr(t) for t in theirs]
    assert [repr(t.format(q="hi")) for t in ours] == [repr(t.format(q="hi")) for t in theirs]


def test_a_chat_message_template_drops_a_stray_keyword_and_keeps_its_role() -> None:
    theirs = LCChatMessagePromptTemplate.from_template("{q}", role="critic", rol="x")
    with pytest.warns(UserWarning, match=r"ignores 'rol' \(did you mean 'role'\?\)"):
        ours = ChatMessagePromptTemplate.from_template("{q}", role="critic", rol="x")
    assert repr(ours) == repr(theirs)
    assert repr(ours.format(q="no")) == repr(theirs.format(q="no"))


def test_a_message_template_carries_additional_kwargs_into_its_message() -> None:
    extras = {"name": "bob", "tags": ["a"]}
    theirs = LCChatPromptTemplate(
        [
            LCHumanMessagePromptTemplate.from_template("{q}", additional_kwargs=extras),
            LCChatMessagePromptTemplate(
                prompt=LCPromptTemplate.from_template("{q}?"),
                role="critic",
                additional_kwargs={"x": 1},
            ),
        ]
    )
    ours = ChatPromptTemplate(
        [
            HumanMessagePromptTemplate.from_template("{q}", additional_kwargs=extras),
            ChatMessagePromptTemplate(
                prompt=PromptTemplate.from_template("{q}?"),
                role="critic",
                additional_kwargs={"x": 1},
            ),
        ]
    )
    assert repr(ours) == repr(theirs)
    assert repr(ours.invoke({"q": "hi"})) == repr(theirs.invoke({"q": "hi"}))
    assert [m.additional_kwargs for m in ours.invoke({"q": "hi"}).to_messages()] == [
        {"name": "bob", "tags": ["a"]},
        {"x": 1},
    ]


def test_a_few_shot_prompt_still_refuses_one_as_langchains_does() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        LCFewShotPromptTemplate(
            examples=[], example_prompt=LCPromptTemplate.from_template("{q}"), suffix="{q}", foo=1
        )
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        FewShotPromptTemplate(
            examples=[], example_prompt=PromptTemplate.from_template("{q}"), suffix="{q}", foo=1
        )


def test_a_chain_still_refuses_one_as_langchains_does() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        _quiet(
            lambda: LCLLMChain(
                llm=LCFakeListLLM(responses=["a"]),
                prompt=LCPromptTemplate.from_template("{x}"),
                foo=1,
            )
        )
    with pytest.raises(TypeError, match=r"LLMChain\(\) got unexpected keyword argument\(s\) 'foo'"):
        LLMChain(
            llm=FakeListLLM(responses=["a"]), prompt=PromptTemplate.from_template("{x}"), foo=1
        )
