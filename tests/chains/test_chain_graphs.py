"""get_graph shows the inside of composed chains: the stuff chain's document rendering
beside the passed-through input, then prompt, model and parser (as seed 003's graph of
create_stuff_documents_chain), and the same inside create_retrieval_chain; node names
are LangChain's (tests/parity/test_graph_drawing.py compares the drawings)."""

from __future__ import annotations

from typing import Any

from ragline.chains import create_retrieval_chain, create_stuff_documents_chain
from ragline.core import BaseRetriever, ChatPromptTemplate, Document, FakeListChatModel


class Fixed(BaseRetriever):
    def _get_relevant_documents(self, query: str) -> list[Document]:
        return [Document("Paris is the capital of France.")]


def stuff_chain() -> Any:
    prompt = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{input}")])
    return create_stuff_documents_chain(FakeListChatModel(responses=["Paris"]), prompt)


def named_edges(graph: Any) -> list[tuple[str, str]]:
    return [(graph.nodes[e.source].name, graph.nodes[e.target].name) for e in graph.edges]


def test_the_stuff_chain_graph_shows_its_steps() -> None:
    graph = stuff_chain().get_graph()
    assert [node.name for node in graph.nodes.values()] == [
        "Parallel<context>Input",
        "Parallel<context>Output",
        "PromptTemplate",
        "Passthrough",
        "ChatPromptTemplate",
        "FakeListChatModel",
        "StrOutputParser",
        "StrOutputParserOutput",
    ]
    assert named_edges(graph) == [
        ("Parallel<context>Input", "PromptTemplate"),
        ("PromptTemplate", "Parallel<context>Output"),
        ("Parallel<context>Input", "Passthrough"),
        ("Passthrough", "Parallel<context>Output"),
        ("Parallel<context>Output", "ChatPromptTemplate"),
        ("ChatPromptTemplate", "FakeListChatModel"),
        ("StrOutputParser", "StrOutputParserOutput"),
        ("FakeListChatModel", "StrOutputParser"),
    ]
    drawn = graph.draw_ascii()
    assert "| PromptTemplate |" in drawn and "| FakeListChatModel |" in drawn


def test_the_retrieval_chain_graph_contains_the_stuff_chain_inside() -> None:
    graph = create_retrieval_chain(Fixed(), stuff_chain()).get_graph()
    edges = named_edges(graph)
    assert ("Lambda", "Fixed") in edges
    assert ("Parallel<context>Output", "Parallel<answer>Input") in edges
    assert ("Parallel<answer>Input", "Parallel<context>Input") in edges
    assert ("FakeListChatModel", "StrOutputParser") in edges
    assert ("StrOutputParser", "Parallel<answer>Output") in edges
    assert "stuff_documents_chain" not in {node.name for node in graph.nodes.values()}
    mermaid = graph.draw_mermaid()
    assert (
        mermaid.startswith("---\nconfig:") and "\tChatPromptTemplate(ChatPromptTemplate)" in mermaid
    )
