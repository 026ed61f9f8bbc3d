"""Parity: differences found by the sixty-second port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# transform_chain_vehicle_details: a program printed ``type(e).__name__`` of a legacy
# chain invoked without one of its input keys; LangChain's Chain raises ValueError
# there, ragline's MissingVariableError printed its own name.
_MISSING_CHAIN_INPUT = """
from langchain_classic.chains import LLMChain, TransformChain, SequentialChain, ConversationChain
from langchain_classic.chains import RetrievalQA
from langchain_classic.chains.question_answering import load_qa_chain
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.vectorstores import InMemoryVectorStore

llm = FakeListLLM(responses=["x"])
copy = TransformChain(
    input_variables=["intent"], output_variables=["out"], transform=lambda d: {"out": d["intent"]}
)
two = LLMChain(llm=llm, prompt=PromptTemplate.from_template("{a} {b}"))
sequence = SequentialChain(chains=[copy], input_variables=["intent"], output_variables=["out"])
qa = load_qa_chain(llm, chain_type="stuff")
store = InMemoryVectorStore.from_texts(["a"], DeterministicFakeEmbedding(size=4))
retrieval = RetrievalQA.from_chain_type(llm=llm, retriever=store.as_retriever())
calls = [
    lambda: copy.invoke({"vehicle": 1}),
    lambda: copy({"vehicle": 1}),
    lambda: copy.batch([{"vehicle": 1}]),
    lambda: two.invoke({"a": 1}),
    lambda: two.predict(a=1),
    lambda: two.apply([{"a": 1}]),
    lambda: sequence.invoke({"vehicle": 1}),
    lambda: qa.invoke({"input_documents": [Document(page_content="d")]}),
    lambda: qa.invoke({"question": "q"}),
    lambda: retrieval.invoke({"question": "q"}),
    lambda: ConversationChain(llm=llm).invoke({"q": 1}),
]
for call in calls:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, repr(e)[: len(type(e).__name__) + 1])
"""


def test_a_chain_missing_an_input_key_prints_as_langchains_value_error() -> None:
    langchain_printed = _printed(_MISSING_CHAIN_INPUT)
    assert langchain_printed.count("ValueError ValueError(") == 10
    assert _printed(_ported(_MISSING_CHAIN_INPUT)) == langchain_printed


# conversational_retrieval_memory_sources: ConversationalRetrievalChain with a memory and
# return_source_documents=True has two outputs and the memory no output_key; the program
# printed the error's class: LangChain's ValueError, ragline's InvalidInputError.
_MEMORY_CANNOT_TELL_KEY = """
from langchain_classic.memory import ConversationBufferMemory, ConversationBufferWindowMemory

for memory in (ConversationBufferMemory(), ConversationBufferWindowMemory(k=2)):
    for inputs, outputs in (
        ({"question": "q"}, {"answer": "a", "source_documents": []}),
        ({"question": "q", "topic": "t"}, {"answer": "a"}),
    ):
        try:
            memory.save_context(inputs, outputs)
        except Exception as e:
            print(type(e).__name__, isinstance(e, ValueError), repr(e)[:11])
    print(memory.load_memory_variables({}))
"""


def test_a_memory_that_cannot_tell_which_key_to_save_prints_as_langchains_value_error() -> None:
    langchain_printed = _printed(_MEMORY_CANNOT_TELL_KEY)
    assert langchain_printed.count("ValueError True ValueError(") == 4
    assert _printed(_ported(_MEMORY_CANNOT_TELL_KEY)) == langchain_printed


# (found with the first scenario) create_stuff_documents_chain is the runnable, not the
# classic Chain: LangChain's fails on a missing "context" or prompt variable with
# KeyError, which a program printing the class sees.
_STUFF_RUNNABLE_MISSING_KEY = """
from langchain_classic.chains.combine_documents import create_stuff_documents_chain
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

chain = create_stuff_documents_chain(
    FakeListLLM(responses=["x"]), PromptTemplate.from_template("{context} {question}")
)
for given in ({"question": "q"}, {"context": [Document(page_content="d")]}):
    try:
        chain.invoke(given)
    except Exception as e:
        print(type(e).__name__, isinstance(e, KeyError))
print(chain.invoke({"context": [Document(page_content="d")], "question": "q"}))
"""


def test_the_stuff_documents_runnable_missing_a_key_prints_as_langchains_key_error() -> None:
    langchain_printed = _printed(_STUFF_RUNNABLE_MISSING_KEY)
    assert langchain_printed == "KeyError True\nKeyError True\nx\n"
    assert _printed(_ported(_STUFF_RUNNABLE_MISSING_KEY)) == langchain_printed
