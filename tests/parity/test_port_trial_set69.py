"""Parity: differences found beside the sixty-ninth port trial (issue 24), one scenario each.

All thirty programs of set 69 (LCEL control flow and configuration) printed the same under
ragline; the scenario here comes from a probe of the shapes next to them. Each scenario
runs the same program through LangChain and, after ``ragline port``, through ragline, and
compares what it prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# Beside lcel_syntax_tour_zh (p16), which keeps keys with RunnablePassthrough.pick(keys=[...]):
# a pick of several keys that the input holds none of. LangChain's gives None (and its
# stream, standalone or in a chain, yields nothing); ragline's gave {} and, streamed on its
# own, went through invoke.
_PICK_NONE_OF_THE_KEYS = """
import asyncio
from langchain_core.runnables import RunnableLambda, RunnablePassthrough, RunnablePick

pick = RunnablePick(["z", "y"])
chain = RunnablePassthrough.assign(b=lambda d: d["a"] + 1).pick(["z"])
print(pick.invoke({"a": 1}), pick.invoke({"a": 1, "y": 2}), chain.invoke({"a": 1}))
print(pick.batch([{"a": 1}, {"z": 3}]))
print(list(pick.stream({"a": 1})), list(pick.stream({"z": 3})), list(chain.stream({"a": 1})))
print(list(RunnablePick("z").stream({"a": 1})), list(RunnablePick("a").stream({"a": 1})))


async def main():
    print(await pick.ainvoke({"a": 1}))
    print([c async for c in pick.astream({"a": 1})], [c async for c in pick.astream({"y": 4})])
    print([c async for c in chain.astream({"a": 1})])


asyncio.run(main())
"""


def test_a_pick_of_keys_the_input_lacks_gives_none_as_langchains() -> None:
    langchain_printed = _printed(_PICK_NONE_OF_THE_KEYS)
    assert langchain_printed.splitlines()[0] == "None {'y': 2} None"
    assert langchain_printed.splitlines()[2] == "[] [{'z': 3}] []"
    assert _printed(_ported(_PICK_NONE_OF_THE_KEYS)) == langchain_printed


# Beside astream_log_include_names (p09) and rag_gate_branch_fallback (p04): astream_log of
# a chain whose first choice raises under with_fallbacks. LangChain's entry for the run that
# raised ends with final_output {} and then end_time; ragline's sent end_time only.
_LOG_OF_A_RUN_THAT_RAISED = """
import asyncio
from langchain_core.documents import Document
from langchain_core.output_parsers import JsonOutputParser
from langchain_core.prompts import PromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool


def boom(x):
    raise ValueError("boom")


class DownRetriever(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager):
        raise ConnectionError("index down")


@tool
def lookup(x: str) -> str:
    \"\"\"Look x up.\"\"\"
    raise ValueError("no such entry")


async def log(runnable, value, **kwargs):
    async for patch in runnable.astream_log(value, **kwargs):
        shown = [(op["op"], op["path"], op["value"]) for op in patch.ops if op["path"]]
        # the run entries themselves and their times hold ids and clock values
        print([o for o in shown if o[1].count("/") != 2 and not o[1].endswith("_time")])


backup = RunnableLambda(lambda x: "ok")
cases = [
    (RunnableLambda(boom), "q"),
    (PromptTemplate.from_template("{q}") | RunnableLambda(boom), {"q": "x"}),
    (JsonOutputParser(), "not json"),
    (DownRetriever(), "q"),
    (lookup, "q"),
]
for first, value in cases:
    asyncio.run(log(first.with_fallbacks([backup]), value))
asyncio.run(log(RunnableLambda(boom).with_fallbacks([backup]), 1, include_types=["chain"]))
"""


def test_the_log_entry_of_a_run_that_raised_holds_langchains_final_output() -> None:
    langchain_printed = _printed(_LOG_OF_A_RUN_THAT_RAISED)
    assert "[('add', '/logs/boom/final_output', {})]" in langchain_printed.splitlines()
    assert "[('add', '/logs/lookup/final_output', {})]" in langchain_printed.splitlines()
    assert _printed(_ported(_LOG_OF_A_RUN_THAT_RAISED)) == langchain_printed


# Beside branch_routing_demo (p01) and conditional_chains_lesson (p13): a RunnableBranch
# given a bare function where a (condition, runnable) pair goes. LangChain's raises a
# TypeError (a pair of the wrong length: a ValueError); ragline's raised a ValueError.
_BRANCH_ARGUMENT_NOT_A_PAIR = """
from langchain_core.runnables import RunnableBranch

for args in [
    (lambda x: x > 0, lambda x: "default"),
    ((lambda x: x > 0,), lambda x: "default"),
    ((lambda x: x > 0, lambda x: "pos"), lambda x: "default"),
]:
    try:
        print(RunnableBranch(*args).invoke(1))
    except TypeError as e:
        print("TypeError caught:", type(e).__name__)
    except ValueError as e:
        print("ValueError caught:", type(e).__name__ in ("ValueError", "ConfigurationError"))
"""


def test_a_branch_argument_that_is_no_pair_raises_a_type_error_as_langchains() -> None:
    langchain_printed = _printed(_BRANCH_ARGUMENT_NOT_A_PAIR)
    assert langchain_printed == "TypeError caught: TypeError\nValueError caught: True\npos\n"
    assert _printed(_ported(_BRANCH_ARGUMENT_NOT_A_PAIR)) == langchain_printed


# Review of 690c612: one key whose value is None. LangChain's pick gives None for it as for
# a missing key, and its stream (alone, in a chain, or transform over chunks) skips a None,
# so nothing is streamed for it; invoke and batch still give None. ragline streamed None.
_PICK_A_NONE_VALUE = """
import asyncio
from langchain_core.runnables import RunnableLambda, RunnablePick

pick = RunnablePick("a")
chain = RunnableLambda(lambda d: d) | pick
print(pick.invoke({"a": None}), pick.batch([{"a": None}, {"a": 0}]), chain.invoke({"a": None}))
print(list(pick.stream({"a": None})), list(chain.stream({"a": None})))
print(list(pick.transform(iter([{"a": None}, {"a": 0}, {"a": ""}, {"a": 5}]))))
print(list(RunnablePick(["a"]).stream({"a": None})))


async def main():
    print([c async for c in pick.astream({"a": None})])
    print([c async for c in chain.astream({"a": None})])


asyncio.run(main())
"""


def test_a_streamed_pick_skips_a_none_value_as_langchains() -> None:
    langchain_printed = _printed(_PICK_A_NONE_VALUE)
    assert langchain_printed == ("None [None, 0] None\n[] []\n[0, '', 5]\n[{'a': None}]\n[]\n[]\n")
    assert _printed(_ported(_PICK_A_NONE_VALUE)) == langchain_printed


# Review of 54ee764: a model run that raised. LangChain's models report the error with an
# LLMResult (on_llm_error's response): a chat model's pieces streamed so far, added up, then
# an empty row ([[]] when none came, and from invoke); an LLM's streamed text ([] when none
# came, and from invoke). The log entry (and a v1 end event) holds it as its final_output;
# ragline's models sent no response and the log entry had its end_time only.
_A_MODEL_THAT_RAISED = """
import asyncio
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import LLM, BaseChatModel
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk
from langchain_core.runnables import RunnableLambda


class Half(BaseChatModel):
    n: int = 1

    @property
    def _llm_type(self):
        return "half"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        raise ValueError("down")

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        for i in range(self.n):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=f"p{i}", id="x"))
            if run_manager:  # LangChain's chat stream may pass none
                run_manager.on_llm_new_token(f"p{i}", chunk=chunk)
            yield chunk
        raise ValueError("down")


class HalfLLM(LLM):
    n: int = 1

    @property
    def _llm_type(self):
        return "half"

    def _call(self, prompt, stop=None, run_manager=None, **kwargs):
        raise ValueError("down")

    def _stream(self, prompt, stop=None, run_manager=None, **kwargs):
        for i in range(self.n):
            chunk = GenerationChunk(text=f"t{i}")
            if run_manager:  # LangChain's chat stream may pass none
                run_manager.on_llm_new_token(f"t{i}", chunk=chunk)
            yield chunk
        raise ValueError("down")


class Shown(BaseCallbackHandler):
    def on_llm_error(self, error, **kwargs):
        rows = kwargs["response"].generations
        print("response", [[(type(g).__name__, g.text) for g in row] for row in rows])


def attempt(call):
    try:
        call()
    except ValueError:
        pass


async def entries(runnable):
    try:
        async for patch in runnable.astream_log("q"):
            for op in patch.ops:
                if op["path"].startswith("/logs/Half") and op["path"].endswith("final_output"):
                    print("log", op["value"]["generations"])
    except ValueError:
        pass
    try:
        async for event in runnable.astream_events("q", version="v1"):
            if event["event"] in ("on_chat_model_end", "on_llm_end"):
                print("v1", event["data"]["output"]["generations"])
    except ValueError:
        pass


handlers = {"callbacks": [Shown()]}
for n in (0, 2):
    for model in (Half(n=n), HalfLLM(n=n)):
        attempt(lambda: list(model.stream("q", handlers)))
        asyncio.run(entries(RunnableLambda(lambda x: x) | model))
attempt(lambda: Half().invoke("q", handlers))
attempt(lambda: HalfLLM().invoke("q", handlers))
attempt(lambda: asyncio.run(Half().ainvoke("q", handlers)))
attempt(lambda: HalfLLM().batch(["q"], handlers))
"""


def test_a_model_that_raised_reports_what_it_streamed_as_langchains() -> None:
    langchain_printed = _printed(_A_MODEL_THAT_RAISED)
    lines = langchain_printed.splitlines()
    assert lines[:3] == ["response [[]]", "log [[]]", "v1 [[]]"]
    assert "response [[('ChatGenerationChunk', 'p0p1')], []]" in lines
    assert "response [[('GenerationChunk', 't0t1')]]" in lines
    assert "log [[{'text': 't0t1', 'generation_info': None, 'type': 'Generation'}]]" in lines
    assert lines[-4:] == ["response [[]]", "response []", "response [[]]", "response []"]
    assert _printed(_ported(_A_MODEL_THAT_RAISED)) == langchain_printed
