"""Conversation chains: ``ConversationChain``, ``ConversationalRetrievalChain`` and
``create_history_aware_retriever`` (the LCEL way to the same thing).

``ConversationChain`` is an ``LLMChain`` with a memory (the whole conversation by
default) whose prompt is checked against the memory when the chain is built.
``ConversationalRetrievalChain`` condenses the follow-up question with the chat history
into a standalone question, retrieves documents for it and answers from them.
``create_history_aware_retriever`` does the condensing step as a Runnable, for
``create_retrieval_chain(create_history_aware_retriever(...), ...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ragline.chains._base import create_stuff_documents_chain
from ragline.chains._chain import Chain, chain_verbose
from ragline.chains._llm_chain import LLMChain
from ragline.chains._prompts import ANSWER_RULES
from ragline.chains._retrieval import create_retrieval_chain
from ragline.core import (
    BaseMessage,
    BasePromptTemplate,
    ChatPromptTemplate,
    Document,
    InvalidInputError,
    MessagesPlaceholder,
    PromptTemplate,
    Runnable,
    RunnableBranch,
    RunnableLambda,
    RunnableWithMessageHistory,
    StrOutputParser,
)
from ragline.core.exceptions import as_validation_error
from ragline.memory import ConversationBufferMemory

__all__ = [
    "CHAT_QA_PROMPT",
    "CONDENSE_QUESTION_PROMPT",
    "CONVERSATION_PROMPT",
    "REPHRASE_QUESTION_PROMPT",
    "ConversationChain",
    "ConversationalRetrievalChain",
    "create_conversational_retrieval_chain",
    "create_history_aware_retriever",
    "get_chat_history",
]

CONVERSATION_PROMPT = PromptTemplate.from_template(
    "Below is a conversation between a human and a helpful AI assistant. The AI answers "
    "with specific details from the conversation so far, and says plainly when it does "
    "not know something.\n\n"
    "Conversation so far:\n{history}\n"
    "Human: {input}\n"
    "AI:"
)

CONDENSE_QUESTION_PROMPT = PromptTemplate.from_template(
    "Rewrite the follow-up question below as a standalone question that can be "
    "understood without the conversation before it. Reply with the question only.\n\n"
    "Conversation:\n{chat_history}\n"
    "Follow-up question: {question}\n"
    "Standalone question:"
)


# ---------------------------------------------------------------- ConversationChain


class ConversationChain(LLMChain):
    """Chat with a model that remembers the conversation (seed 003, seed 004).

    Args:
        llm: the model.
        memory: the memory (default: ``ConversationBufferMemory()``, the whole
            conversation under ``history``).
        prompt: must have exactly the memory's variables and ``input_key``
            (default: a prompt over ``{history}`` and ``{input}``).
        input_key: the input holding the human's message (``"input"``).
        output_key: the output holding the reply (``"response"``).

    Raises:
        InvalidInputError: ``input_key`` is one of the memory's variables, or the
            prompt's variables are not the memory's variables plus ``input_key``
            (also pydantic's ``ValidationError`` where pydantic is installed, the class
            LangChain's chain raises).

    Example:
        >>> from ragline.core import FakeListLLM
        >>> chat = ConversationChain(llm=FakeListLLM(responses=["Hi Ada!", "Ada."]))
        >>> chat.predict(input="I am Ada.")
        'Hi Ada!'
        >>> chat.predict(input="Who am I?"), chat.llm.calls[1].splitlines()[-3:]
        ('Ada.', ['AI: Hi Ada!', 'Human: Who am I?', 'AI:'])
    """

    prompt: BasePromptTemplate = CONVERSATION_PROMPT
    input_key: str = "input"
    output_key: str = "response"

    def __post_init__(self) -> None:
        if self.memory is None:
            self.memory = ConversationBufferMemory()
        super().__post_init__()
        memory_keys = list(self.memory.memory_variables)
        if self.input_key in memory_keys:
            raise self._refused(
                f"ConversationChain input_key {self.input_key!r} is also a memory variable "
                f"({memory_keys}); give the memory another memory_key"
            )
        expected = sorted({*memory_keys, self.input_key})
        if sorted(self.prompt.input_variables) != expected:
            raise self._refused(
                f"ConversationChain prompt has the variables "
                f"{sorted(self.prompt.input_variables)}, but the memory provides "
                f"{memory_keys} and the input is {self.input_key!r}: the prompt must have "
                f"exactly {expected}"
            )

    def _refused(self, text: str) -> Exception:
        """A refused prompt or memory as LangChain's pydantic chain refuses it: an
        ``InvalidInputError`` that is also pydantic's ``ValidationError``."""
        given = {"llm": self.llm, "prompt": self.prompt, "memory": self.memory}
        return as_validation_error(InvalidInputError(text), type(self).__name__, given)

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    def get_name(self) -> str:
        return self.name or "ConversationChain"


# ---------------------------------------------------------------- chat history as text

_ROLE_PREFIX = {"human": "Human: ", "ai": "Assistant: "}


def get_chat_history(chat_history: Sequence[Any]) -> str:
    """A chat history as text: ``(human, ai)`` pairs or messages, each line led by a
    newline (so the text starts with one, as LangChain's); a message with no content is
    left out.

    Raises:
        InvalidInputError: an item is neither a pair nor a message.

    Example:
        >>> get_chat_history([("Hi", "Hello!")])
        '\\nHuman: Hi\\nAssistant: Hello!'
    """
    lines = []
    for position, turn in enumerate(chat_history):
        if isinstance(turn, BaseMessage):
            if turn.content:
                prefix = _ROLE_PREFIX.get(turn.type, f"{turn.type}: ")
                lines.append(f"{prefix}{turn.text}")
        elif isinstance(turn, (tuple, list)) and len(turn) == 2:
            lines += [f"Human: {turn[0]}", f"Assistant: {turn[1]}"]
        else:
            raise InvalidInputError(
                f"chat_history[{position}] must be a (human, ai) pair or a message, got "
                f"{type(turn).__name__}: {turn!r:.60}"
            )
    return "".join(f"\n{line}" for line in lines)


# ---------------------------------------------------------------- ConversationalRetrievalChain


class ConversationalRetrievalChain(Chain):
    """Answer a follow-up question from retrieved documents, with the chat history.

    Inputs: ``question`` and ``chat_history`` (``(human, ai)`` pairs or messages; a
    memory with ``memory_key="chat_history"`` may provide it). Outputs: ``answer``, and
    with the options ``source_documents`` and ``generated_question``. Build it with
    :meth:`from_llm`.

    Args:
        combine_docs_chain: answers from ``{"input_documents", "question"}``
            (``load_qa_chain(llm)``).
        question_generator: condenses question and history (an ``LLMChain`` over
            ``question`` and ``chat_history``).
        retriever: finds documents for the standalone question.
        return_source_documents, return_generated_question: add those outputs.
        rephrase_question: answer the standalone question (True) or the original one.
        get_chat_history: turns the history into text (default: :func:`get_chat_history`).
        output_key: the answer's key (``"answer"``).
    """

    combine_docs_chain: Any
    question_generator: Any
    retriever: Any
    return_source_documents: bool = False
    return_generated_question: bool = False
    rephrase_question: bool = True
    get_chat_history: Callable[[Sequence[Any]], str] | None = None
    output_key: str = "answer"

    @property
    def input_keys(self) -> list[str]:
        return ["question", "chat_history"]

    @property
    def output_keys(self) -> list[str]:
        keys = [self.output_key]
        if self.return_source_documents:
            keys.append("source_documents")
        if self.return_generated_question:
            keys.append("generated_question")
        return keys

    def get_name(self) -> str:
        return self.name or "ConversationalRetrievalChain"

    @classmethod
    def from_llm(
        cls,
        llm: Runnable[Any, Any],
        retriever: Runnable[Any, Any],
        condense_question_prompt: BasePromptTemplate = CONDENSE_QUESTION_PROMPT,
        chain_type: str = "stuff",
        verbose: bool | None = None,
        condense_question_llm: Runnable[Any, Any] | None = None,
        combine_docs_chain_kwargs: dict[str, Any] | None = None,
        callbacks: Any = None,
        **options: Any,
    ) -> ConversationalRetrievalChain:
        """Build the chain from a model and a retriever (LangChain's arguments).

        Args:
            llm: answers the question.
            retriever: finds the documents.
            condense_question_prompt: rewrites the follow-up question.
            chain_type: the documents chain (``"stuff"``, ``"map_reduce"``, ...).
            condense_question_llm: a model for the rewriting (default: ``llm``).
            combine_docs_chain_kwargs: options of the documents chain (``prompt`` ...).
            options: fields of the chain (``memory``, ``return_source_documents`` ...).
        """
        from ragline.chains._retrieval import load_qa_chain

        verbose = chain_verbose(verbose)
        combine = load_qa_chain(  # the callbacks go to each chain built, as in LangChain
            llm,
            chain_type=chain_type,
            verbose=verbose,
            callbacks=callbacks,
            **(combine_docs_chain_kwargs or {}),
        )
        generator = LLMChain(
            llm=condense_question_llm or llm,
            prompt=condense_question_prompt,
            verbose=verbose,
            callbacks=callbacks,
        )
        # verbose is given to the chains built here, not to this one (as LangChain's)
        return cls(
            combine_docs_chain=combine,
            question_generator=generator,
            retriever=retriever,
            callbacks=callbacks,
            **options,
        )

    def _history_text(self, chat_history: Any) -> str:
        if isinstance(chat_history, str):
            return chat_history
        render = self.get_chat_history or get_chat_history
        return render(chat_history or [])

    def _outputs(self, question: str, documents: list[Document], answer: Any) -> dict[str, Any]:
        outputs: dict[str, Any] = {self.output_key: answer}
        if self.return_source_documents:
            outputs["source_documents"] = documents
        if self.return_generated_question:
            outputs["generated_question"] = question
        return outputs

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        question, history = inputs["question"], self._history_text(inputs["chat_history"])
        standalone = question
        if history:
            standalone = self.question_generator.run(question=question, chat_history=history)
        documents = self.retriever.invoke(standalone)
        asked = standalone if self.rephrase_question else question
        answer = self.combine_docs_chain.run(input_documents=documents, question=asked)
        return self._outputs(standalone, documents, answer)

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        question, history = inputs["question"], self._history_text(inputs["chat_history"])
        standalone = question
        if history:
            standalone = await self.question_generator.arun(question=question, chat_history=history)
        documents = await self.retriever.ainvoke(standalone)
        asked = standalone if self.rephrase_question else question
        answer = await self.combine_docs_chain.arun(input_documents=documents, question=asked)
        return self._outputs(standalone, documents, answer)


# ---------------------------------------------------------------- the LCEL form


def create_history_aware_retriever(
    llm: Runnable[Any, Any], retriever: Runnable[Any, Any], prompt: BasePromptTemplate
) -> Runnable[Any, Any]:
    """A retriever that rewrites the question from the chat history first.

    It takes ``{"input": question, "chat_history": [...]}``. With no chat history the
    question goes to ``retriever`` as it is; with one, ``prompt | llm`` rewrites it into
    a standalone question first (one model call), and that is retrieved.

    Args:
        llm: the model that rewrites the question.
        retriever: takes a string, returns documents.
        prompt: the rewriting prompt; must have the variable ``input`` (and usually a
            ``MessagesPlaceholder("chat_history")``).

    Raises:
        InvalidInputError: ``prompt`` has no ``input`` variable.

    Example:
        >>> from ragline.core import ChatPromptTemplate, FakeListChatModel, RunnableLambda
        >>> prompt = ChatPromptTemplate.from_messages(
        ...     [("placeholder", "{chat_history}"), ("human", "{input}"),
        ...      ("human", "Rewrite the question above as a standalone question.")])
        >>> retriever = RunnableLambda(lambda query: [Document(f"about {query}")])
        >>> chain = create_history_aware_retriever(
        ...     FakeListChatModel(responses=["When was Rome founded?"]), retriever, prompt)
        >>> chain.invoke({"input": "When was it founded?",
        ...               "chat_history": [("human", "Tell me about Rome"), ("ai", "...")]})
        [Document(metadata={}, page_content='about When was Rome founded?')]
        >>> chain.invoke({"input": "Rome?", "chat_history": []})
        [Document(metadata={}, page_content='about Rome?')]
    """
    if "input" not in prompt.input_variables:
        raise InvalidInputError(
            f"create_history_aware_retriever needs a prompt with the variable 'input'; it has "
            f"{prompt.input_variables}"
        )
    # unnamed, as LangChain's lambdas are (their runs say RunnableLambda)
    question = RunnableLambda(_question, name="RunnableLambda")
    no_history = RunnableLambda(_has_no_history, name="RunnableLambda")
    return RunnableBranch(
        (no_history, question | retriever),
        prompt | llm | StrOutputParser() | retriever,
    ).with_config(run_name="chat_retriever_chain")


def _has_no_history(value: Any) -> bool:
    return not value.get("chat_history")


def _question(value: Any) -> Any:
    return value["input"]


# ---------------------------------------------------------------- the whole conversation

REPHRASE_QUESTION_PROMPT = ChatPromptTemplate.from_messages(
    [
        (
            "system",
            "Rewrite the user's latest question so that it can be understood without the "
            "conversation before it (replace 'it', 'they', 'that' with what they refer to). "
            "Do not answer it; reply with the rewritten question only.",
        ),
        MessagesPlaceholder("chat_history"),
        ("human", "{input}"),
    ]
)

CHAT_QA_PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", ANSWER_RULES + "\n\nContext:\n{context}"),
        MessagesPlaceholder("chat_history"),
        ("human", "{input}"),
    ]
)


def create_conversational_retrieval_chain(
    llm: Runnable[Any, Any],
    retriever: Runnable[Any, Any],
    get_session_history: Callable[..., Any],
    *,
    rephrase_prompt: BasePromptTemplate = REPHRASE_QUESTION_PROMPT,
    qa_prompt: BasePromptTemplate = CHAT_QA_PROMPT,
) -> RunnableWithMessageHistory:
    """Chat over documents, remembered per session: the composition docs/getting-started.md shows.

    ``create_retrieval_chain(create_history_aware_retriever(llm, retriever,
    rephrase_prompt), create_stuff_documents_chain(llm, qa_prompt))`` wrapped in
    ``RunnableWithMessageHistory`` (``input`` in; ``chat_history`` filled from the
    session; ``answer`` stored). Call it with
    ``{"configurable": {"session_id": ...}}``; it returns (or streams) ``input``,
    ``chat_history``, ``context`` and ``answer``.

    Example:
        >>> from ragline.core import FakeListChatModel, InMemoryChatMessageHistory
        >>> retriever = RunnableLambda(lambda query: [Document("Etna erupts often.")])
        >>> history = InMemoryChatMessageHistory()
        >>> chat = create_conversational_retrieval_chain(
        ...     FakeListChatModel(responses=["Often."]), retriever, lambda session: history)
        >>> chat.invoke({"input": "Does Etna erupt?"},
        ...             {"configurable": {"session_id": "s"}})["answer"]
        'Often.'
        >>> [m.type for m in history.messages]
        ['human', 'ai']
    """
    rag = create_retrieval_chain(
        create_history_aware_retriever(llm, retriever, rephrase_prompt),
        create_stuff_documents_chain(llm, qa_prompt),
    )
    return RunnableWithMessageHistory(
        rag,
        get_session_history,
        input_messages_key="input",
        history_messages_key="chat_history",
        output_messages_key="answer",
    )
