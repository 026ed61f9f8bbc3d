"""Parity: differences found by the fifty-eighth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed


@pytest.fixture(scope="module")
def no_cuda() -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("the scenario needs a machine where torch sees no CUDA GPU")


# gpw_report_kmeans_summary: the program asks for the GPU and falls back to the CPU when
# constructing the embeddings fails. LangChain's constructor loads the model onto the
# device and fails on a machine without CUDA; ragline's constructed and failed at the
# first embed, so the program kept "cuda" and every later step failed.
_CUDA_THEN_CPU = """
from langchain_community.embeddings import HuggingFaceEmbeddings

model_kwargs = {{"device": "cuda"}}
try:
    embeddings = HuggingFaceEmbeddings(model_name={model!r}, model_kwargs=model_kwargs)
    print("running on GPU")
except Exception as e:
    embeddings = HuggingFaceEmbeddings(model_name={model!r}, model_kwargs={{"device": "cpu"}})
    print("running on CPU")
print(len(embeddings.embed_query("zysk netto")))
"""


@pytest.mark.usefixtures("no_cuda")
def test_an_explicit_cuda_device_without_a_gpu_fails_at_construction_as_langchains(
    minilm_path: str,
) -> None:
    source = _CUDA_THEN_CPU.format(model=minilm_path)
    langchain_printed = _printed(source)
    assert langchain_printed == "running on CPU\n384\n"
    assert _printed(_ported(source)) == langchain_printed


# uwi_faq_reorder_chat: RunnableAssign built from a plain dict of steps, as the NVIDIA
# course notebooks write it. LangChain makes the dict a RunnableParallel; ragline kept
# the dict and failed with AttributeError at invoke.
_ASSIGN_FROM_DICT = """
from operator import itemgetter
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.passthrough import RunnableAssign

chain = (
    {"input": (lambda x: x)}
    | RunnableAssign({"length": itemgetter("input") | RunnableLambda(len)})
    | RunnableAssign({"upper": lambda d: d["input"].upper(), "twice": lambda d: d["length"] * 2})
)
print(chain.invoke("when does registration open"))
print(RunnableAssign({"a": lambda x: 1, "b": lambda x: 2}).get_name())
print(type(RunnableAssign({"a": lambda x: 1}).mapper).__name__)
"""


def test_runnable_assign_takes_a_dict_of_steps_as_langchains() -> None:
    langchain_printed = _printed(_ASSIGN_FROM_DICT)
    assert langchain_printed.splitlines()[1:] == ["RunnableAssign<a,b>", "RunnableParallel"]
    assert _printed(_ported(_ASSIGN_FROM_DICT)) == langchain_printed
