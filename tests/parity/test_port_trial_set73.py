"""Parity: differences found beside the seventy-third port trial (issue 24), one scenario each.

The trial's 30 programs (example selectors and few-shot prompts) all printed the same; a
probe of the same classes beside them found the ones below. Each scenario runs the same
program shape through LangChain and through ragline (the program's source after
``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# The async twins of format: aformat / aformat_prompt on every prompt, aformat_messages on
# chat prompts and their parts. ragline's prompts had only ainvoke (AttributeError). A
# few-shot prompt awaits its selector's aselect_examples, as LangChain's does.
_ASYNC_FORMAT = """
import asyncio
from langchain_core.example_selectors import BaseExampleSelector
from langchain_core.prompts import (
    AIMessagePromptTemplate,
    ChatPromptTemplate,
    FewShotChatMessagePromptTemplate,
    FewShotPromptTemplate,
    FewShotPromptWithTemplates,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
)


class Shortest(BaseExampleSelector):
    def __init__(self, examples):
        self.examples = examples

    def add_example(self, example):
        self.examples.append(example)

    def select_examples(self, input_variables):
        print("sync select", sorted(input_variables))
        return self.examples[:1]

    async def aselect_examples(self, input_variables):
        print("async select", sorted(input_variables))
        return self.examples[1:]


examples = [{"input": "happy", "output": "sad"}, {"input": "tall", "output": "short"}]
text_example = PromptTemplate.from_template("Input: {input}\\nOutput: {output}")
chat_example = ChatPromptTemplate.from_messages([("human", "{input}"), ("ai", "{output}")])
fixed = FewShotPromptTemplate(
    examples=examples, example_prompt=text_example, prefix="Antonyms for {who}",
    suffix="Input: {q}\\nOutput:", partial_variables={"who": "Ada"},
)
chosen = FewShotPromptTemplate(
    example_selector=Shortest(list(examples)), example_prompt=text_example, suffix="Q: {q}"
)
with_templates = FewShotPromptWithTemplates(
    examples=examples, example_prompt=text_example,
    suffix=PromptTemplate.from_template("Q: {q}"), input_variables=["q"],
)
chat_few = FewShotChatMessagePromptTemplate(
    example_selector=Shortest(list(examples)), example_prompt=chat_example,
    input_variables=["q"],
)
final = ChatPromptTemplate.from_messages(
    [("system", "You answer {style}."), chat_few, MessagesPlaceholder("history"), ("human", "{q}")]
).partial(style="briefly")


async def main():
    print(await PromptTemplate.from_template("Hi {name}").aformat(name="Ada"))
    print(await PromptTemplate.from_template("Hi {name}").aformat_prompt(name="Ada"))
    print(await fixed.aformat(q="big"))
    print(await fixed.aformat_prompt(q="big"))
    print(await chosen.aformat(q="big"))
    print(await with_templates.aformat(q="big"))
    print(await chat_few.aformat_messages(q="big"))
    print(await chat_few.aformat(q="big"))
    print(await chat_few.aformat_prompt(q="big"))
    print(await final.aformat_messages(q="big", history=[("ai", "earlier")]))
    print(await final.aformat_prompt(q="big", history=[]))
    print(await final.aformat(q="big", history=[]))
    print(await HumanMessagePromptTemplate.from_template("{q}?").aformat(q="why"))
    print(await AIMessagePromptTemplate.from_template("{q}!").aformat_messages(q="so"))
    print(await MessagesPlaceholder("h").aformat_messages(h=[("human", "x")]))
    try:
        await fixed.aformat()
    except Exception as e:
        print(type(e).__name__, isinstance(e, KeyError))


asyncio.run(main())
"""


def test_prompts_have_langchains_async_format_methods() -> None:
    langchain_printed = _printed(_ASYNC_FORMAT)
    assert langchain_printed.count("async select ['q']") == 4
    assert langchain_printed.count("async select ['history', 'q', 'style']") == 3
    assert "sync select" not in langchain_printed.replace("async select", "")
    assert "Antonyms for Ada\n\nInput: happy\nOutput: sad\n\nInput: tall" in langchain_printed
    assert "KeyError True" in langchain_printed
    assert _printed(_ported(_ASYNC_FORMAT)) == langchain_printed


# print(few_shot_prompt): LangChain's prompts are pydantic models, whose str() is the
# fields alone ("input_variables=[...] ..."); ragline's few-shot prompts printed their repr
# (the class name and parentheses) there.
_PRINTED_FEW_SHOT = """
from langchain_core.prompts import (
    ChatPromptTemplate,
    FewShotChatMessagePromptTemplate,
    FewShotPromptTemplate,
    FewShotPromptWithTemplates,
    PromptTemplate,
)

examples = [{"input": "2+2", "output": "4"}]
example_prompt = PromptTemplate.from_template("{input} = {output}")
prompts = [
    FewShotPromptTemplate(
        examples=examples, example_prompt=example_prompt, prefix="Sums", suffix="{q} =",
        example_separator="\\n",
    ),
    FewShotPromptWithTemplates(
        examples=examples, example_prompt=example_prompt,
        suffix=PromptTemplate.from_template("{q} ="), input_variables=["q"],
    ),
    FewShotChatMessagePromptTemplate(
        examples=examples,
        example_prompt=ChatPromptTemplate.from_messages([("human", "{input}"), ("ai", "{output}")]),
    ),
]
for prompt in prompts:
    print(prompt)
    print(str(prompt) == repr(prompt), f"{prompt}" == str(prompt))
"""


def test_a_printed_few_shot_prompt_shows_its_fields_as_langchains() -> None:
    langchain_printed = _printed(_PRINTED_FEW_SHOT)
    assert langchain_printed.startswith("input_variables=['q'] input_types={} partial_variables={}")
    assert langchain_printed.count("False True") == 3
    assert _printed(_ported(_PRINTED_FEW_SHOT)) == langchain_printed


# A vector-store selector given input variables without one of its input_keys (or built
# from an example without one): LangChain's raises KeyError; ragline's raised
# InvalidInputError, a ValueError that ``except KeyError`` does not catch.
_SELECTOR_MISSING_KEY = """
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.example_selectors import (
    MaxMarginalRelevanceExampleSelector,
    SemanticSimilarityExampleSelector,
)
from langchain_core.vectorstores import InMemoryVectorStore

examples = [{"question": "2+2", "answer": "4"}, {"question": "3+3", "answer": "6"}]
embeddings = DeterministicFakeEmbedding(size=8)
for cls in (SemanticSimilarityExampleSelector, MaxMarginalRelevanceExampleSelector):
    selector = cls.from_examples(
        examples, embeddings, InMemoryVectorStore, k=1, input_keys=["question"]
    )
    for call in (
        lambda: selector.select_examples({"input": "2+2"}),
        lambda: cls.from_examples([{"answer": "4"}], embeddings, InMemoryVectorStore,
                                  input_keys=["question"]),
    ):
        try:
            call()
        except KeyError as e:
            print(cls.__name__, "KeyError caught:", type(e).__name__)
"""


def test_a_selector_missing_an_input_key_raises_a_key_error_as_langchains() -> None:
    langchain_printed = _printed(_SELECTOR_MISSING_KEY)
    assert langchain_printed.count("KeyError caught: KeyError") == 4
    assert _printed(_ported(_SELECTOR_MISSING_KEY)) == langchain_printed
