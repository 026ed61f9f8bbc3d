"""Parity: differences found by the forty-second port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# denys_summarizer_refine_stuff_mapreduce: ReduceDocumentsChain and MapReduceDocumentsChain
# imported from langchain.chains.mapreduce (which re-exports them), a path whose table
# entry had MapReduceChain only, so the ported program stopped at its import.
_MAPREDUCE_PATH = """
from langchain_classic.chains.mapreduce import (
    LLMChain, MapReduceDocumentsChain, ReduceDocumentsChain, StuffDocumentsChain,
)
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

llm = FakeListLLM(responses=["theme: a knight", "theme: a horse", "a knight and his horse"])
map_chain = LLMChain(llm=llm, prompt=PromptTemplate.from_template("Themes of {docs}?"))
reduce_chain = LLMChain(llm=llm, prompt=PromptTemplate.from_template("Merge: {summaries}"))
combine = StuffDocumentsChain(llm_chain=reduce_chain, document_variable_name="summaries")
reduce_documents_chain = ReduceDocumentsChain(
    combine_documents_chain=combine, collapse_documents_chain=combine, token_max=4000
)
chain = MapReduceDocumentsChain(
    llm_chain=map_chain, reduce_documents_chain=reduce_documents_chain,
    document_variable_name="docs", return_intermediate_steps=True,
)
docs = [Document(page_content="Don Quixote rides out."), Document(page_content="Rocinante.")]
print(chain.invoke({"input_documents": docs}))
print(chain.input_keys, chain.output_keys)
"""


def test_the_mapreduce_module_path_ports_its_document_chains(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # LangChain's reduce step counts tokens with transformers' GPT-2 tokenizer; offline it
    # falls back to its own count at once instead of retrying the network for minutes
    # (the hub reads the variable when imported, so its constant is set too)
    hub_constants = pytest.importorskip("huggingface_hub.constants")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    ported = _ported(_MAPREDUCE_PATH)
    assert "from ragline.chains import (" in ported
    langchain_printed = _printed(_MAPREDUCE_PATH)
    assert "'output_text': 'a knight and his horse'" in langchain_printed
    assert "['output_text', 'intermediate_steps']" in langchain_printed
    assert _printed(ported) == langchain_printed


COVERS = {"chains.MULTI_PROMPT_ROUTER_TEMPLATE"}

# yeyuting_multi_prompt_router_verbose: MULTI_PROMPT_ROUTER_TEMPLATE imported from
# langchain.chains.router.multi_prompt_prompt, a path the table lacked, so the ported
# program kept LangChain's template. Ported, it routes with ragline's (what it prints of
# the template itself is ragline's wording; the routing and the answers are the same).
_ROUTER_TEMPLATE = """
from langchain_classic.chains import ConversationChain
from langchain_classic.chains.llm import LLMChain
from langchain_classic.chains.router import MultiPromptChain
from langchain_classic.chains.router.llm_router import LLMRouterChain, RouterOutputParser
from langchain_classic.chains.router.multi_prompt_prompt import MULTI_PROMPT_ROUTER_TEMPLATE
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

llm = FakeListLLM(responses=[
    '```json\\n{"destination": "math", "next_inputs": "2 + 2?"}\\n```',
    " 4",
    '```json\\n{"destination": "DEFAULT", "next_inputs": "hello"}\\n```',
    " hi there",
])
infos = [("physics", "Good for physics"), ("math", "Good for math questions")]
destination_chains = {
    name: LLMChain(llm=llm, prompt=PromptTemplate.from_template(name + ": {input}"))
    for name, _ in infos
}
router_template = MULTI_PROMPT_ROUTER_TEMPLATE.format(
    destinations="\\n".join(f"{name}: {description}" for name, description in infos)
)
router_prompt = PromptTemplate(
    template=router_template, input_variables=["input"], output_parser=RouterOutputParser()
)
default_chain = LLMChain(llm=llm, prompt=PromptTemplate.from_template("{input}"))
chain = MultiPromptChain(
    router_chain=LLMRouterChain.from_llm(llm, router_prompt),
    destination_chains=destination_chains,
    default_chain=default_chain,
)
print(router_prompt.input_variables, "{destinations}" in MULTI_PROMPT_ROUTER_TEMPLATE)
print(repr(chain.run("What is 2 + 2?")))
print(repr(chain.run("hello")))
"""


def test_the_router_template_routes_as_langchains_once_ported() -> None:
    ported = _ported(_ROUTER_TEMPLATE)
    assert "from ragline.chains import MULTI_PROMPT_ROUTER_TEMPLATE\n" in ported
    langchain_printed = _printed(_ROUTER_TEMPLATE)
    assert langchain_printed == "['input'] True\n' 4'\n' hi there'\n"
    assert _printed(ported) == langchain_printed


def test_the_router_template_module_paths_port_to_ragline() -> None:
    # the router prompt's wording is ragline's own (LangChain's is not copied): the
    # program gets ragline's template, which keeps the {destinations} slot it fills
    for path in (
        "langchain_classic.chains.router.multi_prompt_prompt",
        "langchain_classic.chains.router.multi_prompt",
        "langchain.chains.router.multi_prompt_prompt",
    ):
        source = f"from {path} import MULTI_PROMPT_ROUTER_TEMPLATE\n"
        assert _ported(source).endswith("from ragline.chains import MULTI_PROMPT_ROUTER_TEMPLATE\n")
    from ragline.chains import MULTI_PROMPT_ROUTER_TEMPLATE

    filled = MULTI_PROMPT_ROUTER_TEMPLATE.format(destinations="math: Good for math")
    assert "math: Good for math" in filled
    assert "{input}" in filled


# yeyuting_llm_chain_apply_generate_predict: LLMChain.from_string(llm=..., template=...)
# (LangChain's classmethod) was missing, so the program stopped there.
# falcon_conversation_chain_output_parser: ConversationChain(prompt=PromptTemplate(...,
# output_parser=parser)).predict_and_parse(input=...) was missing too.
_FROM_STRING_AND_PREDICT_AND_PARSE = """
import asyncio

from langchain_classic.chains import ConversationChain, LLMChain
from langchain_classic.memory import ConversationBufferWindowMemory
from langchain_core.language_models import FakeListLLM
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.prompts import PromptTemplate


class OutputParser(BaseOutputParser):
    def parse(self, text: str) -> str:
        text = text.strip()
        for word in ["Human:", "AI:"]:
            text = text.removesuffix(word)
        return text.strip()


llm = FakeListLLM(responses=[" Duck joke.", " Hello there!\\nHuman:", " Bye.\\nAI:", " x "])
chain = LLMChain.from_string(llm=llm, template="Tell me a {adjective} joke about {subject}.")
print(type(chain).__name__, chain.input_keys, chain.output_keys)
print(chain.prompt)
print(repr(chain.predict(adjective="sad", subject="ducks")))

prompt = PromptTemplate(
    input_variables=["history", "input"],
    template="Chat so far:\\n{history}\\nHuman: {input}\\nAI:",
    output_parser=OutputParser(),
)
chat = ConversationChain(llm=llm, memory=ConversationBufferWindowMemory(k=5), prompt=prompt)
print(repr(chat.predict_and_parse(input="hi how are you?")))
print(repr(asyncio.run(chat.apredict_and_parse(input="bye"))))
print(chat.memory.load_memory_variables({}))
plain = LLMChain(llm=llm, prompt=PromptTemplate.from_template("{q}"))
print(repr(plain.predict_and_parse(q="no parser")))
"""


def test_llm_chain_from_string_and_predict_and_parse_run_as_langchains() -> None:
    ported = _ported(_FROM_STRING_AND_PREDICT_AND_PARSE)
    langchain_printed = _printed(_FROM_STRING_AND_PREDICT_AND_PARSE)
    assert "'Hello there!'\n'Bye.'\n" in langchain_printed
    assert "' x '\n" in langchain_printed
    assert _printed(ported) == langchain_printed


# campusclature_crc_memory_runnable_history: a chain with memory called with an input its
# memory provides too (RunnableWithMessageHistory passing "chat_history" to a
# ConversationalRetrievalChain with a ConversationBufferMemory): LangChain uses the
# memory's value; ragline raised InvalidInputError.
_INPUT_THE_MEMORY_PROVIDES = """
from langchain_classic.chains import ConversationChain, LLMChain
from langchain_classic.memory import ConversationBufferMemory
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

llm = FakeListLLM(responses=["one", "two", "three"])
prompt = PromptTemplate.from_template("History:\\n{history}\\nHuman: {input}\\nAI:")
chain = ConversationChain(llm=llm, prompt=prompt, memory=ConversationBufferMemory())
print(chain.invoke({"input": "hi", "history": "given by the caller"}))
print(chain.invoke({"input": "again", "history": "given again"}))
memory = ConversationBufferMemory(memory_key="notes", input_key="q")
qa = LLMChain(llm=llm, prompt=PromptTemplate.from_template("{notes}|{q}"), memory=memory)
print(qa.invoke({"q": "x", "notes": "mine"}))
"""


def test_an_input_the_memory_also_provides_takes_the_memorys_value() -> None:
    ported = _ported(_INPUT_THE_MEMORY_PROVIDES)
    langchain_printed = _printed(_INPUT_THE_MEMORY_PROVIDES)
    assert "'history': 'Human: hi\\nAI: one'" in langchain_printed
    assert _printed(ported) == langchain_printed


# campusclature_crc_memory_runnable_history: ConversationalRetrievalChain.from_llm(...,
# verbose=True) gives verbose to the chains it builds (the documents chain and the question
# generator), not to the chain itself: LangChain prints no "Entering new
# ConversationalRetrievalChain chain..." there; ragline did.
_CRC_FROM_LLM_VERBOSE = """
from langchain_classic.chains import ConversationalRetrievalChain
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.retrievers import BaseRetriever


class Notes(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager=None):
        return [Document(page_content="Exams start on 9 December.")]


llm = FakeListLLM(responses=["On 9 December.", "When do exams start?", "9 December."])
qa = ConversationalRetrievalChain.from_llm(
    llm,
    Notes(),
    condense_question_prompt=PromptTemplate.from_template("{chat_history}|{question}"),
    combine_docs_chain_kwargs={"prompt": PromptTemplate.from_template("{context}|{question}")},
    verbose=True,
)
print(qa.verbose, qa.question_generator.verbose, qa.combine_docs_chain.verbose)
print(qa.invoke({"question": "When are exams?", "chat_history": []})["answer"])
print(qa.invoke({"question": "And?", "chat_history": [("When are exams?", "On 9 December.")]}))
"""


def test_conversational_retrieval_from_llm_verbose_prints_the_inner_chains_only() -> None:
    ported = _ported(_CRC_FROM_LLM_VERBOSE)
    langchain_printed = _printed(_CRC_FROM_LLM_VERBOSE)
    assert langchain_printed.startswith("False True True\n")
    assert "Entering new ConversationalRetrievalChain" not in langchain_printed
    assert "Entering new StuffDocumentsChain" in langchain_printed
    assert _printed(ported) == langchain_printed


# campusclature_crc_memory_runnable_history (behind the memory fix): a legacy chain in
# RunnableWithMessageHistory without output_messages_key. The chain returns its inputs
# with its outputs; LangChain reads the reply from the chain's run, which reports the
# outputs only (an LLMChain's one 'text'), where ragline looked for 'output' in the
# returned dict and raised.
_LEGACY_CHAIN_WITH_HISTORY = """
import asyncio
from langchain_classic.chains import LLMChain
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables.history import RunnableWithMessageHistory

store = {}


def get(session_id):
    return store.setdefault(session_id, InMemoryChatMessageHistory())


chain = LLMChain(
    llm=FakeListLLM(responses=["first", "second", "third"]),
    prompt=PromptTemplate.from_template("{history} Q: {question}"),
)
wrapped = RunnableWithMessageHistory(
    chain, get, input_messages_key="question", history_messages_key="history"
)
config = {"configurable": {"session_id": "s"}}
print(wrapped.invoke({"question": "hi"}, config)["text"])
print(wrapped.invoke({"question": "again"}, config)["text"])
print(asyncio.run(wrapped.ainvoke({"question": "once more"}, config))["text"])
print([(m.type, m.content) for m in store["s"].messages])
"""


def test_a_legacy_chain_in_message_history_stores_its_output_key() -> None:
    langchain_printed = _printed(_LEGACY_CHAIN_WITH_HISTORY)
    assert langchain_printed == (
        "first\nsecond\nthird\n"
        "[('human', 'hi'), ('ai', 'first'), ('human', 'again'), ('ai', 'second'), "
        "('human', 'once more'), ('ai', 'third')]\n"
    )
    assert _printed(_ported(_LEGACY_CHAIN_WITH_HISTORY)) == langchain_printed


# vn_youth_union_tools_agent_message_history (set 39, after c464183): an AgentExecutor
# over a Runnable agent with return_intermediate_steps in RunnableWithMessageHistory. Its
# declared output_keys are ['intermediate_steps'] only (a Runnable agent declares no
# return values); the chain's run reports what it computed, 'output' and the steps, so
# LangChain stores 'output'. Reading the declared keys alone picked the steps and raised.
_AGENT_STEPS_WITH_HISTORY = """
from langchain_classic.agents import AgentExecutor
from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_core.tools import tool

store = {}


@tool
def lookup(q: str) -> str:
    \"\"\"Look a question up.\"\"\"
    return "found " + q


def plan(inputs):
    if not inputs["intermediate_steps"]:
        return AgentAction(tool="lookup", tool_input={"q": inputs["input"]}, log="look")
    return AgentFinish({"output": "answer: " + inputs["intermediate_steps"][-1][1]}, log="ok")


executor = AgentExecutor(
    agent=RunnableLambda(plan), tools=[lookup], return_intermediate_steps=True
)
print(executor.output_keys)
wrapped = RunnableWithMessageHistory(
    executor,
    lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory()),
    input_messages_key="input",
    history_messages_key="chat_history",
)
for question in ["rights", "hotline"]:
    result = wrapped.invoke({"input": question}, {"configurable": {"session_id": "s"}})
    print(sorted(result), result["output"])
print([(m.type, m.content) for m in store["s"].messages])
"""


def test_an_agent_executor_in_message_history_stores_its_output() -> None:
    langchain_printed = _printed(_AGENT_STEPS_WITH_HISTORY)
    assert langchain_printed == (
        "['intermediate_steps']\n"
        "['chat_history', 'input', 'intermediate_steps', 'output'] answer: found rights\n"
        "['chat_history', 'input', 'intermediate_steps', 'output'] answer: found hotline\n"
        "[('human', 'rights'), ('ai', 'answer: found rights'), "
        "('human', 'hotline'), ('ai', 'answer: found hotline')]\n"
    )
    assert _printed(_ported(_AGENT_STEPS_WITH_HISTORY)) == langchain_printed
