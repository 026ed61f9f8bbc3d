"""Parity: differences found by the twenty-seventh port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# learnixo_vector_store_filters (found while writing the set): LangChain's FAISS spells
# "not equal" `$neq`, reads a list value as "any of these" and negates a filter with
# `$not`; ragline's filter parser refused all three, so a ported program that filtered
# that way raised FilterError.
_FAISS_FILTER_FORMS = """
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding

texts = ["warfarin", "metformin", "aspirin", "apixaban", "label only"]
metadatas = [
    {"category": "anticoagulant", "year": 1954},
    {"category": "antidiabetic", "year": 1957},
    {"category": "nsaid", "year": 1899},
    {"category": "anticoagulant", "year": 2012},
    {"year": 2020},
]
db = FAISS.from_texts(texts, DeterministicFakeEmbedding(size=16), metadatas=metadatas)
for name, filter in [
    ("neq", {"category": {"$neq": "nsaid"}}),
    ("list", {"category": ["nsaid", "antidiabetic"]}),
    ("both", {"category": ["anticoagulant", "nsaid"], "year": {"$neq": 1954}}),
    ("in or", {"$or": [{"year": [1899, 2020]}, {"category": {"$neq": "anticoagulant"}}]}),
    ("not", {"$not": {"category": "anticoagulant"}}),
    ("not and", {"$not": {"category": "anticoagulant", "year": 2012}}),
    ("and not", {"$and": [{"$not": {"category": ["nsaid"]}}, {"year": {"$gt": 1955}}]}),
]:
    found = db.similarity_search("drug", k=5, filter=filter)
    print(name, sorted(doc.page_content for doc in found))
mmr = db.max_marginal_relevance_search("drug", k=5, fetch_k=5, filter={"year": [1954, 2012]})
print("mmr", sorted(doc.page_content for doc in mmr))
"""


def test_faiss_neq_list_value_and_not_filters_select_as_langchains() -> None:
    langchain_printed = _printed(_FAISS_FILTER_FORMS)
    assert langchain_printed == (
        "neq ['apixaban', 'label only', 'metformin', 'warfarin']\n"
        "list ['aspirin', 'metformin']\n"
        "both ['apixaban', 'aspirin']\n"
        "in or ['aspirin', 'label only', 'metformin']\n"
        "not ['aspirin', 'label only', 'metformin']\n"
        "not and ['aspirin', 'label only', 'metformin', 'warfarin']\n"
        "and not ['apixaban', 'label only', 'metformin']\n"
        "mmr ['apixaban', 'warfarin']\n"
    )
    assert _printed(_ported(_FAISS_FILTER_FORMS)) == langchain_printed
