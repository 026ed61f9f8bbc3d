"""Prompt templates: variables, partials, chat messages, placeholders, errors, callbacks."""

from __future__ import annotations

import pytest

from ragline.core import (
    AIMessage,
    AIMessagePromptTemplate,
    ChatPromptTemplate,
    ChatPromptValue,
    ConfigurationError,
    HumanMessage,
    HumanMessagePromptTemplate,
    InvalidInputError,
    LoaderError,
    MessagesPlaceholder,
    MissingVariableError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    StringPromptValue,
    SystemMessage,
    SystemMessagePromptTemplate,
)

# --------------------------------------------------------------------------- PromptTemplate


def test_variables_are_inferred_in_order_of_first_use():
    prompt = PromptTemplate.from_template("Use {context} to answer {question}. {context}!")
    assert prompt.input_variables == ["context", "question"]
    assert prompt.format(context="C", question="Q") == "Use C to answer Q. C!"


def test_literal_braces_and_format_specs():
    prompt = PromptTemplate.from_template('{{"json": {value!r}}} {score:.2f}')
    assert prompt.input_variables == ["score", "value"]
    assert prompt.format(value="x", score=0.5) == "{\"json\": 'x'} 0.50"


def test_invoke_with_a_dict_returns_a_string_prompt_value():
    value = PromptTemplate.from_template("Hi {name}").invoke({"name": "Ada", "unused": 1})
    assert value == StringPromptValue("Hi Ada")
    assert value.to_string() == "Hi Ada"
    assert value.to_messages() == [HumanMessage("Hi Ada")]


def test_a_single_variable_prompt_accepts_a_bare_value():
    assert PromptTemplate.from_template("Tell me about {topic}.").invoke("RAG").to_string() == (
        "Tell me about RAG."
    )


def test_a_bare_value_for_a_two_variable_prompt_is_an_error():
    with pytest.raises(InvalidInputError, match=r"expects a dict with keys \['a', 'b'\], got str"):
        PromptTemplate.from_template("{a}{b}").invoke("x")


def test_missing_variables_are_named_with_the_given_keys():
    prompt = PromptTemplate.from_template("Use {context} to answer {question}")
    with pytest.raises(MissingVariableError) as info:
        prompt.invoke({"context": "C", "extra": 1})
    assert str(info.value) == (
        "PromptTemplate is missing variable(s) ['question']; got ['context', 'extra']; "
        "expected ['context', 'question']"
    )
    assert isinstance(info.value, KeyError)  # ported `except KeyError` still works
    with pytest.raises(MissingVariableError, match=r"\['context', 'question'\]; got \[\]"):
        prompt.format()


def test_partial_fills_values_and_calls_callables_at_format_time():
    calls = []

    def today() -> str:
        calls.append(1)
        return "Monday"

    prompt = PromptTemplate.from_template("{greeting}, it is {day}. {question}")
    partial = prompt.partial(greeting="Hello").partial(day=today)
    assert partial.input_variables == ["question"]
    assert prompt.input_variables == ["day", "greeting", "question"]  # the original is unchanged
    assert calls == []
    assert partial.invoke("Why?").to_string() == "Hello, it is Monday. Why?"
    assert calls == [1]
    # a value passed at invoke time wins over the partial
    assert partial.format(question="Q", greeting="Hi") == "Hi, it is Monday. Q"


def test_partial_variables_in_the_constructor():
    prompt = PromptTemplate("{a}-{b}", partial_variables={"a": "x"})
    assert prompt.input_variables == ["b"]
    assert prompt.format(b="y") == "x-y"


def test_declared_input_variables_give_way_to_the_template_unless_validated():
    # LangChain's: the variables are the template's; a declared list that disagrees is
    # refused only with validate_template=True
    assert PromptTemplate("{a}{b}", input_variables=["b", "a"]).input_variables == ["a", "b"]
    assert PromptTemplate("{a}{b}", input_variables=["a", "c"]).input_variables == ["a", "b"]
    partial = PromptTemplate("{a}", input_variables=[], partial_variables={"b": 1})
    assert partial.input_variables == ["a"]
    validated = PromptTemplate("{a}{b}", input_variables=["b", "a"], validate_template=True)
    assert validated.input_variables == ["a", "b"]
    with pytest.raises(InvalidInputError, match=r"input_variables \['a', 'c'\] lack \['b'\]"):
        PromptTemplate("{a}{b}", input_variables=["a", "c"], validate_template=True)
    # one declared and unused formats all the same (LangChain's check formats with them)
    extra = PromptTemplate("{a}", input_variables=["a", "c"], validate_template=True)
    assert extra.input_variables == ["a"]


@pytest.mark.parametrize("template", ["{user.password}", "{items[0]}", "{}", "{0}"])
def test_attribute_access_indexing_and_positional_fields_are_rejected(template):
    with pytest.raises(InvalidInputError, match="is not a plain name"):
        PromptTemplate.from_template(template)


def test_malformed_templates_are_rejected():
    with pytest.raises(InvalidInputError, match="invalid f-string template"):
        PromptTemplate.from_template("an unclosed {brace")
    with pytest.raises(InvalidInputError, match="nested variables"):
        PromptTemplate.from_template("{x:{width}}")
    with pytest.raises(InvalidInputError) as info:
        PromptTemplate.from_template("Hi {name!z}")
    assert str(info.value) == (
        "unknown conversion !z in {name!z} of 'Hi {name!z}'; valid conversions are !r, !s and !a"
    )
    assert PromptTemplate.from_template("{name!r}").format(name="x") == "'x'"


def test_only_f_string_jinja2_and_mustache_templates_are_supported():
    with pytest.raises(
        ConfigurationError,
        match="template_format 'handlebars' is not supported; valid formats are "
        "'f-string', 'jinja2', 'mustache'",
    ):
        PromptTemplate("{{ x }}", template_format="handlebars")
    with pytest.raises(ConfigurationError, match="handlebars"):
        ChatPromptTemplate([("human", "x")], template_format="handlebars")


def test_from_file_reads_the_template(tmp_path):
    path = tmp_path / "qa.txt"
    path.write_text("Q: {question}\nA:", encoding="utf-8")
    prompt = PromptTemplate.from_file(path)
    assert prompt.input_variables == ["question"]
    assert prompt.format(question="why") == "Q: why\nA:"
    with pytest.raises(LoaderError, match=r"missing\.txt"):
        PromptTemplate.from_file(tmp_path / "missing.txt")


def test_templates_add_up():
    combined = PromptTemplate.from_template("{a} and ") + "{b}"
    assert combined.input_variables == ["a", "b"]
    assert combined.format(a=1, b=2) == "1 and 2"


def test_a_prompt_run_is_reported_with_its_input_and_output():
    collector = RunCollectorCallbackHandler()
    PromptTemplate.from_template("Hi {name}").invoke({"name": "Ada"}, {"callbacks": [collector]})
    [run] = collector.traced_runs
    assert (run.name, run.run_type, run.inputs, run.outputs) == (
        "PromptTemplate", "prompt", {"name": "Ada"}, {"output": StringPromptValue("Hi Ada")},
    )  # fmt: skip
    assert [event for event, _ in collector.event_log] == ["chain_start", "chain_end"]


def test_a_failed_prompt_run_reports_the_error():
    collector = RunCollectorCallbackHandler()
    with pytest.raises(MissingVariableError):
        PromptTemplate.from_template("Hi {name}").invoke({}, {"callbacks": [collector]})
    assert [event for event, _ in collector.event_log] == ["chain_start", "chain_error"]
    assert isinstance(collector.traced_runs[0].exception, MissingVariableError)
    assert collector.traced_runs[0].error.startswith("KeyError(")  # LangChain's printed class


async def test_ainvoke_formats_the_same():
    assert await PromptTemplate.from_template("{x}!").ainvoke("a") == StringPromptValue("a!")


# --------------------------------------------------------------------------- ChatPromptTemplate


def test_from_messages_accepts_every_kind_of_part():
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You answer in {language}."),
            MessagesPlaceholder("history"),
            ("user", "{question}"),
            ("assistant", "Let me think about {question}."),
            AIMessage("A fixed message with {braces} kept as they are."),
            HumanMessagePromptTemplate.from_template("And {follow_up}?"),
            "Plain strings are human templates: {last}",
        ]
    )
    assert prompt.input_variables == ["follow_up", "history", "language", "last", "question"]
    messages = prompt.invoke(
        {
            "language": "French",
            "history": [("human", "Hi"), AIMessage("Salut")],
            "question": "why",
            "follow_up": "how",
            "last": "end",
        }
    ).to_messages()
    assert messages == [
        SystemMessage("You answer in French."),
        HumanMessage("Hi"),
        AIMessage("Salut"),
        HumanMessage("why"),
        AIMessage("Let me think about why."),
        AIMessage("A fixed message with {braces} kept as they are."),
        HumanMessage("And how?"),
        HumanMessage("Plain strings are human templates: end"),
    ]


def test_chat_prompt_value_renders_a_transcript():
    value = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")]).invoke(
        "Hi"
    )
    assert value == ChatPromptValue([SystemMessage("Be brief."), HumanMessage("Hi")])
    assert value.to_string() == "System: Be brief.\nHuman: Hi"


def test_message_templates_format_one_message():
    assert SystemMessagePromptTemplate.from_template("{x}").format(x="s") == SystemMessage("s")
    assert AIMessagePromptTemplate.from_template("{x}").format_messages(x="a") == [AIMessage("a")]


def test_an_optional_placeholder_may_be_missing():
    prompt = ChatPromptTemplate.from_messages(
        [MessagesPlaceholder("history", optional=True), ("human", "{q}")]
    )
    assert prompt.input_variables == ["q"]
    assert prompt.optional_variables == ["history"]
    assert prompt.invoke("hi").to_messages() == [HumanMessage("hi")]
    assert prompt.invoke({"q": "hi", "history": ["earlier"]}).to_messages() == [
        HumanMessage("earlier"),
        HumanMessage("hi"),
    ]


def test_the_placeholder_tuple_is_an_optional_placeholder():
    prompt = ChatPromptTemplate.from_messages([("placeholder", "{history}"), ("human", "{q}")])
    assert prompt.optional_variables == ["history"]
    assert prompt.format_messages(q="x", history=[("ai", "y")]) == [
        AIMessage("y"),
        HumanMessage("x"),
    ]
    with pytest.raises(InvalidInputError, match=r"\('placeholder', '\{variable\}'\)"):
        ChatPromptTemplate.from_messages([("placeholder", "history")])


def test_n_messages_keeps_the_last_messages():
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("h", n_messages=2)])
    assert prompt.format_messages(h=["1", "2", "3"]) == [HumanMessage("2"), HumanMessage("3")]


@pytest.mark.parametrize("bad", [0, True, 2.0, "2"])
def test_n_messages_must_be_a_positive_int(bad: object) -> None:
    with pytest.raises(
        InvalidInputError, match=rf"^n_messages must be an int >= 1 or None, got {bad!r}$"
    ):
        MessagesPlaceholder("h", n_messages=bad)  # type: ignore[arg-type]


def test_a_required_placeholder_must_be_given_a_list():
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{q}")])
    with pytest.raises(MissingVariableError, match=r"missing variable\(s\) \['history'\]"):
        prompt.invoke({"q": "x"})
    with pytest.raises(InvalidInputError, match="'history' should be a list of messages, got str"):
        prompt.invoke({"q": "x", "history": "not a list"})


def test_a_wrong_role_names_the_valid_roles():
    with pytest.raises(InvalidInputError) as info:
        ChatPromptTemplate.from_messages([("system", "ok"), ("bot", "Hello {x}")])
    assert str(info.value) == (
        "unknown message role 'bot' in ('bot', 'Hello {x}'); valid roles are 'system', "
        "'human', 'user', 'ai', 'assistant', 'placeholder'"
    )
    with pytest.raises(InvalidInputError, match="cannot use 42 in a chat prompt"):
        ChatPromptTemplate.from_messages([42])


def test_missing_chat_variables_are_named():
    prompt = ChatPromptTemplate.from_messages([("system", "{persona}"), ("human", "{question}")])
    with pytest.raises(MissingVariableError) as info:
        prompt.invoke({"question": "q"})
    assert str(info.value) == (
        "ChatPromptTemplate is missing variable(s) ['persona']; got ['question']; "
        "expected ['persona', 'question']"
    )


def test_chat_partial_and_addition():
    prompt = ChatPromptTemplate.from_messages([("system", "{persona}"), ("human", "{q}")])
    partial = prompt.partial(persona="a pirate")
    assert partial.input_variables == ["q"]
    with pytest.warns(UserWarning, match="appends the tuple as one message"):
        longer = partial + ("ai", "Arr, {q}") + [HumanMessage("more")]
    assert len(longer) == 4
    assert longer.format_messages(q="hi") == [
        SystemMessage("a pirate"),
        HumanMessage("hi"),
        AIMessage("Arr, hi"),
        HumanMessage("more"),
    ]
    assert ChatPromptTemplate.from_template("{q}").format(q="x") == "Human: x"


def test_nested_chat_prompts_are_flattened():
    inner = ChatPromptTemplate.from_messages([("system", "{s}")])
    outer = ChatPromptTemplate.from_messages([inner, ("human", "{h}")])
    assert outer.input_variables == ["h", "s"]
    assert outer.format_messages(s="1", h="2") == [SystemMessage("1"), HumanMessage("2")]


def test_multimodal_content_is_kept_as_is():
    blocks = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}]
    prompt = ChatPromptTemplate.from_messages([("human", blocks)])
    assert prompt.format_messages() == [HumanMessage(blocks)]


async def test_ainvoke_reports_the_same_run():
    collector = RunCollectorCallbackHandler()
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    value = await prompt.ainvoke({"q": "hi"}, {"callbacks": [collector]})
    assert value == ChatPromptValue([HumanMessage("hi")])
    assert [event for event, _ in collector.event_log] == ["chain_start", "chain_end"]
    with pytest.raises(MissingVariableError):
        await prompt.ainvoke({})


async def test_bound_keyword_options_are_refused_not_dropped():
    bound = PromptTemplate.from_template("{q}").bind(language="fr")
    message = "PromptTemplate takes no keyword options, got language"
    with pytest.raises(TypeError, match=message):
        bound.invoke({"q": "hi"})
    with pytest.raises(TypeError, match=message):
        await bound.ainvoke({"q": "hi"})


def test_a_format_spec_the_value_cannot_take_names_the_variable() -> None:
    """{x:%} formats numbers only: given a str it is an InvalidInputError naming the
    variable, its value and the spec (not a bare ValueError from str.format)."""
    from ragline.core import InvalidInputError

    prompt = PromptTemplate.from_template("share: {x:%} of {total:,}")
    assert prompt.format(x=0.25, total=1200) == "share: 25.000000% of 1,200"
    with pytest.raises(InvalidInputError) as info:
        prompt.format(x="a quarter", total=1200)
    assert "prompt variable 'x' = 'a quarter' cannot be formatted as {x:%}" in str(info.value)
    with pytest.raises(InvalidInputError, match="'total' = 'many' cannot be formatted as"):
        prompt.invoke({"x": 0.5, "total": "many"})
    chat = ChatPromptTemplate.from_messages([("human", "{x:%}")])
    with pytest.raises(InvalidInputError, match="'x' = 'a' cannot be formatted"):
        chat.invoke({"x": "a"})
