"""Default prompts of the question-answering chains (each overridable by the caller).

Every builder takes the name of the question variable: ``"question"`` for
``load_qa_chain`` / ``RetrievalQA`` (LangChain's keys), ``"input"`` for chains used
inside ``create_retrieval_chain``.
"""

from __future__ import annotations

from ragline.core import ChatPromptTemplate, PromptTemplate

DEFAULT_DOCUMENT_PROMPT = PromptTemplate.from_template("{page_content}")

NO_CONTEXT_ANSWER = "I found no documents to answer from, so I cannot answer this question."

ANSWER_RULES = (
    "Answer the question using only the context below. If the context does not contain "
    "the answer, say that you don't know; do not make one up. Keep the answer concise."
)


def _system_then_question(system: str, question_key: str) -> ChatPromptTemplate:
    """The shape of every default prompt: instructions with the context, then the question."""
    return ChatPromptTemplate.from_messages(
        [("system", system), ("human", "{" + question_key + "}")]
    )


def stuff_prompt(question_key: str = "question") -> ChatPromptTemplate:
    """One call: all documents in ``{context}``, then the question."""
    return _system_then_question(ANSWER_RULES + "\n\nContext:\n{context}", question_key)


def map_prompt(question_key: str = "question") -> ChatPromptTemplate:
    """Map step: what one document says about the question."""
    return _system_then_question(
        "Read the passage below and copy out, word for word, any text that helps "
        "answer the question. If nothing helps, reply with nothing.\n\n"
        "Passage:\n{context}",
        question_key,
    )


def reduce_prompt(question_key: str = "question") -> ChatPromptTemplate:
    """Reduce step: the final answer from the extracts of every document."""
    return _system_then_question(
        "The extracts below were taken from several documents. "
        + ANSWER_RULES
        + "\n\nExtracts:\n{context}",
        question_key,
    )


def collapse_prompt(question_key: str = "question") -> ChatPromptTemplate:
    """Collapse step: shorten a group of extracts while keeping what answers the question."""
    return _system_then_question(
        "Condense the extracts below into a shorter text that keeps every fact "
        "relevant to the question.\n\nExtracts:\n{context}",
        question_key,
    )


def refine_initial_prompt(question_key: str = "question") -> ChatPromptTemplate:
    """Refine, first step: an answer from the first document alone."""
    return stuff_prompt(question_key)


def refine_prompt(question_key: str = "question") -> ChatPromptTemplate:
    """Refine, later steps: improve the existing answer with one more document."""
    return _system_then_question(
        "You are improving an answer to a question with one more piece of context. "
        "Existing answer:\n{existing_answer}\n\n"
        "New context:\n{context}\n\n"
        "If the new context helps, rewrite the answer to use it; otherwise repeat "
        "the existing answer unchanged.",
        question_key,
    )


def map_rerank_prompt(question_key: str = "question") -> ChatPromptTemplate:
    """Map-rerank: an answer from one document and how well that document answers."""
    return _system_then_question(
        ANSWER_RULES + " Then, on a last line of its own, rate from 0 to 100 how fully the "
        "context answers the question, exactly in the form 'Score: <number>'."
        "\n\nContext:\n{context}",
        question_key,
    )
