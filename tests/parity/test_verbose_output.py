"""Parity: what ``verbose=True`` prints, byte for byte, against LangChain's.

A program that sets ``verbose=True`` on a legacy chain or an agent executor prints its
runs through ``StdOutCallbackHandler``: bold ``> Entering new ... chain...`` and
``> Finished chain.`` lines after blank lines, the formatted prompt in green, each step
of a sequence in its own colour, an agent's thoughts in green and each tool's
observation in the tool's colour. Each scenario runs the same program on LangChain's
classes and on ragline's, with scripted fake models, and compares the captured stdout.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_classic import agents as lc_agents
from langchain_classic import chains as lc_chains
from langchain_core import callbacks as lc_callbacks
from langchain_core import language_models as lc_models
from langchain_core import prompts as lc_prompts
from langchain_core import tools as lc_tools

from ragline import agents, chains, core, tools
from ragline.core import callbacks as rl_callbacks

COVERS: set[str] = set()  # the printing classes are listed by their own parity modules

LIBRARIES = {
    "langchain": {
        "agents": lc_agents,
        "chains": lc_chains,
        "callbacks": lc_callbacks,
        "FakeListLLM": lc_models.FakeListLLM,
        "PromptTemplate": lc_prompts.PromptTemplate,
        "tool": lc_tools.tool,
    },
    "ragline": {
        "agents": agents,
        "chains": chains,
        "callbacks": rl_callbacks,
        "FakeListLLM": core.FakeListLLM,
        "PromptTemplate": core.PromptTemplate,
        "tool": tools.tool,
    },
}


def printed(scenario: Any, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """The scenario's stdout under each library."""
    out = {}
    for which, ns in LIBRARIES.items():
        capsys.readouterr()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LangChain's deprecation warnings
            scenario(ns)
        out[which] = capsys.readouterr().out
    return out


def llm_chain(ns: dict[str, Any], reply: str, template: str, **options: Any) -> Any:
    llm = ns["FakeListLLM"](responses=[reply])
    prompt = ns["PromptTemplate"].from_template(template)
    return ns["chains"].LLMChain(llm=llm, prompt=prompt, **options)


def run_llm_chain(ns: dict[str, Any]) -> None:
    chain = llm_chain(ns, "Lava.", "What is under {place}?", verbose=True)
    print(chain.invoke({"place": "Etna"}))


def run_simple_sequence(ns: dict[str, Any]) -> None:
    first = llm_chain(ns, " a red fox ", "Name an animal from {x}.")
    second = llm_chain(ns, "It jumps.", "What does {animal} do?")
    third = llm_chain(ns, "Quickly.", "How? {y}")
    sequence = ns["chains"].SimpleSequentialChain(
        chains=[first, second, third], verbose=True, strip_outputs=True
    )
    print(sequence.invoke("the woods"))


def run_sequential_chain(ns: dict[str, Any]) -> None:
    first = llm_chain(ns, "Rome", "Capital of {country}?", output_key="city", verbose=True)
    second = llm_chain(ns, "The Colosseum", "A sight in {city}?", output_key="sight")
    sequence = ns["chains"].SequentialChain(
        chains=[first, second],
        input_variables=["country"],
        output_variables=["city", "sight"],
        verbose=True,
    )
    print(sequence.invoke({"country": "Italy"}))


def react_tools(ns: dict[str, Any]) -> list[Any]:
    def echo(text: str) -> str:
        """Repeat the text."""
        return text

    def shout(text: str) -> str:
        """Say the text loudly."""
        return text.upper()

    def count(text: str) -> str:
        """Count the characters."""
        return str(len(text))

    def reverse(text: str) -> str:
        """Reverse the text."""
        return text[::-1]

    return [ns["tool"](function) for function in (echo, shout, count, reverse)]


def run_react_agent(ns: dict[str, Any]) -> None:
    replies = [
        " I echo.\nAction: echo\nAction Input: hi",
        " Louder.\nAction: shout\nAction Input: hi",
        " Count it.\nAction: count\nAction Input: hello",
        " Reverse it.\nAction: reverse\nAction Input: abc",
        " A tool I lack.\nAction: juggle\nAction Input: balls",
        " I know.\nFinal Answer: HI",
    ]
    prompt = ns["PromptTemplate"].from_template("{tools} {tool_names} {input} {agent_scratchpad}")
    toolset = react_tools(ns)
    agent = ns["agents"].create_react_agent(ns["FakeListLLM"](responses=replies), toolset, prompt)
    executor = ns["agents"].AgentExecutor(agent=agent, tools=toolset, verbose=True)
    print(executor.invoke({"input": "Say hi"}))


def run_initialize_agent(ns: dict[str, Any]) -> None:
    replies = [" I echo.\nAction: echo\nAction Input: hi", " I know.\nFinal Answer: hi"]
    executor = ns["agents"].initialize_agent(
        react_tools(ns)[:1],
        ns["FakeListLLM"](responses=replies),
        agent="zero-shot-react-description",
        verbose=True,
    )
    print(executor.run("Say hi"))


def run_handler_by_hand(ns: dict[str, Any]) -> None:
    handler = ns["callbacks"].StdOutCallbackHandler(color="pink")
    manager = ns["callbacks"].CallbackManager(handlers=[handler])
    run = manager.on_chain_start({"name": "own"}, {"q": 1})
    run.on_text("no end given")
    run.on_text("yellow, with a line end", color="yellow", end="\n")
    run.on_chain_error(ValueError("boom"))
    unnamed = manager.on_chain_start({"id": ["pkg", "Named"]}, {"q": 1})
    unnamed.on_chain_end({"a": 1})


def run_stuff_documents_chain(ns: dict[str, Any]) -> None:
    from langchain_core.documents import Document as LCDocument

    document = LCDocument if ns["chains"] is lc_chains else core.Document
    docs = [document(page_content="Apples are red."), document(page_content="Pears are green.")]
    for inner_verbose, outer in ((True, {"verbose": True}), (True, {}), (False, {"verbose": True})):
        inner = llm_chain(ns, "Fruit.", "Facts:\n{context}\nQ: {question}", verbose=inner_verbose)
        chain = ns["chains"].StuffDocumentsChain(
            llm_chain=inner, document_variable_name="context", **outer
        )
        print(chain.invoke({"input_documents": docs, "question": "What?"})["output_text"])


SCENARIOS = [
    run_stuff_documents_chain,
    run_llm_chain,
    run_simple_sequence,
    run_sequential_chain,
    run_react_agent,
    run_initialize_agent,
    run_handler_by_hand,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_verbose_programs_print_the_same_bytes(scenario: Any, capsys: Any) -> None:
    out = printed(scenario, capsys)
    assert out["ragline"] == out["langchain"]


def test_an_llm_chain_prints_bold_lines_and_a_green_prompt(capsys: Any) -> None:
    out = printed(run_llm_chain, capsys)["ragline"]
    assert out == (
        "\n\n\x1b[1m> Entering new LLMChain chain...\x1b[0m\n"
        "Prompt after formatting:\n\x1b[32;1m\x1b[1;3mWhat is under Etna?\x1b[0m\n"
        "\n\x1b[1m> Finished chain.\x1b[0m\n"
        "{'place': 'Etna', 'text': 'Lava.'}\n"
    )


def test_an_agent_colours_each_tool_in_turn(capsys: Any) -> None:
    out = printed(run_react_agent, capsys)["ragline"]
    # blue, yellow, pink, then blue again (green and red are the agent's own colours);
    # an unknown tool's answer is not coloured
    after_thought = "Action Input: {}\x1b[0m\x1b[{}m\x1b[1;3m{}\x1b[0m"
    for given, colour, observation in [
        ("hi", "36;1", "hi"),
        ("hi", "33;1", "HI"),
        ("hello", "38;5;200", "5"),
        ("abc", "36;1", "cba"),
    ]:
        assert after_thought.format(given, colour, observation) in out
    assert "Action Input: balls\x1b[0mjuggle is not a valid tool" in out


def test_a_stuff_documents_chain_prints_its_llm_chain_inside(capsys: Any) -> None:
    out = printed(run_stuff_documents_chain, capsys)["ragline"]
    entering = "\n\n\x1b[1m> Entering new {} chain...\x1b[0m\n"
    finished = "\n\x1b[1m> Finished chain.\x1b[0m\n"
    prompt = (
        "Prompt after formatting:\n\x1b[32;1m\x1b[1;3mFacts:\nApples are red.\n\n"
        "Pears are green.\nQ: What?\x1b[0m\n"
    )
    inner = entering.format("LLMChain") + prompt + finished
    outer = entering.format("StuffDocumentsChain")
    assert out == (
        outer + inner + finished + "Fruit.\n"  # both verbose
        + inner + "Fruit.\n"  # only the LLMChain verbose
        + outer + finished + "Fruit.\n"  # only the StuffDocumentsChain verbose
    )  # fmt: skip
