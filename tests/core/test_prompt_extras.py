"""Prompt extras LangChain users reach for: few-shot prompts, the length-based example
selector, ``PromptTemplate.from_examples``, ``ChatMessagePromptTemplate``,
``from_role_strings``, ``append`` / ``extend``, jinja2 templates.

The expected renderings are what langchain-core renders for the same templates (checked
by hand against it; the jinja2 test compares with it directly). Example selectors over
vector stores: tests/core/test_example_selectors.py; save / load: test_prompt_files.py.
"""

from __future__ import annotations

import sys

import pytest

from ragline.core import (
    AIMessage,
    BaseExampleSelector,
    ChatMessage,
    ChatMessagePromptTemplate,
    ChatPromptTemplate,
    ConfigurationError,
    FewShotChatMessagePromptTemplate,
    FewShotPromptTemplate,
    HumanMessage,
    HumanMessagePromptTemplate,
    InvalidInputError,
    LengthBasedExampleSelector,
    MessagesPlaceholder,
    MissingDependencyError,
    MissingVariableError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    SystemMessage,
    SystemMessagePromptTemplate,
)

ANTONYMS = [
    {"input": "happy", "output": "sad"},
    {"input": "tall", "output": "short"},
    {"input": "energetic", "output": "lethargic"},
    {"input": "sunny", "output": "gloomy"},
    {"input": "windy", "output": "calm"},
]
EXAMPLE_PROMPT = PromptTemplate.from_template("Input: {input}\nOutput: {output}")
ALL_FIVE = (
    "Input: happy\nOutput: sad\n\nInput: tall\nOutput: short\n\nInput: energetic\nOutput: "
    "lethargic\n\nInput: sunny\nOutput: gloomy\n\nInput: windy\nOutput: calm"
)


# --------------------------------------------------------------------------- few-shot text


def test_few_shot_prompt_joins_prefix_examples_and_suffix():
    prompt = FewShotPromptTemplate(
        examples=ANTONYMS,
        example_prompt=EXAMPLE_PROMPT,
        prefix="Give the antonym of every input",
        suffix="Input: {adjective}\nOutput:",
        input_variables=["adjective"],
    )
    assert prompt.input_variables == ["adjective"]
    assert prompt.format(adjective="big") == (
        "Give the antonym of every input\n\n" + ALL_FIVE + "\n\nInput: big\nOutput:"
    )
    assert prompt.invoke("big").to_string() == prompt.format(adjective="big")


def test_few_shot_prompt_without_prefix_and_with_variables_in_both():
    no_prefix = FewShotPromptTemplate(
        examples=ANTONYMS[:2], example_prompt=EXAMPLE_PROMPT, suffix="Input: {adjective}"
    )
    assert no_prefix.format(adjective="x") == (
        "Input: happy\nOutput: sad\n\nInput: tall\nOutput: short\n\nInput: x"
    )
    both = FewShotPromptTemplate(
        examples=ANTONYMS[:2], example_prompt=EXAMPLE_PROMPT, prefix="P {a}", suffix="S {b}"
    )
    assert both.input_variables == ["a", "b"]
    assert both.format(a=1, b=2) == (
        "P 1\n\nInput: happy\nOutput: sad\n\nInput: tall\nOutput: short\n\nS 2"
    )
    assert both.partial(a="x").format(b="y").startswith("P x\n\n")


def test_braces_in_examples_stay_literal():
    # LangChain renders the joined text again and raises KeyError('brace') here
    prompt = FewShotPromptTemplate(
        examples=[{"input": "a {brace}", "output": "o"}],
        example_prompt=EXAMPLE_PROMPT,
        suffix="{z}",
    )
    assert prompt.format(z=1) == "Input: a {brace}\nOutput: o\n\n1"


def test_few_shot_prompt_checks_its_arguments():
    with pytest.raises(InvalidInputError, match=r"either examples=\[\.\.\.\] or example_selector"):
        FewShotPromptTemplate(example_prompt=EXAMPLE_PROMPT, suffix="{q}")
    with pytest.raises(InvalidInputError, match="not both"):
        FewShotPromptTemplate(
            examples=ANTONYMS,
            example_selector=LengthBasedExampleSelector(
                examples=ANTONYMS, example_prompt=EXAMPLE_PROMPT
            ),
            example_prompt=EXAMPLE_PROMPT,
            suffix="{q}",
        )
    # a declared input_variables gives way to the prefix and suffix (LangChain's), unless
    # validate_template=True asks for the check
    assert FewShotPromptTemplate(
        examples=ANTONYMS, example_prompt=EXAMPLE_PROMPT, suffix="{x}", input_variables=["q"]
    ).input_variables == ["x"]
    with pytest.raises(InvalidInputError, match=r"input_variables \['q'\] do not match .*\['x'\]"):
        FewShotPromptTemplate(
            examples=ANTONYMS,
            example_prompt=EXAMPLE_PROMPT,
            suffix="{x}",
            input_variables=["q"],
            validate_template=True,
        )
    with pytest.raises(InvalidInputError, match="example_prompt must be a PromptTemplate"):
        FewShotPromptTemplate(examples=ANTONYMS, example_prompt="{input}", suffix="{q}")
    lacking = FewShotPromptTemplate(
        examples=[{"input": "x"}], example_prompt=EXAMPLE_PROMPT, suffix="{q}"
    )
    with pytest.raises(MissingVariableError, match=r"lacks \['output'\]"):
        lacking.format(q=1)


def test_few_shot_prompt_is_reported_as_a_prompt_run():
    collector = RunCollectorCallbackHandler()
    prompt = FewShotPromptTemplate(
        examples=ANTONYMS[:1], example_prompt=EXAMPLE_PROMPT, suffix="{q}"
    )
    prompt.invoke({"q": "x"}, {"callbacks": [collector]})
    [run] = collector.traced_runs
    assert (run.name, run.run_type) == ("FewShotPromptTemplate", "prompt")


# --------------------------------------------------------------------------- length selector


def test_length_based_selector_keeps_examples_while_they_fit():
    selector = LengthBasedExampleSelector(
        examples=ANTONYMS, example_prompt=EXAMPLE_PROMPT, max_length=25
    )
    assert selector.example_text_lengths == [4, 4, 4, 4, 4]
    prompt = FewShotPromptTemplate(
        example_selector=selector,
        example_prompt=EXAMPLE_PROMPT,
        prefix="Give the antonym of every input",
        suffix="Input: {adjective}\nOutput:",
    )
    assert prompt.format(adjective="big") == (
        "Give the antonym of every input\n\n" + ALL_FIVE + "\n\nInput: big\nOutput:"
    )
    long = (
        "big and huge and massive and large and gigantic and tall and much much much much "
        "much bigger than everything else"
    )  # 20 words: room for one example of 4
    assert prompt.format(adjective=long) == (
        f"Give the antonym of every input\n\nInput: happy\nOutput: sad\n\nInput: {long}\nOutput:"
    )
    selector.add_example({"input": "big", "output": "small"})
    assert len(selector.select_examples({"adjective": "x"})) == 6  # 1 + 6 * 4 = 25


def test_length_based_selector_with_a_custom_measure():
    selector = LengthBasedExampleSelector(
        examples=ANTONYMS, example_prompt=EXAMPLE_PROMPT, max_length=60, get_text_length=len
    )
    # "Input: happy\nOutput: sad" is 24 characters, "...tall...short" 25: 3 + 24 + 25 = 52
    assert selector.select_examples({"q": "abc"}) == ANTONYMS[:2]
    with pytest.raises(InvalidInputError, match="max_length"):
        LengthBasedExampleSelector(examples=[], example_prompt=EXAMPLE_PROMPT, max_length=0)


# --------------------------------------------------------------------------- few-shot chat

CHAT_EXAMPLE = ChatPromptTemplate.from_messages([("human", "{input}"), ("ai", "{output}")])


def test_few_shot_chat_examples_become_messages_inside_a_chat_prompt():
    few_shot = FewShotChatMessagePromptTemplate(examples=ANTONYMS[:2], example_prompt=CHAT_EXAMPLE)
    assert few_shot.input_variables == []
    assert few_shot.format_messages() == [
        HumanMessage("happy"), AIMessage("sad"), HumanMessage("tall"), AIMessage("short"),
    ]  # fmt: skip
    assert few_shot.format() == "Human: happy\nAI: sad\nHuman: tall\nAI: short"
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You give antonyms."), few_shot, ("human", "{input}")]
    )
    assert prompt.input_variables == ["input"]
    assert prompt.invoke({"input": "cold"}).to_messages() == [
        SystemMessage("You give antonyms."),
        HumanMessage("happy"),
        AIMessage("sad"),
        HumanMessage("tall"),
        AIMessage("short"),
        HumanMessage("cold"),
    ]


class RecordingSelector(BaseExampleSelector):
    """Picks the examples whose input starts like the question; records how it was called."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def add_example(self, example):
        raise NotImplementedError

    def select_examples(self, input_variables):
        self.calls.append(("sync", dict(input_variables)))
        return [e for e in ANTONYMS if e["input"][0] == input_variables["input"][0]]

    async def aselect_examples(self, input_variables):
        self.calls.append(("async", dict(input_variables)))
        return [e for e in ANTONYMS if e["input"][0] == input_variables["input"][0]]


async def test_a_selector_sees_the_inputs_and_its_async_twin_is_awaited():
    selector = RecordingSelector()
    few_shot = FewShotChatMessagePromptTemplate(
        example_selector=selector, example_prompt=CHAT_EXAMPLE, input_variables=["input"]
    )
    assert few_shot.invoke({"input": "shiny"}).to_messages() == [
        HumanMessage("sunny"), AIMessage("gloomy"),
    ]  # fmt: skip
    value = await few_shot.ainvoke({"input": "tiny"})
    assert value.to_messages() == [HumanMessage("tall"), AIMessage("short")]
    text = FewShotPromptTemplate(
        example_selector=selector, example_prompt=EXAMPLE_PROMPT, suffix="{input}"
    )
    assert (await text.ainvoke({"input": "wet"})).to_string() == (
        "Input: windy\nOutput: calm\n\nwet"
    )
    assert selector.calls == [
        ("sync", {"input": "shiny"}), ("async", {"input": "tiny"}), ("async", {"input": "wet"}),
    ]  # fmt: skip


# --------------------------------------------------------------------------- from_examples


def test_prompt_from_examples_keeps_langchains_leading_separator():
    assert PromptTemplate.from_examples(["a", "b"], "S {x}", ["x"]).template == (
        "\n\na\n\nb\n\nS {x}"
    )
    prompt = PromptTemplate.from_examples(
        ["2+2=4", "3+3=6"], "{sum}=", ["sum"], example_separator="\n", prefix="Add:"
    )
    assert prompt.format(sum="4+4") == "Add:\n2+2=4\n3+3=6\n4+4="
    # the variables come from the template, as LangChain's from_examples gives them
    assert PromptTemplate.from_examples(["a"], "{x}", ["y"]).input_variables == ["x"]


# --------------------------------------------------------------------------- chat extras


def test_chat_message_prompt_template_carries_any_role():
    template = ChatMessagePromptTemplate.from_template("Judge {work}.", role="critic")
    assert template.input_variables == ["work"]
    assert template.format(work="this") == ChatMessage("Judge this.", role="critic")
    prompt = ChatPromptTemplate.from_messages([template, ("human", "{work}")])
    assert prompt.format_messages(work="it") == [
        ChatMessage("Judge it.", role="critic"),
        HumanMessage("it"),
    ]
    with pytest.raises(InvalidInputError, match="needs a role name"):
        ChatMessagePromptTemplate.from_template("x", role="")


def test_from_role_strings_gives_chat_messages_with_their_roles():
    prompt = ChatPromptTemplate.from_role_strings(
        [("system", "sys {a}"), ("critic", "{b}"), ("human", "h")]
    )
    assert prompt.input_variables == ["a", "b"]
    assert prompt.format_messages(a=1, b=2) == [
        ChatMessage("sys 1", role="system"),
        ChatMessage("2", role="critic"),
        ChatMessage("h", role="human"),
    ]


def test_from_strings_takes_template_classes():
    prompt = ChatPromptTemplate.from_strings(
        [(SystemMessagePromptTemplate, "Be {tone}."), (HumanMessagePromptTemplate, "{q}")]
    )
    assert prompt.format_messages(tone="brief", q="Why?") == [
        SystemMessage("Be brief."), HumanMessage("Why?"),
    ]  # fmt: skip
    with pytest.raises(InvalidInputError, match="from_strings takes"):
        ChatPromptTemplate.from_strings([("human", "{q}")])


def test_append_and_extend_grow_the_prompt_and_its_variables():
    prompt = ChatPromptTemplate.from_messages([("system", "s {a}")])
    prompt.append(("human", "{b}"))
    # LangChain leaves input_variables at ['a'] here; ragline keeps them in step
    assert prompt.input_variables == ["a", "b"]
    prompt.extend([MessagesPlaceholder("history", optional=True), AIMessage("fixed")])
    assert prompt.optional_variables == ["history"]
    assert prompt.format_messages(a=1, b=2, history=[("human", "earlier")]) == [
        SystemMessage("s 1"), HumanMessage("2"), HumanMessage("earlier"), AIMessage("fixed"),
    ]  # fmt: skip
    with pytest.raises(InvalidInputError, match="unknown message role 'robot'"):
        prompt.extend([("human", "{c}"), ("robot", "x")])
    assert len(prompt) == 4 and "c" not in prompt.input_variables  # nothing was added


def test_indexing_a_chat_prompt():
    prompt = ChatPromptTemplate.from_messages([("system", "s"), ("human", "{q}"), ("ai", "a")])
    assert prompt[1].format(q="x") == HumanMessage("x")
    tail = prompt[1:]
    assert isinstance(tail, ChatPromptTemplate)
    assert tail.input_variables == ["q"] and len(tail) == 2


# --------------------------------------------------------------------------- jinja2


def test_jinja2_templates_render_like_langchains():
    from langchain_core.prompts import PromptTemplate as LCPrompt

    template = (
        "Hi {{ name }}{% for item in items %} [{{ item }}]{% endfor %}{% if loud %}!{% endif %}\n"
    )
    ours = PromptTemplate.from_template(template, template_format="jinja2")
    theirs = LCPrompt.from_template(template, template_format="jinja2")
    assert ours.input_variables == theirs.input_variables == ["items", "loud", "name"]
    values = {"name": "Ada", "items": ["a", "b"], "loud": True}
    assert ours.format(**values) == theirs.format(**values) == "Hi Ada [a] [b]!"
    assert ours.partial(name="Bo").format(items=[], loud=False) == "Hi Bo"


def test_jinja2_chat_prompts():
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer in {{ language }}."), ("human", "{{ question | upper }}")],
        template_format="jinja2",
    )
    assert prompt.input_variables == ["language", "question"]
    assert prompt.format_messages(language="French", question="why?") == [
        SystemMessage("Answer in French."), HumanMessage("WHY?"),
    ]  # fmt: skip


def test_jinja2_runs_in_an_immutable_sandbox():
    reach = PromptTemplate.from_template("{{ name.__class__.__mro__ }}", template_format="jinja2")
    with pytest.raises(InvalidInputError, match="sandbox forbids"):
        reach.format(name="x")
    change = PromptTemplate.from_template("{{ items.append(1) }}", template_format="jinja2")
    items: list[int] = []
    with pytest.raises(InvalidInputError, match="sandbox forbids"):
        change.format(items=items)
    assert items == []
    with pytest.raises(InvalidInputError, match="invalid jinja2 template"):
        PromptTemplate.from_template("{% for x in %}", template_format="jinja2")


def test_jinja2_without_the_package_names_the_extra(monkeypatch):
    from ragline.core.prompts._formats import _environment

    _environment.cache_clear()
    monkeypatch.setitem(sys.modules, "jinja2", None)
    monkeypatch.setitem(sys.modules, "jinja2.sandbox", None)
    try:
        with pytest.raises(MissingDependencyError, match=r"pip install 'ragline\[jinja2\]'"):
            PromptTemplate.from_template("{{ x }}", template_format="jinja2")
    finally:
        _environment.cache_clear()


def test_unknown_template_formats_name_the_valid_ones():
    # mustache is a prompt format, but not a few-shot one (LangChain refuses it there too)
    with pytest.raises(ConfigurationError, match=r"valid formats are 'f-string', 'jinja2'$"):
        FewShotPromptTemplate(
            examples=[], example_prompt=EXAMPLE_PROMPT, suffix="{q}", template_format="mustache"
        )


def test_configurable_templates_are_parsed_again():
    from ragline.core import ConfigurableField

    prompt = PromptTemplate.from_template("Hello {name}").configurable_fields(
        template=ConfigurableField(id="greeting")
    )
    configured = prompt.with_config(configurable={"greeting": "Bye {name}, {title}"})
    assert configured.invoke({"name": "Ann", "title": "Dr"}).to_string() == "Bye Ann, Dr"
    few_shot = FewShotPromptTemplate(
        examples=ANTONYMS[:1], example_prompt=EXAMPLE_PROMPT, suffix="{q}"
    ).configurable_fields(suffix=ConfigurableField(id="suffix"))
    value = few_shot.with_config(configurable={"suffix": "Now: {word}"}).invoke({"word": "up"})
    assert value.to_string() == "Input: happy\nOutput: sad\n\nNow: up"


def test_few_shot_with_templates_names_a_values_braces_not_only_the_examples():
    # the second pass also reads the values the prefix and suffix put in: a user's text
    # with a brace is refused (as in LangChain), and the error says where to look
    from ragline.core.prompts import FewShotPromptWithTemplates

    prompt = FewShotPromptWithTemplates(
        examples=[{"q": "2+2", "a": "4"}],
        example_prompt=PromptTemplate.from_template("Q: {q} A: {a}"),
        suffix=PromptTemplate.from_template("Q: {question} A:"),
    )
    assert prompt.format(question="3+3") == "Q: 2+2 A: 4\n\nQ: 3+3 A:"
    with pytest.raises(MissingVariableError, match=r"values the prefix and suffix took"):
        prompt.format(question="what is {x}?")
    with pytest.raises(InvalidInputError, match=r"values the prefix and suffix took"):
        prompt.format(question="a { b")


def test_few_shot_with_templates_fills_a_name_a_value_holds_in_the_second_pass():
    # a prefix value holding {question} is read by the second pass like the suffix's own
    # {{question}} (as in LangChain): the documented reason user text is a template there
    from ragline.core.prompts import FewShotPromptWithTemplates

    prompt = FewShotPromptWithTemplates(
        examples=[{"q": "2+2", "a": "4"}],
        example_prompt=PromptTemplate.from_template("Q: {q} A: {a}"),
        prefix=PromptTemplate.from_template("You do {kind} sums."),
        suffix=PromptTemplate.from_template("Q: {{question}} A:"),
    )
    assert prompt.format(kind="{question}", question="3+3") == (
        "You do 3+3 sums.\n\nQ: 2+2 A: 4\n\nQ: 3+3 A:"
    )
