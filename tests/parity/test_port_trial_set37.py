"""Parity: differences found by the thirty-seventh port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {"core.output_parsers.BaseGenerationOutputParser"}


# swapcase_generation_parser / custom_parsers_howto_tour: a parser written on
# BaseGenerationOutputParser (its override point is parse_result over the generations)
# did not port: ragline lacked the base, so the program failed at the import.
# (the class is not subscripted: a pydantic generic made inside exec() needs a module)
_GENERATION_PARSER = """
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import BaseGenerationOutputParser
from langchain_core.outputs import ChatGeneration


class Initials(BaseGenerationOutputParser):
    def parse_result(self, result, *, partial=False):
        if len(result) != 1:
            raise NotImplementedError("one generation only")
        generation = result[0]
        if not isinstance(generation, ChatGeneration):
            raise OutputParserException("chat generations only")
        words = generation.message.content.split()
        return "".join(word[0] for word in words) + f" ({type(generation).__name__})"


model = FakeListChatModel(responses=["Large Language Model", "Retrieval Augmented Generation"])
chain = model | Initials()
print(chain.invoke("one"))
print(list(chain.stream("two")))
print(Initials().batch([model.invoke("three"), model.invoke("four")]))
try:
    Initials().invoke("plain text")
except OutputParserException as err:
    print(type(err).__name__)
"""


def test_a_generation_parser_ports_and_reads_chat_generations_as_langchains() -> None:
    ported = _ported(_GENERATION_PARSER)
    assert "from ragline.core.output_parsers import BaseGenerationOutputParser\n" in ported
    langchain_printed = _printed(_GENERATION_PARSER)
    assert langchain_printed == (
        "LLM (ChatGeneration)\n"
        "['RAG (ChatGeneration)']\n"
        "['LLM (ChatGeneration)', 'RAG (ChatGeneration)']\n"
        "OutputParserException\n"
    )
    assert _printed(ported) == langchain_printed


# ice_breaker_summary_parser: PromptTemplate(input_variable=[...], template=..., ...) (the
# author's typo of input_variables). LangChain's pydantic prompt drops the keyword and reads
# the variables from the template; ragline refused it with a TypeError, so the ported
# program stopped before its chain ran. Now ragline drops it too, and warns.
_MISSPELT_KEYWORD = """
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import PydanticOutputParser
from langchain_core.prompts.prompt import PromptTemplate
from pydantic import BaseModel


class Summary(BaseModel):
    summary: str
    facts: list[str]


parser = PydanticOutputParser(pydantic_object=Summary)
prompt = PromptTemplate(
    input_variable=["information"],
    template="Summarise {information}. {format_instructions}",
    partial_variables={"format_instructions": "Reply in JSON."},
)
print(prompt.input_variables, prompt.partial_variables)
print(prompt.invoke({"information": "Ada Lovelace"}).to_string())
reply = '{"summary": "A mathematician.", "facts": ["wrote the first program"]}'
chain = prompt | FakeListChatModel(responses=[reply]) | parser
print(repr(chain.invoke({"information": "Ada Lovelace"})))
"""


def test_a_misspelt_prompt_keyword_is_dropped_as_langchains_and_warned() -> None:
    import warnings

    from ragline.core import PromptTemplate

    ported = _ported(_MISSPELT_KEYWORD)
    langchain_printed = _printed(_MISSPELT_KEYWORD)
    assert langchain_printed == (
        "['information'] {'format_instructions': 'Reply in JSON.'}\n"
        "Summarise Ada Lovelace. Reply in JSON.\n"
        "Summary(summary='A mathematician.', facts=['wrote the first program'])\n"
    )
    assert _printed(ported) == langchain_printed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prompt = PromptTemplate(input_variable=["x"], template="{y}")
    assert prompt.input_variables == ["y"]
    assert [str(w.message).split(":")[0] for w in caught] == [
        "PromptTemplate() ignores 'input_variable' (did you mean 'input_variables'?)"
    ]
    assert caught[0].category is UserWarning
    assert caught[0].filename == __file__  # points at the caller's line
