"""The agent-trajectory grader: a chat model scores an agent's run from 1 to 5.

``load_evaluator("trajectory", llm=chat_model, agent_tools=tools)`` builds a
:class:`TrajectoryEvalChain`; ``evaluate_agent_trajectory(prediction=, input=,
agent_trajectory=[(AgentAction, observation), ...], reference=None)`` shows the model
the question, the steps, the answer (and the tools and reference when given) and reads
the reply as LangChain's evaluator does: the text after ``"Score: "`` must hold a whole
number from 1 to 5 (else ``OutputParserException``); the result is ``{"score": (n - 1)
/ 4, "reasoning": the text before}``. Only chat models grade (``NotImplementedError``
otherwise), as in LangChain.

The prompt, the steps' and tools' layout and the reference's framing are ragline's own
wording over LangChain's variables (``question``, ``agent_trajectory``, ``answer``,
``reference``, ``tool_descriptions``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragline.chains import LLMChain
from ragline.core import (
    BaseChatModel,
    BaseOutputParser,
    ChatPromptTemplate,
    OutputParserException,
)
from ragline.core.exceptions import UnsupportedMethodError
from ragline.evaluation._chain_evaluator import EvaluatorChain
from ragline.evaluation._evaluator_base import AgentTrajectoryEvaluator, LLMEvalChain

__all__ = ["TrajectoryEval", "TrajectoryEvalChain", "TrajectoryOutputParser"]

_MAX_SCORE = 5
TrajectoryEval = dict  # {"score": float in [0, 1], "reasoning": str}

_INSTRUCTIONS = (
    "You review how an AI agent answered a question. Judge whether the final answer is "
    "helpful and correct, whether the agent used its tools sensibly and in a sensible "
    "order, and whether it took more steps than it needed. Explain your judgement, then "
    "end with a line 'Score: N', N a whole number from 1 (poor) to 5 (excellent)."
)
_RUN = (
    "Question:\n{question}\n{reference}\n"
    "Steps the agent took:\n{agent_trajectory}\n\n"
    "Final answer:\n{answer}"
)
EVAL_CHAT_PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", _INSTRUCTIONS),
        ("human", "Tools the agent could use:\n{tool_descriptions}\n\n" + _RUN),
    ]
)
TOOL_FREE_EVAL_CHAT_PROMPT = ChatPromptTemplate.from_messages(
    [("system", _INSTRUCTIONS), ("human", _RUN)]
)

_NUMBER = re.compile(r"(\d+(\.\d+)?)")


class TrajectoryOutputParser(BaseOutputParser[dict]):
    """A reviewer's reply as ``{"score", "reasoning"}`` (see the module docstring)."""

    @property
    def _type(self) -> str:
        return "agent_trajectory"

    def parse(self, text: str) -> dict[str, Any]:
        if "Score:" not in text:
            raise OutputParserException(f"Could not find score in model eval output: {text}")
        reasoning, _, rest = text.partition("Score: ")
        number = _NUMBER.search(rest.strip())
        if number is None or "." in number.group(1):
            raise OutputParserException(f"Score is not an integer digit in the range 1-5: {text}")
        score = int(number.group(1))
        if not 1 <= score <= _MAX_SCORE:
            raise OutputParserException(f"Score is not a digit in the range 1-5: {text}")
        return {"score": (score - 1) / (_MAX_SCORE - 1), "reasoning": reasoning.strip()}


class TrajectoryEvalChain(AgentTrajectoryEvaluator, LLMEvalChain, EvaluatorChain):
    """Scores an agent's run with a chat model (``"trajectory"``).

    Example:
        >>> from ragline.core import AgentAction, FakeListChatModel
        >>> grader = TrajectoryEvalChain.from_llm(FakeListChatModel(responses=["Fine.\\nScore: 4"]))
        >>> grader.evaluate_agent_trajectory(
        ...     prediction="4", input="2+2?",
        ...     agent_trajectory=[(AgentAction("calculator", "2+2", ""), "4")])
        {'score': 0.75, 'reasoning': 'Fine.'}
    """

    eval_chain: Any
    agent_tools: list[Any] | None = None
    output_parser: Any = None
    return_reasoning: bool = False

    def __post_init__(self) -> None:
        if self.output_parser is None:
            self.output_parser = TrajectoryOutputParser()

    @property
    def input_keys(self) -> list[str]:
        return ["question", "agent_trajectory", "answer", "reference"]

    @property
    def output_keys(self) -> list[str]:
        return ["score", "reasoning"]

    @property
    def _tools_description(self) -> str:
        if self.agent_tools is None:
            return ""
        return "\n".join(
            f"{i}. {tool.name}: {tool.description}" for i, tool in enumerate(self.agent_tools, 1)
        )

    @staticmethod
    def get_agent_trajectory(steps: str | Sequence[tuple[Any, str]]) -> str:
        """The steps as the text the model reads (a string is taken as it is)."""
        if isinstance(steps, str):
            return steps
        return "\n\n".join(
            f"{i}. called {action.tool} with {action.tool_input}\n   it returned: {output}"
            for i, (action, output) in enumerate(steps, 1)
        )

    @staticmethod
    def _format_reference(reference: str | None) -> str:
        if not reference:
            return ""
        return f"\nA correct answer, to judge the final answer against:\n{reference}\n"

    @classmethod
    def from_llm(
        cls,
        llm: Any,
        agent_tools: Sequence[Any] | None = None,
        output_parser: TrajectoryOutputParser | None = None,
        **kwargs: Any,
    ) -> TrajectoryEvalChain:
        """Build the grader over a chat model; with ``agent_tools`` the model sees them.

        Raises:
            UnsupportedMethodError: ``llm`` is not a chat model (also a
                ``NotImplementedError``, as LangChain raises).
        """
        if not isinstance(llm, BaseChatModel):
            raise UnsupportedMethodError(
                f"TrajectoryEvalChain grades with a chat model; {type(llm).__name__} is a "
                "text-completion model"
            )
        prompt = EVAL_CHAT_PROMPT if agent_tools else TOOL_FREE_EVAL_CHAT_PROMPT
        return cls(
            agent_tools=list(agent_tools) if agent_tools is not None else None,
            eval_chain=LLMChain(llm=llm, prompt=prompt),
            output_parser=output_parser or TrajectoryOutputParser(),
        )

    def prep_inputs(self, inputs: Any) -> dict[str, Any]:
        return super().prep_inputs(self._with_reference_text(inputs))

    async def aprep_inputs(self, inputs: Any) -> dict[str, Any]:
        return await super().aprep_inputs(self._with_reference_text(inputs))

    def _with_reference_text(self, inputs: Any) -> Any:
        if isinstance(inputs, dict):
            return {**inputs, "reference": self._format_reference(inputs.get("reference"))}
        return inputs

    def _chain_input(self, inputs: dict[str, Any]) -> dict[str, Any]:
        chain_input = dict(inputs)
        if self.agent_tools:
            chain_input["tool_descriptions"] = self._tools_description
        return chain_input

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        reply = self.eval_chain.run(self._chain_input(inputs), callbacks=callbacks)
        return dict(self.output_parser.parse(reply))

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        reply = await self.eval_chain.arun(self._chain_input(inputs), callbacks=callbacks)
        return dict(self.output_parser.parse(reply))

    def _inputs(
        self, prediction: str, input_: str, trajectory: Any, reference: str | None
    ) -> dict[str, Any]:
        return {
            "question": input_,
            "agent_trajectory": self.get_agent_trajectory(trajectory),
            "answer": prediction,
            "reference": reference,
        }

    def _evaluate_agent_trajectory(
        self,
        *,
        prediction: str,
        agent_trajectory: Sequence[tuple[Any, str]],
        input: str,
        reference: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        inputs = self._inputs(prediction, input, agent_trajectory, reference)
        return self._run_evaluation(inputs, kwargs)

    async def _aevaluate_agent_trajectory(
        self,
        *,
        prediction: str,
        agent_trajectory: Sequence[tuple[Any, str]],
        input: str,
        reference: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        inputs = self._inputs(prediction, input, agent_trajectory, reference)
        return await self._arun_evaluation(inputs, kwargs)
