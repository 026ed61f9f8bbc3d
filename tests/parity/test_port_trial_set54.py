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

COVERS = {"evaluation.QAGenerateChain"}

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


# dlai_llm_assisted_eval: QAGenerateChain (langchain_classic.evaluation.qa) writes test
# examples from documents, read back with LLMChain.apply_and_parse; ragline had neither,
# so the port left LangChain's chain, which refused ragline's model.
_QA_GENERATE = """
import warnings
from langchain_classic.evaluation.qa import QAEvalChain, QAGenerateChain
from langchain_classic.evaluation.qa.generate_chain import QAGenerateChain as FromModule
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel

warnings.simplefilter("ignore")
print(FromModule is QAGenerateChain)
docs = [Document(page_content="The X200 drill has a two-year warranty."),
        Document(page_content="The charger stops when the battery is full.")]
chain = QAGenerateChain.from_llm(FakeListChatModel(responses=[
    "QUESTION: How long is the X200 warranty?\\nANSWER: Two years",
    "QUESTION: Does the charger stop by itself?\\n\\nANSWER: Yes, when the battery is full",
    "QUESTION: What is in the box?\\nANSWER: A drill",
]))
print(chain.output_key, chain.input_keys, chain.output_keys)
examples = chain.apply_and_parse([{"doc": d} for d in docs])
print(examples)
print(chain.apply([{"doc": "A drill is in the box."}]))
examples = [e["qa_pairs"] for e in examples]
grader = QAEvalChain.from_llm(FakeListChatModel(responses=["CORRECT", "INCORRECT"]))
print(grader.evaluate(examples, [{"result": "Two years"}, {"result": "No"}]))
bad = QAGenerateChain.from_llm(FakeListChatModel(responses=["I cannot write a question."]))
try:
    bad.apply([{"doc": "x"}])
except ValueError as error:
    print("ValueError")
"""


def test_qa_generate_chain_writes_examples_as_langchains_does() -> None:
    ported = _ported(_QA_GENERATE)
    assert "from ragline.evaluation import QAEvalChain, QAGenerateChain\n" in ported
    langchain_printed = _printed(_QA_GENERATE)
    assert langchain_printed.count("\n") == 6
    assert _printed(ported) == langchain_printed


def test_apply_and_parse_without_a_prompt_parser_returns_apply_outputs() -> None:
    from ragline.chains import LLMChain
    from ragline.core import PromptTemplate
    from ragline.core.output_parsers import CommaSeparatedListOutputParser

    chain = LLMChain(
        llm=FakeListLLM(responses=["a, b", "c"]), prompt=PromptTemplate.from_template("{x}")
    )
    with pytest.warns(DeprecationWarning, match="apply_and_parse is deprecated"):
        assert chain.apply_and_parse([{"x": "1"}]) == [{"text": "a, b"}]
    parsed = LLMChain(
        llm=FakeListLLM(responses=["a, b"]),
        prompt=PromptTemplate(
            template="{x}", input_variables=["x"], output_parser=CommaSeparatedListOutputParser()
        ),
    )
    with pytest.warns(DeprecationWarning):
        assert parsed.apply_and_parse([{"x": "1"}]) == [["a", "b"]]
