"""Parity: what a program prints, against LangChain's printed forms.

Found by the port trial (``benchmarks/port_trial.py``): programs print lists of
documents, search results and parsed values, so ``repr`` is observable output. Each
test builds the same value with LangChain's class and ragline's and compares the text.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core import messages as lc_messages
from langchain_core.documents import Document as LCDocument
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.core import Document
from ragline.core import messages as our_messages
from ragline.core.prompts import PromptTemplate

COVERS = {
    "core.Document",
    "core.PromptTemplate",
    "core.StringPromptValue",
    "core.ChatPromptTemplate",
    "core.MessagesPlaceholder",
    "core.SystemMessage",
    "core.HumanMessage",
    "core.AIMessage",
    "core.ToolMessage",
    "core.ChatMessage",
    "core.FunctionMessage",
    "core.AIMessageChunk",
}


@pytest.mark.parametrize(
    "fields",
    [
        {"page_content": "hello"},
        {"page_content": "hello", "metadata": {"source": "a.txt", "page": 2}},
        {"page_content": 'it\'s "quoted"\nsecond line', "metadata": {"k": None}, "id": "d1"},
        {"page_content": "x" * 300, "id": "long"},
        {"page_content": "", "metadata": {"nested": {"a": [1, 2]}}},
    ],
)
def test_repr_of_a_document_and_of_a_list_of_them(fields: dict[str, Any]):
    lc, ours = LCDocument(**fields), Document(**fields)
    assert repr(ours) == repr(lc)
    assert repr([ours, ours]) == repr([lc, lc])
    assert f"{[(ours, 0.5)]}" == f"{[(lc, 0.5)]}"


# ---- prompts and prompt values ----------------------------------------------------------------
def _prompts(cls: Any) -> list[Any]:
    return [
        cls.from_template("Tell me a joke about {topic}") + ", funny" + " in {language}",
        cls.from_template("{foo}{bar}").partial(foo="foo"),
        cls.from_template("a {{ x }}", template_format="jinja2", tags=["t"]),
        cls(template="{q}", input_variables=["q"], metadata={"m": 1}),
    ]


def test_str_and_repr_of_a_prompt_template():
    ours, theirs = _prompts(PromptTemplate), _prompts(LCPromptTemplate)
    assert [str(p) for p in ours] == [str(p) for p in theirs]
    assert [repr(p) for p in ours] == [repr(p) for p in theirs]


def test_str_and_repr_of_a_string_prompt_value():
    ours = PromptTemplate.from_template("Tell me a joke about {topic}").invoke({"topic": "cats"})
    theirs = LCPromptTemplate.from_template("Tell me a joke about {topic}").invoke(
        {"topic": "cats"}
    )
    assert (str(ours), repr(ours)) == (str(theirs), repr(theirs))


# ---- messages ---------------------------------------------------------------------------------
def _messages(m: Any) -> list[Any]:
    call = {"name": "multiply", "args": {"a": 3, "b": 12}, "id": "call_1"}
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    return [
        m.SystemMessage(content="you are a pirate"),
        m.HumanMessage(content="hi", name="bob", id="h1"),
        m.AIMessage(content="hello"),
        m.AIMessage(content="", tool_calls=[call], usage_metadata=usage),
        m.AIMessage(content="x", additional_kwargs={"k": 1}, response_metadata={"model": "m"}),
        m.AIMessage(content=[{"type": "text", "text": "block"}], name="a", id="i"),
        m.ToolMessage(content="36", tool_call_id="call_1"),
        m.ToolMessage(content="t", tool_call_id="c", status="error", artifact=[1], name="n"),
        m.AIMessageChunk(content="chunk"),
        m.HumanMessageChunk(content="hc"),
        m.ChatMessage(content="c", role="critic"),
        m.FunctionMessage(content="f", name="fn"),
    ]


def test_str_and_repr_of_messages():
    ours, theirs = _messages(our_messages), _messages(lc_messages)
    for mine, lc in zip(ours, theirs, strict=True):
        assert repr(mine) == repr(lc)
        assert str(mine) == str(lc)
    assert repr(ours) == repr(theirs)
    assert str({"history": ours[:3]}) == str({"history": theirs[:3]})


def test_pretty_repr_and_pretty_print_of_messages(capsys: Any):
    ours, theirs = _messages(our_messages), _messages(lc_messages)
    for mine, lc in zip(ours, theirs, strict=True):
        assert mine.pretty_repr() == lc.pretty_repr()
        assert mine.pretty_repr(html=True) == lc.pretty_repr(html=True)
    ours[3].pretty_print()
    printed_by_ours = capsys.readouterr().out
    theirs[3].pretty_print()
    assert printed_by_ours == capsys.readouterr().out


# ---- models -----------------------------------------------------------------------------------
def test_str_of_an_llm_is_its_bold_name_and_params(capsys: Any):
    from langchain_core.language_models import FakeListLLM as LCFakeListLLM
    from langchain_core.language_models.llms import LLM as LCLLM

    from ragline.core import LLM, FakeListLLM

    def custom(base: Any) -> Any:
        class CustomLLM(base):  # type: ignore[misc, valid-type]
            n: int

            def _call(self, prompt: str, stop: Any = None, run_manager: Any = None, **_: Any):
                return prompt[: self.n]

            @property
            def _identifying_params(self) -> dict[str, Any]:
                return {"model_name": "CustomChatModel", "n": self.n}

            @property
            def _llm_type(self) -> str:
                return "custom"

        return CustomLLM(n=5)

    assert str(custom(LLM)) == str(custom(LCLLM))
    assert str(FakeListLLM(responses=["a"])) == str(LCFakeListLLM(responses=["a"]))
    print(custom(LLM))
    assert capsys.readouterr().out == (
        "\033[1mCustomLLM\033[0m\nParams: {'model_name': 'CustomChatModel', 'n': 5}\n"
    )


def _chat_prompts(p: Any, m: Any) -> list[Any]:
    return [
        p.ChatPromptTemplate.from_messages([("system", "You are {name}"), ("human", "{q}")]),
        p.ChatPromptTemplate.from_messages([m.SystemMessage(content="fixed"), ("ai", "{a}")]),
        p.ChatPromptTemplate.from_messages([("human", "{q}")]).partial(q="x"),
        p.ChatMessagePromptTemplate.from_template("{x}", role="critic"),
        p.HumanMessagePromptTemplate.from_template("hi {y}"),
        p.MessagesPlaceholder("history"),
        p.MessagesPlaceholder("history", optional=True),
        p.MessagesPlaceholder("history", n_messages=2),
    ]


def test_str_and_repr_of_chat_prompts_and_message_templates():
    from langchain_core import prompts as lc_prompts

    from ragline.core import prompts as our_prompts

    ours = _chat_prompts(our_prompts, our_messages)
    theirs = _chat_prompts(lc_prompts, lc_messages)
    assert [repr(x) for x in ours] == [repr(x) for x in theirs]
    assert [str(x) for x in ours] == [str(x) for x in theirs]
    assert str(ours[0].messages[0]) == str(theirs[0].messages[0])


# ---- output parsers and the passthrough -------------------------------------------------------
class _Answer(__import__("pydantic").BaseModel):
    text: str


def _parsers(side: str) -> list[Any]:
    """The same parsers built from LangChain's classes or ragline's."""
    if side == "langchain":
        import langchain_classic.output_parsers as classic
        import langchain_core.output_parsers as core
        from langchain_core.runnables import RunnablePassthrough as Passthrough
    else:
        import ragline.core.output_parsers as classic  # type: ignore[no-redef]
        import ragline.core.output_parsers as core  # type: ignore[no-redef]
        from ragline.core import RunnablePassthrough as Passthrough  # type: ignore[assignment]
    schema = classic.ResponseSchema(name="answer", description="the answer")

    def noop(_: Any) -> None:
        return None

    return [
        core.StrOutputParser(),
        core.JsonOutputParser(),
        core.JsonOutputParser(pydantic_object=_Answer),
        core.PydanticOutputParser(pydantic_object=_Answer),
        core.CommaSeparatedListOutputParser(),
        core.XMLOutputParser(),
        core.XMLOutputParser(tags=["a"]),
        classic.BooleanOutputParser(true_val="Y"),
        classic.RegexParser(regex="a", output_keys=["x"]),
        classic.StructuredOutputParser.from_response_schemas([schema]),
        Passthrough(),
        Passthrough(noop),
        Passthrough(name="p"),
    ]


def test_str_and_repr_of_output_parsers_and_the_passthrough():
    """str() prints the fields set as a pydantic model does ('' when none, and always for
    the passthrough); repr() is LangChain's too."""
    lc, ours = _parsers("langchain"), _parsers("ragline")
    assert [str(p) for p in ours] == [str(p) for p in lc]
    assert [repr(p) for p in ours] == [repr(p) for p in lc]


def test_an_empty_name_is_printed_as_langchains():
    """``name=""`` is a name set away from its default (None), so LangChain's printed form
    shows it, first, for every composed runnable; ragline's dropped it (a falsy test).
    A RunnableAssign's repr shows its name too (ragline's never did)."""
    from langchain_core.runnables import RunnableLambda as LCRunnableLambda
    from langchain_core.runnables import RunnablePassthrough as LCRunnablePassthrough
    from langchain_core.runnables import RunnableSequence as LCRunnableSequence
    from langchain_core.runnables.base import RunnableEach as LCRunnableEach

    from ragline.core.runnables import RunnableLambda, RunnablePassthrough, RunnableSequence
    from ragline.core.runnables.each import RunnableEach

    def same(x: Any) -> Any:
        return x

    pairs = [
        (
            RunnableSequence(RunnableLambda(same), RunnableLambda(same), name=""),
            LCRunnableSequence(LCRunnableLambda(same), LCRunnableLambda(same), name=""),
        ),
        (
            RunnableEach(bound=RunnableLambda(same), name=""),
            LCRunnableEach(bound=LCRunnableLambda(same), name=""),
        ),
    ]
    ours_assign = RunnablePassthrough.assign(a=RunnableLambda(same))
    theirs_assign = LCRunnablePassthrough.assign(a=LCRunnableLambda(same))
    ours_assign.name = ""
    theirs_assign.name = ""
    pairs.append((ours_assign, theirs_assign))
    ours_named = RunnablePassthrough.assign(a=RunnableLambda(same))
    theirs_named = LCRunnablePassthrough.assign(a=LCRunnableLambda(same))
    ours_named.name = "with_a"
    theirs_named.name = "with_a"
    pairs.append((ours_named, theirs_named))
    for ours, theirs in pairs:
        assert str(ours) == str(theirs)
        assert repr(ours) == repr(theirs)
    assert str(pairs[0][0]).startswith("name='' first=RunnableLambda(same)")
