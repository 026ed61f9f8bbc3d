"""The seeds' agent snippets, run with only their imports changed (and a scripted model).

Seed 004 "Agent": ``initialize_agent(tools, llm, agent="zero-shot-react-description",
verbose=True)`` with WeatherTool and a calculator, answering the seed's question with the
seed's printed transcript; the prompts sent to the model are the seed's request bodies.
Seed 003: a retriever as a tool ("fake tool") under ``create_react_agent`` +
``AgentExecutor``, and the agent invoked directly with ``intermediate_steps``; and
seed 003's LangSmith example (a ReAct agent searching a FAISS store of real text).
"""

from __future__ import annotations

from typing import List  # noqa: UP035 - the seed's spelling

import pytest

from ragline.agents import REACT_PROMPT, AgentExecutor, create_react_agent, initialize_agent
from ragline.core import AgentFinish, BaseRetriever, Document, FakeListLLM
from ragline.tools import BaseTool, create_retriever_tool
from tests.tools.test_seed_tools import WeatherTool  # seed 004's, as written there

QUESTION = "Query the weather of this week,And How old will I be in ten years? This year I am 28"


# 计算工具，暂且写死返回3
class CalculatorTool(BaseTool):
    name = "Calculator"
    description = "Useful for when you need to answer questions about math."

    def _run(self, query: str) -> str:
        return "3"

    async def _arun(self, query: str) -> str:
        raise NotImplementedError("BingSearchRun does not support async")


# What OpenAI answered in the seed (each reply as the API returns it, cut at the stop
# sequence; the fake answers whole, as LangChain's does, and records the stop).
SEED_REPLIES = [
    " I need to use two different tools to answer this question\nAction: Weather\n"
    "Action Input: This week",
    " I need to use a calculator to answer the second part of the question\n"
    "Action: Calculator\nAction Input: 28 + 10",
    " I now know the final answer\n"
    "Final Answer: This week will be sunny and in ten years I will be 38.",
]

SEED_PROMPT_HEAD = """Answer the following questions as best you can. You have access to the following tools:

Calculator: Useful for when you need to answer questions about math.
Weather: useful for When you want to know about the weather

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [Calculator, Weather]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: Query the weather of this week,And How old will I be in ten years? This year I am 28
Thought:"""  # noqa: E501


def test_seed_004_initialize_agent_runs_the_seeds_transcript(capsys):
    llm = FakeListLLM(responses=SEED_REPLIES)  # the seed: OpenAI(temperature=0)
    tools = [CalculatorTool(), WeatherTool()]
    agent = initialize_agent(tools, llm, agent="zero-shot-react-description", verbose=True)
    answer = agent.run(QUESTION)

    assert answer == "This week will be sunny and in ten years I will be 38."
    assert capsys.readouterr().out == (
        # bold chain lines, the agent's thoughts in green, each tool's answer in the
        # tool's colour (Calculator blue, Weather yellow), as LangChain prints them
        "\n\n\x1b[1m> Entering new AgentExecutor chain...\x1b[0m\n"
        "\x1b[32;1m\x1b[1;3m I need to use two different tools to answer this question\n"
        "Action: Weather\n"
        "Action Input: This week\x1b[0m\n"
        "Observation: \x1b[33;1m\x1b[1;3mSunny^_^\x1b[0m\n"
        "Thought:\x1b[32;1m\x1b[1;3m I need to use a calculator to answer the second part of "
        "the question\n"
        "Action: Calculator\n"
        "Action Input: 28 + 10\x1b[0m\n"
        "Observation: \x1b[36;1m\x1b[1;3m3\x1b[0m\n"
        "Thought:\x1b[32;1m\x1b[1;3m I now know the final answer\n"
        "Final Answer: This week will be sunny and in ten years I will be 38.\x1b[0m\n"
        "\n\x1b[1m> Finished chain.\x1b[0m\n"
    )
    # the three request bodies of the seed
    assert llm.calls[0] == SEED_PROMPT_HEAD
    assert llm.calls[2] == SEED_PROMPT_HEAD + (
        " I need to use two different tools to answer this question\n"
        "Action: Weather\n"
        "Action Input: This week\n"
        "Observation: Sunny^_^\n"
        "Thought: I need to use a calculator to answer the second part of the question\n"
        "Action: Calculator\n"
        "Action Input: 28 + 10\n"
        "Observation: 3\n"
        "Thought:"
    )
    assert llm.stops == [["\nObservation:", "\n\tObservation:"]] * 3


def test_agent_type_members_build_the_same_agents_as_their_names():
    from ragline.agents import AgentType

    for kind in (AgentType.ZERO_SHOT_REACT_DESCRIPTION, AgentType.CHAT_ZERO_SHOT_REACT_DESCRIPTION):
        llm = FakeListLLM(responses=SEED_REPLIES)
        executor = initialize_agent([CalculatorTool(), WeatherTool()], llm, agent=kind)
        assert executor.run(QUESTION) == "This week will be sunny and in ten years I will be 38."
        assert llm.calls[0] == SEED_PROMPT_HEAD


def test_seed_004_generate_writes_a_final_answer_when_stopped():
    llm = FakeListLLM(responses=[SEED_REPLIES[0], " I now know.\nFinal Answer: sunny"])
    agent = initialize_agent([CalculatorTool(), WeatherTool()], llm, max_iterations=1,
                             early_stopping_method="generate")  # fmt: skip
    assert agent.run(QUESTION) == "sunny"
    assert llm.calls[1].endswith(
        "Observation: Sunny^_^\nThought:"
        "\n\nI now need to return a final answer based on the previous steps:"
    )


def test_initialize_agent_refuses_what_it_cannot_build():
    from ragline.core import ConfigurationError, InvalidInputError
    from ragline.tools import tool

    with pytest.raises(ConfigurationError, match="agent type 'self-ask-with-search' is not"):
        initialize_agent(
            [WeatherTool()], FakeListLLM(responses=["x"]), agent="self-ask-with-search"
        )

    @tool
    def two(a: str, b: str) -> str:
        """Two inputs."""
        return a + b

    with pytest.raises(InvalidInputError, match="ZeroShotAgent does not support multi-input tool"):
        initialize_agent([two], FakeListLLM(responses=["x"]))


# ------------------------------------------------------------------ seed 003


class FixedReturnRetriever(BaseRetriever):
    """The seed's retriever (its constructor written out; ragline retrievers declare
    their options in ``__init__``)."""

    def __init__(self, fixed_return_documents: List[str]) -> None:  # noqa: UP006
        self.fixed_return_documents = fixed_return_documents

    def _get_relevant_documents(self, query: str) -> List[Document]:  # noqa: UP006
        return [Document(page_content=doc) for doc in self.fixed_return_documents]


def test_seed_003_fake_react_agent_with_a_retriever_tool(capsys):
    fake_llm = FakeListLLM(responses=["Final Answer: xxx"])  # the seed's FixedReturnLLM
    fake_retriever = FixedReturnRetriever(fixed_return_documents=["foobar"])
    assert fake_retriever.invoke("bar") == [Document(page_content="foobar")]
    fake_retriever_tool = create_retriever_tool(
        fake_retriever,
        "fake tool",
        "This is fake tool's description",
    )
    fake_tools = [fake_retriever_tool]

    prompt = REACT_PROMPT  # hub.pull("hwchase17/react")
    fake_agent = create_react_agent(fake_llm, fake_tools, prompt)
    fake_agent_executor = AgentExecutor(agent=fake_agent, tools=fake_tools, verbose=True)

    assert fake_agent_executor.invoke({"input": "x"}) == {"input": "x", "output": "xxx"}
    assert capsys.readouterr().out == (
        "\n\n\x1b[1m> Entering new AgentExecutor chain...\x1b[0m\n"
        "\x1b[32;1m\x1b[1;3mFinal Answer: xxx\x1b[0m\n"
        "\n\x1b[1m> Finished chain.\x1b[0m\n"
    )
    # 直接对 agent 调用
    assert fake_agent.invoke({"input": "x", "intermediate_steps": []}) == AgentFinish(
        return_values={"output": "xxx"}, log="Final Answer: xxx"
    )


def test_seed_003_react_agent_searches_a_faiss_store():
    pytest.importorskip("faiss")
    from ragline.embeddings import HashingEmbeddings
    from ragline.splitters import RecursiveCharacterTextSplitter
    from ragline.vectorstores import FAISS

    docs = [
        Document("LangChain is a framework for developing applications powered by language "
                 "models.", metadata={"source": "intro"}),
        Document("Sourdough bread rises with wild yeast.", metadata={"source": "bread"}),
    ]  # fmt: skip
    documents = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(
        docs
    )
    vector = FAISS.from_documents(documents, HashingEmbeddings(dimension=64))
    retriever = vector.as_retriever(search_kwargs={"k": 1})

    retriever_tool = create_retriever_tool(
        retriever,
        "langchain_search",
        "Search for information about LangChain. For any questions about LangChain, you must "
        "use this tool!",
    )
    tools = [retriever_tool]
    llm = FakeListLLM(responses=[
        " LangChain is likely a company or project, so the best approach would be to use a "
        "search tool to find more information.\nAction: langchain_search\n"
        "Action Input: LangChain is a framework for developing applications",
        " I now have a better understanding.\nFinal Answer: LangChain is a framework.",
    ])  # fmt: skip
    agent = create_react_agent(llm, tools, REACT_PROMPT)
    agent_executor = AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)

    result = agent_executor.invoke({"input": "what is LangChain?"})
    assert result["output"] == "LangChain is a framework."
    ((action, observation),) = result["intermediate_steps"]
    assert action.tool == "langchain_search"
    assert observation == docs[0].page_content
    assert f"Observation: {docs[0].page_content}\nThought: " in llm.calls[1]
