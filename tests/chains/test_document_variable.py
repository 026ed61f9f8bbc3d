"""Which prompt variable a chain built on an LLMChain puts the documents in."""

import pytest

from ragline.chains import LLMChain, MapRerankDocumentsChain, StuffDocumentsChain
from ragline.core import Document, FakeListLLM, InvalidInputError, PromptTemplate


def chain_on(template: str, replies: list[str]) -> LLMChain:
    return LLMChain(
        llm=FakeListLLM(responses=replies), prompt=PromptTemplate.from_template(template)
    )


def test_of_several_variables_context_takes_the_documents_even_when_it_sorts_later() -> None:
    """'chat_history' sorts before 'context': it was taken for the documents' variable
    (the last assignment overwrote the 'context' choice), so the documents went into the
    history and the chain asked for 'context' as an input."""
    llm_chain = chain_on("History: {chat_history}\nDocs: {context}", ["answer"])
    chain = StuffDocumentsChain(llm_chain=llm_chain)
    assert chain.document_variable_name == "context"
    result = chain.invoke({"input_documents": [Document("a"), Document("b")], "chat_history": "hi"})
    assert result["output_text"] == "answer"
    assert chain.input_keys == ["input_documents", "chat_history"]


def test_one_variable_is_the_documents_and_several_without_context_are_refused() -> None:
    assert (
        StuffDocumentsChain(llm_chain=chain_on("Docs: {text}", ["x"])).document_variable_name
        == "text"
    )
    with pytest.raises(InvalidInputError, match="needs document_variable_name"):
        MapRerankDocumentsChain(llm_chain=chain_on("{docs} {question}", ["x"]))
