"""The four combine-documents chains: exact prompts, outputs, steps, errors."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from ragline.chains import (
    CHAIN_TYPES,
    MapReduceDocumentsChain,
    MapRerankDocumentsChain,
    RefineDocumentsChain,
    StuffDocumentsChain,
    create_documents_chain,
    create_stuff_documents_chain,
    load_qa_chain,
)
from ragline.core import (
    ChainStepError,
    ChatPromptTemplate,
    ConfigurationError,
    Document,
    FakeListChatModel,
    FakeListLLM,
    InvalidInputError,
    MissingVariableError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    RunnableLambda,
)

DOCS = [
    Document("Paris is the capital of France.", metadata={"source": "fr.txt"}, id="fr"),
    Document("Berlin is the capital of Germany.", metadata={"source": "de.txt"}, id="de"),
    Document("Rome is the capital of Italy.", metadata={"source": "it.txt"}, id="it"),
]


def texts(call: list[Any]) -> list[str]:
    return [message.text for message in call]


def words(text: str) -> int:
    """A token counter simple enough to check by hand: one token per word."""
    return len(text.split())


# ---------------------------------------------------------------- stuff


def test_stuff_puts_every_document_in_one_prompt() -> None:
    model = FakeListChatModel(responses=["Paris"])
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Context:\n{context}"), ("human", "{input}")]
    )
    chain = create_stuff_documents_chain(
        model,
        prompt,
        document_prompt=PromptTemplate.from_template("[{source}] {page_content}"),
        document_separator="\n--\n",
    )
    answer = chain.invoke({"context": DOCS[:2], "input": "Capital of France?"})
    assert answer == "Paris"
    assert texts(model.calls[0]) == [
        "Context:\n[fr.txt] Paris is the capital of France.\n--\n"
        "[de.txt] Berlin is the capital of Germany.",
        "Capital of France?",
    ]


def test_stuff_works_with_a_text_model_and_a_text_prompt() -> None:
    model = FakeListLLM(responses=["Rome"])
    chain = create_stuff_documents_chain(
        model, PromptTemplate.from_template("{context}\nQ: {q}\nA:")
    )
    assert chain.invoke({"context": DOCS[2:], "q": "Italy?"}) == "Rome"
    assert model.calls == ["Rome is the capital of Italy.\nQ: Italy?\nA:"]


def test_stuff_streams_the_answer_as_the_model_produces_it() -> None:
    model = FakeListChatModel(responses=["Paris!"])
    chain = create_stuff_documents_chain(
        model, ChatPromptTemplate.from_messages([("human", "{context} {input}")])
    )
    chunks = list(chain.stream({"context": DOCS[:1], "input": "?"}))
    assert chunks == ["P", "a", "r", "i", "s", "!"]


async def test_stuff_async_paths() -> None:
    model = FakeListChatModel(responses=["ok"])
    chain = create_stuff_documents_chain(
        model, ChatPromptTemplate.from_messages([("human", "{context}")])
    )
    assert await chain.ainvoke({"context": DOCS[:1]}) == "ok"
    assert [c async for c in chain.astream({"context": DOCS[:1]})] == ["o", "k"]


def test_a_prompt_without_the_document_variable_is_rejected() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{input}")])
    with pytest.raises(InvalidInputError, match=r"no variable 'context'.*\['input'\]"):
        create_stuff_documents_chain(FakeListChatModel(responses=["x"]), prompt)
    chain = create_stuff_documents_chain(
        FakeListChatModel(responses=["x"]), prompt.partial(), document_variable_name="input"
    )
    assert chain.invoke({"input": DOCS[:1]}) == "x"


def test_no_documents_answers_without_calling_the_model() -> None:
    model = FakeListChatModel(responses=["should not be used"])
    prompt = ChatPromptTemplate.from_messages([("human", "{context} {input}")])
    chain = create_stuff_documents_chain(model, prompt)
    answer = chain.invoke({"context": [], "input": "?"})
    assert answer.startswith("I found no documents")
    assert model.calls == []
    # configured otherwise: the model is called with an empty context
    eager = create_stuff_documents_chain(model, prompt, empty_answer=None)
    assert eager.invoke({"context": [], "input": "?"}) == "should not be used"
    assert texts(model.calls[0]) == [" ?"]


@pytest.mark.parametrize("chain_type", ["map_reduce", "refine", "map_rerank"])
async def test_every_chain_type_answers_from_an_empty_context_when_asked(chain_type: str) -> None:
    """empty_answer=None with no documents: one model call on an empty context (the
    refine and map-rerank chains used to fail with IndexError / ValueError)."""
    prompt = ChatPromptTemplate.from_messages([("human", "[{context}] {question}")])
    options = {
        "map_reduce": {"combine_prompt": prompt, "token_counter": words},
        "refine": {"question_prompt": prompt},
        "map_rerank": {"prompt": prompt},
    }[chain_type]
    for call in ("invoke", "ainvoke"):
        model = FakeListChatModel(
            responses=["none\nScore: 1" if chain_type == "map_rerank" else "none"]
        )
        chain = create_documents_chain(model, chain_type, empty_answer=None, **options)
        answer = getattr(chain, call)({"context": [], "question": "?"})
        assert (await answer if call == "ainvoke" else answer) == "none"
        assert [texts(one) for one in model.calls] == [["[] ?"]]
    if chain_type == "map_rerank":  # a failure of that one call names the empty context
        chain = MapRerankDocumentsChain(
            FakeListChatModel(responses=["no score"]), empty_answer=None
        )
        with pytest.raises(ChainStepError, match="map-rerank step failed on an empty context"):
            chain.invoke({"context": [], "question": "?"})


def test_missing_input_keys_are_named() -> None:
    chain = create_stuff_documents_chain(
        FakeListChatModel(responses=["x"]),
        ChatPromptTemplate.from_messages([("human", "{context} {input} {lang}")]),
    )
    with pytest.raises(MissingVariableError, match=r"missing input key 'context'.*\['input'\]"):
        chain.invoke({"input": "?"})
    with pytest.raises(MissingVariableError, match=r"missing input key\(s\) \['input', 'lang'\]"):
        chain.invoke({"context": DOCS})
    with pytest.raises(InvalidInputError, match="list of Documents"):
        chain.invoke({"context": "not documents", "input": "?", "lang": "en"})
    with pytest.raises(MissingVariableError, match=r"document prompt needs \['title'\]"):
        create_stuff_documents_chain(
            FakeListChatModel(responses=["x"]),
            ChatPromptTemplate.from_messages([("human", "{context}")]),
            document_prompt=PromptTemplate.from_template("{title}: {page_content}"),
        ).invoke({"context": DOCS[:1]})


# ---------------------------------------------------------------- map-reduce


def test_map_reduce_maps_each_document_then_reduces() -> None:
    model = FakeListChatModel(responses=["France: Paris", "Germany: Berlin", "Paris"])
    chain = load_qa_chain(model, "map_reduce", max_concurrency=1, return_intermediate_steps=True)
    question = {"input_documents": DOCS[:2], "question": "Capital of France?"}
    output = chain.invoke(question)
    assert output == {
        **question,  # the inputs come back with the outputs, as from LangChain's Chain
        "output_text": "Paris",
        "intermediate_steps": ["France: Paris", "Germany: Berlin"],
    }
    assert [texts(call)[1] for call in model.calls] == ["Capital of France?"] * 3
    assert texts(model.calls[0])[0].endswith("Passage:\nParis is the capital of France.")
    assert texts(model.calls[1])[0].endswith("Passage:\nBerlin is the capital of Germany.")
    assert texts(model.calls[2])[0].endswith("Extracts:\nFrance: Paris\n\nGermany: Berlin")


def test_map_reduce_collapses_in_groups_at_token_max() -> None:
    """Four mapped outputs of 3 words (12 in all) with token_max=7 collapse in two groups
    of two (6 words each), then the two 1-word collapses are reduced."""
    docs = [Document(f"doc {i}") for i in range(4)]
    responses = ["a b c", "d e f", "g h i", "j k l", "X", "Y", "final"]
    model = FakeListChatModel(responses=responses)
    prompt = ChatPromptTemplate.from_messages([("human", "{context}")])
    chain = MapReduceDocumentsChain(
        model,
        question_prompt=prompt,
        collapse_prompt=prompt,
        combine_prompt=prompt,
        token_max=7,
        token_counter=words,
        max_concurrency=1,
    )
    assert chain.invoke({"context": docs}) == "final"
    assert [texts(call)[0] for call in model.calls] == [
        "doc 0",
        "doc 1",
        "doc 2",
        "doc 3",  # map
        "a b c\n\nd e f",
        "g h i\n\nj k l",  # collapse, one call per group
        "X\n\nY",  # reduce
    ]


def test_map_reduce_does_not_collapse_when_everything_fits() -> None:
    """Everything fits: no collapse call, and the mapped outputs are counted once, together."""
    model = FakeListChatModel(responses=["a b c", "d e f", "final"])
    prompt = ChatPromptTemplate.from_messages([("human", "{context}")])
    counted: list[str] = []

    def counter(text: str) -> int:
        counted.append(text)
        return words(text)

    chain = MapReduceDocumentsChain(
        model,
        question_prompt=prompt,
        combine_prompt=prompt,
        collapse_prompt=prompt,
        token_max=6,
        token_counter=counter,
        max_concurrency=1,
    )
    assert chain.invoke({"context": DOCS[:2]}) == "final"
    assert texts(model.calls[-1]) == ["a b c\n\nd e f"]
    assert len(model.calls) == 3
    assert counted == ["a b c\n\nd e f"]


def test_map_reduce_rejects_one_output_larger_than_token_max() -> None:
    model = FakeListChatModel(responses=["one two three four five", "x"])
    chain = MapReduceDocumentsChain(model, token_max=4, token_counter=words, max_concurrency=1)
    with pytest.raises(
        InvalidInputError, match="mapped document 0 alone is 5 tokens, more than token_max=4"
    ):
        chain.invoke({"context": DOCS[:2], "question": "?"})


def test_map_reduce_counts_tokens_with_the_model_by_default() -> None:
    model = FakeListChatModel(responses=["x"])
    chain = MapReduceDocumentsChain(model.with_retry(stop_after_attempt=2))
    assert chain.token_counter("Hello, world!") == model.get_num_tokens("Hello, world!") == 4
    with pytest.raises(InvalidInputError, match="pass token_counter"):
        MapReduceDocumentsChain(RunnableLambda(lambda prompt: "x"))


def test_map_steps_run_concurrently_up_to_max_concurrency() -> None:
    """A map step holds on until ``expected`` steps have run at once (bounded: 30 s after
    the first, only against a hang), then 0.05 s more, the time for steps over the limit
    to show up. Not a fixed pause alone: on a loaded machine a thread can start after the
    others' pause is over, and the peak would fall short."""
    running = 0
    peak = 0
    expected = 2
    deadline: float | None = None
    changed = threading.Condition()

    def slow_model(prompt: Any) -> str:
        nonlocal running, peak, deadline
        with changed:
            deadline = deadline or time.monotonic() + 30
            running += 1
            peak = max(peak, running)
            changed.notify_all()
            while peak < expected and time.monotonic() < deadline:
                changed.wait(0.1)
        time.sleep(0.05)
        with changed:
            running -= 1
        return "part"

    model = RunnableLambda(slow_model)
    docs = [Document(str(i)) for i in range(6)]
    chain = MapReduceDocumentsChain(model, max_concurrency=2, token_counter=words)
    assert chain.invoke({"context": docs, "question": "?"}) == "part"
    assert peak == 2
    peak, expected, deadline = 0, 3, None
    chain = MapReduceDocumentsChain(model, token_counter=words)
    chain.invoke({"context": docs, "question": "?"}, {"max_concurrency": 3})
    assert peak == 3


def test_a_failing_map_step_names_its_document() -> None:
    def model(prompt: Any) -> str:
        if "Berlin" in prompt.to_string():
            raise RuntimeError("model overloaded")
        return "ok"

    chain = MapReduceDocumentsChain(RunnableLambda(model), token_counter=words)
    with pytest.raises(ChainStepError) as caught:
        chain.invoke({"context": DOCS, "question": "?"})
    error = caught.value
    assert str(error) == (
        "map step failed on document 1 of 3 (id 'de', source 'de.txt'): "
        "RuntimeError: model overloaded"
    )
    assert error.index == 1 and error.item is DOCS[1]
    assert isinstance(error.__cause__, RuntimeError)


def test_retry_and_fallbacks_compose_around_the_model() -> None:
    attempts: dict[str, int] = {}

    def flaky(prompt: Any) -> str:
        text = prompt.to_string()
        attempts[text] = attempts.get(text, 0) + 1
        if attempts[text] == 1:
            raise ConnectionError("transient")
        return "fine"

    model = RunnableLambda(flaky).with_retry(stop_after_attempt=2, wait_exponential_jitter=False)
    chain = MapReduceDocumentsChain(model, token_counter=words)
    assert chain.invoke({"context": DOCS[:2], "question": "?"}) == "fine"
    assert sorted(attempts.values()) == [2, 2, 2]

    broken = RunnableLambda(lambda p: (_ for _ in ()).throw(RuntimeError("down")))
    backup = FakeListChatModel(responses=["from backup"])
    chain = create_documents_chain(broken.with_fallbacks([backup]), "stuff")
    assert chain.invoke({"context": DOCS[:1], "question": "?"}) == "from backup"


async def test_map_reduce_async_matches_sync() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{context}")])

    def build() -> MapReduceDocumentsChain:
        model = FakeListChatModel(responses=["a b c", "d e f", "g h i", "X", "Y", "Z", "final"])
        return MapReduceDocumentsChain(
            model,
            question_prompt=prompt,
            collapse_prompt=prompt,
            combine_prompt=prompt,
            token_max=5,
            token_counter=words,
            max_concurrency=1,
            output_key="out",
            return_intermediate_steps=True,
        )

    expected = {"context": DOCS, "out": "final", "intermediate_steps": ["a b c", "d e f", "g h i"]}
    assert build().invoke({"context": DOCS}) == expected
    assert await build().ainvoke({"context": DOCS}) == expected


# ---------------------------------------------------------------- refine


def test_refine_passes_the_existing_answer_to_each_step() -> None:
    model = FakeListChatModel(responses=["draft 1", "draft 2", "final"])
    initial = ChatPromptTemplate.from_messages([("human", "Q: {question}\nC: {context}")])
    refine = ChatPromptTemplate.from_messages(
        [("human", "Q: {question}\nHave: {existing_answer}\nMore: {context}")]
    )
    chain = load_qa_chain(
        model,
        "refine",
        question_prompt=initial,
        refine_prompt=refine,
        return_intermediate_steps=True,
    )
    question = {"input_documents": DOCS, "question": "capitals?"}
    output = chain.invoke(question)
    assert output == {
        **question,
        "output_text": "final",
        # the steps end with the final answer, as LangChain's refine chain reports them
        "intermediate_steps": ["draft 1", "draft 2", "final"],
    }
    assert [texts(call)[0] for call in model.calls] == [
        "Q: capitals?\nC: Paris is the capital of France.",
        "Q: capitals?\nHave: draft 1\nMore: Berlin is the capital of Germany.",
        "Q: capitals?\nHave: draft 2\nMore: Rome is the capital of Italy.",
    ]


def test_refine_streams_only_the_last_step() -> None:
    model = FakeListChatModel(responses=["draft", "done"])
    chain = RefineDocumentsChain(model)
    assert list(chain.stream({"context": DOCS[:2], "question": "?"})) == ["d", "o", "n", "e"]


async def test_refine_async_and_failure() -> None:
    model = FakeListChatModel(responses=["draft", "done"])
    assert (
        await RefineDocumentsChain(model).ainvoke({"context": DOCS[:2], "question": "?"}) == "done"
    )

    def model_failing_on_germany(prompt: Any) -> str:
        if "Berlin" in prompt.to_string():
            raise RuntimeError("boom")
        return "fine"

    chain = RefineDocumentsChain(RunnableLambda(model_failing_on_germany))
    with pytest.raises(ChainStepError, match="refine step failed on document 1 of 3"):
        await chain.ainvoke({"context": DOCS, "question": "?"})
    with pytest.raises(ChainStepError, match="refine step failed on document 1 of 3"):
        chain.invoke({"context": DOCS, "question": "?"})


def test_refine_prompt_without_the_existing_answer_runs_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="no variable 'existing_answer'"):
        chain = RefineDocumentsChain(
            FakeListChatModel(responses=["x", "y", "z"]),
            refine_prompt=ChatPromptTemplate.from_messages([("human", "{context} {question}")]),
        )
    assert chain.invoke({"context": DOCS, "question": "?"}) == "z"


# ---------------------------------------------------------------- map-rerank


def test_map_rerank_returns_the_best_scored_answer() -> None:
    model = FakeListChatModel(
        responses=["Maybe Lyon\nScore: 20", "Paris.\nScore: 95", "No idea\nScore: 0"]
    )
    chain = load_qa_chain(model, "map_rerank", max_concurrency=1, return_intermediate_steps=True)
    question = {"input_documents": DOCS, "question": "Capital of France?"}
    output = chain.invoke(question)
    assert output == {
        **question,
        "output_text": "Paris.",
        "intermediate_steps": [
            {"answer": "Maybe Lyon", "score": "20"},  # as written, as LangChain's parser
            {"answer": "Paris.", "score": "95"},
            {"answer": "No idea", "score": "0"},
        ],
    }
    assert len(model.calls) == 3


def test_map_rerank_ties_go_to_the_earlier_document_and_bad_output_is_named() -> None:
    model = FakeListChatModel(responses=["first\nScore: 50", "second\nScore: 50"])
    assert (
        MapRerankDocumentsChain(model, max_concurrency=1).invoke(
            {"context": DOCS[:2], "question": "?"}
        )
        == "first"
    )
    model = FakeListChatModel(responses=["good\nScore: 5", "I forgot the score"])
    with pytest.raises(
        ChainStepError, match=r"map-rerank step failed on document 1 of 2.*Score: <number>"
    ):
        MapRerankDocumentsChain(model, max_concurrency=1).invoke(
            {"context": DOCS[:2], "question": "?"}
        )


# ---------------------------------------------------------------- factories, callbacks


def test_unknown_chain_type_and_options_are_named() -> None:
    model = FakeListChatModel(responses=["x"])
    with pytest.raises(
        ConfigurationError,
        match="'maprerank' is not one of 'stuff', 'map_reduce', 'refine', 'map_rerank'",
    ):
        load_qa_chain(model, "maprerank")
    with pytest.raises(
        InvalidInputError, match=r"'stuff' does not take token_max; its options are .*prompt"
    ):
        load_qa_chain(model, "stuff", token_max=10)
    assert sorted(CHAIN_TYPES) == ["map_reduce", "map_rerank", "refine", "stuff"]
    assert isinstance(load_qa_chain(model), StuffDocumentsChain)


def test_every_model_call_is_a_child_of_the_chain_run() -> None:
    model = FakeListChatModel(responses=["a", "b", "answer"])
    collector = RunCollectorCallbackHandler()
    chain = MapReduceDocumentsChain(model, max_concurrency=1, token_counter=words)
    chain.invoke({"context": DOCS[:2], "question": "?"}, {"callbacks": [collector], "tags": ["qa"]})
    (root,) = collector.traced_runs
    step = ["ChatPromptTemplate", "FakeListChatModel", "StrOutputParser"]
    assert [(child.name, [c.name for c in child.children]) for child in root.children] == [
        ("map", step),
        ("map", step),
        ("reduce", step),
    ]
    # LangChain's collector records a chat model as an LLM run of transcript lines
    model_runs = [run for run in collector.runs_by_id.values() if run.run_type == "llm"]
    assert len(model_runs) == 3
    for run in model_runs:
        ancestor = run
        while ancestor.parent_run_id is not None:
            ancestor = collector.runs_by_id[ancestor.parent_run_id]
        assert ancestor is root
        assert "qa" in run.tags
    assert [run.inputs["prompts"][0][-1] for run in model_runs] == ["?", "?", "?"]


def test_a_failing_collapse_step_names_its_group() -> None:
    def model(prompt: Any) -> str:
        text = prompt.to_string()
        if "collapse:" in text:
            raise RuntimeError("collapse broke")
        return "a b c"

    prompt = ChatPromptTemplate.from_messages([("human", "{context}")])
    chain = MapReduceDocumentsChain(
        RunnableLambda(model),
        question_prompt=prompt,
        combine_prompt=prompt,
        collapse_prompt=ChatPromptTemplate.from_messages([("human", "collapse:{context}")]),
        token_max=5,
        token_counter=words,
        max_concurrency=1,
    )
    with pytest.raises(ChainStepError, match=r"^collapse step failed on document 0 of 3 \(id 'fr'"):
        chain.invoke({"context": DOCS})


@pytest.mark.parametrize("bad", [0, -1, "2", 1.5, True])
def test_max_concurrency_must_be_a_positive_int(bad: Any) -> None:
    model = FakeListChatModel(responses=["x"])
    for cls in (MapReduceDocumentsChain, MapRerankDocumentsChain):
        with pytest.raises(
            InvalidInputError, match=f"^max_concurrency must be an int >= 1 or None, got {bad!r}$"
        ):
            cls(model, max_concurrency=bad)


# ---------------------------------------------------------------- one logic, four paths


def _tree(run: Any) -> tuple[str, list[Any]]:
    return (run.name, [_tree(child) for child in run.children])


@pytest.mark.parametrize("chain_type", ["stuff", "map_reduce", "refine", "map_rerank"])
async def test_invoke_ainvoke_stream_and_astream_agree(chain_type: str) -> None:
    """The chain's logic is written once (generator steps): the four ways of running it
    give the same answer, the same intermediate steps and the same tree of runs.

    If this fails for one path only, look at that path's driver in chains/_steps.py.
    """
    responses, steps, step_names = {
        "stuff": (["Paris"], [], ["answer"]),
        "map_reduce": (["fr", "de", "Paris"], ["fr", "de"], ["map", "map", "reduce"]),
        "refine": (["draft", "Paris"], ["draft", "Paris"], ["initial_answer", "refine"]),
        "map_rerank": (
            ["Paris\nScore: 90", "Berlin\nScore: 10"],
            [{"answer": "Paris", "score": "90"}, {"answer": "Berlin", "score": "10"}],
            ["map", "map"],
        ),
    }[chain_type]
    question = {"input_documents": DOCS[:2], "question": "capital?"}

    def build() -> Any:
        model = FakeListChatModel(responses=responses)
        options = {} if chain_type in ("stuff", "refine") else {"max_concurrency": 1}
        return load_qa_chain(model, chain_type, return_intermediate_steps=True, **options)

    def merged(chunks: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for chunk in chunks:
            for key, value in chunk.items():
                out[key] = out.get(key, "") + value if key == "output_text" else value
        return out

    results, trees = [], []
    for path in ("invoke", "ainvoke", "stream", "astream"):
        collector = RunCollectorCallbackHandler()
        config: Any = {"callbacks": [collector]}
        chain = build()
        if path == "invoke":
            results.append(chain.invoke(question, config))
        elif path == "ainvoke":
            results.append(await chain.ainvoke(question, config))
        elif path == "stream":
            results.append(merged(list(chain.stream(question, config))))
        else:
            results.append(merged([c async for c in chain.astream(question, config)]))
        (root,) = collector.traced_runs
        trees.append(_tree(root))
    # invoke returns the inputs with the outputs, as LangChain's Chain does
    assert results == [{**question, "output_text": "Paris", "intermediate_steps": steps}] * 4
    model_call = [("ChatPromptTemplate", []), ("FakeListChatModel", []), ("StrOutputParser", [])]
    expected_tree = (f"{chain_type}_documents_chain", [(name, model_call) for name in step_names])
    if chain_type == "stuff":  # LangChain's classic stuff chain holds an LLMChain
        expected_tree = ("StuffDocumentsChain", [("LLMChain", [("FakeListChatModel", [])])])
    if chain_type == "refine":  # and its classic refine chain two (initial, refine)
        llm_chain = ("LLMChain", [("FakeListChatModel", [])])
        expected_tree = ("RefineDocumentsChain", [llm_chain, llm_chain])
    assert trees == [expected_tree] * 4
    assert all(tree == trees[0] for tree in trees), trees


async def test_a_stream_closed_early_ends_every_run_sync_and_async() -> None:
    """Closing the chain's stream after the first token ends the model's run and the
    chain's run then, on both drivers (stream_from closes the model's stream)."""
    for use_async in (False, True):
        collector = RunCollectorCallbackHandler()
        chain = create_stuff_documents_chain(
            FakeListChatModel(responses=["Paris"]),
            ChatPromptTemplate.from_messages([("human", "{context}")]),
        )
        config: Any = {"callbacks": [collector]}
        if use_async:
            stream = chain.astream({"context": DOCS[:1]}, config)
            assert await anext(stream) == "P"
            await stream.aclose()
        else:
            sync_stream = chain.stream({"context": DOCS[:1]}, config)
            assert next(sync_stream) == "P"
            sync_stream.close()
        runs = list(collector.runs_by_id.values())
        assert {run.name for run in runs} >= {"stuff_documents_chain", "FakeListChatModel"}
        assert all(run.end_time is not None for run in runs), [r.name for r in runs]


class _WordCountingLLM(FakeListLLM):
    """Counts a text's tokens as its words, so a prompt's length is exact."""

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


def test_prompt_length_counts_the_prompt_the_documents_and_kwargs_make() -> None:
    prompt = PromptTemplate.from_template("Answer {question} from:\n{context}")
    chain = StuffDocumentsChain(llm=_WordCountingLLM(responses=["x"]), prompt=prompt)
    # "Answer", "in", "one", "word", "from:", then two sentences of six words each
    assert chain.prompt_length(DOCS[:2], question="in one word", stray="not used") == 17
    assert chain.prompt_length([], question="q") == 3
    with pytest.raises(MissingVariableError):
        chain.prompt_length(DOCS[:1])
