"""Parity: differences found by the eighty-first port trial (issue 24), one scenario each.

The set's theme was prompt templates: chat prompts built from tuples, message classes and
placeholders, partial variables, prompt composition, template formats, few-shot prompts
and saved prompts. Each scenario runs the same program shape through LangChain and through
ragline (the program's source after ``ragline port``) and compares what it prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {"core.ImagePromptTemplate", "core.ImagePromptValue"}

# placeholder_types: a demo printed a chat prompt holding a MessagesPlaceholder; LangChain's
# lists the placeholder's variable in input_types (a list of messages), ragline's had
# input_types={} for every chat prompt. The names are compared here: the types print each
# library's own message classes (and LangChain's a function address).
_PLACEHOLDER_TYPES = """
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

prompt = ChatPromptTemplate.from_messages(
    [
        ("system", "Be {tone}."),
        MessagesPlaceholder("history"),
        MessagesPlaceholder("notes", optional=True),
        ("placeholder", "{extra}"),
        ("human", "{question}"),
    ]
)
print(sorted(prompt.input_types), prompt.input_variables, prompt.optional_variables)
print(sorted(prompt.partial(tone="calm").input_types))
print(sorted(prompt[3:].input_types), sorted(prompt[:1].input_types))
print(sorted((prompt + [("ai", "{answer}")]).input_types))
typed = ChatPromptTemplate(
    [MessagesPlaceholder("history"), ("human", "{q}")], input_types={"q": int}
)
print(typed.input_types["q"], sorted(typed.input_types))
print(typed.input_types["history"] == prompt.input_types["history"])
print(ChatPromptTemplate.from_template("{q}").input_types)
"""


def test_a_chat_prompt_types_its_placeholders_in_input_types() -> None:
    langchain_printed = _printed(_PLACEHOLDER_TYPES)
    assert langchain_printed.splitlines()[0] == (
        "['extra', 'history', 'notes'] ['history', 'question', 'tone'] ['extra', 'notes']"
    )
    assert "<class 'int'> ['history', 'q']" in langchain_printed
    assert _printed(_ported(_PLACEHOLDER_TYPES)) == langchain_printed


# mustache_schema: a probe beside the set (its programs build mustache prompts) printed a
# mustache prompt's input schema; LangChain reads it from the template's tags (every name
# optional, a section an object, a dotted name's head an object of its parts), ragline's
# listed the top-level variables as required strings.
_MUSTACHE_SCHEMA = """
import json

from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

templates = [
    "Hi {{name}} {{#items}}[{{.}}]{{/items}}",
    "{{#user}}{{name}} {{#pets}}{{kind}}{{/pets}}{{/user}} {{a.b.c}} {{{raw}}} "
    "{{^none}}x{{/none}} {{a.d}} {{&amp}} {{! note }}",
    "{{x}} and {{x.y}}",
]
for template in templates:
    prompt = PromptTemplate.from_template(template, template_format="mustache")
    print(prompt.input_variables)
    print(json.dumps(prompt.get_input_jsonschema()))
    print(list(prompt.input_schema.model_fields))
partial = PromptTemplate.from_template(
    "{{greeting}} {{who}}", template_format="mustache", partial_variables={"greeting": "Hi"}
)
print(partial.input_variables, json.dumps(partial.get_input_jsonschema()))
chat = ChatPromptTemplate(
    [("human", "{{#items}}{{x}}{{/items}} {{y}}")], template_format="mustache"
)
print(json.dumps(chat.get_input_jsonschema()))
print(json.dumps(PromptTemplate.from_template("{a} {b}").get_input_jsonschema()))
"""


def test_a_mustache_prompt_schema_is_read_from_its_tags() -> None:
    langchain_printed = _printed(_MUSTACHE_SCHEMA)
    assert (
        '{"properties": {"items": {"additionalProperties": true, "default": null, "title": '
        '"Items", "type": "object"}, "name": {"default": null, "title": "Name", "type": '
        '"string"}}, "title": "PromptInput", "type": "object"}'
    ) in langchain_printed
    assert '"user": {"$ref": "#/$defs/user", "default": null}' in langchain_printed
    assert _printed(_ported(_MUSTACHE_SCHEMA)) == langchain_printed


# prompt_addition: a probe beside the set (its composition programs add templates) added
# templates of different formats and templates filling the same partial variable; LangChain
# refuses both with ValueError, ragline joined the text (a jinja2 template's text then read
# as an f-string, literal braces) and kept the second value. Templates that both validate
# give one that validates.
_PROMPT_ADDITION = """
from langchain_core.prompts import PromptTemplate

fstring = PromptTemplate.from_template("Tell me about {topic}")
jinja = PromptTemplate.from_template(" in {{ language }}", template_format="jinja2")
for left, right in [(fstring, jinja), (jinja, fstring)]:
    try:
        print(repr(left + right))
    except ValueError:
        print("ValueError")
print(repr(jinja + " and {{ tone }}"))
print((jinja + jinja).format(language="Welsh"))
first = PromptTemplate.from_template("{a} {b}", partial_variables={"a": "1"})
for second in [
    PromptTemplate.from_template(" {a}", partial_variables={"a": "2"}),
    PromptTemplate.from_template(" {c}", partial_variables={"c": "3"}),
]:
    try:
        joined = first + second
        print(repr(joined), joined.format(b="B"))
    except ValueError:
        print("ValueError")
strict = PromptTemplate.from_template("{x}", validate_template=True)
print(repr(strict + strict), repr(strict + fstring))
"""


def test_adding_templates_of_different_formats_or_partials_is_refused() -> None:
    langchain_printed = _printed(_PROMPT_ADDITION)
    assert langchain_printed.startswith("ValueError\nValueError\n")
    assert langchain_printed.count("ValueError") == 3
    assert _printed(_ported(_PROMPT_ADDITION)) == langchain_printed


# content_block_templates: a probe beside the set (its image programs build multimodal
# messages) gave HumanMessagePromptTemplate.from_template a list of text and image_url
# blocks, as LangChain's multimodal recipes do; ragline's took only a string (it raised
# InvalidInputError). LangChain builds the same message a (role, [blocks]) tuple does.
_CONTENT_BLOCK_TEMPLATES = """
from langchain_core.prompts import (
    AIMessagePromptTemplate,
    ChatPromptTemplate,
    HumanMessagePromptTemplate,
    SystemMessagePromptTemplate,
)

human = HumanMessagePromptTemplate.from_template(
    [
        {"text": "Describe {subject}"},
        {"image_url": "data:image/png;base64,{picture}"},
        "then {task}",
        {"type": "image_url", "image_url": {"url": "{second}", "detail": "low"}},
    ]
)
print(repr(human))
print(human.input_variables)
print(human.format(subject="it", picture="AAAA", task="rate it", second="https://x/y.png"))
system = SystemMessagePromptTemplate.from_template(
    [{"type": "text", "text": "Be {tone}."}], additional_kwargs={"k": 1}
)
print(repr(system), system.format(tone="brief"))
print(repr(AIMessagePromptTemplate.from_template(["{a}", "{b}"]).format(a=1, b=2)))
prompt = ChatPromptTemplate.from_messages([system, human])
print(prompt.input_variables)
value = prompt.invoke(
    {"tone": "calm", "subject": "this", "picture": "BBBB", "task": "go", "second": "s"}
)
print(value.to_messages())
try:
    HumanMessagePromptTemplate.from_template(["{a}"], partial_variables={"a": "x"})
except ValueError:
    print("ValueError")
"""


def test_a_message_template_takes_a_list_of_content_blocks() -> None:
    langchain_printed = _printed(_CONTENT_BLOCK_TEMPLATES)
    assert "ImagePromptTemplate(input_variables=['picture']" in langchain_printed
    assert langchain_printed.rstrip().endswith("ValueError")
    assert _printed(_ported(_CONTENT_BLOCK_TEMPLATES)) == langchain_printed


# image_prompt_template: a probe beside the set (its image programs) imported
# ImagePromptTemplate from langchain_core.prompts.image and ImagePromptValue from
# langchain_core.prompt_values; ragline had neither (the port left the imports unmapped).
# LangChain's partial() of an image template is left out: its copy then fails to format.
_IMAGE_PROMPT_TEMPLATE = """
from langchain_core.prompt_values import ImagePromptValue
from langchain_core.prompts.image import ImagePromptTemplate

prompt = ImagePromptTemplate(template={"url": "{u}", "detail": "low"}, input_variables=["u"])
print(repr(prompt))
print(prompt)
print(prompt.format(u="https://x/a.png"))
value = prompt.invoke({"u": "https://x/b.png"})
print(repr(value), value, value.to_string(), value.to_messages())
print(type(value).__name__, isinstance(value, ImagePromptValue))
print(prompt.format_prompt(u="c"))
fixed = ImagePromptTemplate(template={"url": "https://x/fixed.png"})
print(fixed.input_variables, fixed.format())
try:
    ImagePromptTemplate(template={"url": "{u}"}, input_variables=["url"])
except ValueError:
    print("ValueError")
for given in [{}, {"path": "/tmp/picture.png"}]:
    try:
        print(ImagePromptTemplate(template={"detail": "high"}).format(**given))
    except ValueError:
        print("ValueError")
plain = ImagePromptTemplate(template={"url": "{u}"}, input_variables=["u"])
print(plain.format(u="a", url="b", detail="auto"))
print((prompt | (lambda image: image.to_messages())).invoke({"u": "q"}))
print(prompt.get_name(), prompt.input_variables, prompt.template, prompt.template_format)
"""


def test_an_image_prompt_template_formats_an_image_url() -> None:
    langchain_printed = _printed(_IMAGE_PROMPT_TEMPLATE)
    assert "ImagePromptValue(image_url={'detail': 'low', 'url': 'https://x/b.png'})" in (
        langchain_printed
    )
    assert langchain_printed.count("ValueError") == 3
    assert _printed(_ported(_IMAGE_PROMPT_TEMPLATE)) == langchain_printed
