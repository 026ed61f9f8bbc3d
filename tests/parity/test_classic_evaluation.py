"""Parity: LangChain's evaluators (``langchain_classic.evaluation``) against ragline's.

The same evaluator, loaded the same way, grades the same strings in both libraries; the
model-graded ones are driven by scripted fake models (FakeListLLM, FakeListChatModel)
whose replies cover every way the graders read a reply (a final Y/N, a leading one,
none; ``GRADE: X``, a first or last word, nothing; ``[[A]]``/``[[B]]``/``[[C]]``,
``[[1]]``..``[[10]]``, an invalid verdict), and the embedding distances by the
deterministic fake embedding both libraries compute alike. The returned dicts are
compared exactly, and so are ``evaluate``'s lists, ``evaluation_name``,
``requires_input`` / ``requires_reference``, the errors (type and message) for a
missing input or reference, and the warning for an unneeded one. The prompts are not
compared: ragline's wording is its own.
"""

from __future__ import annotations

import asyncio
import re
import warnings
from typing import Any

import numpy as np
import pydantic
import pytest
from langchain_classic import evaluation as lc_evaluation
from langchain_classic.evaluation.qa import QAEvalChain as LCQAEvalChain
from langchain_core.agents import AgentAction as LCAgentAction
from langchain_core.embeddings import DeterministicFakeEmbedding as LCDeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.tools import tool as lc_tool

from ragline import evaluation as rl_evaluation
from ragline.core import AgentAction, FakeListChatModel, FakeListLLM
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.tools import tool

COVERS = {
    "evaluation.AgentTrajectoryEvaluator",
    "evaluation.ContextQAEvalChain",
    "evaluation.CotQAEvalChain",
    "evaluation.Criteria",
    "evaluation.CriteriaEvalChain",
    "evaluation.EmbeddingDistance",
    "evaluation.EmbeddingDistanceEvalChain",
    "evaluation.EvaluatorType",
    "evaluation.ExactMatchStringEvaluator",
    "evaluation.JsonEditDistanceEvaluator",
    "evaluation.JsonEqualityEvaluator",
    "evaluation.JsonSchemaEvaluator",
    "evaluation.JsonValidityEvaluator",
    "evaluation.LabeledCriteriaEvalChain",
    "evaluation.LabeledPairwiseStringEvalChain",
    "evaluation.LabeledScoreStringEvalChain",
    "evaluation.PairwiseEmbeddingDistanceEvalChain",
    "evaluation.PairwiseStringDistanceEvalChain",
    "evaluation.PairwiseStringEvalChain",
    "evaluation.PairwiseStringEvaluator",
    "evaluation.QAEvalChain",
    "evaluation.RegexMatchStringEvaluator",
    "evaluation.ScoreStringEvalChain",
    "evaluation.StringDistance",
    "evaluation.StringDistanceEvalChain",
    "evaluation.StringEvaluator",
    "evaluation.TrajectoryEvalChain",
    "evaluation.load_evaluator",
    "evaluation.load_evaluators",
}

SIDES = {
    "langchain": (lc_evaluation, LCFakeListLLM, LCFakeListChatModel, LCDeterministicFakeEmbedding),
    "ragline": (rl_evaluation, FakeListLLM, FakeListChatModel, DeterministicFakeEmbedding),
}


def both(scenario: Any) -> tuple[Any, Any]:
    """The scenario's result in LangChain and in ragline."""
    return scenario(*SIDES["langchain"]), scenario(*SIDES["ragline"])


def outcome(call: Any) -> Any:
    """What a call returns, or its exception's type name and message (without the
    troubleshooting link LangChain adds)."""
    try:
        return call()
    except Exception as err:
        return (type(err).__name__, str(err).split("\nFor troubleshooting")[0])


# ------------------------------------------------------------------------ criteria

CRITERIA_REPLIES = [
    "The submission is short and direct.\nY",
    "It rambles on for three paragraphs.\n\nN  ",
    "y",
    "Y\nIt is brief.",
    "Not sure what to say here.",
    "The answer is happy",  # ends in a letter y: read as the verdict, as LangChain does
    "",
]


@pytest.mark.parametrize("reply", CRITERIA_REPLIES)
def test_criteria_reads_the_verdict(reply: str) -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        grader = ev.load_evaluator("criteria", criteria="conciseness", llm=llm(responses=[reply]))
        result = grader.evaluate_strings(prediction="Four.", input="What's 2+2?")
        return result, grader.evaluation_name, grader.requires_input, grader.requires_reference

    lc, rl = both(scenario)
    assert rl == lc


def test_the_trial_programs_criteria_result() -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        grader = ev.load_evaluator(
            "criteria",
            criteria="conciseness",
            llm=llm(responses=["The submission is short and direct.\nY"]),
        )
        return grader.evaluate_strings(prediction="four", input="What's 2+2?")

    lc, rl = both(scenario)
    assert (
        rl == lc == {"reasoning": "The submission is short and direct.", "value": "Y", "score": 1}
    )


@pytest.mark.parametrize(
    "criteria",
    [None, "helpfulness", "harmfulness", "Criteria.DEPTH", {"funny": "Is it funny?"}],
)
def test_criteria_names_and_mappings(criteria: Any) -> None:
    def scenario(ev: Any, _llm: Any, chat: Any, _emb: Any) -> Any:
        chosen = ev.Criteria.DEPTH if criteria == "Criteria.DEPTH" else criteria
        grader = ev.CriteriaEvalChain.from_llm(chat(responses=["Fine.\nN"]), criteria=chosen)
        return grader.evaluation_name, grader.evaluate_strings(prediction="x", input="y")

    lc, rl = both(scenario)
    assert rl == lc


def test_labeled_criteria_reads_the_reference_and_requires_it() -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        grader = ev.load_evaluator(
            "labeled_criteria", criteria="correctness", llm=llm(responses=["Matches.\nY"])
        )
        missing = outcome(lambda: grader.evaluate_strings(prediction="4", input="2+2?"))
        graded = grader.evaluate_strings(prediction="4", input="2+2?", reference="4")
        return missing, graded, grader.evaluation_name, grader.requires_reference

    lc, rl = both(scenario)
    assert rl == lc
    assert rl[0] == ("ValueError", "LabeledCriteriaEvalChain requires a reference string.")


def test_criteria_errors_and_warnings() -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        model = llm(responses=["ok\nY"])
        correctness = outcome(
            lambda: ev.load_evaluator("criteria", criteria="correctness", llm=model)
        )
        unknown = outcome(lambda: ev.load_evaluator("criteria", criteria="wit", llm=model))
        empty = outcome(lambda: ev.CriteriaEvalChain.from_llm(model, criteria={}))
        grader = ev.load_evaluator("criteria", llm=model)
        no_input = outcome(lambda: grader.evaluate_strings(prediction="x"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grader.evaluate_strings(prediction="x", input="y", reference="z")
        return correctness[0], unknown, empty[0], no_input, [str(w.message) for w in caught]

    lc, rl = both(scenario)
    assert rl == lc
    assert rl[0] == "ValueError"


# ------------------------------------------------------------------------------- QA

QA_REPLIES = [
    "CORRECT",
    "INCORRECT",
    "The student is right.\nGRADE: correct",
    "Incorrect. The capital is Paris.",
    "After checking, the answer is CORRECT.",
    "I cannot tell.",
    "   ",
]


def test_qa_evaluate_returns_the_replies_as_langchains() -> None:
    examples = [
        {"query": "Why was my storage access denied?", "answer": "Access policy violation"},
        {"query": "What is 2+2?", "answer": "4"},
    ]
    predictions = [{"result": "Access policy violation"}, {"result": "5"}]

    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        model = llm(responses=["CORRECT", "INCORRECT"])
        return ev.QAEvalChain.from_llm(model).evaluate(examples, predictions)

    lc, rl = both(scenario)
    assert rl == lc == [{"results": "CORRECT"}, {"results": "INCORRECT"}]
    # the class a program imports from langchain_classic.evaluation.qa is the same one
    assert LCQAEvalChain is lc_evaluation.QAEvalChain


def test_qa_evaluate_with_other_keys() -> None:
    examples = [{"question": "Capital of France?", "truth": "Paris"}]
    predictions = [{"output": "Lyon"}]

    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        chain = ev.QAEvalChain.from_llm(llm(responses=["INCORRECT"]))
        return chain.evaluate(
            examples,
            predictions,
            question_key="question",
            answer_key="truth",
            prediction_key="output",
        )

    lc, rl = both(scenario)
    assert rl == lc == [{"results": "INCORRECT"}]


@pytest.mark.parametrize("reply", QA_REPLIES)
@pytest.mark.parametrize("kind", ["qa", "context_qa", "cot_qa"])
def test_qa_graders_read_the_grade(kind: str, reply: str) -> None:
    def scenario(ev: Any, _llm: Any, chat: Any, _emb: Any) -> Any:
        grader = ev.load_evaluator(kind, llm=chat(responses=[reply]))
        result = grader.evaluate_strings(prediction="Paris", input="Capital?", reference="Paris")
        return result, grader.evaluation_name, grader.requires_input, grader.requires_reference

    lc, rl = both(scenario)
    assert rl == lc


def test_context_qa_evaluate_and_missing_arguments() -> None:
    examples = [{"query": "Who wrote it?", "context": "It was written by Ada."}]
    predictions = [{"result": "Ada"}]

    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        chain = ev.ContextQAEvalChain.from_llm(llm(responses=["CORRECT"]))
        graded = chain.evaluate(examples, predictions)
        no_reference = outcome(lambda: chain.evaluate_strings(prediction="Ada", input="Who?"))
        no_input = outcome(lambda: chain.evaluate_strings(prediction="Ada", reference="Ada"))
        return graded, no_reference, no_input

    lc, rl = both(scenario)
    assert rl == lc
    assert rl[0] == [{"text": "CORRECT"}]


def test_qa_prompt_with_other_variables_is_refused() -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        prompt_class = type(ev.QAEvalChain.from_llm(llm(responses=["x"])).prompt)
        prompt = prompt_class.from_template("{query} {result}")
        return outcome(lambda: ev.QAEvalChain.from_llm(llm(responses=["x"]), prompt=prompt))[0]

    lc, rl = both(scenario)
    assert rl == lc == "ValueError"


# ------------------------------------------------------------- pairwise and scoring


@pytest.mark.parametrize(
    "reply", ["A is right and B is not. [[A]]", "[[B]]", "Both fine. [[C]]", "No verdict.", "[[D]]"]
)
def test_pairwise_string_reads_the_verdict(reply: str) -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        judge = ev.load_evaluator("pairwise_string", llm=llm(responses=[reply]))
        result = outcome(
            lambda: judge.evaluate_string_pairs(prediction="4", prediction_b="5", input="2+2?")
        )
        if isinstance(result, tuple):  # an invalid verdict: the type, the message's start
            result = (result[0], result[1].split(".")[0])
        return result, judge.requires_input, judge.requires_reference

    lc, rl = both(scenario)
    assert rl == lc


def test_labeled_pairwise_string_needs_a_reference() -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        judge = ev.load_evaluator(
            "labeled_pairwise_string", criteria=["conciseness", "wit"], llm=llm(responses=["[[B]]"])
        )
        missing = outcome(
            lambda: judge.evaluate_string_pairs(prediction="4", prediction_b="5", input="2+2?")
        )
        graded = judge.evaluate_string_pairs(
            prediction="4", prediction_b="5", input="2+2?", reference="4"
        )
        return missing, graded

    lc, rl = both(scenario)
    assert rl == lc
    assert rl[1] == {"reasoning": "[[B]]", "value": "B", "score": 0}


@pytest.mark.parametrize(
    "reply", ["Clear and right. [[8]]", "[[10]]", "[[1]] poor", "[[11]]", "8/10"]
)
@pytest.mark.parametrize("normalize_by", [None, 10])
def test_score_string_reads_the_score(reply: str, normalize_by: Any) -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        rater = ev.load_evaluator(
            "score_string", llm=llm(responses=[reply]), normalize_by=normalize_by
        )
        result = outcome(lambda: rater.evaluate_strings(prediction="4", input="2+2?"))
        if isinstance(result, tuple):
            result = (result[0], result[1].split(".")[0])
        return result, rater.evaluation_name

    lc, rl = both(scenario)
    assert rl == lc


def test_labeled_score_string_with_criteria() -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        rater = ev.load_evaluator(
            "labeled_score_string",
            criteria={"accuracy": "Is it accurate?"},
            llm=llm(responses=["[[9]]"]),
        )
        graded = rater.evaluate_strings(prediction="4", input="2+2?", reference="4")
        return (
            graded,
            rater.evaluation_name,
            outcome(lambda: rater.evaluate_strings(prediction="4", input="2+2?")),
        )

    lc, rl = both(scenario)
    assert rl == lc


# --------------------------------------------------------------- string distances

PAIRS = [
    ("kitten", "sitting"),
    ("The answer is Paris", "Paris is the answer"),
    ("abcdef", "abdcef"),
    ("", "abc"),
    ("same", "same"),
    ("MARTHA", "MARHTA"),
    ("héllo wörld", "hello world"),
]


@pytest.mark.parametrize("normalize_score", [True, False])
@pytest.mark.parametrize("distance", [d.value for d in rl_evaluation.StringDistance])
def test_string_distance_scores(distance: str, normalize_score: bool) -> None:
    def scenario(ev: Any, _llm: Any, _chat: Any, _emb: Any) -> Any:
        single = ev.load_evaluator(
            "string_distance", distance=distance, normalize_score=normalize_score
        )
        pairwise = ev.load_evaluator(
            "pairwise_string_distance",
            distance=ev.StringDistance(distance),
            normalize_score=normalize_score,
        )
        scores = [single.evaluate_strings(prediction=a, reference=b) for a, b in PAIRS]
        scores += [pairwise.evaluate_string_pairs(prediction=a, prediction_b=b) for a, b in PAIRS]
        return scores, single.evaluation_name, pairwise.evaluation_name

    lc, rl = both(scenario)
    assert rl == lc
    assert [type(s["score"]) for s in rl[0]] == [type(s["score"]) for s in lc[0]]


def test_string_distance_default_is_normalized_jaro_winkler() -> None:
    def scenario(ev: Any, _llm: Any, _chat: Any, _emb: Any) -> Any:
        evaluator = ev.StringDistanceEvalChain()
        missing = outcome(lambda: evaluator.evaluate_strings(prediction="a"))
        return evaluator.evaluate_strings(prediction="MARTHA", reference="MARHTA"), missing

    lc, rl = both(scenario)
    assert rl == lc
    assert rl[0] == {"score": pytest.approx(1 - 0.9611111111111111)}


# ------------------------------------------------------------ embedding distances


@pytest.mark.parametrize("metric", ["cosine", "manhattan", "chebyshev", "hamming"])
def test_embedding_distance_scores(metric: str) -> None:
    def scenario(ev: Any, _llm: Any, _chat: Any, embeddings: Any) -> Any:
        emb = embeddings(size=16)
        single = ev.load_evaluator("embedding_distance", embeddings=emb, distance_metric=metric)
        pairwise = ev.load_evaluator(
            "pairwise_embedding_distance",
            embeddings=emb,
            distance_metric=ev.EmbeddingDistance(metric),
        )
        return (
            single.evaluate_strings(prediction="a cat sat", reference="a dog sat"),
            single.evaluate_strings(prediction="same", reference="same"),
            pairwise.evaluate_string_pairs(prediction="tea", prediction_b="coffee"),
            single.evaluation_name,
            pairwise.evaluation_name,
        )

    lc, rl = both(scenario)
    assert rl == lc


def test_euclidean_embedding_distance_where_langchains_fails() -> None:
    """LangChain's Euclidean distance fails when SciPy is installed (SciPy returns a
    float, which has no ``.item()``); ragline's is the norm of the difference, the value
    LangChain computes without SciPy."""
    emb = DeterministicFakeEmbedding(size=16)
    a, b = (np.asarray(v) for v in emb.embed_documents(["a cat sat", "a dog sat"]))

    lc = LCDeterministicFakeEmbedding(size=16)
    lc_evaluator = lc_evaluation.load_evaluator(
        "embedding_distance", embeddings=lc, distance_metric="euclidean"
    )
    with pytest.raises(AttributeError, match="has no attribute 'item'"):
        lc_evaluator.evaluate_strings(prediction="a cat sat", reference="a dog sat")
    evaluator = rl_evaluation.load_evaluator(
        "embedding_distance", embeddings=emb, distance_metric="euclidean"
    )
    result = evaluator.evaluate_strings(prediction="a cat sat", reference="a dog sat")
    assert result == {"score": float(np.linalg.norm(a - b))}
    assert (
        evaluator.evaluation_name == lc_evaluator.evaluation_name == "embedding_euclidean_distance"
    )


def test_embedding_distance_async() -> None:
    def scenario(ev: Any, _llm: Any, _chat: Any, embeddings: Any) -> Any:
        evaluator = ev.EmbeddingDistanceEvalChain(embeddings=embeddings(size=8))
        return asyncio.run(evaluator.aevaluate_strings(prediction="x y", reference="y x"))

    lc, rl = both(scenario)
    assert rl == lc


# ----------------------------------------------------------------- no model needed


def test_exact_and_regex_match() -> None:
    def scenario(ev: Any, _llm: Any, _chat: Any, _emb: Any) -> Any:
        plain = ev.load_evaluator("exact_match")
        loose = ev.load_evaluator(
            "exact_match", ignore_case=True, ignore_punctuation=True, ignore_numbers=True
        )
        regex = ev.load_evaluator("regex_match")
        folded = ev.load_evaluator("regex_match", flags=re.IGNORECASE)
        return [
            plain.evaluate_strings(prediction="Paris", reference="Paris"),
            plain.evaluate_strings(prediction="Paris!", reference="paris"),
            loose.evaluate_strings(prediction="Paris 2024!", reference="paris"),
            regex.evaluate_strings(prediction="2024-05-01 was a day", reference=r"\d{4}-\d\d"),
            regex.evaluate_strings(prediction="on 2024-05-01", reference=r"\d{4}-\d\d"),
            folded.evaluate_strings(prediction="PARIS", reference="paris"),
            outcome(lambda: plain.evaluate_strings(prediction="x")),
            plain.evaluation_name,
            regex.evaluation_name,
        ]

    lc, rl = both(scenario)
    assert rl == lc


def test_json_validity_and_equality() -> None:
    def scenario(ev: Any, _llm: Any, _chat: Any, _emb: Any) -> Any:
        valid = ev.load_evaluator("json_validity")
        equal = ev.load_evaluator("json_equality")
        return [
            valid.evaluate_strings(prediction='{"a": 1, "b": [1, 2]}'),
            valid.evaluate_strings(prediction='```json\n{"a": 1}\n```'),
            valid.evaluate_strings(prediction='{"a": 1,}'),
            valid.evaluate_strings(prediction="not json at all"),
            valid.evaluate_strings(prediction=""),
            equal.evaluate_strings(prediction='{"a": 1, "b": 2}', reference='{"b": 2, "a": 1}'),
            equal.evaluate_strings(prediction="[3, 1, 2]", reference="[1, 2, 3]"),
            equal.evaluate_strings(prediction='{"a": 1}', reference="[1]"),
            equal.evaluate_strings(prediction='```json\n{"a": 1}\n```', reference='{"a": 2}'),
            valid.evaluation_name,
            equal.evaluation_name,
        ]

    lc, rl = both(scenario)
    assert rl == lc
    assert rl[5] == {"score": True}


def test_json_edit_distance() -> None:
    def scenario(ev: Any, _llm: Any, _chat: Any, _emb: Any) -> Any:
        distance = ev.load_evaluator("json_edit_distance")
        custom = ev.JsonEditDistanceEvaluator(
            string_distance=lambda a, b: float(len(a) - len(b)), canonicalize=str
        )
        return [
            distance.evaluate_strings(prediction='{"b": 2, "a": 1}', reference='{"a": 1, "b": 2}'),
            distance.evaluate_strings(prediction='{"a": 1, "b": 3}', reference='{"a": 1, "b": 2}'),
            distance.evaluate_strings(prediction="[1, 2, 3]", reference="```json\n[3, 2, 1]\n```"),
            distance.evaluate_strings(prediction='{"name": "Ada"}', reference='{"name": "Bob"}'),
            custom.evaluate_strings(prediction='{"a": [1, 2]}', reference='{"a": 1}'),
            outcome(lambda: distance.evaluate_strings(prediction="{}")),
            distance.evaluation_name,
        ]

    lc, rl = both(scenario)
    assert rl == lc
    assert rl[0] == {"score": 0.0}


class Person(pydantic.BaseModel):
    name: str
    age: int


def test_json_schema_validation() -> None:
    schema = '{"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}'

    def scenario(ev: Any, _llm: Any, _chat: Any, _emb: Any) -> Any:
        evaluator = ev.load_evaluator("json_schema_validation")
        return [
            evaluator.evaluate_strings(prediction='{"age": 3}', reference=schema),
            evaluator.evaluate_strings(prediction='{"age": "three"}', reference=schema),
            evaluator.evaluate_strings(prediction="```json\n{}\n```", reference=schema),
            evaluator.evaluate_strings(
                prediction={"name": "Ada", "age": 36}, reference={"type": "object"}
            ),
            evaluator.evaluate_strings(prediction='{"name": "Ada"}', reference=Person),
            evaluator.evaluation_name,
            outcome(lambda: evaluator.evaluate_strings(prediction="{}")),
        ]

    lc, rl = both(scenario)
    assert rl == lc
    assert rl[0] == {"score": True}
    assert rl[1]["score"] is False


# ----------------------------------------------------------------------- trajectory


def _lc_multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


def _multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


TRAJECTORY_SIDES = {
    "langchain": (LCAgentAction, lc_tool(_lc_multiply)),
    "ragline": (AgentAction, tool(_multiply)),
}


@pytest.mark.parametrize(
    "reply",
    [
        "Sensible use of the tool.\nScore: 5",
        "Too many steps.\n\nScore: 2 out of 5",
        "Score: 1",
        "Fine.\nScore: 4.5",
        "Fine.\nScore: 7",
        "No score here.",
    ],
)
@pytest.mark.parametrize("with_tools", [False, True])
def test_trajectory_reads_the_score(reply: str, with_tools: bool) -> None:
    def scenario(ev: Any, llm: Any, chat: Any, _emb: Any) -> Any:
        side = "langchain" if ev is lc_evaluation else "ragline"
        action, multiply = TRAJECTORY_SIDES[side]
        grader = ev.load_evaluator(
            "trajectory",
            llm=chat(responses=[reply]),
            agent_tools=[multiply] if with_tools else None,
        )
        steps = [(action(tool="_multiply", tool_input={"a": 6, "b": 7}, log=""), "42")]
        result = outcome(
            lambda: grader.evaluate_agent_trajectory(
                prediction="42", input="What is 6 times 7?", agent_trajectory=steps, reference="42"
            )
        )
        # the exception's type only: its message is each library's own
        wrong_model = outcome(lambda: ev.load_evaluator("trajectory", llm=llm(responses=["x"])))[0]
        no_input = outcome(
            lambda: grader.evaluate_agent_trajectory(
                prediction="42", input=None, agent_trajectory=steps
            )
        )
        return result, wrong_model, no_input, grader.requires_input, grader.requires_reference

    lc, rl = both(scenario)
    assert rl == lc


def test_trajectory_async() -> None:
    def scenario(ev: Any, _llm: Any, chat: Any, _emb: Any) -> Any:
        side = "langchain" if ev is lc_evaluation else "ragline"
        action, _ = TRAJECTORY_SIDES[side]
        grader = ev.TrajectoryEvalChain.from_llm(chat(responses=["Good.\nScore: 3"]))
        steps = [(action(tool="search", tool_input="weather", log=""), "sunny")]
        return asyncio.run(
            grader.aevaluate_agent_trajectory(
                prediction="Sunny.", input="Weather?", agent_trajectory=steps
            )
        )

    lc, rl = both(scenario)
    assert rl == lc == {"score": 0.5, "reasoning": "Good."}


def test_trajectory_refuses_a_text_completion_model_as_langchain() -> None:
    """Both raise NotImplementedError for a grader over a text-completion model; the
    message is ragline's own (it was LangChain's sentence, word for word)."""

    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        with pytest.raises(NotImplementedError) as raised:
            ev.TrajectoryEvalChain.from_llm(llm(responses=["Score: 3"]))
        return raised.value

    lc, rl = both(scenario)
    assert isinstance(rl, NotImplementedError) and isinstance(lc, NotImplementedError)
    assert str(rl) == (
        "TrajectoryEvalChain grades with a chat model; FakeListLLM is a text-completion model"
    )
    assert str(rl) != str(lc)


# ------------------------------------------------------------------------ loading


def test_load_evaluators_with_config_and_unknown_names() -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        loaded = ev.load_evaluators(
            [ev.EvaluatorType.EXACT_MATCH, "criteria", "string_distance"],
            llm=llm(responses=["ok\nY"]),
            config={"string_distance": {"distance": "levenshtein"}},
        )
        unknown = outcome(lambda: ev.load_evaluator("no_such_evaluator"))
        no_model = outcome(lambda: ev.load_evaluator("qa"))
        return (
            [e.evaluation_name for e in loaded],
            unknown[0],
            unknown[1].split("\n")[0],
            no_model[0],
            sorted(t.value for t in ev.EvaluatorType),
        )

    lc, rl = both(scenario)
    assert rl == lc


def test_async_model_graded_evaluators() -> None:
    def scenario(ev: Any, llm: Any, _chat: Any, _emb: Any) -> Any:
        async def grade() -> Any:
            criteria = ev.load_evaluator("criteria", llm=llm(responses=["Good.\nY"]))
            qa = ev.load_evaluator("qa", llm=llm(responses=["GRADE: INCORRECT"]))
            judge = ev.load_evaluator("pairwise_string", llm=llm(responses=["[[C]]"]))
            return [
                await criteria.aevaluate_strings(prediction="x", input="y"),
                await qa.aevaluate_strings(prediction="x", input="y", reference="z"),
                await judge.aevaluate_string_pairs(prediction="x", prediction_b="w", input="y"),
            ]

        return asyncio.run(grade())

    lc, rl = both(scenario)
    assert rl == lc


def test_trajectory_include_run_info() -> None:
    """include_run_info adds the run under __run, sync and async, as LangChain's."""

    def scenario(ev: Any, _llm: Any, chat: Any, _emb: Any) -> Any:
        side = "langchain" if ev is lc_evaluation else "ragline"
        action, _ = TRAJECTORY_SIDES[side]
        grader = ev.TrajectoryEvalChain.from_llm(chat(responses=["Good.\nScore: 3"] * 2))
        steps = [(action(tool="search", tool_input="weather", log=""), "sunny")]
        call = {"prediction": "Sunny.", "input": "Weather?", "agent_trajectory": steps}
        sync = grader.evaluate_agent_trajectory(**call, include_run_info=True)
        done = asyncio.run(grader.aevaluate_agent_trajectory(**call, include_run_info=True))
        return [
            (sorted(result), result["score"], type(result["__run"]).__name__)
            for result in (sync, done)
        ]

    lc, rl = both(scenario)
    assert rl == lc == [(["__run", "reasoning", "score"], 0.5, "RunInfo")] * 2
