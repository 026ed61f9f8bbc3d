"""Parity: differences found by the sixty-first port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# handbook_name_mustache_json / portfolio_mustache_history / research_planner_mustache:
# template_format="mustache" (a PromptTemplate around a prompt with literal JSON braces,
# chat prompts with sections over a list, {{{raw}}} values, an optional history
# placeholder) raised ConfigurationError in ragline.
_MUSTACHE_STRING = """
from langchain_core.prompts import PromptTemplate

template = '''Answer as JSON: {"name": str, "tags": [str]}
Product: {{product.name}} ({{product.sizes.1}})
{{#features}}
- {{.}}
{{/features}}
{{^features}}
(no features)
{{/features}}
{{! a comment line }}
Raw: {{{note}}} / {{& note}} / escaped: {{note}} | {{missing_part.x}}
Flags: {{zero}} {{off}} {{none}} [{{empty}}]
{{#owner}}Owner: {{first}} {{last}} for {{product.name}}{{/owner}}'''
prompt = PromptTemplate.from_template(template, template_format="mustache")
print(prompt.input_variables, prompt.template_format)
print(repr(prompt))
values = {
    "product": {"name": "Air <Fryer>", "sizes": ["S", "M"]},
    "features": ["3 min preheat", "1.5 kg basket & rack"],
    "note": "<b>\\"fast\\"</b>",
    "missing_part": {},
    "zero": 0, "off": False, "none": None, "empty": [],
    "owner": {"first": "Ada", "last": "O'Neil"},
}
print(prompt.format(**values))
print(prompt.invoke({**values, "features": [], "owner": None}).to_string())
print((prompt + " and {{extra}}").input_variables)
print(prompt.partial(zero=7).input_variables)
"""


def test_mustache_string_prompts_render_as_langchains() -> None:
    ported = _ported(_MUSTACHE_STRING)
    langchain_printed = _printed(_MUSTACHE_STRING)
    assert "- 3 min preheat\n- 1.5 kg basket &amp; rack\n" in langchain_printed
    assert _printed(ported) == langchain_printed


_MUSTACHE_CHAT = """
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

system = '''You help with {{name}}'s portfolio.
Skills: {{#skills}}{{.}}; {{/skills}}
Resume: {{resume}}
Output {"answer": str} only.'''
prompt = ChatPromptTemplate(
    [
        ("system", system),
        MessagesPlaceholder("history", optional=True),
        ("human", "{{{ query }}}"),
        ("human", [{"type": "text", "text": "Today: {{today}}"}]),
    ],
    template_format="mustache",
    name="planner",
    metadata={"version": 6},
)
print(prompt.input_variables, prompt.optional_variables, prompt.name, prompt.metadata)
values = {
    "name": "Ada", "skills": ["Python", "Go"], "resume": "Python & Go <6 years>",
    "query": "Heat pumps <vs> boilers & furnaces?", "today": "2025-03-01",
}
for message in prompt.invoke(values).to_messages():
    print(type(message).__name__, repr(message.content))
history = [HumanMessage(content="hi"), AIMessage(content="hello")]
print(prompt.format_messages(**values, history=history)[1:3])
print(prompt.invoke({**values, "history": [("user", "a"), ("assistant", "b")]}).to_string())
print(ChatPromptTemplate.from_messages([("human", "{{q}} {x}")], template_format="mustache"))
"""


def test_mustache_chat_prompts_render_as_langchains() -> None:
    ported = _ported(_MUSTACHE_CHAT)
    langchain_printed = _printed(_MUSTACHE_CHAT)
    assert "Heat pumps <vs> boilers & furnaces?" in langchain_printed
    assert _printed(ported) == langchain_printed


_MUSTACHE_ERRORS = """
from langchain_core.prompts import PromptTemplate

for template in ["{{#a}}open", "{{/a}}", "{{#a}}{{/b}}", "{{x"]:
    try:
        PromptTemplate.from_template(template, template_format="mustache").format(a=1, x=1)
    except Exception as err:  # LangChain: ChevronError (a SyntaxError); ragline: ValueError
        print(template, "refused")
try:
    PromptTemplate(template="{{x}}", input_variables=["x"], template_format="mustache",
                   validate_template=True)
except ValueError:
    print("validate_template refused: ValueError")
"""


def test_malformed_mustache_templates_are_refused_in_both() -> None:
    ported = _ported(_MUSTACHE_ERRORS)
    langchain_printed = _printed(_MUSTACHE_ERRORS)
    assert langchain_printed.count(" refused\n") == 4
    assert langchain_printed.count("ValueError") == 1
    assert _printed(ported) == langchain_printed


# day5_prompt_notes_jinja_custom_serialize: `load_prompt(saved) == template` printed
# True in LangChain (pydantic prompts compare field by field) and False in ragline
# (prompts compared by identity).
_PROMPT_EQUALITY = """
from langchain_core.prompts import PromptTemplate, load_prompt

template = PromptTemplate(
    input_variables=["product", "language"],
    template="Translate the product name '{product}' to {language}",
)
template.save("translate.json")
template.save("translate.yaml")
print(load_prompt("translate.json") == template, load_prompt("translate.yaml") == template)
print(PromptTemplate.from_template("Hi {name}") == PromptTemplate.from_template("Hi {name}"))
print(PromptTemplate.from_template("Hi {name}") == PromptTemplate.from_template("Hi {who}"))
print(PromptTemplate.from_template("{{x}}", template_format="mustache")
      == PromptTemplate.from_template("{{x}}", template_format="jinja2"))
print(PromptTemplate.from_template("Hi {name}").partial(name="A")
      == PromptTemplate.from_template("Hi {name}").partial(name="B"))
tagged = PromptTemplate.from_template("Hi {name}", tags=["a"])
print(tagged == PromptTemplate.from_template("Hi {name}"))
print(PromptTemplate.from_template("Hi {name}") == "Hi {name}")
try:
    hash(template)
except TypeError:
    print("unhashable")
"""


def test_a_saved_and_loaded_prompt_equals_the_original_as_in_langchain(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ported = _ported(_PROMPT_EQUALITY)
    langchain_printed = _printed(_PROMPT_EQUALITY)
    assert langchain_printed.startswith("True True\nTrue\nFalse\nFalse\nFalse\nFalse\nFalse\n")
    assert _printed(ported) == langchain_printed
