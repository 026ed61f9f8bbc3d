"""Parity: gaps the port trials of sets 44-48 left (issue 24), one scenario each.

Each scenario is a small program run through LangChain and, after ``ragline port``,
through ragline; what it prints must be the same.
"""

import warnings

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# MapRerankDocumentsChain built directly on an LLMChain: ragline took the document
# variable ("context") as its input key and returned the bare answer.
_MAP_RERANK_ON_AN_LLM_CHAIN = """
from langchain_classic.chains import LLMChain
from langchain_classic.chains.combine_documents.map_rerank import MapRerankDocumentsChain
from langchain_classic.output_parsers.regex import RegexParser
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

parser = RegexParser(regex=r"(.*?)\\nScore: (\\d*)", output_keys=["answer", "score"])
prompt = PromptTemplate(
    template="{context}\\nQ: {question}",
    input_variables=["context", "question"],
    output_parser=parser,
)
docs = [Document(page_content="Lyon is big"), Document(page_content="Paris is the capital")]
llm = FakeListLLM(responses=["Lyon\\nScore: 20", "Paris\\nScore: 95", "Nice\\nScore: 5"])
chain = MapRerankDocumentsChain(
    llm_chain=LLMChain(llm=llm, prompt=prompt),
    document_variable_name="context",
    rank_key="score",
    answer_key="answer",
)
print(chain.input_keys, chain.output_keys, chain.input_key, chain.output_key)
print(chain.invoke({"input_documents": docs, "question": "capital?"})["output_text"])
print(chain.run(input_documents=docs[:1], question="?"))
steps = MapRerankDocumentsChain(
    llm_chain=LLMChain(llm=FakeListLLM(responses=["A\\nScore: 1", "B\\nScore: 2"]), prompt=prompt),
    document_variable_name="context",
    rank_key="score",
    answer_key="answer",
    return_intermediate_steps=True,
)
result = steps.invoke({"input_documents": docs, "question": "?"})
print(steps.output_keys, sorted(result), result["output_text"], result["intermediate_steps"])
"""

# load_summarize_chain(callbacks=[h]): LangChain gives a stuff or refine summary's
# callbacks to the outer chain only; ragline gave them to the LLMChains inside too (a
# handler saw two chain starts, not one). (Map-reduce, which gives them to every chain
# inside, already matched; LangChain's counts its tokens with a downloaded tokenizer.)
_SUMMARY_CALLBACKS = """
from langchain_classic.chains.summarize import load_summarize_chain
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM


class Seen(BaseCallbackHandler):
    def __init__(self):
        self.seen = []

    def on_chain_start(self, serialized, inputs, **kwargs):
        self.seen.append("start " + kwargs["name"])

    def on_llm_start(self, serialized, prompts, **kwargs):
        self.seen.append("llm")

    def on_chain_end(self, outputs, **kwargs):
        self.seen.append("end")


docs = [Document(page_content="apples"), Document(page_content="pears")]
for kind in ("stuff", "refine"):
    handler = Seen()
    chain = load_summarize_chain(
        FakeListLLM(responses=["fruit"] * 5), chain_type=kind, callbacks=[handler]
    )
    result = chain.invoke({"input_documents": docs})
    print(kind, result["output_text"], handler.seen)
    at_invoke = Seen()
    chain.invoke({"input_documents": docs}, config={"callbacks": [at_invoke]})
    print(kind, "at invoke", at_invoke.seen)
"""

# retriever.invoke(q, n_results=1) on a retriever whose hook takes no options (a
# MultiVectorRetriever in port trial set 48): LangChain drops the options; ragline raised
# TypeError. It now searches the same and warns (stderr, not what the program prints).
_OPTIONS_A_HOOK_DOES_NOT_TAKE = """
import asyncio
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever


class Shelf(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager):
        return [Document(page_content=query.upper()), Document(page_content="second")]


shelf = Shelf()
print(shelf.invoke("tea", n_results=1))
print(shelf.batch(["a", "b"], k=1))
print(asyncio.run(shelf.ainvoke("coffee", k=1)))
print(asyncio.run(shelf.abatch(["c"], n_results=3)))
"""

# LLMChain reports its prompt with on_text(..., end="\\n", verbose=...): a handler reading
# kwargs["verbose"] failed with KeyError under ragline.
_ON_TEXT_VERBOSE = """
import asyncio
from langchain_classic.chains import LLMChain
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate


class Texts(BaseCallbackHandler):
    def on_text(self, text, **kwargs):
        print(repr(text), kwargs["verbose"], repr(kwargs["end"]), sorted(kwargs))


for verbose in (False, True):
    chain = LLMChain(
        llm=FakeListLLM(responses=["x", "y"]),
        prompt=PromptTemplate.from_template("hi {a}"),
        verbose=verbose,
    )
    chain.invoke({"a": 1}, config={"callbacks": [Texts()]})
    asyncio.run(chain.ainvoke({"a": 2}, config={"callbacks": [Texts()]}))
"""

# early_stopping_method="generate": LangChain's Agent writes the final answer with its
# LLMChain run with no callbacks; ragline reported that run to the executor's handlers.
_GENERATE_PASS = """
import asyncio
from langchain_classic.agents import AgentExecutor, ZeroShotAgent
from langchain_classic.chains import LLMChain
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListLLM
from langchain_core.tools import Tool


class Seen(BaseCallbackHandler):
    def __init__(self, where):
        self.where = where

    def on_chain_start(self, serialized, inputs, **kwargs):
        print(self.where, "chain", kwargs["name"])

    def on_llm_start(self, serialized, prompts, **kwargs):
        print(self.where, "llm", repr(prompts[0][-20:]))


tools = [Tool(name="Echo", func=lambda s: s.upper(), description="echoes its input")]
prompt = ZeroShotAgent.create_prompt(tools)
for run in ("invoke", "ainvoke"):
    plan = "Thought: echo\\nAction: Echo\\nAction Input: hi"
    llm = FakeListLLM(responses=[plan, "Final Answer: HI"])
    agent = ZeroShotAgent(llm_chain=LLMChain(llm=llm, prompt=prompt), allowed_tools=["Echo"])
    executor = AgentExecutor(
        agent=agent,
        tools=tools,
        max_iterations=1,
        early_stopping_method="generate",
        callbacks=[Seen("built")],
    )
    config = {"callbacks": [Seen("given")]}
    if run == "invoke":
        print(executor.invoke({"input": "say hi"}, config=config))
    else:
        print(asyncio.run(executor.ainvoke({"input": "say hi"}, config=config)))
"""


def _same(program: str, langchain_marker: str) -> None:
    ported = _ported(program)
    assert "langchain" not in ported
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        langchain_printed = _printed(program)
    assert langchain_marker in langchain_printed
    assert _printed(ported) == langchain_printed


def test_map_rerank_on_an_llm_chain_takes_input_documents_and_returns_output_text() -> None:
    _same(_MAP_RERANK_ON_AN_LLM_CHAIN, "['input_documents'] ['output_text']")


def test_a_summary_chain_keeps_its_callbacks_to_itself_as_langchains() -> None:
    _same(_SUMMARY_CALLBACKS, "stuff fruit ['start StuffDocumentsChain', 'end']")


def test_bad_defaults_of_from_retrievers_raise_raglines_errors_under_langchains_types() -> None:
    """LangChain raises a bare ValueError / NotImplementedError; ragline's own classes
    subclass those, so a ported ``except ValueError`` still catches them."""
    from ragline.chains import MultiRetrievalQAChain
    from ragline.core import FakeListLLM, RaglineError
    from ragline.core.exceptions import ConfigurationError, UnsupportedMethodError
    from tests.parity.test_multi_retrieval_qa import DEFAULT_PROMPT, infos, parts

    _, _, prompt = parts("ragline")
    with pytest.raises(UnsupportedMethodError) as no_default:
        MultiRetrievalQAChain.from_retrievers(FakeListLLM(responses=["x"]), infos("ragline"))
    assert isinstance(no_default.value, (RaglineError, NotImplementedError))
    assert type(no_default.value).__name__ == "NotImplementedError"
    assert "default_chain_llm" in str(no_default.value)
    with pytest.raises(ConfigurationError) as prompt_alone:
        MultiRetrievalQAChain.from_retrievers(
            FakeListLLM(responses=["x"]),
            infos("ragline"),
            default_prompt=prompt(DEFAULT_PROMPT),
            default_chain_llm=FakeListLLM(responses=["x"]),
        )
    assert isinstance(prompt_alone.value, ValueError)
    assert "pass default_retriever too" in str(prompt_alone.value)


def test_options_a_retriever_hook_does_not_take_are_dropped_as_in_langchain() -> None:
    _same(_OPTIONS_A_HOOK_DOES_NOT_TAKE, "page_content='TEA'")


def test_dropped_retriever_options_are_named_in_a_warning_at_the_callers_line() -> None:
    from ragline.core import BaseRetriever, Document

    class Shelf(BaseRetriever):
        def _get_relevant_documents(self, query: str) -> list[Document]:
            return [Document(query)]

    with pytest.warns(UserWarning, match="Shelf ignores the search options k, n_results") as seen:
        assert Shelf().invoke("tea", n_results=1, k=2) == [Document("tea")]
    assert seen[0].filename == __file__


def test_llm_chain_reports_its_prompt_with_langchains_verbose_keyword() -> None:
    _same(_ON_TEXT_VERBOSE, "True '\\n' ['end', 'parent_run_id', 'run_id', 'tags', 'verbose']")


def test_the_generate_pass_of_a_stopped_agent_reports_to_no_handler() -> None:
    _same(_GENERATE_PASS, "{'input': 'say hi', 'output': 'HI'}")
