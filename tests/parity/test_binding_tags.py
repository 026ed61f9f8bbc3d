"""Parity: the order of a run's tags where a binding's tags meet the call's.

LangChain merges a ``with_config(tags=...)`` binding's tags with the config it is called
with into one sorted list, and a config passed to ``invoke`` inside a run replaces the
current run's config tags (the run's manager carries the enclosing runs' tags on); the
run's tags are then its parent's, each config tag moved to the end in that order.
ragline appended the bound tags after the call's. A program printing ``event["tags"]``
(or filtering on them) saw another order. One program runs through both libraries.
"""

from __future__ import annotations

from tests.parity._port_trial import ported, printed

_TAGS = """
import asyncio

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableLambda


class Tags(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, *, tags=None, name=None, **kwargs):
        print("start", kwargs.get("run_type"), name, tags)


def add(x):
    return x + 1


def nested(x):
    # a call inside a run, with tags of its own
    return RunnableLambda(add).with_config(run_name="deep").invoke(x, {"tags": ["m5", "b2"]})


inner = RunnableLambda(add).with_config(tags=["inner", "a0"], run_name="G")
chain = (
    RunnableLambda(add)
    | inner
    | RunnableLambda(nested).with_config(tags=["zz"], run_name="N")
    | RunnableLambda(add).bind()
)
print(chain.invoke(1, {"tags": ["z9", "t1"], "callbacks": [Tags()]}))
print(chain.batch([1, 2], {"tags": ["q"], "callbacks": [Tags()]}))
print(inner.invoke(1, {"tags": ["b", "a"], "callbacks": [Tags()]}))


async def main():
    async for event in chain.astream_events(1, {"tags": ["z9", "t1"]}, version="v2"):
        if event["event"] != "on_chain_stream":
            print(event["event"], event["name"], event["tags"])


asyncio.run(main())
"""


def test_a_bindings_tags_take_langchains_order() -> None:
    langchain_printed = printed(_TAGS)
    assert "on_chain_start G ['seq:step:2', 'a0', 'inner', 't1', 'z9']" in langchain_printed
    assert printed(ported(_TAGS)) == langchain_printed
