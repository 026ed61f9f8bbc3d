"""The seeds' conversation snippets (000 §2 and §5, 001 §3, 003 "Memory (For Legacy
Chain vs For LCEL)" and example 7, 004 "Chain模块" and "Memory") run here with only their
imports changed: ``OpenAI`` / ``ChatOpenAI`` become ragline's ``ChatOpenAI`` talking to
the local OpenAI-protocol server (tests/_openai_server.py, picked up from
``OPENAI_BASE_URL``), and Redis is the Redis Stack the tests start. Each test then checks
what the snippet did: the exact requests the model received and what was stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Dict, List, Optional, Tuple  # noqa: UP035 - as the seeds write them

import pytest
from _openai_server import CHAT_PATH, OpenAITestServer, Reply, chat_completion

pytestmark = pytest.mark.network


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAITestServer]:
    """The local server, configured the way ChatOpenAI reads it (environment)."""
    with OpenAITestServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        yield server


def _replies(server: OpenAITestServer, *texts: str) -> None:
    server.enqueue(CHAT_PATH, *(Reply(body=chat_completion(text)) for text in texts))


def _sent(server: OpenAITestServer) -> list[dict[str, Any]]:
    return [request.body for request in server.requests_to(CHAT_PATH)]


# ---------------------------------------------------------------- seed 004, Chain模块


def test_seed_004_llm_chain(
    openai_env: OpenAITestServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragline.chains import LLMChain
    from ragline.chat_models import ChatOpenAI as OpenAI
    from ragline.core import PromptTemplate

    _replies(openai_env, "The weather is really nice today.")
    # --- the seed, unchanged below its imports
    llm = OpenAI(temperature=0.9)
    prompt = PromptTemplate.from_template("将下面的句子翻译成英文：{sentence}")
    llm_chain = LLMChain(llm=llm, prompt=prompt)
    result = llm_chain("今天的天气真不错")
    print(result["text"])
    # ---
    assert capsys.readouterr().out == "The weather is really nice today.\n"
    assert llm_chain.input_keys == ["sentence"] and llm_chain.output_keys == ["text"]
    (body,) = _sent(openai_env)
    assert body["temperature"] == 0.9
    assert body["messages"] == [
        {"role": "user", "content": "将下面的句子翻译成英文：今天的天气真不错"}
    ]


def test_seed_004_retrieval_qa(openai_env: OpenAITestServer) -> None:
    from ragline.chains import RetrievalQA
    from ragline.chat_models import ChatOpenAI as OpenAI
    from ragline.embeddings import HashingEmbeddings
    from ragline.vectorstores import FAISS

    pytest.importorskip("faiss")
    _replies(openai_env, "Several times a year.")

    class App:
        def __init__(self) -> None:
            self.vector_db = FAISS.from_texts(
                ["Etna erupts several times a year.", "Sourdough needs a starter."],
                HashingEmbeddings(dimension=256),
            )

        def ask(self, query: str) -> Any:
            # --- the seed
            qa = RetrievalQA.from_chain_type(
                llm=OpenAI(), chain_type="stuff", retriever=self.vector_db.as_retriever()
            )
            answer = qa(query)
            # ---
            return answer

    answer = App().ask("How often does Etna erupt?")
    assert answer == {"query": "How often does Etna erupt?", "result": "Several times a year."}
    (body,) = _sent(openai_env)
    assert "Etna erupts several times a year." in body["messages"][0]["content"]
    assert body["messages"][-1] == {"role": "user", "content": "How often does Etna erupt?"}


# ---------------------------------------------------------------- seed 003, Memory


def test_seed_003_legacy_memory_with_conversation_chain(
    openai_env: OpenAITestServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragline.chains import ConversationChain
    from ragline.chat_models import ChatOpenAI as OpenAI
    from ragline.memory import ConversationBufferWindowMemory

    _replies(openai_env, "Not much.", "They are late.", "Yes.", "Hire more people.")
    # --- the seed
    conversation_with_summary = ConversationChain(
        llm=OpenAI(temperature=0),
        # We set a low k=2, to only keep the last 2 interactions in memory
        memory=ConversationBufferWindowMemory(k=2),
        verbose=True,
    )
    conversation_with_summary.predict(input="Hi, what's up?")
    conversation_with_summary.predict(input="What's their issues?")
    conversation_with_summary.predict(input="Is it going well?")
    conversation_with_summary.predict(input="What's the solution?")
    # ---
    last_prompt = _sent(openai_env)[3]["messages"][0]["content"]
    assert last_prompt.endswith(
        "Human: What's their issues?\nAI: They are late.\n"
        "Human: Is it going well?\nAI: Yes.\n"
        "Human: What's the solution?\nAI:"
    )
    assert "Hi, what's up?" not in last_prompt  # k=2: the first exchange is not loaded
    printed = capsys.readouterr().out
    assert printed.count("> Entering new ConversationChain chain...") == 4
    assert printed.count("Prompt after formatting:") == 4


def test_seed_003_example_7_redis_history(openai_env: OpenAITestServer, redis_url: str) -> None:
    """Example 7 (LCEL memory on Redis), then the seed's raw-Redis look at what is stored."""
    from ragline.chat_models import ChatOpenAI
    from ragline.core import (
        BaseChatMessageHistory,  # noqa: F401 - imported by the seed
        ChatPromptTemplate,
        MessagesPlaceholder,
        RunnableWithMessageHistory,
    )
    from ragline.memory import RedisChatMessageHistory

    REDIS_URL = redis_url
    _replies(openai_env, "Cosine is a trigonometric function.", "Arccosine.")
    # --- the seed
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You're an assistant who's good at {ability}"),
            MessagesPlaceholder(variable_name="history"),
            ("human", "{question}"),
        ]
    )

    chain = prompt | ChatOpenAI()

    chain_with_history = RunnableWithMessageHistory(
        chain,
        lambda session_id: RedisChatMessageHistory(session_id, url=REDIS_URL, ttl=600),
        input_messages_key="question",
        history_messages_key="history",
    )

    chain_with_history.invoke(
        {"ability": "math", "question": "What does cosine mean?"},
        config={"configurable": {"session_id": "foobar"}},
    )

    chain_with_history.invoke(
        {"ability": "math", "question": "What's its inverse"},
        config={"configurable": {"session_id": "foobar"}},
    )
    # ---
    second = _sent(openai_env)[1]["messages"]
    assert second == [
        {"role": "system", "content": "You're an assistant who's good at math"},
        {"role": "user", "content": "What does cosine mean?"},
        {"role": "assistant", "content": "Cosine is a trigonometric function."},
        {"role": "user", "content": "What's its inverse"},
    ]

    import redis

    from ragline.core import AIMessage, HumanMessage, message_to_dict, messages_from_dict

    # --- the seed's look at the Redis side (lpush / lrange, newest first)
    redis_client = redis.from_url(url=REDIS_URL)

    prefix = "message_store:"
    session_id = "foobar"

    _items = redis_client.lrange(prefix + session_id, 0, -1)
    items = [json.loads(m.decode("utf-8")) for m in _items[::-1]]
    messages = messages_from_dict(items)
    # ---
    assert [(type(m), m.text) for m in messages] == [
        (HumanMessage, "What does cosine mean?"),
        (AIMessage, "Cosine is a trigonometric function."),
        (HumanMessage, "What's its inverse"),
        (AIMessage, "Arccosine."),
    ]
    assert messages[1].usage_metadata == {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
    assert 0 < redis_client.ttl(prefix + session_id) <= 600
    # --- the seed appending by hand: the history reads it
    message = HumanMessage(content="What does cosine mean?")
    redis_client.lpush(prefix + session_id, json.dumps(message_to_dict(message)))
    # ---
    assert chain_with_history.get_session_history("foobar").messages[-1] == message
    redis_client.delete(prefix + session_id)


def test_seed_003_lcel_memory_with_chat_message_history() -> None:
    """The 与 LCEL 兼容 snippet (ChatMessageHistory instead of Redis)."""
    from ragline.core import (
        ChatMessageHistory,
        ChatPromptTemplate,
        FakeListChatModel,
        MessagesPlaceholder,
        RunnableWithMessageHistory,
    )

    runnable = ChatPromptTemplate.from_messages(
        [MessagesPlaceholder("chat_history"), ("human", "{input}")]
    ) | FakeListChatModel(responses=["first", "second"])
    # --- the seed
    message_history = ChatMessageHistory()
    runnable_with_chat_history = RunnableWithMessageHistory(
        runnable,
        lambda session_id: message_history,
        input_messages_key="input",
        history_messages_key="chat_history",
    )
    # ---
    config = {"configurable": {"session_id": "s"}}
    runnable_with_chat_history.invoke({"input": "a"}, config)
    runnable_with_chat_history.invoke({"input": "b"}, config)
    assert [m.text for m in message_history.messages] == ["a", "first", "b", "second"]


# ---------------------------------------------------------------- seed 000 §2, 001 §3: Chain


def test_seed_000_llm_chain_written_as_a_chain_subclass() -> None:
    """Seed 000 §2.3's LLMChain body as a user's Chain subclass: annotated fields,
    Field(default_factory=...), _call -> generate -> prep_prompts with run_manager.on_text,
    llm.generate_prompt(prompts, stop, callbacks=run_manager.get_child())."""
    from ragline.chains import RUN_KEY, Chain
    from ragline.core import (
        BaseLanguageModel,
        BaseOutputParser,
        BasePromptTemplate,
        FakeListLLM,
        Field,
        LLMResult,
        PromptTemplate,
        PromptValue,
        RunCollectorCallbackHandler,
        StrOutputParser,
    )
    from ragline.core.callbacks import BaseCallbackHandler, CallbackManagerForChainRun

    class SeedLLMChain(Chain):
        prompt: BasePromptTemplate
        llm: BaseLanguageModel
        output_parser: BaseOutputParser = Field(default_factory=StrOutputParser)
        llm_kwargs: dict = Field(default_factory=dict)

        @property
        def input_keys(self) -> List[str]:  # noqa: UP006
            return self.prompt.input_variables

        @property
        def output_keys(self) -> List[str]:  # noqa: UP006
            return ["text"]

        def create_outputs(self, response: LLMResult) -> List[Dict[str, Any]]:  # noqa: UP006
            return [{"text": self.output_parser.parse(g[0].text)} for g in response.generations]

        # --- the seed's methods, unchanged
        def _call(
            self,
            inputs: Dict[str, Any],  # noqa: UP006
            run_manager: Optional[CallbackManagerForChainRun] = None,  # noqa: UP045
        ) -> Dict[str, Any]:  # noqa: UP006
            # 1. 格式化 Prompt
            response = self.generate([inputs], run_manager=run_manager)
            return self.create_outputs(response)[0]

        def generate(
            self,
            input_list: List[Dict[str, Any]],  # noqa: UP006
            run_manager: Optional[CallbackManagerForChainRun] = None,  # noqa: UP045
        ) -> LLMResult:
            """批量生成 - 核心实现"""

            # 1. 构建 Prompt 列表
            prompts, stop = self.prep_prompts(input_list, run_manager=run_manager)

            # 2. 调用 LLM
            response = self.llm.generate_prompt(
                prompts,
                stop,
                callbacks=run_manager.get_child() if run_manager else None,
                **self.llm_kwargs,
            )

            return response

        def prep_prompts(
            self,
            input_list: List[Dict[str, Any]],  # noqa: UP006
            run_manager: Optional[CallbackManagerForChainRun] = None,  # noqa: UP045
        ) -> Tuple[List[PromptValue], Optional[List[str]]]:  # noqa: UP006, UP045
            """准备 Prompt 列表"""
            stop = None
            if "stop" in input_list[0]:
                stop = input_list[0]["stop"]

            prompts = []
            for inputs in input_list:
                selected_inputs = {k: inputs[k] for k in self.prompt.input_variables}
                prompt = self.prompt.format_prompt(**selected_inputs)

                # 记录 Prompt 格式化过程
                if run_manager:
                    run_manager.on_text(prompt.to_string(), verbose=self.verbose)

                prompts.append(prompt)

            return prompts, stop

        # ---

    llm = FakeListLLM(responses=["Bonjour"])
    chain = SeedLLMChain(llm=llm, prompt=PromptTemplate.from_template("Translate: {text}"))
    collector, texts = RunCollectorCallbackHandler(), []

    class Texts(BaseCallbackHandler):  # a run record keeps no text, as LangChain's
        def on_text(self, text: str, **kwargs: Any) -> None:
            texts.append(text)

    # seed 001 §3.3: invoke(input, config, include_run_info=..., return_only_outputs=...)
    result = chain.invoke(
        {"text": "Hello", "stop": ["."]},
        {"callbacks": [collector, Texts()]},
        include_run_info=True,
        return_only_outputs=True,
    )
    assert result["text"] == "Bonjour"
    assert result[RUN_KEY].run_id == collector.traced_runs[0].id
    assert collector.traced_runs[0].tree() == ("SeedLLMChain", [("FakeListLLM", [])])
    assert texts == ["Translate: Hello"]
    assert llm.stops == [["."]]


def test_seed_000_sequential_chain_written_as_a_chain_subclass() -> None:
    """Seed 000 §2.4's SequentialChain._call, unchanged, in a user's subclass:
    run_manager.get_child(f"step_{i}"), chain(..., callbacks=..., include_run_info=True)."""
    from ragline.chains import Chain, LLMChain
    from ragline.core import FakeListLLM, PromptTemplate, RunCollectorCallbackHandler
    from ragline.core.callbacks import CallbackManagerForChainRun

    class SeedSequentialChain(Chain):
        chains: List[Chain]  # noqa: UP006
        input_variables: List[str]  # noqa: UP006
        output_variables: List[str]  # noqa: UP006
        return_all: bool = False

        @property
        def input_keys(self) -> List[str]:  # noqa: UP006
            return self.input_variables

        @property
        def output_keys(self) -> List[str]:  # noqa: UP006
            return self.output_variables

        # --- the seed's _call, unchanged
        def _call(
            self,
            inputs: Dict[str, Any],  # noqa: UP006
            run_manager: Optional[CallbackManagerForChainRun] = None,  # noqa: UP045
        ) -> Dict[str, Any]:  # noqa: UP006
            known_values = inputs.copy()

            # 逐个执行子链
            for i, chain in enumerate(self.chains):
                # 提取当前链需要的输入
                chain_inputs = {k: known_values[k] for k in chain.input_keys if k in known_values}

                # 执行子链
                if run_manager:
                    child_manager = run_manager.get_child(f"step_{i}")
                    outputs = chain(
                        chain_inputs, callbacks=child_manager.handlers, include_run_info=True
                    )
                else:
                    outputs = chain(chain_inputs, return_only_outputs=True)

                # 更新已知值
                known_values.update(outputs)

            # 返回指定的输出变量
            if self.return_all:
                return known_values
            else:
                return {k: known_values[k] for k in self.output_variables}

        # ---

    first = LLMChain(
        llm=FakeListLLM(responses=["A"]), prompt=PromptTemplate.from_template("{x}"), output_key="y"
    )
    second = LLMChain(
        llm=FakeListLLM(responses=["B"]), prompt=PromptTemplate.from_template("{y}"), output_key="z"
    )
    chain = SeedSequentialChain(
        chains=[first, second], input_variables=["x"], output_variables=["y", "z"]
    )
    collector = RunCollectorCallbackHandler()
    assert chain({"x": "go"}, callbacks=[collector]) == {"x": "go", "y": "A", "z": "B"}
    (root,) = collector.traced_runs
    assert [child.name for child in root.children] == ["LLMChain", "LLMChain"]
    assert second.llm.calls == ["A"]


# ---------------------------------------------------------------- seed 000 §5, 004 Memory


def test_seed_000_memory_interfaces() -> None:
    """§5.1-5.2: memory_variables / load_memory_variables / save_context / clear, and the
    buffer as a transcript or as messages."""
    from ragline.core import AIMessage, HumanMessage
    from ragline.memory import BaseMemory, ConversationBufferMemory

    memory = ConversationBufferMemory()
    assert isinstance(memory, BaseMemory)
    memory.save_context({"input": "hi"}, {"output": "whats up"})
    assert memory.memory_variables == ["history"]
    assert memory.load_memory_variables({}) == {"history": "Human: hi\nAI: whats up"}
    memory.return_messages = True
    assert memory.buffer == [HumanMessage("hi"), AIMessage("whats up")]
    memory.clear()
    assert memory.buffer == []


def test_seed_004_conversation_chain_prompt_shape() -> None:
    """Seed 004 prints conversation.prompt.template: {history} then Human: {input}, AI:."""
    from ragline.chains import ConversationChain
    from ragline.core import FakeListLLM

    conversation = ConversationChain(llm=FakeListLLM(responses=["x"]))
    assert conversation.prompt.input_variables == ["history", "input"]
    assert conversation.prompt.template.endswith("{history}\nHuman: {input}\nAI:")
