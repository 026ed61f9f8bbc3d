"""Parity: differences found by the thirty-fifth port trial (issue 24), one scenario each.

The trial's programs subclass LangChain's base classes (retrievers, tools, models,
parsers, loaders, splitters, runnables). Each scenario runs the same program shape
through LangChain and through ragline (the program's source after ``ragline port``) and
compares what the program prints.
"""

import re

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed


def _same(source: str) -> str:
    langchain_printed = _printed(source)
    assert _printed(_ported(source)) == langchain_printed
    return langchain_printed


# old_style_custom_llm_call_no_run_manager: a custom LLM asked for llm.dict() (what
# LangChain's models describe themselves by: identifying params and _type).
_LLM_DICT = """
from typing import Any, List, Mapping, Optional
from langchain_core.language_models.llms import LLM
from langchain_core.language_models import FakeListChatModel


class EchoLLM(LLM):
    n: int

    @property
    def _llm_type(self) -> str:
        return "echo"

    def _call(self, prompt: str, stop: Optional[List[str]] = None) -> str:
        return prompt[: self.n]

    @property
    def _identifying_params(self) -> Mapping[str, Any]:
        return {"n": self.n}


llm = EchoLLM(n=4)
print(llm.invoke("abcdefgh"), llm.dict(), llm.asdict())
print(FakeListChatModel(responses=["x"]).asdict())
"""


def test_a_models_dict_is_its_identifying_params_and_type_as_in_langchain() -> None:
    assert _same(_LLM_DICT) == (
        "abcd {'n': 4, '_type': 'echo'} {'n': 4, '_type': 'echo'}\n"
        "{'responses': ['x'], '_type': 'fake-list-chat-model'}\n"
    )


# agent_handler_tool_events_kwargs: a handler printing the **kwargs of on_tool_start saw
# name= before inputs= (LangChain: inputs, color, name, tool_call_id).
_TOOL_START_KWARGS = """
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tools import tool


class Printer(BaseCallbackHandler):
    def on_tool_start(self, serialized, input_str, metadata=None, **kwargs):
        print(sorted(serialized), input_str, [k for k in kwargs if k != "run_id"])
        print(kwargs["inputs"], kwargs["color"], kwargs["name"], kwargs["tool_call_id"])


@tool
def search(query: str) -> str:
    \"\"\"Search the catalogue.\"\"\"
    return "found " + query


print(search.invoke({"query": "posters"}, config={"callbacks": [Printer()]}))
call = {"type": "tool_call", "name": "search", "id": "c1", "args": {"query": "maps"}}
print(search.invoke(call, config={"callbacks": [Printer()], "run_name": "lookup"}).content)
"""


def test_tool_start_keywords_reach_a_handler_in_langchains_order() -> None:
    printed = _same(_TOOL_START_KWARGS)
    assert "['parent_run_id', 'tags', 'inputs', 'color', 'name', 'tool_call_id']" in printed
    assert "{'query': 'maps'} green lookup c1" in printed


# custom_document_loader_blob_parser: a BaseBlobParser yielding Documents of the lines of
# blob.as_bytes_io() (bytes); LangChain's pydantic field decodes UTF-8 bytes.
_BYTES_PAGE_CONTENT = """
from typing import Iterator
from langchain_core.document_loaders import BaseBlobParser, Blob
from langchain_core.documents import Document


class LineParser(BaseBlobParser):
    def lazy_parse(self, blob: Blob) -> Iterator[Document]:
        with blob.as_bytes_io() as f:
            for number, line in enumerate(f, 1):
                yield Document(page_content=line, metadata={"line": number})


print(list(LineParser().lazy_parse(Blob(data="caf\\u00e9 \\U0001f431\\nmeow".encode()))))
print(repr(Document(page_content=bytearray(b"raw")).page_content))
try:
    Document(page_content=b"\\xff\\xfe")
except ValueError:
    print("ValueError")
"""


def test_bytes_page_content_is_decoded_utf8_as_langchains_document_does() -> None:
    assert _same(_BYTES_PAGE_CONTENT) == (
        "[Document(metadata={'line': 1}, page_content='café 🐱\\n'), "
        "Document(metadata={'line': 2}, page_content='meow')]\n'raw'\nValueError\n"
    )


# custom_retriever_all_documents: print(retriever) of a BaseRetriever subclass gives
# pydantic's str (the fields set away from their defaults, whole, space-separated).
_RETRIEVER_STR = """
from typing import List
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever


class AllDocs(BaseRetriever):
    documents: List[Document]
    k: int = 3

    def _get_relevant_documents(self, query, *, run_manager):
        return self.documents[: self.k]


text = "Dogs are great companions, known for their loyalty and friendliness."
docs = [Document(page_content=text)]
print(AllDocs(documents=docs, k=2))
print(repr(AllDocs(documents=docs * 2, tags=["pets"])))
print(str(AllDocs(documents=[])))
"""


def test_a_retriever_subclass_prints_its_fields_whole_as_langchains() -> None:
    printed = _same(_RETRIEVER_STR)
    assert printed.startswith("documents=[Document(metadata={}, page_content='Dogs are great")
    assert "tags=['pets'], documents=" in printed


# transform_parser_stream_keywords: a parser subclass saying is_lc_serializable() True
# under its own get_lc_namespace() is written as a constructor entry.
_OWN_SERIALIZABLE = """
from typing import List
from langchain_core.load import dumps
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.retrievers import BaseRetriever


class KeywordParser(BaseTransformOutputParser):
    @classmethod
    def is_lc_serializable(cls) -> bool:
        return True

    @classmethod
    def get_lc_namespace(cls) -> List[str]:
        return ["my", "schema", "output_parser"]

    def parse(self, text: str) -> str:
        return "\\n" + text if text == "Then" else text


class Lookup(BaseRetriever):
    k: int = 3
    label: str
    hidden: str = ""

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return True

    @classmethod
    def get_lc_namespace(cls) -> List[str]:
        return ["my", "retrievers"]

    def _get_relevant_documents(self, query, *, run_manager):
        return []


print(KeywordParser().to_json())
print(dumps(KeywordParser()))
print(Lookup(label="x").to_json())
print(Lookup(k=0, label="y", tags=["t"]).to_json())
"""


def test_a_class_that_says_it_is_serializable_is_written_as_a_constructor() -> None:
    printed = _same(_OWN_SERIALIZABLE)
    assert printed.splitlines()[0] == (
        "{'lc': 1, 'type': 'constructor', 'id': ['my', 'schema', 'output_parser', "
        "'KeywordParser'], 'kwargs': {}, 'name': 'KeywordParser'}"
    )
    assert "'kwargs': {'k': 3, 'label': 'x'}" in printed
    assert "'kwargs': {'tags': ['t'], 'k': 0, 'label': 'y'}" in printed


# runnable_subclass_first_chain: class MyFirstChain(Runnable[int, str]): LangChain reads
# the input and output types from the type arguments; its repr is object's default.
_GENERIC_RUNNABLE = """
from typing import Optional
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda


class FirstChain(Runnable[int, str]):
    def invoke(self, input: int, config: Optional[RunnableConfig] = None) -> str:
        return f"Result = {input + 1}"


class Untyped(Runnable):
    def invoke(self, input, config=None):
        return input


chain = FirstChain()
print(chain.InputType, chain.OutputType)
print(chain.get_input_jsonschema(), chain.get_output_jsonschema())
print(repr(chain))
print(chain | RunnableLambda(str.upper))
print(repr(Untyped()))
"""


def test_a_runnables_type_arguments_give_its_types_and_it_prints_as_an_object() -> None:
    printed = re.sub(r"0x[0-9a-f]+", "0x", _printed(_GENERIC_RUNNABLE))
    assert re.sub(r"0x[0-9a-f]+", "0x", _printed(_ported(_GENERIC_RUNNABLE))) == printed
    assert printed.splitlines()[:3] == [
        "<class 'int'> <class 'str'>",
        "{'title': 'FirstChainInput', 'type': 'integer'} "
        "{'title': 'FirstChainOutput', 'type': 'string'}",
        "<__program__.FirstChain object at 0x>",
    ]


# colossalqa_chinese_text_splitter: a RecursiveCharacterTextSplitter subclass reads
# self._separators (LangChain keeps the strings) and sets its own after __init__.
_SEPARATOR_STRINGS = """
from langchain_text_splitters import RecursiveCharacterTextSplitter


class SentenceSplitter(RecursiveCharacterTextSplitter):
    def __init__(self, **kwargs):
        super().__init__(keep_separator=True, **kwargs)
        self._separators = ["。", "，", ""]

    def split_text(self, text):
        chunks = super().split_text(text)
        return [c for c in chunks if c[-1] not in self._separators] + ["|"] + chunks


splitter = SentenceSplitter(chunk_size=12, chunk_overlap=0)
print(splitter._separators, splitter._is_separator_regex)
print(splitter.split_text("移动端语音唤醒模型，检测关键词为小云小云。模型主体为四层结构，参数量很小。"))
regex = RecursiveCharacterTextSplitter(separators=["\\\\n\\\\n", "\\\\s"], is_separator_regex=True)
print(regex._separators)
"""


def test_the_recursive_splitters_separators_are_the_strings_subclasses_set() -> None:
    printed = _same(_SEPARATOR_STRINGS)
    assert printed.startswith("['。', '，', ''] False\n")


# custom_embedding_faiss_hash_index: FAISS(index=faiss.IndexFlatIP(d), ...) without a
# distance_strategy. LangChain keeps EUCLIDEAN_DISTANCE and maps the inner products as
# distances (the nearer document gets the lower relevance); ragline refuses the store
# (docs/differences-from-langchain.md, Vector stores).
class _TwoAxes:
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [0.6, 0.8]


def test_an_inner_product_index_under_the_euclidean_default_is_refused() -> None:
    import warnings

    import numpy as np
    import pytest

    faiss = pytest.importorskip("faiss")
    from langchain_community.docstore.in_memory import InMemoryDocstore as LcDocstore
    from langchain_community.vectorstores import FAISS as LcFAISS
    from langchain_core.documents import Document as LcDocument
    from langchain_core.embeddings import Embeddings as LcEmbeddings

    from ragline.core.exceptions import ConfigurationError
    from ragline.vectorstores import FAISS, InMemoryDocstore

    class LcTwoAxes(_TwoAxes, LcEmbeddings):
        pass

    store = LcFAISS(
        index=faiss.IndexFlatIP(2),
        docstore=LcDocstore({}),
        embedding_function=LcTwoAxes(),
        index_to_docstore_id={},
    )
    store.index.add(np.array([[1.0, 0.0], [0.0, 1.0]], dtype="float32"))
    store.docstore.add({"a": LcDocument(page_content="x"), "b": LcDocument(page_content="y")})
    store.index_to_docstore_id.update({0: "a", 1: "b"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        relevance = {
            doc.page_content: round(float(score), 3)
            for doc, score in store.similarity_search_with_relevance_scores("q", k=2)
        }
    assert relevance == {"y": 0.434, "x": 0.576}  # y is the nearer (inner product 0.8)

    with pytest.raises(ConfigurationError, match="distance_strategy=MAX_INNER_PRODUCT"):
        FAISS(
            index=faiss.IndexFlatIP(2),
            docstore=InMemoryDocstore({}),
            embedding_function=_TwoAxes(),
            index_to_docstore_id={},
        )
    assert issubclass(ConfigurationError, ValueError)
