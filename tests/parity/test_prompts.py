"""Parity: prompt templates, prompt values, few-shot prompts and example selectors.

Each scenario runs through langchain_core's classes and ragline's of the same names and
compares what a program observes: formatted text, messages, prompt values, printed
``input_variables``, selected examples, the exception a program catches.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import langchain_core.example_selectors as lc_selectors
import langchain_core.messages as lc_messages
import langchain_core.prompt_values as lc_values
import langchain_core.prompts as lc_prompts
import langchain_core.prompts.loading as lc_loading
import pytest

import ragline.core as rl_core
import ragline.core.messages as rl_messages
import ragline.core.prompts as rl_prompts
from ragline.core import example_selectors as rl_selectors
from tests.parity._observe import observe

COVERS = {
    "core.AIMessagePromptTemplate",
    "core.BaseExampleSelector",
    "core.BaseMessagePromptTemplate",
    "core.BasePromptTemplate",
    "core.ChatMessagePromptTemplate",
    "core.ChatPromptValue",
    "core.FewShotChatMessagePromptTemplate",
    "core.FewShotPromptTemplate",
    "core.HumanMessagePromptTemplate",
    "core.LengthBasedExampleSelector",
    "core.MessagesPlaceholder",
    "core.PromptValue",
    "core.StringPromptValue",
    "core.SystemMessagePromptTemplate",
    "core.load_prompt",
    "core.load_prompt_from_config",
    "core.format_document",
}


def _namespace(*modules: Any) -> SimpleNamespace:
    names: dict[str, Any] = {}
    for module in modules:
        names.update({n: getattr(module, n) for n in dir(module) if not n.startswith("_")})
    return SimpleNamespace(**names)


LC = _namespace(lc_messages, lc_values, lc_selectors, lc_prompts, lc_loading)
RL = _namespace(rl_messages, rl_selectors, rl_prompts, rl_core)


def both(run: Any) -> tuple[Any, Any]:
    """``run(namespace)`` with LangChain's names and with ragline's, observed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return observe(run(LC)), observe(run(RL))


def _chat_prompt(m: Any) -> Any:
    return m.ChatPromptTemplate.from_messages(
        [
            m.SystemMessagePromptTemplate.from_template("You are {role}."),
            m.MessagesPlaceholder("history"),
            m.HumanMessagePromptTemplate.from_template("Q: {question} ({lang})"),
            m.AIMessagePromptTemplate.from_template("A: {answer}"),
            m.ChatMessagePromptTemplate.from_template("note {note}", role="critic"),
        ]
    )


VALUES = {"role": "terse", "question": "why", "lang": "en", "answer": "because", "note": "1"}


def test_message_templates_in_a_chat_prompt() -> None:
    def run(m: Any) -> Any:
        prompt = _chat_prompt(m)
        history = [m.HumanMessage(content="x"), m.AIMessage(content="y")]
        value = prompt.invoke({**VALUES, "history": history})
        return {
            "input_variables": prompt.input_variables,  # printed by programs: sorted
            "partial": prompt.partial(role="kind").input_variables,
            "value_type": type(value).__name__,
            "text": value.to_string(),
            "messages": [(*observe(x), getattr(x, "role", None)) for x in value.to_messages()],
            "format": prompt.format(**VALUES, history=[("human", "hey")]),
            "one": observe(m.HumanMessagePromptTemplate.from_template("{b}{a}").format(a=1, b=2)),
            "one_vars": m.HumanMessagePromptTemplate.from_template("{b}{a}").input_variables,
        }

    theirs, ours = both(run)
    assert ours == theirs
    assert ours["input_variables"] == ["answer", "history", "lang", "note", "question", "role"]
    assert ours["messages"][-1] == ["ChatMessage", "note 1", None, "critic"]


def test_prompt_template_variables_print_sorted() -> None:
    def run(m: Any) -> Any:
        return [
            m.PromptTemplate.from_template("{b} {a} {c}").input_variables,
            m.PromptTemplate(template="{b} {a}", input_variables=["b", "a"]).input_variables,
            m.PromptTemplate.from_template("{b} {a}", partial_variables={"b": 1}).input_variables,
            m.ChatPromptTemplate.from_template("{z} {y}").input_variables,
            m.PromptTemplate.from_template("{{b}} {{a}}", template_format="jinja2").input_variables,
        ]

    theirs, ours = both(run)
    assert ours == theirs == [["a", "b", "c"], ["a", "b"], ["a"], ["y", "z"], ["a", "b"]]


def test_messages_placeholder_forms() -> None:
    def run(m: Any) -> Any:
        two = [m.HumanMessage(content="1"), m.AIMessage(content="2")]
        tuple_form = m.ChatPromptTemplate.from_messages(
            [("placeholder", "{hist}"), ("human", "{x}")]
        )
        return {
            "optional": m.MessagesPlaceholder("h", optional=True).format_messages(),
            "last": m.MessagesPlaceholder("h", n_messages=1).format_messages(h=two),
            "vars": [
                m.MessagesPlaceholder("h").input_variables,
                m.MessagesPlaceholder("h", optional=True).input_variables,
            ],
            "tuple_vars": tuple_form.input_variables,
            "tuple_empty": tuple_form.format_messages(x="1"),
            "tuple_given": tuple_form.format_messages(x="1", hist=[("ai", "earlier")]),
        }

    theirs, ours = both(run)
    assert ours == theirs
    assert ours["last"] == [("AIMessage", "2", None)]


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.MessagesPlaceholder("h").format_messages(),
        lambda m: _chat_prompt(m).invoke(VALUES),
        lambda m: m.PromptTemplate.from_template("{a}").invoke({}),
        lambda m: m.PromptTemplate.from_template("{a}").format(),
    ],
)
def test_a_missing_variable_is_a_key_error_in_both(call: Any) -> None:
    with pytest.raises(KeyError):
        call(LC)
    with pytest.raises(KeyError):
        call(RL)


def test_prompt_values() -> None:
    def run(m: Any) -> Any:
        text = m.StringPromptValue(text="hello")
        chat = m.ChatPromptValue(
            messages=[
                m.SystemMessage(content="s"),
                m.HumanMessage(content="h"),
                m.AIMessage(content="a"),
                m.ChatMessage(content="c", role="critic"),
                m.ToolMessage(content="t", tool_call_id="1"),
            ]
        )
        return {
            "text": [text.to_string(), text.to_messages()],
            "chat": [chat.to_string(), chat.to_messages()],
            "kinds": [isinstance(text, m.PromptValue), isinstance(chat, m.PromptValue)],
            "from_prompt": type(m.PromptTemplate.from_template("{x}").invoke({"x": 1})).__name__,
        }

    theirs, ours = both(run)
    assert ours == theirs
    assert ours["chat"][0] == "System: s\nHuman: h\nAI: a\ncritic: c\nTool: t"


EXAMPLES = [
    {"input": "2+2", "output": "4"},
    {"input": "2+3", "output": "5"},
    {"input": "a much longer question here", "output": "x"},
]


def test_few_shot_prompt_template() -> None:
    def run(m: Any) -> Any:
        example = m.PromptTemplate.from_template("Input: {input}\nOutput: {output}")
        prompt = m.FewShotPromptTemplate(
            examples=EXAMPLES,
            example_prompt=example,
            prefix="Solve:",
            suffix="Input: {q}\nOutput:",
            input_variables=["q"],
        )
        other = m.FewShotPromptTemplate(
            examples=EXAMPLES[:2],
            example_prompt=example,
            suffix="Q {q} {p}",
            input_variables=["q", "p"],
            example_separator="\n--\n",
        )
        return [
            prompt.format(q="3+3"),
            prompt.invoke({"q": "1"}).to_string(),
            other.format(q="z", p="y"),
            other.input_variables,
            isinstance(prompt, m.BasePromptTemplate),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[2] == "Input: 2+2\nOutput: 4\n--\nInput: 2+3\nOutput: 5\n--\nQ z y"


def test_few_shot_chat_prompt() -> None:
    def run(m: Any) -> Any:
        few = m.FewShotChatMessagePromptTemplate(
            examples=EXAMPLES[:2],
            example_prompt=m.ChatPromptTemplate.from_messages(
                [("human", "{input}"), ("ai", "{output}")]
            ),
        )
        outer = m.ChatPromptTemplate.from_messages([("system", "math"), few, ("human", "{q}")])
        return [few.format_messages(), few.format(), outer.format_messages(q="9")]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[2][1:3] == [("HumanMessage", "2+2", None), ("AIMessage", "4", None)]


def test_length_based_example_selector() -> None:
    def run(m: Any) -> Any:
        example = m.PromptTemplate.from_template("Input: {input}\nOutput: {output}")
        selector = m.LengthBasedExampleSelector(
            examples=list(EXAMPLES), example_prompt=example, max_length=10
        )
        picked = [
            selector.select_examples({"q": "short"}),
            selector.select_examples({"q": "a b c d e f g"}),
        ]
        selector.add_example({"input": "z", "output": "y"})
        picked.append(selector.select_examples({"q": ""}))
        prompt = m.FewShotPromptTemplate(
            example_selector=m.LengthBasedExampleSelector(
                examples=EXAMPLES, example_prompt=example, max_length=8
            ),
            example_prompt=example,
            suffix="Q {q}",
            input_variables=["q"],
        )
        picked.append(prompt.format(q="hi"))
        picked.append(isinstance(selector, m.BaseExampleSelector))
        return picked

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0] == EXAMPLES[:2]


def test_a_program_s_own_example_selector() -> None:
    def run(m: Any) -> Any:
        class Evens(m.BaseExampleSelector):  # type: ignore[name-defined,misc]
            def __init__(self, examples: list[dict[str, str]]) -> None:
                self.examples = examples

            def add_example(self, example: dict[str, str]) -> None:
                self.examples.append(example)

            def select_examples(self, input_variables: dict[str, str]) -> list[dict[str, str]]:
                return self.examples[::2]

        prompt = m.FewShotPromptTemplate(
            example_selector=Evens(list(EXAMPLES)),
            example_prompt=m.PromptTemplate.from_template("{input}={output}"),
            suffix="{q}=",
            input_variables=["q"],
        )
        return prompt.format(q="1+1")

    theirs, ours = both(run)
    assert ours == theirs == "2+2=4\n\na much longer question here=x\n\n1+1="


def test_load_prompt_reads_the_same_files(tmp_path: Path) -> None:
    plain = tmp_path / "plain.json"
    plain.write_text(
        json.dumps(
            {
                "_type": "prompt",
                "input_variables": ["topic", "adjective"],
                "template": "Tell me a {adjective} joke about {topic}.",
            }
        ),
        encoding="utf-8",
    )
    few = tmp_path / "few.yaml"
    few.write_text(
        "_type: few_shot\ninput_variables: [q]\nprefix: Go\nsuffix: 'In: {q}'\n"
        "example_prompt: {_type: prompt, input_variables: [input, output], "
        "template: 'In: {input}\n\nOut: {output}'}\n"
        "examples:\n  - {input: a, output: b}\n  - {input: c, output: d}\n",
        encoding="utf-8",
    )
    config = {"_type": "prompt", "input_variables": ["x"], "template": "[{x}]"}

    def run(m: Any) -> Any:
        loaded = m.load_prompt(plain)
        shots = m.load_prompt(few)
        return [
            type(loaded).__name__,
            loaded.input_variables,
            loaded.format(topic="owls", adjective="dry"),
            type(shots).__name__,
            shots.format(q="e"),
            m.load_prompt_from_config(dict(config)).format(x=1),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[4] == "Go\n\nIn: a\nOut: b\n\nIn: c\nOut: d\n\nIn: e"


def test_format_document() -> None:
    def run(m: Any) -> Any:
        doc = m.Document(page_content="body", metadata={"source": "a.txt", "page": 2})
        return [
            m.format_document(
                doc, m.PromptTemplate.from_template("{source}:{page}: {page_content}")
            ),
            m.format_document(doc, m.PromptTemplate.from_template("{page_content}")),
        ]

    from langchain_core.documents import Document

    LC.Document = Document  # langchain_core.prompts has no Document
    theirs, ours = both(run)
    assert ours == theirs == ["a.txt:2: body", "body"]
    with pytest.raises(ValueError):
        lc_prompts.format_document(
            Document(page_content="x"), LC.PromptTemplate.from_template("{s}")
        )
    with pytest.raises(ValueError):
        RL.format_document(RL.Document(page_content="x"), RL.PromptTemplate.from_template("{s}"))


@pytest.mark.parametrize("validate", [True, False])
def test_a_prompt_with_validate_template_prints_as_langchains(validate: bool) -> None:
    # LangChain's printed PromptTemplate shows validate_template=True (a field off its
    # default); ragline's left it out, so a printed or reloaded prompt looked unchecked
    def build(prompts: Any) -> Any:
        return prompts.PromptTemplate(
            template="Q: {q}", input_variables=["q"], validate_template=validate
        )

    mine, theirs = build(rl_prompts), build(lc_prompts)
    assert ("validate_template=True" in repr(mine)) is validate
    assert repr(mine) == repr(theirs)
    assert str(mine) == str(theirs)
