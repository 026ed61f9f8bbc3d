"""Parity: differences found by the nineteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

import asyncio
from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.output_parsers as lc_parsers
import langchain_core.prompts as lc_prompts

import ragline.core as rl


def _partial_in_a_message_template(prompts: Any, models: Any, parsers: Any) -> list[Any]:
    # issue17560 / issue2517: a message template with a partial variable, in a chat prompt
    read: list[Any] = []
    for cls_name in ("HumanMessagePromptTemplate", "SystemMessagePromptTemplate"):
        cls = getattr(prompts, cls_name)
        message = cls.from_template(
            "Tell me about {name}. Answer in {lang}", partial_variables={"lang": "Spanish"}
        )
        read += [message.input_variables, message.prompt.partial_variables, repr(message)]
        read.append(message.format(name="OpenAI").content)
        chat = prompts.ChatPromptTemplate.from_messages([message])
        read += [chat.input_variables, [m.content for m in chat.format_messages(name="AI")]]
    instructions = prompts.HumanMessagePromptTemplate.from_template(
        "Give me colors.\n {format_instructions}", partial_variables={"format_instructions": "JSON"}
    )
    read.append(repr(prompts.ChatPromptTemplate.from_messages([instructions]).format_messages()))
    chain = (
        prompts.ChatPromptTemplate.from_messages([message])
        | models.FakeListChatModel(responses=["hola"])
        | parsers.StrOutputParser()
    )
    read.append(asyncio.run(chain.ainvoke({"name": "Open AI"})))
    read.append(
        prompts.ChatMessagePromptTemplate.from_template(
            "{a} {b}", role="critic", partial_variables={"b": "B"}
        )
        .format(a="A")
        .content
    )
    return [str(x) if not isinstance(x, (list, dict, str)) else x for x in read]


def test_a_message_template_takes_partial_variables() -> None:
    # ragline's from_template had no partial_variables keyword (TypeError)
    expected = _partial_in_a_message_template(lc_prompts, lc_models, lc_parsers)
    assert _partial_in_a_message_template(rl, rl, rl) == expected
