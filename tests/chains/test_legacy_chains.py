"""The legacy Chain API: the flow (memory, callbacks, _call, memory), every calling form,
LLMChain, the sequential chains, ConversationChain, ConversationalRetrievalChain,
create_history_aware_retriever and the older shapes of the document chains."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import pytest

from ragline.chains import (
    RUN_KEY,
    Chain,
    ConversationalRetrievalChain,
    ConversationChain,
    LLMChain,
    RetrievalQA,
    RunInfo,
    SequentialChain,
    SimpleSequentialChain,
    StuffDocumentsChain,
    TransformChain,
    create_history_aware_retriever,
    create_retrieval_chain,
    create_stuff_documents_chain,
    load_qa_chain,
)
from ragline.core import (
    AIMessage,
    BaseCallbackHandler,
    ChatPromptTemplate,
    CommaSeparatedListOutputParser,
    Document,
    FakeListChatModel,
    FakeListLLM,
    HumanMessage,
    InMemoryChatMessageHistory,
    InvalidInputError,
    MessagesPlaceholder,
    MissingVariableError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    RunnableLambda,
    RunnableWithMessageHistory,
    SystemMessage,
)
from ragline.embeddings import HashingEmbeddings
from ragline.memory import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    SimpleMemory,
    SQLChatMessageHistory,
)
from ragline.vectorstores import InMemoryVectorStore

CORPUS = [
    "Mount Etna in Sicily erupts several times a year.",
    "Sourdough bread rises with a starter of wild yeast.",
    "The Colosseum in Rome was finished in 80 AD.",
]


def _retriever(k: int = 1) -> Any:
    store = InMemoryVectorStore.from_texts(CORPUS, HashingEmbeddings(dimension=256))
    return store.as_retriever(search_kwargs={"k": k})


class Shout(Chain):
    """A custom chain written the LangChain way: annotated fields, keys, one _call."""

    suffix: str = "!"
    texts: list[str] = []  # noqa: RUF012 - a field

    @property
    def input_keys(self) -> list[str]:
        return ["text"]

    @property
    def output_keys(self) -> list[str]:
        return ["loud"]

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        if run_manager is not None:
            run_manager.on_text(f"shouting {inputs['text']}", verbose=self.verbose)
        self.texts.append(inputs["text"])
        return {"loud": inputs["text"].upper() + self.suffix}


# ---------------------------------------------------------------- the Chain flow


def test_every_calling_form_of_a_custom_chain() -> None:
    chain = Shout(suffix="!!")
    assert chain("hey") == {"text": "hey", "loud": "HEY!!"}
    assert chain({"text": "hey"}, return_only_outputs=True) == {"loud": "HEY!!"}
    assert chain.invoke({"text": "a"}) == {"text": "a", "loud": "A!!"}
    assert chain.invoke("a", return_only_outputs=True) == {"loud": "A!!"}
    assert chain.run("b") == "B!!"
    assert chain.run(text="c") == "C!!"
    assert chain.apply([{"text": "d"}, {"text": "e"}]) == [
        {"text": "d", "loud": "D!!"},
        {"text": "e", "loud": "E!!"},
    ]
    assert chain.batch([{"text": "f"}, {"text": "g"}]) == [
        {"text": "f", "loud": "F!!"},
        {"text": "g", "loud": "G!!"},
    ]
    piped = chain | RunnableLambda(lambda out: out["loud"].lower())
    assert piped.invoke({"text": "h"}) == "h!!"
    assert Shout().texts == []  # mutable defaults are copied per instance


def test_include_run_info_gives_the_run_id() -> None:
    collector = RunCollectorCallbackHandler()
    result = Shout()("x", callbacks=[collector], include_run_info=True)
    assert isinstance(result[RUN_KEY], RunInfo)
    assert result[RUN_KEY].run_id == collector.traced_runs[0].id


async def test_async_calling_forms() -> None:
    chain = Shout()
    assert await chain.acall("x") == {"text": "x", "loud": "X!"}
    assert await chain.arun("y") == "Y!"
    assert await chain.ainvoke({"text": "z"}, return_only_outputs=True) == {"loud": "Z!"}
    assert await chain.aapply([{"text": "a"}]) == [{"text": "a", "loud": "A!"}]


def test_run_needs_one_output_key_and_one_form_of_input() -> None:
    class Two(Shout):
        @property
        def output_keys(self) -> list[str]:
            return ["loud", "quiet"]

        def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
            return {"loud": "A", "quiet": "a"}

    with pytest.raises(InvalidInputError, match=r"exactly one output key; .* \['loud', 'quiet'\]"):
        Two().run("x")
    with pytest.raises(InvalidInputError, match="not both"):
        Shout().run("x", text="y")


def test_bad_inputs_and_outputs_are_reported() -> None:
    with pytest.raises(MissingVariableError, match=r"Shout is missing input key\(s\) \['text'\]"):
        Shout()({"txt": "typo"})

    class TwoInputs(Shout):
        @property
        def input_keys(self) -> list[str]:
            return ["a", "b"]

    with pytest.raises(InvalidInputError, match=r"takes a dict with the keys \['a', 'b'\]"):
        TwoInputs()("one value")

    class Forgetful(Shout):
        def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
            return {"quiet": "x"}

    collector = RunCollectorCallbackHandler()
    with pytest.raises(InvalidInputError, match=r"did not return output key\(s\) \['loud'\]"):
        Forgetful()("x", callbacks=[collector])
    assert collector.traced_runs[0].error is not None


def test_memory_is_loaded_before_and_saved_after() -> None:
    class Echo(Chain):
        @property
        def input_keys(self) -> list[str]:
            return ["input", "history"]

        @property
        def output_keys(self) -> list[str]:
            return ["output"]

        def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
            return {"output": f"{inputs['input']} after [{inputs['history']}]"}

    chain = Echo(memory=ConversationBufferMemory())
    assert chain.run("one") == "one after []"
    assert chain.run("two") == "two after [Human: one\nAI: one after []]"
    assert chain("three", return_only_outputs=True) == {
        "output": "three after [Human: one\nAI: one after []\nHuman: two\n"
        "AI: two after [Human: one\nAI: one after []]]"
    }


def test_an_input_the_memory_also_provides_is_replaced_by_the_memorys_value() -> None:
    # as LangChain's Chain.prep_inputs: the memory's variables win, so a caller cannot
    # put words into the history (RunnableWithMessageHistory around a chain with memory
    # passes both)
    memory = ConversationBufferMemory()
    llm = FakeListLLM(responses=["r1", "r2"])
    chain = ConversationChain(llm=llm, memory=memory)
    # the dropped value is named in a warning (not silent)
    dropped = r"ConversationChain got input\(s\) \['history'\], which its memory"
    with pytest.warns(UserWarning, match=dropped):
        assert chain({"input": "hi", "history": "forged"}) == {
            "input": "hi",
            "history": "",
            "response": "r1",
        }
    with pytest.warns(UserWarning, match=dropped):
        assert chain({"input": "again", "history": "forged"})["history"] == "Human: hi\nAI: r1"
    assert [m.content for m in memory.chat_memory.messages] == ["hi", "r1", "again", "r2"]


def test_an_input_equal_to_the_memorys_value_gives_no_warning() -> None:
    memory = ConversationBufferMemory()
    chain = ConversationChain(llm=FakeListLLM(responses=["r1", "r2"]), memory=memory)
    chain({"input": "hi"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = chain({"input": "again", "history": "Human: hi\nAI: r1"})
    assert result["response"] == "r2"


def test_callbacks_tags_and_metadata_of_the_chain_and_of_the_call() -> None:
    mine, theirs = RunCollectorCallbackHandler(), RunCollectorCallbackHandler()
    chain = LLMChain(
        llm=FakeListLLM(responses=["ok"]),
        prompt=PromptTemplate.from_template("Say {word}"),
        callbacks=[mine],
        tags=["chain-tag"],
        metadata={"owner": "tests"},
    )
    chain.invoke({"word": "ok"}, {"callbacks": [theirs], "tags": ["call-tag"]})
    for collector in (mine, theirs):
        (run,) = collector.traced_runs
        assert run.tags == ["call-tag", "chain-tag"]  # LangChain's order
        assert run.metadata == {"owner": "tests"}
    # the chain's own handlers, tags and metadata are for its own run only, as LangChain's
    assert mine.traced_runs[0].tree() == ("LLMChain", [])
    assert theirs.traced_runs[0].tree() == ("LLMChain", [("FakeListLLM", [])])
    (model_run,) = theirs.traced_runs[0].children
    assert model_run.inputs == {"prompts": ["Say ok"]}
    assert (model_run.tags, model_run.metadata.get("owner")) == (["call-tag"], None)


def test_verbose_prints_the_chain_run_and_its_prompt_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    inner = LLMChain(llm=FakeListLLM(responses=["x"]), prompt=PromptTemplate.from_template("{a}"))
    outer = SimpleSequentialChain(chains=[inner], verbose=False)
    chain = LLMChain(
        llm=FakeListLLM(responses=["Bonjour"]),
        prompt=PromptTemplate.from_template("Translate: {text}"),
        verbose=True,
    )
    assert chain.run("Hello") == "Bonjour"
    assert capsys.readouterr().out == (
        "\n\n\x1b[1m> Entering new LLMChain chain...\x1b[0m\n"
        "Prompt after formatting:\n\x1b[32;1m\x1b[1;3mTranslate: Hello\x1b[0m\n"
        "\n\x1b[1m> Finished chain.\x1b[0m\n"
    )
    outer.run("quiet")
    assert capsys.readouterr().out == ""


def test_a_handler_sees_on_text_from_the_run_manager() -> None:
    class Texts(BaseCallbackHandler):
        def __init__(self) -> None:
            self.texts: list[str] = []

        def on_text(self, text: str, **kwargs: Any) -> None:
            self.texts.append(text)

    handler = Texts()
    Shout()("hi", callbacks=[handler])
    assert handler.texts == ["shouting hi"]


# ---------------------------------------------------------------- LLMChain


def test_llm_chain_with_a_chat_model_parser_and_options() -> None:
    model = FakeListChatModel(responses=["red, green, blue"])
    chain = LLMChain(
        llm=model,
        prompt=ChatPromptTemplate.from_messages([("system", "List {n} colours."), ("human", "Go")]),
        output_parser=CommaSeparatedListOutputParser(),
        llm_kwargs={"stop": ["\n"]},
        output_key="colours",
    )
    assert chain.predict(n="3") == ["red", "green", "blue"]
    assert model.calls[0] == [SystemMessage("List 3 colours."), HumanMessage("Go")]
    assert model.stops == [["\n"]]
    result = chain.generate([{"n": "1"}, {"n": "2"}])
    assert (
        len(result.generations) == 2
        and result.generations[0][0].message.content == "red, green, blue"
    )


def test_llm_chain_apply_full_generation_and_stop_input() -> None:
    llm = FakeListLLM(responses=["one", "three"])
    chain = LLMChain(llm=llm, prompt=PromptTemplate.from_template("{q}"), return_final_only=False)
    (first, second) = chain.apply([{"q": "a", "stop": ["."]}, {"q": "b"}])
    assert first["text"] == "one" and first["full_generation"][0].text == "one"
    assert second["text"] == "three"
    # one generate call for the whole list (LangChain's apply): the first input's stop
    # holds for every prompt
    assert llm.stops == [["."], ["."]]


def test_llm_chain_over_any_runnable_model() -> None:
    echo = RunnableLambda(lambda prompt: AIMessage(prompt.to_string().upper()))
    chain = LLMChain(llm=echo, prompt=PromptTemplate.from_template("hi {name}"))
    assert chain.predict(name="ada") == "HI ADA"


async def test_llm_chain_async() -> None:
    chain = LLMChain(
        llm=FakeListLLM(responses=["a", "b"]), prompt=PromptTemplate.from_template("{x}")
    )
    assert await chain.apredict(x="1") == "a"
    assert await chain.arun("2") == "b"


def test_llm_chain_checks_its_fields() -> None:
    with pytest.raises(InvalidInputError, match="prompt must be a prompt template"):
        LLMChain(llm=FakeListLLM(responses=["x"]), prompt="{x}")
    with pytest.raises(InvalidInputError, match="llm must be a model"):
        LLMChain(llm="gpt", prompt=PromptTemplate.from_template("{x}"))
    with pytest.raises(TypeError, match="missing required field 'llm'"):
        LLMChain(prompt=PromptTemplate.from_template("{x}"))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        LLMChain(
            llm=FakeListLLM(responses=["x"]),
            prompt=PromptTemplate.from_template("{x}"),
            temprature=0,
        )


# ---------------------------------------------------------------- sequential chains


def _llm_chain(responses: list[str], template: str, output_key: str) -> LLMChain:
    return LLMChain(
        llm=FakeListLLM(responses=responses),
        prompt=PromptTemplate.from_template(template),
        output_key=output_key,
    )


def test_sequential_chain_passes_variables_and_checks_them_when_built() -> None:
    synopsis = _llm_chain(["A tragedy."], "Synopsis of {title} ({era})", "synopsis")
    review = _llm_chain(["Two stars."], "Review of: {synopsis}", "review")
    chain = SequentialChain(
        chains=[synopsis, review], input_variables=["title", "era"], output_variables=["review"]
    )
    assert chain({"title": "Hamlet", "era": "1600"}) == {
        "title": "Hamlet",
        "era": "1600",
        "review": "Two stars.",
    }
    assert review.llm.calls == ["Review of: A tragedy."]
    everything = SequentialChain(
        chains=[synopsis, review], input_variables=["title", "era"], return_all=True
    )
    assert everything.output_keys == ["review", "synopsis"]
    with pytest.raises(InvalidInputError, match=r"chains\[0\] \(LLMChain\) needs \['era'\]"):
        SequentialChain(chains=[synopsis, review], input_variables=["title"])
    with pytest.raises(InvalidInputError, match=r"returns \['synopsis'\], which already exist"):
        SequentialChain(chains=[synopsis, synopsis], input_variables=["title", "era"])
    with pytest.raises(InvalidInputError, match=r"output_variables \['verdict'\] are made by no"):
        SequentialChain(
            chains=[synopsis], input_variables=["title", "era"], output_variables=["verdict"]
        )
    with pytest.raises(InvalidInputError, match="are also memory variables"):
        SequentialChain(
            chains=[synopsis],
            input_variables=["title", "era"],
            memory=SimpleMemory(memories={"era": "x"}),
        )
    with pytest.raises(InvalidInputError, match=r"chains\[0\] must be a Chain"):
        SequentialChain(chains=[RunnableLambda(lambda x: x)], input_variables=["title"])


def test_sequential_chain_with_memory_variables_feeding_a_step() -> None:
    step = _llm_chain(["done"], "{topic} for {user}", "text")
    chain = SequentialChain(
        chains=[step], input_variables=["topic"], memory=SimpleMemory(memories={"user": "Ada"})
    )
    assert chain.run("maths") == "done"
    assert step.llm.calls == ["maths for Ada"]


def test_simple_sequential_chain_and_transform_chain() -> None:
    strip = TransformChain(
        input_variables=["text"],
        output_variables=["clean"],
        transform=lambda inputs: {"clean": inputs["text"].replace("#", "")},
    )
    shout = _llm_chain(["  LOUD  "], "Shout: {clean}", "loud")
    chain = SimpleSequentialChain(chains=[strip, shout], strip_outputs=True)
    assert chain.run("#quiet#") == "LOUD"
    assert shout.llm.calls == ["Shout: quiet"]
    with pytest.raises(InvalidInputError, match=r"must take one input and give one output"):
        SimpleSequentialChain(
            chains=[
                TransformChain(
                    input_variables=["a"],
                    output_variables=["b", "c"],
                    transform=lambda inputs: {"b": 1, "c": 2},
                )
            ]
        )
    with pytest.raises(InvalidInputError, match="transform must be a function"):
        TransformChain(input_variables=["a"], output_variables=["b"], transform="nope")


async def test_sequential_chains_async_and_transform_chain_async() -> None:
    async def shout(inputs: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"b": inputs["a"].upper()}

    chain = TransformChain(
        input_variables=["a"],
        output_variables=["b"],
        atransform=shout,
        transform=lambda i: {"b": "sync"},
    )
    assert await chain.arun("x") == "X"
    assert chain.run("x") == "sync"
    sequence = SimpleSequentialChain(chains=[chain, chain])
    assert await sequence.arun("y") == "Y"


# ---------------------------------------------------------------- ConversationChain


def test_conversation_chain_checks_its_prompt_against_the_memory() -> None:
    llm = FakeListLLM(responses=["r"])
    with pytest.raises(InvalidInputError, match=r"prompt must have exactly \['history', 'input'\]"):
        ConversationChain(llm=llm, prompt=PromptTemplate.from_template("{input} {context}"))
    with pytest.raises(InvalidInputError, match="input_key 'history' is also a memory variable"):
        ConversationChain(llm=llm, input_key="history")
    chat_prompt = ChatPromptTemplate.from_messages(
        [MessagesPlaceholder("chat_history"), ("human", "{question}")]
    )
    chain = ConversationChain(
        llm=FakeListChatModel(responses=["Hi Ada", "You are Ada"]),
        prompt=chat_prompt,
        memory=ConversationBufferMemory(memory_key="chat_history", return_messages=True),
        input_key="question",
    )
    assert chain.predict(question="I am Ada") == "Hi Ada"
    assert chain.predict(question="Who am I?") == "You are Ada"
    assert chain.llm.calls[1] == [
        HumanMessage("I am Ada"),
        AIMessage("Hi Ada"),
        HumanMessage("Who am I?"),
    ]


def test_a_conversation_resumes_from_a_sqlite_history(tmp_path: Path) -> None:
    def chain(responses: list[str]) -> ConversationChain:
        history = SQLChatMessageHistory("user-1", connection=tmp_path / "chats.db")
        return ConversationChain(
            llm=FakeListLLM(responses=responses),
            memory=ConversationBufferWindowMemory(k=3, chat_memory=history),
        )

    chain(["Hello Ada."]).predict(input="I am Ada.")
    later = chain(["You are Ada."])
    assert later.predict(input="Who am I?") == "You are Ada."
    assert "Human: I am Ada.\nAI: Hello Ada.\nHuman: Who am I?\nAI:" in later.llm.calls[0]


# ---------------------------------------------------------------- conversational retrieval


def test_conversational_retrieval_chain_condenses_only_with_history() -> None:
    llm = FakeListChatModel(
        responses=["Several times a year.", "When was the Colosseum built?", "In 80 AD."]
    )
    memory = ConversationBufferMemory(
        memory_key="chat_history", return_messages=True, output_key="answer"
    )
    chain = ConversationalRetrievalChain.from_llm(
        llm,
        _retriever(),
        memory=memory,
        return_source_documents=True,
        return_generated_question=True,
    )
    first = chain({"question": "How often does Etna erupt?"})
    assert first["answer"] == "Several times a year."
    assert [d.page_content for d in first["source_documents"]] == [CORPUS[0]]
    assert first["generated_question"] == "How often does Etna erupt?"
    assert len(llm.calls) == 1  # no history yet: no condensing call
    second = chain({"question": "And when was it built?"})
    assert second["generated_question"] == "When was the Colosseum built?"
    assert [d.page_content for d in second["source_documents"]] == [CORPUS[2]]
    assert second["answer"] == "In 80 AD."
    condense = llm.calls[1][0].text
    assert "Human: How often does Etna erupt?\nAssistant: Several times a year." in condense
    assert "Follow-up question: And when was it built?" in condense
    assert memory.chat_memory.messages[-1] == AIMessage("In 80 AD.")


def test_conversational_retrieval_chain_takes_history_as_pairs() -> None:
    llm = FakeListLLM(responses=["Standalone?", "Answer."])
    chain = ConversationalRetrievalChain.from_llm(llm, _retriever(), rephrase_question=False)
    out = chain({"question": "q2", "chat_history": [("q1", "a1")]}, return_only_outputs=True)
    assert out == {"answer": "Answer."}
    assert "Human: q1\nAssistant: a1" in llm.calls[0]
    assert llm.calls[1].endswith("q2")  # the original question is answered
    with pytest.raises(InvalidInputError, match=r"chat_history\[0\] must be a \(human, ai\) pair"):
        chain({"question": "q", "chat_history": [42]})


async def test_conversational_retrieval_chain_async() -> None:
    llm = FakeListChatModel(responses=["Rewritten?", "Answer."])
    chain = ConversationalRetrievalChain.from_llm(llm, _retriever())
    result = await chain.acall(
        {"question": "q", "chat_history": [HumanMessage("a"), AIMessage("b")]}
    )
    assert result["answer"] == "Answer."


def _rephrase_prompt() -> ChatPromptTemplate:
    return ChatPromptTemplate.from_messages(
        [
            MessagesPlaceholder("chat_history"),
            ("human", "{input}"),
            ("human", "Rewrite the question above as a standalone search query."),
        ]
    )


def test_history_aware_retriever_rewrites_only_with_history() -> None:
    model = FakeListChatModel(responses=["Colosseum construction date"])
    retriever = create_history_aware_retriever(model, _retriever(), _rephrase_prompt())
    docs = retriever.invoke({"input": "Tell me about Etna", "chat_history": []})
    assert [d.page_content for d in docs] == [CORPUS[0]] and model.calls == []
    docs = retriever.invoke(
        {
            "input": "When was it built?",
            "chat_history": [("human", "The Colosseum?"), ("ai", "In Rome.")],
        }
    )
    assert [d.page_content for d in docs] == [CORPUS[2]]
    assert model.calls[0][-2:] == [
        HumanMessage("When was it built?"),
        HumanMessage("Rewrite the question above as a standalone search query."),
    ]
    with pytest.raises(InvalidInputError, match="needs a prompt with the variable 'input'"):
        create_history_aware_retriever(model, _retriever(), PromptTemplate.from_template("{q}"))


def test_conversational_rag_chain_with_message_history() -> None:
    """The chat example of docs/getting-started.md, on fakes: history-aware retrieval, stuffing, and
    RunnableWithMessageHistory keeping the conversation."""
    model = FakeListChatModel(
        responses=["It erupts several times a year.", "Colosseum construction date", "In 80 AD."]
    )
    qa_prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "Answer from:\n{context}"),
            MessagesPlaceholder("chat_history"),
            ("human", "{input}"),
        ]
    )
    rag = create_retrieval_chain(
        create_history_aware_retriever(model, _retriever(), _rephrase_prompt()),
        create_stuff_documents_chain(model, qa_prompt),
    )
    histories: dict[str, InMemoryChatMessageHistory] = {}
    chat = RunnableWithMessageHistory(
        rag,
        lambda session_id: histories.setdefault(session_id, InMemoryChatMessageHistory()),
        input_messages_key="input",
        history_messages_key="chat_history",
        output_messages_key="answer",
    )
    config = {"configurable": {"session_id": "s"}}
    first = chat.invoke({"input": "How often does Etna erupt?"}, config)
    assert first["answer"] == "It erupts several times a year."
    chunks = list(chat.stream({"input": "And when was the Colosseum built?"}, config))
    context = next(chunk["context"] for chunk in chunks if "context" in chunk)
    assert [d.page_content for d in context] == [CORPUS[2]]
    assert "".join(chunk.get("answer", "") for chunk in chunks) == "In 80 AD."
    assert histories["s"].messages == [
        HumanMessage("How often does Etna erupt?"),
        AIMessage("It erupts several times a year."),
        HumanMessage("And when was the Colosseum built?"),
        AIMessage("In 80 AD."),
    ]


# ---------------------------------------------------------------- older document-chain shapes


def test_stuff_documents_chain_from_an_llm_chain() -> None:
    model = FakeListChatModel(responses=["42"])
    prompt = PromptTemplate.from_template("Context: {context}\nQuestion: {question}")
    chain = StuffDocumentsChain(
        llm_chain=LLMChain(llm=model, prompt=prompt), document_variable_name="context"
    )
    docs = [Document("six times seven"), Document("is forty-two")]
    assert chain.run(input_documents=docs, question="6x7?") == "42"
    assert model.calls[0] == [
        HumanMessage("Context: six times seven\n\nis forty-two\nQuestion: 6x7?")
    ]
    assert chain({"input_documents": docs, "question": "?"}, return_only_outputs=True) == {
        "output_text": "42"
    }
    with pytest.raises(InvalidInputError, match="needs llm="):
        StuffDocumentsChain()


def test_load_qa_chain_verbose_and_retrieval_qa_calling_forms(
    capsys: pytest.CaptureFixture[str],
) -> None:
    chain = load_qa_chain(
        FakeListChatModel(responses=["Sicily."]), chain_type="stuff", verbose=True
    )
    out = chain({"input_documents": [Document(CORPUS[0])], "question": "Where is Etna?"})
    assert out["output_text"] == "Sicily."
    printed = capsys.readouterr().out
    # LangChain's: the StuffDocumentsChain's run, then its verbose LLMChain's with the prompt
    assert printed.startswith(
        "\n\n\x1b[1m> Entering new StuffDocumentsChain chain...\x1b[0m\n"
        "\n\n\x1b[1m> Entering new LLMChain chain...\x1b[0m\nPrompt after formatting:\n"
    )
    assert printed.endswith(
        "\n\x1b[1m> Finished chain.\x1b[0m\n\n\x1b[1m> Finished chain.\x1b[0m\n"
    )
    qa = RetrievalQA.from_chain_type(
        llm=FakeListChatModel(responses=["80 AD."]), chain_type="stuff", retriever=_retriever()
    )
    assert qa("When was the Colosseum finished?") == {
        "query": "When was the Colosseum finished?",
        "result": "80 AD.",
    }
    assert qa.run("When was the Colosseum finished?") == "80 AD."
    assert qa({"query": "q"}, return_only_outputs=True) == {"result": "80 AD."}
    with_sources = RetrievalQA.from_chain_type(
        llm=FakeListChatModel(responses=["x"]), retriever=_retriever(), return_source_documents=True
    )
    with pytest.raises(InvalidInputError, match="exactly one output key"):
        with_sources.run("q")


def test_document_chains_take_callbacks_tags_and_metadata_like_a_chain() -> None:
    """RetrievalQA.from_chain_type(callbacks=...), load_qa_chain(callbacks=...) and a
    StuffDocumentsChain built from an LLMChain that has handlers: the handlers see the
    run of the chain they were given to, with its tags, and not the runs inside it (as
    LangChain's); a call's handlers see them all."""
    collector, caller = RunCollectorCallbackHandler(), RunCollectorCallbackHandler()
    qa = RetrievalQA.from_chain_type(
        FakeListChatModel(responses=["80 AD."]),
        retriever=_retriever(),
        callbacks=[collector],
        tags=["qa"],
        metadata={"owner": "tests"},
    )
    assert qa.invoke({"query": "When was the Colosseum finished?"}, {"callbacks": [caller]}) == {
        "query": "When was the Colosseum finished?",
        "result": "80 AD.",
    }
    (run,) = collector.traced_runs
    assert run.tree() == ("RetrievalQA", [])
    assert (run.tags, run.metadata) == (["qa"], {"owner": "tests"})
    (run,) = caller.traced_runs
    # LangChain's classic stuff chain: StuffDocumentsChain, then its LLMChain, then the model
    answer = ("LLMChain", [("FakeListChatModel", [])])
    assert run.tree() == (
        "RetrievalQA",
        [("VectorStoreRetriever", []), ("StuffDocumentsChain", [answer])],
    )
    assert (run.tags, run.metadata) == (["qa"], {"owner": "tests"})
    model_run = run.children[1].children[0].children[0]
    # the chain's tags and metadata stay on its own run; a model adds LangChain's ls_* keys
    assert (model_run.tags, model_run.metadata) == (
        [],
        {
            "ls_provider": "fakelistchatmodel",
            "ls_model_type": "chat",
            "ls_integration": "langchain_chat_model",
        },
    )

    docs = [Document(CORPUS[0])]
    # the LLMChain's own handlers see its run (inside the StuffDocumentsChain's), as
    # LangChain's do
    for chain, name in (
        (
            load_qa_chain(FakeListChatModel(responses=["Sicily."]), callbacks=[collector]),
            ("StuffDocumentsChain", [("LLMChain", [])]),  # both get the callbacks, as there
        ),
        (
            StuffDocumentsChain(
                llm_chain=LLMChain(
                    llm=FakeListChatModel(responses=["Sicily."]),
                    prompt=PromptTemplate.from_template("{context}\n{question}"),
                    callbacks=[collector],
                )
            ),
            ("LLMChain", []),
        ),
    ):
        collector.traced_runs.clear()
        assert chain.run(input_documents=docs, question="Where is Etna?") == "Sicily."
        (run,) = collector.traced_runs
        assert run.tree() == name
    # callback_manager=: LangChain's deprecated name of callbacks (None is accepted silently)
    assert (
        load_qa_chain(FakeListChatModel(responses=["x"]), callback_manager=None).callbacks is None
    )
