"""Contextual compression: EmbeddingsFilter (exact cosine), LLMChainExtractor, pipelines, runs."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from ragline.core import (
    AIMessage,
    BaseChatModel,
    ConfigurationError,
    Document,
    FakeListChatModel,
    InvalidInputError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    RunnableLambda,
)
from ragline.embeddings import Embeddings, HashingEmbeddings
from ragline.retrievers import (
    BaseDocumentCompressor,
    BM25Retriever,
    BM25Tokenizer,
    BooleanOutputParser,
    ContextualCompressionRetriever,
    DocumentCompressorPipeline,
    EmbeddingsFilter,
    EmbeddingsRedundantFilter,
    LLMChainExtractor,
    LLMChainFilter,
    NoOutputParser,
)
from ragline.retrievers._compressors import DEFAULT_EXTRACT_PROMPT
from ragline.retrievers._llm_filter import DEFAULT_FILTER_PROMPT
from ragline.splitters import RecursiveCharacterTextSplitter

EMBEDDINGS = HashingEmbeddings(dimension=256)
TEXTS = ["stock prices fell", "the cat purrs", "a kitten purring softly", "cat"]
DOCS = [Document(text, {"n": i}, id=f"d{i}") for i, text in enumerate(TEXTS)]


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


def texts(documents):
    return [d.page_content for d in documents]


# --------------------------------------------------------------------------- EmbeddingsFilter


def test_similarities_are_the_cosine_of_the_embeddings():
    query = EMBEDDINGS.embed_query("cat purring")
    expected = [cosine(vector, query) for vector in EMBEDDINGS.embed_documents(TEXTS)]
    found = EmbeddingsFilter(EMBEDDINGS).similarities(DOCS, "cat purring")
    assert found.tolist() == pytest.approx(expected, abs=1e-6)
    # for reference: .0423, .5721, .4845, .5477
    assert np.round(found, 4).tolist() == [0.0423, 0.5721, 0.4845, 0.5477]


@pytest.mark.parametrize(
    ("k", "threshold", "expected"),
    [
        (2, None, ["the cat purrs", "cat"]),
        (20, None, ["the cat purrs", "cat", "a kitten purring softly", "stock prices fell"]),
        (None, 0.5, ["the cat purrs", "cat"]),
        (None, 0.45, ["the cat purrs", "cat", "a kitten purring softly"]),
        (3, 0.5, ["the cat purrs", "cat"]),
        (1, 0.6, []),
    ],
)
def test_filter_keeps_the_k_most_similar_above_the_threshold_best_first(k, threshold, expected):
    keep = EmbeddingsFilter(EMBEDDINGS, similarity_threshold=threshold, k=k)
    kept = keep.compress_documents(DOCS, "cat purring")
    assert texts(kept) == expected
    # LangChain's _DocumentWithState: the document (id and metadata kept) with its state
    scores = dict(zip(TEXTS, keep.similarities(DOCS, "cat purring").tolist(), strict=True))
    for doc in kept:
        original = DOCS[int(doc.id[1])]
        assert type(doc).__name__ == "_DocumentWithState" and doc is not original
        assert doc.to_document() == original
        assert sorted(doc.state) == ["embedded_doc", "query_similarity_score"]
        assert float(doc.state["query_similarity_score"]) == pytest.approx(scores[doc.page_content])
    assert all(not hasattr(doc, "state") for doc in DOCS)  # the given documents unchanged


def test_filter_embeds_all_documents_in_one_call_and_handles_zero_vectors():
    class Counting(Embeddings):
        def __init__(self):
            self.calls = []

        def embed_documents(self, texts):
            self.calls.append(list(texts))
            return [[0.0, 0.0] if t == "empty" else [1.0, float(len(t))] for t in texts]

        def embed_query(self, text):
            return [1.0, 1.0]

    embeddings = Counting()
    kept = EmbeddingsFilter(embeddings, similarity_threshold=0.0, k=None).compress_documents(
        [Document("empty"), Document("a"), Document("abcdef")], "q"
    )
    # cos([1,1],[1,1]) = 1, cos([1,1],[1,6]) = 7 / (sqrt(2) * sqrt(37)) = .8137, the zero vector: 0,
    # which is not above the threshold (LangChain's keeps scores above it, not equal)
    assert texts(kept) == ["a", "abcdef"]
    assert embeddings.calls == [["empty", "a", "abcdef"]]


@pytest.mark.slow
def test_filter_with_real_minilm(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from ragline.embeddings import SentenceTransformerEmbeddings

    docs = [
        Document("The cat sleeps on the sofa"),
        Document("Interest rates rose again this quarter"),
        Document("A kitten naps on the couch"),
        Document("The central bank raised rates"),
    ]
    keep = EmbeddingsFilter(SentenceTransformerEmbeddings(), similarity_threshold=0.3, k=3)
    assert sorted(texts(keep.compress_documents(docs, "a cat napping"))) == [
        "A kitten naps on the couch",
        "The cat sleeps on the sofa",
    ]
    assert sorted(texts(keep.compress_documents(docs, "monetary policy and interest rates"))) == [
        "Interest rates rose again this quarter",
        "The central bank raised rates",
    ]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"k": None}, ConfigurationError, "needs k or similarity_threshold"),
        ({"k": 0}, InvalidInputError, "k must be an int >= 1 or None, got 0"),
        ({"k": -3}, InvalidInputError, "k must be an int >= 1 or None, got -3"),
        (
            {"similarity_threshold": 1.5},
            InvalidInputError,
            "similarity_threshold must be a number between -1 and 1 or None, got 1.5",
        ),
        ({"similarity_threshold": float("nan")}, InvalidInputError, "similarity_threshold must be"),
    ],
)
def test_filter_options_are_checked(kwargs, error, message):
    with pytest.raises(error, match=message):
        EmbeddingsFilter(EMBEDDINGS, **kwargs)
    with pytest.raises(InvalidInputError, match="needs a ragline Embeddings, got str"):
        EmbeddingsFilter("minilm")


# --------------------------------------------------------------------------- LLMChainExtractor


class SentenceModel(BaseChatModel):
    """Answers the extraction prompt with the context lines that contain a question word."""

    def _generate(self, messages, stop=None):
        prompt = messages[-1].text
        question = re.search(r"Question: (.*)\n", prompt).group(1).lower().split()
        context = re.search(r">>>\n(.*)\n>>>", prompt, re.S).group(1)
        lines = [line for line in context.splitlines() if any(w in line.lower() for w in question)]
        return AIMessage("\n".join(lines) if lines else "NO_OUTPUT")


WORDS = BM25Tokenizer()  # lowercase word tokens: "cats" finds "Cats hiss"
PARAGRAPHS = [
    Document("Cats purr when happy.\nStock prices fell.", {"n": 0}, id="p0"),
    Document("Bonds rose.\nYields too.", {"n": 1}, id="p1"),
    Document("Dogs bark.\nCats hiss at dogs.", {"n": 2}, id="p2"),
]


def test_extractor_keeps_what_the_model_extracts_and_drops_no_output():
    extract = LLMChainExtractor.from_llm(SentenceModel())
    assert extract.compress_documents(PARAGRAPHS, "cats") == [
        Document("Cats purr when happy.", {"n": 0}),
        Document("Cats hiss at dogs.", {"n": 2}),
    ]
    assert extract.compress_documents(PARAGRAPHS, "weather") == []


def test_extractor_sends_the_default_prompt_and_strips_answers():
    model = FakeListChatModel(responses=["  Cats purr when happy.  \n"])
    kept = LLMChainExtractor.from_llm(model).compress_documents(PARAGRAPHS[:1], "what do cats do?")
    assert kept == [Document("Cats purr when happy.", {"n": 0})]
    assert model.calls[0][0].content == DEFAULT_EXTRACT_PROMPT.format(
        question="what do cats do?", context="Cats purr when happy.\nStock prices fell."
    )
    assert "answer exactly NO_OUTPUT" in model.calls[0][0].content


def test_extractor_with_a_custom_prompt_and_get_input():
    model = FakeListChatModel(responses=["NO_OUTPUT"])
    prompt = PromptTemplate.from_template("{q} || {text}")
    extract = LLMChainExtractor.from_llm(
        model, prompt=prompt, get_input=lambda query, doc: {"q": query, "text": doc.id}
    )
    assert extract.compress_documents(PARAGRAPHS[:1], "x") == []
    assert model.calls[0][0].content == "x || p0"
    with pytest.raises(
        InvalidInputError, match=r"variables 'question' and 'context', got \['q', 'text'\]"
    ):
        LLMChainExtractor.from_llm(model, prompt=prompt)
    with pytest.raises(InvalidInputError, match="llm must be a Runnable, got str"):
        LLMChainExtractor.from_llm("gpt")
    with pytest.raises(InvalidInputError, match="get_input must be callable"):
        LLMChainExtractor(RunnableLambda(lambda x: x), get_input="question")


def test_no_output_parser():
    parser = NoOutputParser()
    assert [parser.parse(t) for t in ["NO_OUTPUT", " NO_OUTPUT\n", "NO_OUTPUT.", "  x "]] == [
        "",
        "",
        "NO_OUTPUT.",
        "x",
    ]


# --------------------------------------------------------------------------- the retriever


def test_compression_retriever_runs_the_base_retriever_then_the_model_as_child_runs():
    base = BM25Retriever.from_documents(PARAGRAPHS, k=3, preprocess_func=WORDS, only_matching=True)
    retriever = ContextualCompressionRetriever(
        base_compressor=LLMChainExtractor.from_llm(SentenceModel()), base_retriever=base
    )
    collector = RunCollectorCallbackHandler()
    assert retriever.invoke("cats dogs", {"callbacks": [collector]}) == [
        Document("Dogs bark.\nCats hiss at dogs.", {"n": 2}),
        Document("Cats purr when happy.", {"n": 0}),
    ]
    (run,) = collector.traced_runs
    extraction = (
        "RunnableSequence",
        [("PromptTemplate", []), ("SentenceModel", []), ("NoOutputParser", [])],
    )
    assert run.tree() == (
        "ContextualCompressionRetriever",
        [("BM25Retriever", []), extraction, extraction],
    )
    assert run.run_type == "retriever"


def test_nothing_retrieved_means_no_compression_call():
    calls = []

    class Spy(BaseDocumentCompressor):
        def compress_documents(self, documents, query):
            calls.append(query)
            return list(documents)

    base = BM25Retriever.from_documents(PARAGRAPHS, preprocess_func=WORDS, only_matching=True)
    retriever = ContextualCompressionRetriever(Spy(), base)
    assert retriever.invoke("zebra") == []
    assert texts(retriever.invoke("bonds")) == ["Bonds rose.\nYields too."]
    assert calls == ["bonds"]


def test_pipeline_splits_then_filters_with_a_splitter_and_embeddings():
    splitter = RecursiveCharacterTextSplitter(chunk_size=25, chunk_overlap=0, separators=["\n"])
    pipeline = DocumentCompressorPipeline(
        transformers=[splitter, EmbeddingsFilter(EMBEDDINGS, similarity_threshold=0.3, k=None)]
    )
    base = BM25Retriever.from_documents(PARAGRAPHS, k=3, preprocess_func=WORDS, only_matching=True)
    retriever = ContextualCompressionRetriever(base_compressor=pipeline, base_retriever=base)
    found = [doc.to_document() for doc in retriever.invoke("cats purr")]
    # chunks of p0 and p2 (the BM25 hits) with cosine .663 (purr), .378 (hiss), .047, .0
    assert found == [
        Document("Cats purr when happy.", {"n": 0}),
        Document("Cats hiss at dogs.", {"n": 2}),
    ]


def test_pipeline_steps_in_order_with_runnables_and_early_stop():
    seen = []
    drop_all = RunnableLambda(lambda docs: seen.append(len(docs)) or [])
    never = RunnableLambda(lambda docs: seen.append("never") or docs)
    upper = RunnableLambda(
        lambda docs: [Document(d.page_content.upper(), d.metadata, d.id) for d in docs]
    )
    assert DocumentCompressorPipeline([upper]).compress_documents(PARAGRAPHS[1:2], "q") == [
        Document("BONDS ROSE.\nYIELDS TOO.", {"n": 1}, id="p1")
    ]
    assert DocumentCompressorPipeline([drop_all, never]).compress_documents(PARAGRAPHS, "q") == []
    assert seen == [3]


async def test_async_compression_matches_sync():
    base = BM25Retriever.from_documents(PARAGRAPHS, k=3, preprocess_func=WORDS, only_matching=True)
    for compressor in (
        LLMChainExtractor.from_llm(SentenceModel()),
        EmbeddingsFilter(EMBEDDINGS, k=1),
        DocumentCompressorPipeline([EmbeddingsFilter(EMBEDDINGS, k=2)]),
    ):
        retriever = ContextualCompressionRetriever(compressor, base)
        assert await retriever.ainvoke("cats dogs") == retriever.invoke("cats dogs")
        assert await retriever.abatch(["cats", "bonds"]) == retriever.batch(["cats", "bonds"])


def test_bad_compressors_retrievers_and_outputs_are_rejected():
    base = BM25Retriever.from_documents(PARAGRAPHS, preprocess_func=WORDS, only_matching=True)
    with pytest.raises(
        InvalidInputError, match="base_compressor needs a compress_documents method, got str"
    ):
        ContextualCompressionRetriever("filter", base)
    with pytest.raises(
        InvalidInputError, match=r"base_retriever must be a retriever \(a Runnable\), got list"
    ):
        ContextualCompressionRetriever(EmbeddingsFilter(EMBEDDINGS), [base])
    with pytest.raises(InvalidInputError, match="needs a non-empty list of transformers"):
        DocumentCompressorPipeline([])
    with pytest.raises(
        InvalidInputError, match=r"transformers\[1\] \(int\) has none of compress_documents"
    ):
        DocumentCompressorPipeline([EmbeddingsFilter(EMBEDDINGS), 3])
    bad = DocumentCompressorPipeline([RunnableLambda(lambda docs: "text")])
    with pytest.raises(
        InvalidInputError, match=r"transformers\[0\] must return a list of Document, got str"
    ):
        ContextualCompressionRetriever(bad, base).invoke("cats")


# --------------------------------------------------------------------------- redundancy, LLM filter

NEAR = [
    "Cats purr when happy",
    "cats purr when happy!",
    "Cats purr when they are happy",
    "Stock prices fell",
    "stock prices fell today",
]
# cosines: 0~1 = 1.0, 0~2 = 1~2 = .850, 3~4 = .858, across topics < 0


def _plain(documents):
    """The documents without a filter's state (``_DocumentWithState.to_document``)."""
    return [d.to_document() for d in documents]


@pytest.mark.parametrize(
    ("threshold", "kept", "kept_first"),
    [
        (0.95, [1, 2, 3, 4], [0, 2, 3, 4]),
        (0.855, [1, 2, 4], [0, 2, 3]),
        # 1 goes with 0 (1.0), then 2 outlives 1 (.850), though 2 is not a copy of 0
        (0.8, [2, 4], [0, 3]),
        (-1.0, [4], [0]),  # LangChain's drops every document below 0 (each "like itself")
    ],
)
def test_redundant_filter_drops_the_earlier_of_each_close_pair_or_keeps_the_first(
    threshold, kept, kept_first
):
    docs = [Document(text, {"n": i}) for i, text in enumerate(NEAR)]
    dedup = EmbeddingsRedundantFilter(EMBEDDINGS, similarity_threshold=threshold)
    result = dedup.transform_documents(docs)
    assert _plain(result) == [docs[i] for i in kept]
    # LangChain's filter returns its stateful copies: each with its embedding
    assert all(type(d).__name__ == "_DocumentWithState" for d in result)
    assert [d.state["embedded_doc"] for d in result] == [
        EMBEDDINGS.embed_documents([docs[i].page_content])[0] for i in kept
    ]
    assert _plain(dedup.transform_documents(docs[:1])) == docs[:1]
    assert dedup.transform_documents([]) == []
    first = EmbeddingsRedundantFilter(EMBEDDINGS, threshold, keep_first=True)
    assert _plain(first.transform_documents(docs)) == [docs[i] for i in kept_first]
    assert repr(first) == (
        "EmbeddingsRedundantFilter(embeddings=HashingEmbeddings, "
        f"similarity_threshold={threshold}, keep_first=True)"
    )
    with pytest.raises(
        InvalidInputError, match="similarity_threshold must be a number between -1 and 1"
    ):
        EmbeddingsRedundantFilter(EMBEDDINGS, similarity_threshold=2)
    with pytest.raises(InvalidInputError, match="keep_first must be a bool, got 1"):
        EmbeddingsRedundantFilter(EMBEDDINGS, keep_first=1)  # type: ignore[arg-type]


def test_langchains_documented_pipeline_splitter_redundant_then_relevant():
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=30, chunk_overlap=0, separators=["\n"], keep_separator=False
    )
    pipeline = DocumentCompressorPipeline(
        transformers=[
            splitter,
            EmbeddingsRedundantFilter(EMBEDDINGS),
            EmbeddingsFilter(EMBEDDINGS, similarity_threshold=0.3, k=None),
        ]
    )
    docs = [Document("\n".join(NEAR[:3]), id="a"), Document("\n".join(NEAR[1:]), id="b")]
    # chunks: a's 3 lines and b's 4; the redundancy filter (0.95) keeps the later of each
    # pair of copies (line 0 goes with line 1, cosine 1.0; a's copies of 1 and 2 with b's),
    # keeping lines 1, 2, 3, 4; the relevance filter then drops the two stock lines
    # (cosine < 0.3 with "cats purr")
    chunks = splitter.split_documents(docs)
    assert texts(EmbeddingsRedundantFilter(EMBEDDINGS).transform_documents(chunks)) == [
        NEAR[1],
        NEAR[2],
        NEAR[3],
        NEAR[4],
    ]
    assert texts(pipeline.compress_documents(docs, "cats purr")) == [
        "cats purr when happy!",
        "Cats purr when they are happy",
    ]


class Judge(BaseChatModel):
    """Says YES when the context mentions a word of the question."""

    def _generate(self, messages, stop=None):
        prompt = messages[-1].text
        question = re.search(r"Question: (.*)\n", prompt).group(1).lower().split()
        context = re.search(r">>>\n(.*)\n>>>", prompt, re.S).group(1).lower()
        return AIMessage("YES" if any(word in context for word in question) else "No.")


def test_llm_chain_filter_keeps_the_documents_the_model_says_yes_to():
    keep = LLMChainFilter.from_llm(Judge())
    assert keep.compress_documents(PARAGRAPHS, "cats") == [PARAGRAPHS[0], PARAGRAPHS[2]]
    assert keep.compress_documents(PARAGRAPHS, "weather") == []
    model = FakeListChatModel(responses=["yes"])
    LLMChainFilter.from_llm(model).compress_documents(PARAGRAPHS[1:2], "bonds?")
    assert model.calls[0][0].content == DEFAULT_FILTER_PROMPT.format(
        question="bonds?", context="Bonds rose.\nYields too."
    )


def test_llm_chain_filter_rejects_answers_that_are_not_yes_or_no():
    with pytest.raises(ValueError, match=r"include either YES or NO\. Received maybe\."):
        LLMChainFilter.from_llm(FakeListChatModel(responses=["maybe"])).compress_documents(
            PARAGRAPHS[:1], "q"
        )
    with pytest.raises(ValueError, match=r"Both YES and NO in received: yes and no\."):
        BooleanOutputParser().parse("yes and no")
    assert (
        BooleanOutputParser(true_val="RELEVANT", false_val="IRRELEVANT").parse("Irrelevant")
        is False
    )
    assert LLMChainFilter(
        RunnableLambda(lambda x: x["context"].startswith("Bonds"))
    ).compress_documents(PARAGRAPHS, "q") == [PARAGRAPHS[1]]


@pytest.mark.parametrize("cls", [LLMChainExtractor, LLMChainFilter])
def test_llm_compressors_name_themselves_in_errors_and_repr(cls):
    """Both share one base: each error and repr must still name the class used."""
    name = cls.__name__
    with pytest.raises(InvalidInputError, match=f"^{name} llm must be a Runnable, got str"):
        cls.from_llm("gpt")
    with pytest.raises(InvalidInputError, match=f"^{name} prompt must have the variables"):
        cls.from_llm(FakeListChatModel(responses=["x"]), prompt=PromptTemplate.from_template("{q}"))
    with pytest.raises(InvalidInputError, match=f"^{name} llm_chain must be a Runnable, got int"):
        cls(3)
    assert repr(cls.from_llm(FakeListChatModel(responses=["x"]))) == f"{name}()"


async def test_llm_chain_filter_async_and_in_a_retriever():
    base = BM25Retriever.from_documents(PARAGRAPHS, k=3, preprocess_func=WORDS, only_matching=True)
    retriever = ContextualCompressionRetriever(LLMChainFilter.from_llm(Judge()), base)
    assert await retriever.ainvoke("dogs") == retriever.invoke("dogs") == [PARAGRAPHS[2]]


async def test_batch_retrieves_once_and_compresses_each_query_in_its_own_run():
    base = BM25Retriever.from_documents(PARAGRAPHS, k=3, preprocess_func=WORDS, only_matching=True)
    calls = []
    top = base.vectorizer.top_k_with_scores
    base.vectorizer.top_k_with_scores = lambda queries, k, mask, **options: (
        calls.append(len(queries)) or top(queries, k, mask, **options)
    )
    retriever = ContextualCompressionRetriever(LLMChainExtractor.from_llm(SentenceModel()), base)
    collector = RunCollectorCallbackHandler()
    queries = ["cats", "bonds", "zebra"]
    results = retriever.batch(queries, {"callbacks": [collector]})
    assert calls == [3]
    assert results == [retriever.invoke(q) for q in queries]
    assert results[1] == [Document("Bonds rose.", {"n": 1})]
    extraction = (
        "RunnableSequence",
        [("PromptTemplate", []), ("SentenceModel", []), ("NoOutputParser", [])],
    )
    assert [run.tree() for run in collector.traced_runs] == [
        ("ContextualCompressionRetriever", [("BM25Retriever", []), extraction, extraction]),
        ("ContextualCompressionRetriever", [("BM25Retriever", []), extraction]),
        ("ContextualCompressionRetriever", [("BM25Retriever", [])]),
    ]
    assert await retriever.abatch(queries) == results


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_compressor_failing_on_one_query_fails_only_that_query(asynchronous):
    class Picky(BaseDocumentCompressor):
        def compress_documents(self, documents, query):
            if query == "bonds":
                raise RuntimeError("cannot compress bonds")
            return list(documents)[:1]

    retriever = ContextualCompressionRetriever(
        Picky(),
        BM25Retriever.from_documents(PARAGRAPHS, k=3, preprocess_func=WORDS, only_matching=True),
    )
    collector = RunCollectorCallbackHandler()
    config = {"callbacks": [collector]}
    if asynchronous:
        results = await retriever.abatch(["cats", "bonds"], config, return_exceptions=True)
    else:
        results = retriever.batch(["cats", "bonds"], config, return_exceptions=True)
    assert results[0] == [PARAGRAPHS[2]]  # the shorter of the two "cats" paragraphs ranks first
    assert str(results[1]) == "cannot compress bonds"
    assert [str(run.exception) for run in collector.traced_runs] == [
        "None",
        "cannot compress bonds",
    ]


async def test_a_base_retriever_that_returns_no_document_list_is_named():
    """Text from the base retriever is an error naming it, not a crash in the compressor."""
    base = RunnableLambda(lambda q: "oops" if q == "bad" else [Document(q)])
    retriever = ContextualCompressionRetriever(EmbeddingsFilter(EMBEDDINGS, k=1), base)
    message = "base_retriever must return a list of Document, got str"
    with pytest.raises(InvalidInputError, match=message):
        retriever.invoke("bad")
    with pytest.raises(InvalidInputError, match=message):
        await retriever.ainvoke("bad")
    good, bad = retriever.batch(["ok", "bad"], return_exceptions=True)
    assert [doc.to_document() for doc in good] == [Document("ok")]
    assert isinstance(bad, InvalidInputError) and str(bad) == message
    good, bad = await retriever.abatch(["ok", "bad"], return_exceptions=True)
    assert [doc.to_document() for doc in good] == [Document("ok")] and str(bad) == message


def negative_distance(left, right):
    return -np.linalg.norm(left[:, None, :] - right[None, :, :], axis=2)


def test_a_similarity_fn_replaces_the_cosine_and_is_checked():
    docs = [Document(text, {"n": i}) for i, text in enumerate(NEAR)]
    dedup = EmbeddingsRedundantFilter(
        EMBEDDINGS, similarity_threshold=-0.01, similarity_fn=negative_distance
    )
    # only the two equal embeddings (cosine 1.0) are this close: the later stays
    assert _plain(dedup.transform_documents(docs)) == docs[1:]
    assert repr(dedup).endswith("similarity_fn=negative_distance)")
    near = EmbeddingsFilter(EMBEDDINGS, -0.01, k=None, similarity_fn=negative_distance)
    kept = near.compress_documents(docs, NEAR[0])
    assert [doc.to_document() for doc in kept] == [docs[0], docs[1]]
    with pytest.raises(InvalidInputError, match="similarity_fn must be callable, got int"):
        EmbeddingsFilter(EMBEDDINGS, 0.5, similarity_fn=3)
    wrong = EmbeddingsFilter(EMBEDDINGS, 0.5, similarity_fn=lambda left, right: [1.0])
    with pytest.raises(InvalidInputError, match=r"must return a 1 x 5 matrix, got shape \(1,\)"):
        wrong.compress_documents(docs, "cats")
    with pytest.raises(InvalidInputError, match="between -1 and 1"):
        EmbeddingsFilter(EMBEDDINGS, 2.0)
