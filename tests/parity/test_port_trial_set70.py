"""Parity: differences found by the seventieth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# opentutorial_mmr_topk_configurable: a retriever made with search_kwargs={"k": 1} and
# configurable_fields(search_type=..., search_kwargs=...) is called with a threshold
# search and its kwargs in one config. ragline set the two fields one after the other,
# so the new search_type was checked against the old kwargs (no score_threshold) and
# refused; LangChain checks them together.
_SEARCH_TYPE_AND_KWARGS_TOGETHER = """
from langchain_community.embeddings import HuggingFaceEmbeddings
from langchain_community.vectorstores import FAISS
from langchain_core.runnables import ConfigurableField

texts = ["Word2Vec learns word vectors from context.", "An embedding maps text to numbers.",
         "Paris is the capital of France.", "Embeddings place similar words close together."]
db = FAISS.from_texts(texts, HuggingFaceEmbeddings(model_name={model!r}))
retriever = db.as_retriever(search_kwargs={{"k": 1}}).configurable_fields(
    search_type=ConfigurableField(id="search_type"),
    search_kwargs=ConfigurableField(id="search_kwargs"),
)
configs = [
    {{"search_kwargs": {{"k": 3}}}},
    {{"search_type": "similarity_score_threshold", "search_kwargs": {{"score_threshold": 0.5}}}},
    {{"search_type": "mmr", "search_kwargs": {{"k": 2, "fetch_k": 4, "lambda_mult": 0.6}}}},
    {{}},
]
for configurable in configs:
    docs = retriever.invoke("What is Word2Vec?", config={{"configurable": configurable}})
    print([doc.page_content[:12] for doc in docs])
try:
    retriever.invoke("q", config={{"configurable": {{"search_type": "nearest"}}}})
except ValueError as error:
    print("refused", type(error).__mro__[-3].__name__)
print(retriever.default.search_type, retriever.default.search_kwargs)
"""


def test_configurable_search_type_and_kwargs_are_set_together(minilm_path: str) -> None:
    source = _SEARCH_TYPE_AND_KWARGS_TOGETHER.format(model=minilm_path)
    langchain_printed = _printed(source)
    assert langchain_printed.splitlines()[0] == "['Word2Vec lea', 'Embeddings p', 'An embedding']"
    assert langchain_printed.splitlines()[1] == "['Word2Vec lea']"
    assert langchain_printed.splitlines()[3] == "['Word2Vec lea']"
    assert _printed(_ported(source)) == langchain_printed
