"""Parity: differences found by the forty-sixth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# sql_agent_few_shot_system_prompt: a FewShotPromptTemplate (prefix, examples, empty
# suffix) wrapped in SystemMessagePromptTemplate(prompt=...) inside a chat prompt; ragline
# refused any prompt but a PromptTemplate there.
_FEW_SHOT_IN_A_SYSTEM_MESSAGE = """
from langchain_core.prompts import (
    ChatPromptTemplate,
    FewShotPromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
    SystemMessagePromptTemplate,
)

few_shot = FewShotPromptTemplate(
    examples=[
        {"input": "How many tracks?", "query": "SELECT count(*) FROM tracks;"},
        {"input": "List genres", "query": "SELECT name FROM genres;"},
    ],
    example_prompt=PromptTemplate.from_template("User input: {input}\\nSQL query: {query}"),
    input_variables=["input", "dialect", "top_k"],
    prefix="Write {dialect} with at most {top_k} rows. Examples:",
    suffix="",
)
message = SystemMessagePromptTemplate(prompt=few_shot)
print(sorted(message.input_variables))
print(repr(message.format(input="x", dialect="SQLite", top_k=3)))
prompt = ChatPromptTemplate.from_messages(
    [message, ("human", "{input}"), MessagesPlaceholder("agent_scratchpad")]
)
print(sorted(prompt.input_variables))
value = prompt.invoke(
    {"input": "Top albums?", "dialect": "SQLite", "top_k": 5, "agent_scratchpad": []}
)
print(value.to_string())
print([type(m).__name__ for m in value.to_messages()])
"""


def test_a_few_shot_prompt_inside_a_system_message_formats_as_langchains() -> None:
    ported = _ported(_FEW_SHOT_IN_A_SYSTEM_MESSAGE)
    assert "langchain" not in ported
    langchain_printed = _printed(_FEW_SHOT_IN_A_SYSTEM_MESSAGE)
    assert "SELECT name FROM genres;" in langchain_printed
    assert _printed(ported) == langchain_printed
