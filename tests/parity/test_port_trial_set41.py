"""Parity: differences found by the forty-first port trial (issue 24; non-English
programs), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from pathlib import Path

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# rudaks_structured_output_parser_ko: prompt | model | StructuredOutputParser streamed.
# LangChain's StructuredOutputParser is a plain BaseOutputParser: a stream yields the
# parsed reply once, at the end; ragline's streamed every partial object on the way.
_STRUCTURED_STREAM = """
import asyncio
from langchain_classic.output_parsers import ResponseSchema, StructuredOutputParser
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import PromptTemplate

parser = StructuredOutputParser.from_response_schemas([
    ResponseSchema(name="답", description="질문에 대한 답변"),
    ResponseSchema(name="출처", description="답변의 출처"),
])
reply = '```json\\n{"답": "서울", "출처": "교과서"}\\n```'
model = FakeListChatModel(responses=[reply])
chain = PromptTemplate.from_template("{q}") | model | parser
for piece in chain.stream({"q": "한국의 수도는?"}):
    print("stream", piece)


async def main():
    async for piece in chain.astream({"q": "한국의 수도는?"}):
        print("astream", piece)


asyncio.run(main())
print(list(parser.transform(iter(['{"답": "부', '산", "출처": "지도"}']))))
"""


def test_a_structured_output_parser_streams_the_parsed_reply_once() -> None:
    langchain_printed = _printed(_STRUCTURED_STREAM)
    assert langchain_printed == (
        "stream {'답': '서울', '출처': '교과서'}\n"
        "astream {'답': '서울', '출처': '교과서'}\n"
        "[{'답': '부산', '출처': '지도'}]\n"
    )
    assert _printed(_ported(_STRUCTURED_STREAM)) == langchain_printed


# chatchat_chinese_recursive_splitter: Langchain-Chatchat's ChineseRecursiveTextSplitter
# subclasses RecursiveCharacterTextSplitter and overrides _split_text(text, separators)
# (regex separators kept at the END of each sentence, pieces merged with _merge_splits).
# ragline's split_text never called the override: the chunks were the base class's, with
# each '。' moved to the start of the next chunk.
_CHINESE_RECURSIVE_SPLITTER = """
import re
from langchain_text_splitters import RecursiveCharacterTextSplitter


def cut_keeping_ends(text, separator):
    parts = re.split(f"({separator})", text)
    pieces = ["".join(pair) for pair in zip(parts[0::2], parts[1::2])]
    if len(parts) % 2 == 1:
        pieces += parts[-1:]
    return [p for p in pieces if p != ""]


class SentenceSplitter(RecursiveCharacterTextSplitter):
    def __init__(self, **kwargs):
        super().__init__(keep_separator=True, **kwargs)
        self._separators = ["\\n\\n", "\\n", "。|！|？", "；|;\\\\s", "，|,\\\\s"]
        self._is_separator_regex = True

    def _split_text(self, text, separators):
        chunks = []
        separator = separators[-1]
        rest = []
        for i, candidate in enumerate(separators):
            if re.search(candidate, text):
                separator, rest = candidate, separators[i + 1:]
                break
        fitting = []
        for piece in cut_keeping_ends(text, separator):
            if self._length_function(piece) < self._chunk_size:
                fitting.append(piece)
                continue
            if fitting:
                chunks.extend(self._merge_splits(fitting, ""))
                fitting = []
            chunks.extend(self._split_text(piece, rest) if rest else [piece])
        if fitting:
            chunks.extend(self._merge_splits(fitting, ""))
        return [c.strip() for c in chunks if c.strip()]


class Tail(RecursiveCharacterTextSplitter):
    def _split_text(self, text, separators):
        return [chunk + "|" for chunk in super()._split_text(text, separators)]


text = ("前10个月，一般贸易进出口19.5万亿元，增长25.1%；占进出口总额的61.7%。"
        "加工贸易进出口6.8万亿元！服务贸易继续保持快速增长态势？是的，增长11.6%。")
splitter = SentenceSplitter(chunk_size=20, chunk_overlap=0)
for chunk in splitter.split_text(text):
    print(repr(chunk))
for doc in splitter.create_documents([text[:40]], metadatas=[{"来源": "报告.txt"}]):
    print(doc.metadata, doc.page_content)
starts = SentenceSplitter(chunk_size=20, chunk_overlap=0, add_start_index=True)
print([d.metadata["start_index"] for d in starts.create_documents([text])])
print(Tail(separators=["。"], chunk_size=40, chunk_overlap=0).split_text(text[:45]))
"""


def test_a_recursive_splitter_subclass_overriding_split_text_is_called() -> None:
    langchain_printed = _printed(_CHINESE_RECURSIVE_SPLITTER)
    assert langchain_printed.startswith(
        "'前10个月，'\n'一般贸易进出口19.5万亿元，'\n'增长25.1%；'\n"
    )
    assert "'占进出口总额的61.7%。'" in langchain_printed
    assert langchain_printed.count("\n") == 13
    assert _printed(_ported(_CHINESE_RECURSIVE_SPLITTER)) == langchain_printed


# hoyan_loaders_utf8_gbk_csv_json: JSONLoader(content_key='.title + "\t" + .content',
# is_content_key_jq_parsable=True), a jq expression outside ragline's path subset: ragline
# refused it when the loader was built. LangChain's JSONLoader needs the jq package, so a
# ported program has it, and ragline now runs such an expression with it.
_JQ_EXPRESSION = """
import json
from langchain_community.document_loaders import JSONLoader

with open("response.json", "w", encoding="utf-8") as f:
    json.dump({"data": {"items": [
        {"title": "大模型入门", "content": "介绍Transformer结构", "tags": ["a", "b"]},
        {"title": "向量数据库", "content": "FAISS与Milvus对比", "tags": ["c"]},
    ]}}, f, ensure_ascii=False)

loader = JSONLoader(
    file_path="response.json",
    jq_schema=".data.items[]",
    content_key='.title + "\\\\t" + .content',
    is_content_key_jq_parsable=True,
)
for doc in loader.load():
    print(repr(doc.page_content), doc.metadata["seq_num"])
picked = JSONLoader("response.json", '.data.items[] | select(.title == "向量数据库") | .content')
print([doc.page_content for doc in picked.load()])
first = JSONLoader("response.json", ".data.items[]", content_key=".tags[] | ascii_upcase",
                   is_content_key_jq_parsable=True)
print([doc.page_content for doc in first.load()])
"""


def test_a_json_loader_runs_a_jq_expression_outside_the_path_subset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("jq")
    monkeypatch.chdir(tmp_path)
    langchain_printed = _printed(_JQ_EXPRESSION)
    assert langchain_printed == (
        "'大模型入门\\t介绍Transformer结构' 1\n"
        "'向量数据库\\tFAISS与Milvus对比' 2\n"
        "['FAISS与Milvus对比']\n"
        "['A', 'C']\n"
    )
    assert _printed(_ported(_JQ_EXPRESSION)) == langchain_printed


# hoyan_faiss_retriever_strategies_cn: an MMR retriever with search_kwargs={"fetch_k": 2}
# and the default k=4. LangChain's stores pick from the fetch_k candidates and return
# those 2; ragline refused fetch_k < k. It now returns what LangChain returns, with a
# UserWarning naming both numbers (stderr: the program's output is the same).
_MMR_FETCH_K_BELOW_K = """
from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore

texts = ["猫はかわいい", "犬は忠実だ", "鳥は空を飛ぶ", "魚は泳ぐ", "馬は速い", "牛は草を食べる"]
embeddings = DeterministicFakeEmbedding(size=16)
stores = [FAISS.from_texts(texts, embeddings), InMemoryVectorStore.from_texts(texts, embeddings)]
for store in stores:
    retriever = store.as_retriever(search_type="mmr", search_kwargs={"fetch_k": 2})
    print([d.page_content for d in retriever.invoke("犬")])
    print([d.page_content for d in store.max_marginal_relevance_search("猫", k=3, fetch_k=2)])
    print(len(store.max_marginal_relevance_search("猫", k=2, fetch_k=5)))
"""


def test_mmr_with_fetch_k_below_k_returns_the_fetch_k_candidates() -> None:
    langchain_printed = _printed(_MMR_FETCH_K_BELOW_K)
    lines = langchain_printed.splitlines()
    assert len(lines) == 6
    assert [len(eval(line)) for line in (lines[0], lines[1], lines[3], lines[4])] == [2, 2, 2, 2]
    assert lines[2] == lines[5] == "2"
    assert _printed(_ported(_MMR_FETCH_K_BELOW_K)) == langchain_printed


def test_mmr_with_fetch_k_below_k_warns_at_the_users_line() -> None:
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore.from_texts(["a", "b", "c"], DeterministicFakeEmbedding(size=8))
    with pytest.warns(UserWarning, match=r"fetch_k \(2\) is below k \(3\)") as caught:
        found = store.max_marginal_relevance_search("a", k=3, fetch_k=2)
    assert len(found) == 2
    assert caught[0].filename == __file__
    with pytest.warns(UserWarning, match=r"fetch_k \(1\) is below k \(4\)") as caught:
        retriever = store.as_retriever(search_type="mmr", search_kwargs={"fetch_k": 1})
    assert caught[0].filename == __file__
    assert len(retriever.invoke("a")) == 1
