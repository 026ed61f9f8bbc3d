"""Parity: differences found by the forty-seventh port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# runnable_generator_chant: a sync generator piped after a streaming chain becomes a
# RunnableGenerator; LangChain's has no async path (astream, ainvoke, abatch, atransform
# and a sequence's ainvoke raise NotImplementedError), while ragline ran the generator
# once over the whole collected input, which is not the stream the sync path gives.
_SYNC_GENERATOR_ASYNC = """
import asyncio
from typing import Iterator
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableGenerator

def clap(chunks: Iterator[str]) -> Iterator[str]:
    for token in chunks:
        yield ("*" + token) if "," in token or "." in token else token

model = GenericFakeChatModel(messages=iter([AIMessage(content="Eat, Sleep, Code.")] * 3))
prompt = ChatPromptTemplate.from_template("chant about {topic}")
sequence = prompt | model | StrOutputParser() | clap
print(type(sequence.last).__name__, "".join(sequence.stream({"topic": "work"})))

async def collect(chunks):
    return [chunk async for chunk in chunks]

async def main():
    generator = RunnableGenerator(clap)
    attempts = [
        ("astream", lambda: collect(sequence.astream({"topic": "work"}))),
        ("ainvoke", lambda: sequence.ainvoke({"topic": "work"})),
        ("generator ainvoke", lambda: generator.ainvoke("a, b.")),
        ("generator abatch", lambda: generator.abatch(["a, b."])),
        ("generator astream", lambda: collect(generator.astream("a, b."))),
    ]
    for name, attempt in attempts:
        try:
            print(name, await attempt())
        except Exception as error:
            print(name, type(error).__name__)
    print(generator.invoke("a, b."), generator.batch(["x."]))

asyncio.run(main())
"""


def test_a_sync_generator_has_no_async_path_as_langchains() -> None:
    langchain_printed = _printed(_SYNC_GENERATOR_ASYNC)
    assert langchain_printed.splitlines()[0] == "RunnableGenerator *Eat, *Sleep, *Code."
    assert langchain_printed.count("NotImplementedError") == 5
    assert _printed(_ported(_SYNC_GENERATOR_ASYNC)) == langchain_printed


# book_chain_stream_generator: @chain over a generator function is a RunnableLambda in
# LangChain (ragline made it a RunnableGenerator); it streams the function's items, adds
# them up for invoke and ainvoke, and refuses astream (TypeError) for a sync generator.
_CHAIN_OVER_GENERATOR = """
import asyncio
from langchain_core.runnables import RunnableLambda, chain

@chain
def letters(text):
    for character in text:
        yield character

@chain
async def aletters(text):
    for character in text:
        yield character

print(type(letters).__name__, letters.name, type(aletters).__name__, aletters.name)
print(list(letters.stream("abc")), letters.invoke("abc"), letters.batch(["ab", "cd"]))

async def main():
    print(await letters.ainvoke("abc"), await letters.abatch(["ab"]))
    for runnable in (letters, RunnableLambda(lambda x: x) | letters):
        try:
            print([c async for c in runnable.astream("abc")])
        except Exception as error:
            print("astream", type(error).__name__)
    print([c async for c in aletters.astream("abc")], await aletters.ainvoke("abc"))

asyncio.run(main())
"""


def test_chain_over_a_generator_is_a_lambda_as_langchains() -> None:
    langchain_printed = _printed(_CHAIN_OVER_GENERATOR)
    assert langchain_printed.splitlines()[0] == "RunnableLambda letters RunnableLambda aletters"
    assert langchain_printed.count("astream TypeError") == 2
    assert _printed(_ported(_CHAIN_OVER_GENERATOR)) == langchain_printed
