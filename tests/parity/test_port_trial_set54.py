"""Parity: differences found by the fifty-fourth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import warnings

import pytest

from ragline.core import FakeListLLM
from ragline.evaluation import (
    EvaluatorType,
    QAEvalChain,
    StringDistanceEvalChain,
    load_evaluator,
    load_evaluators,
)
from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# string_distance_jaro_guide / load_evaluators_helpfulness: an evaluator chain given a
# keyword it has no field for. LangChain's evaluator chains drop it silently (the
# "String Distance" guide passes requires_reference=True; load_evaluators hands
# criteria= to the QA grader too); ragline's refused it with a TypeError.
_EVALUATOR_EXTRA_KEYWORDS = """
import warnings
from langchain_classic.evaluation import (
    EvaluatorType, StringDistance, load_evaluator, load_evaluators,
)
from langchain_classic.evaluation.qa import QAEvalChain
from langchain_core.language_models import FakeListLLM

warnings.simplefilter("ignore")
jaro = load_evaluator("string_distance", distance=StringDistance.JARO, requires_reference=True)
print(jaro.requires_reference)
print(jaro.evaluate_strings(prediction="The job is done.", reference="The job isn't done"))
levenshtein = load_evaluator("string_distance", distance="levenshtein", normalize_score=False,
                             requires_input=True)
print(levenshtein.requires_input)
print(levenshtein.evaluate_strings(prediction="The job is done.", reference="The job isn't done"))
llm = FakeListLLM(responses=["GRADE: CORRECT", "The answer helps.\\nY"])
qa, criteria = load_evaluators([EvaluatorType.QA, EvaluatorType.CRITERIA], llm=llm,
                               criteria="helpfulness")
print(type(qa).__name__, type(criteria).__name__, criteria.evaluation_name)
print(qa.evaluate_strings(input="How do I list files?", prediction="ls", reference="ls"))
print(criteria.evaluate_strings(input="How do I list files?", prediction="Run ls."))
grader = QAEvalChain.from_llm(FakeListLLM(responses=["CORRECT"]), temperature=0)
print(grader.evaluate([{"query": "2+2?", "answer": "4"}], [{"result": "4"}]))
"""


def test_evaluator_chains_drop_an_unknown_keyword_as_langchains_do() -> None:
    langchain_printed = _printed(_EVALUATOR_EXTRA_KEYWORDS)
    assert langchain_printed.count("\n") == 8
    assert _printed(_ported(_EVALUATOR_EXTRA_KEYWORDS)) == langchain_printed


def test_the_dropped_keyword_is_named_in_a_warning() -> None:
    with pytest.warns(UserWarning, match=r"ignores 'requires_reference'"):
        evaluator = load_evaluator("string_distance", requires_reference=False)
    assert isinstance(evaluator, StringDistanceEvalChain)
    # the property is the evaluator's own: the dropped keyword changes nothing
    assert evaluator.requires_reference is True
    with pytest.warns(UserWarning, match=r"QAEvalChain\(\) ignores 'criteria'"):
        loaded = load_evaluators(
            [EvaluatorType.QA], llm=FakeListLLM(responses=["x"]), criteria="helpfulness"
        )
    assert [type(e) for e in loaded] == [QAEvalChain]


def test_other_chains_still_refuse_an_unknown_keyword() -> None:
    from ragline.chains import LLMChain
    from ragline.core import PromptTemplate

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            LLMChain(
                llm=FakeListLLM(responses=["x"]),
                prompt=PromptTemplate.from_template("{a}"),
                foo=1,
            )
