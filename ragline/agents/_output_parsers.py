"""What agents parse a model's reply with: ReAct text, or tool calls in an AIMessage."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from ragline.core import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AIMessage,
    AIMessageChunk,
    BaseOutputParser,
    InvalidInputError,
    OutputParserException,
    Runnable,
    RunnableConfig,
    ToolAgentAction,
)
from ragline.core._partial_json import parse_json_reply

__all__ = [
    "FINAL_ANSWER_ACTION",
    "AgentOutputParser",
    "ConvoOutputParser",
    "JSONAgentOutputParser",
    "MRKLOutputParser",
    "OpenAIFunctionsAgentOutputParser",
    "ReActSingleInputOutputParser",
    "SelfAskOutputParser",
    "ToolsAgentOutputParser",
    "XMLAgentOutputParser",
    "parse_ai_message_to_tool_action",
]

logger = logging.getLogger(__name__)

FINAL_ANSWER_ACTION = "Final Answer:"
MISSING_ACTION_AFTER_THOUGHT = "Invalid Format: Missing 'Action:' after 'Thought:'"
# the zero-shot (MRKL) agent's observation for the same case: LangChain's lacks the
# closing quote, and the observation is what the model and intermediate_steps see
_MRKL_MISSING_ACTION_AFTER_THOUGHT = "Invalid Format: Missing 'Action:' after 'Thought:"
MISSING_ACTION_INPUT_AFTER_ACTION = "Invalid Format: Missing 'Action Input:' after 'Action:'"
FINAL_ANSWER_AND_ACTION = "Parsing LLM output produced both a final answer and a parse-able action:"

# "Action: <tool>" ... "Action Input: <input>" (an optional number after each word, as
# in "Action 1:"), the input running to the end of the text.
_ACTION = re.compile(
    r"Action\s*\d*\s*:[\s]*(.*?)Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)", re.DOTALL
)
_ACTION_LINE = re.compile(r"Action\s*\d*\s*:[\s]*(.*?)", re.DOTALL)
_ACTION_INPUT_LINE = re.compile(r"[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)", re.DOTALL)


class AgentOutputParser(BaseOutputParser[AgentAction | AgentFinish]):
    """Base of a parser that reads a model's reply as the agent's next step (an
    :class:`AgentAction`) or its answer (an :class:`AgentFinish`): a subclass writes
    ``parse(text)``, as with LangChain's ``AgentOutputParser``.

    Example:
        >>> class Mine(AgentOutputParser):
        ...     def parse(self, text):
        ...         if text.startswith("done:"):
        ...             return AgentFinish({"output": text[5:]}, text)
        ...         return AgentAction("search", text, text)
        >>> Mine().invoke("done:42").return_values
        {'output': '42'}
    """


def _no_action(
    text: str, missing_action: str = MISSING_ACTION_AFTER_THOUGHT
) -> OutputParserException:
    """The error for a reply with neither an action nor a final answer."""
    message = f"Could not parse LLM output: `{text}`"
    if not _ACTION_LINE.search(text):
        return OutputParserException(message, missing_action, text, send_to_llm=True)
    if not _ACTION_INPUT_LINE.search(text):
        return OutputParserException(
            message, MISSING_ACTION_INPUT_AFTER_ACTION, text, send_to_llm=True
        )
    return OutputParserException(message)


class JSONAgentOutputParser(AgentOutputParser):
    """Parse a structured-chat reply: one JSON object, bare or in a Markdown code fence,
    ``{"action": <tool name>, "action_input": <its input>}``. A reply cut off before its
    end is read as far as it goes, as LangChain's parser reads it.

    The action ``"Final Answer"`` ends the run with ``{"output": action_input}``; any
    other action calls that tool (a missing or null ``action_input`` is ``{}``). When
    the model writes a list of objects, the first is used (and a warning logged), as
    LangChain does. The whole reply is the step's ``log``.

    Raises (from ``parse``):
        OutputParserException: ``Could not parse LLM output: <reply>`` when the reply
            holds no JSON object with an ``"action"``, or a tool's ``action_input`` is
            neither a string nor an object.

    Example:
        >>> JSONAgentOutputParser().parse('{"action": "Final Answer", "action_input": "4"}')
        AgentFinish(return_values={'output': '4'}, log='{"action": "Final Answer", "action_input": "4"}')
    """  # noqa: E501

    def parse(self, text: str) -> AgentAction | AgentFinish:
        try:
            reply = parse_json_reply(text)
            if isinstance(reply, list):
                logger.warning("the model wrote several actions; using the first: %s", reply)
                reply = reply[0]
            action = reply["action"]
            action_input = reply.get("action_input")
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
            raise OutputParserException(f"Could not parse LLM output: {text}") from err
        if action == "Final Answer":
            return AgentFinish({"output": action_input}, text)
        tool_input = {} if action_input is None else action_input
        if not isinstance(action, str) or not isinstance(tool_input, (str, dict)):
            # a tool takes a string or keyword arguments (LangChain's AgentAction refuses
            # anything else, and the parser reports it as unparsable)
            raise OutputParserException(f"Could not parse LLM output: {text}")
        return AgentAction(action, tool_input, text)


class ReActSingleInputOutputParser(AgentOutputParser):
    """Parse a ReAct reply: ``Action: <tool>`` / ``Action Input: <text>`` becomes an
    :class:`AgentAction`, ``Final Answer: <text>`` an :class:`AgentFinish`.

    Raises (from ``parse``):
        OutputParserException: both an action and a final answer, or neither. When an
            ``Action:`` or ``Action Input:`` line is missing, the exception carries the
            observation that tells the model so (``send_to_llm=True``), which an
            executor with ``handle_parsing_errors=True`` sends back.

    Example:
        >>> parser = ReActSingleInputOutputParser()
        >>> parser.parse("I should look.\\nAction: search\\nAction Input: etna")
        AgentAction(tool='search', tool_input='etna', log='I should look.\\nAction: search\\nAction Input: etna')
        >>> parser.parse("I know.\\nFinal Answer: a volcano").return_values
        {'output': 'a volcano'}
    """  # noqa: E501

    def parse(self, text: str) -> AgentAction | AgentFinish:
        includes_answer = FINAL_ANSWER_ACTION in text
        match = _ACTION.search(text)
        if match:
            if includes_answer:
                raise OutputParserException(f"{FINAL_ANSWER_AND_ACTION}: {text}")
            return AgentAction(match.group(1).strip(), match.group(2).strip(" ").strip('"'), text)
        if includes_answer:
            answer = text.rsplit(FINAL_ANSWER_ACTION, maxsplit=1)[-1].strip()
            return AgentFinish({"output": answer}, text)
        raise _no_action(text)

    def get_format_instructions(self) -> str:
        from ragline.agents._prompts import FORMAT_INSTRUCTIONS

        return FORMAT_INSTRUCTIONS


class SelfAskOutputParser(AgentOutputParser):
    """Parse a self-ask reply by its last line: a follow-up question (``Follow up: <q>``)
    becomes an :class:`AgentAction` for the ``Intermediate Answer`` tool with the text
    after the reply's last colon; ``So the final answer is: <a>`` an :class:`AgentFinish`.

    Raises (from ``parse``):
        OutputParserException: the last line is neither.

    Example:
        >>> parser = SelfAskOutputParser()
        >>> parser.parse("Yes.\\nFollow up: Who won?").tool_input
        'Who won?'
        >>> parser.parse("So the final answer is: Djokovic").return_values
        {'output': 'Djokovic'}
    """

    followups: Sequence[str] = ("Follow up:", "Followup:")
    finish_string: str = "So the final answer is: "

    def parse(self, text: str) -> AgentAction | AgentFinish:
        last_line = text.rpartition("\n")[2]
        if any(marker in last_line for marker in self.followups):
            question = text.rpartition(":")[2].strip()
            return AgentAction("Intermediate Answer", question, text)
        if self.finish_string in last_line:
            # what follows the finish string's length, as LangChain's parser cuts it
            return AgentFinish({"output": last_line[len(self.finish_string) :]}, text)
        raise OutputParserException(
            f"a self-ask reply must end with a follow-up question or the final answer; got: {text}"
        )


_CONVO_ACTION = re.compile(r"Action: (.*?)\n*Action Input: (.*)", re.DOTALL)


class ConvoOutputParser(AgentOutputParser):
    """The text conversational agent's parser: a reply holding ``<ai_prefix>:`` ends the
    run with what follows its last occurrence; otherwise ``Action: <tool>`` then
    ``Action Input: <text>`` (quotes and spaces around the input dropped) calls a tool.

    Raises (from ``parse``):
        OutputParserException: neither form.

    Example:
        >>> ConvoOutputParser().parse("Do I need to use a tool? No\\nAI: Hello!").return_values
        {'output': 'Hello!'}
        >>> ConvoOutputParser().parse("Action: search\\nAction Input: etna").tool_input
        'etna'
    """

    ai_prefix: str = "AI"

    def parse(self, text: str) -> AgentAction | AgentFinish:
        marker = f"{self.ai_prefix}:"
        if marker in text:
            return AgentFinish({"output": text.rsplit(marker, maxsplit=1)[-1].strip()}, text)
        match = _CONVO_ACTION.search(text)
        if match is None:
            raise OutputParserException(f"Could not parse LLM output: `{text}`")
        tool_input = match.group(2).strip(" ").strip('"')
        return AgentAction(match.group(1).strip(), tool_input, text)


class MRKLOutputParser(ReActSingleInputOutputParser):
    """The zero-shot (MRKL) agent's parser: as ReAct's, except that a final answer
    written *before* an action wins (the text up to the next blank line), and a SQL
    ``SELECT`` input keeps its quotes."""

    def parse(self, text: str) -> AgentAction | AgentFinish:
        match = _ACTION.search(text)
        if match and FINAL_ANSWER_ACTION in text:
            answer_at = text.find(FINAL_ANSWER_ACTION)
            if answer_at < text.find(match.group(0)):
                start = answer_at + len(FINAL_ANSWER_ACTION)
                end = text.find("\n\n", start)
                end = len(text) if end == -1 else end
                return AgentFinish({"output": text[start:end].strip()}, text[:end])
            raise OutputParserException(f"{FINAL_ANSWER_AND_ACTION}: {text}")
        if match:
            tool_input = match.group(2).strip(" ")
            if not tool_input.startswith("SELECT "):
                tool_input = tool_input.strip('"')
            return AgentAction(match.group(1).strip(), tool_input, text)
        if FINAL_ANSWER_ACTION in text:
            return super().parse(text)
        raise _no_action(text, _MRKL_MISSING_ACTION_AFTER_THOUGHT)


def parse_ai_message_to_tool_action(message: Any) -> list[AgentAction] | AgentFinish:
    """A reply with tool calls -> one :class:`ToolAgentAction` per call; without -> the
    finish with its text.

    Raises:
        OutputParserException: the reply is not an AIMessage, or a tool call's arguments
            are not valid JSON.
    """
    if not isinstance(message, AIMessage):
        raise OutputParserException(
            f"a tool-calling agent parses AI messages, got {type(message).__name__}"
        )
    if message.invalid_tool_calls:
        bad = message.invalid_tool_calls[0]
        raise _not_json(bad.get("name"), bad.get("args"))
    if isinstance(message, AIMessageChunk):
        _check_complete_arguments(message)
    if not message.tool_calls:
        return AgentFinish({"output": message.content}, str(message.content))
    if isinstance(message, AIMessageChunk):  # a streamed reply: keep it as the whole message
        message = message.to_message()
    actions: list[AgentAction] = []
    for call in message.tool_calls:
        args = call["args"]
        tool_input = args.get("__arg1", args)  # a single-input Tool's one argument
        log = _invoking_log(call["name"], tool_input, message)
        actions.append(
            ToolAgentAction(call["name"], tool_input, log, [message], tool_call_id=call["id"])
        )
    return actions


def _invoking_log(name: str, tool_input: Any, message: AIMessage) -> str:
    """The log of a model's call of a tool (what the agent's step shows)."""
    said = f"responded: {message.content}\n" if message.content else "\n"
    return f"\nInvoking: `{name}` with `{tool_input}`\n{said}\n"


def _not_json(name: object, arguments: object) -> OutputParserException:
    return OutputParserException(
        f"Could not parse tool input: {{'name': {name!r}, 'arguments': "
        f"{arguments!r}}} because the `arguments` is not valid JSON."
    )


def _check_complete_arguments(message: AIMessageChunk) -> None:
    """Refuse a streamed reply whose tool-call arguments are not complete JSON.

    A chunk's ``tool_calls`` come from a lenient parse that closes what a cut-off stream
    left open (``{"path": "/srv/data/tmp-cache/old`` gives a finished-looking path): right
    while the stream shows progress, wrong for an action. Here the stream has ended, so
    each call's raw arguments must parse as they are (empty: no arguments), or the reply
    is a parsing error that ``handle_parsing_errors`` sees, and no tool runs (issue 31;
    a deliberate difference from LangChain, whose agent runs the repaired arguments).

    Raises:
        OutputParserException: names the tool and its raw arguments.
    """
    for chunk in message.tool_call_chunks:
        raw = chunk.get("args") or ""
        if not raw.strip():
            continue
        try:
            json.loads(raw)
        except ValueError:
            raise _not_json(chunk.get("name"), raw) from None


class _ToolCallsAgentOutputParser(Runnable[Any, "list[AgentAction] | AgentFinish"]):
    """Parse a chat model's reply into tool-call actions (several in one message: the
    model's parallel calls) or, without tool calls, the finish. Reported as a parser run.
    The base of :class:`ToolsAgentOutputParser` and :class:`OpenAIToolsAgentOutputParser`
    (two classes in LangChain, neither a subclass of the other).

    Example:
        >>> reply = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}])
        >>> [a.tool_input for a in ToolsAgentOutputParser().invoke(reply)]
        [{'a': 1}]
        >>> ToolsAgentOutputParser().invoke(AIMessage("Done.")).return_values
        {'output': 'Done.'}
    """

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[AgentAction] | AgentFinish:
        self._reject_kwargs(kwargs)
        return self._call_with_config(  # type: ignore[no-any-return]
            parse_ai_message_to_tool_action, input, config, run_type="parser"
        )

    def parse_result(self, result: list[Any], *, partial: bool = False) -> Any:
        """LangChain's parser hook: the first generation's message."""
        return parse_ai_message_to_tool_action(result[0].message)

    def __str__(self) -> str:  # LangChain's: a pydantic model without fields set prints ""
        return f"name={self.name!r}" if self.name else ""


class ToolsAgentOutputParser(_ToolCallsAgentOutputParser):
    """The tool-calling agent's parser (``create_tool_calling_agent``); see
    the base class."""


class OpenAIToolsAgentOutputParser(_ToolCallsAgentOutputParser):
    """The OpenAI tools agent's parser (``create_openai_tools_agent``); see
    the base class."""


def parse_ai_message_to_function_action(message: Any) -> AgentAction | AgentFinish:
    """A reply with a ``function_call`` (in ``additional_kwargs``, OpenAI's older
    function calling) -> an :class:`AgentActionMessageLog`; without -> the finish.

    Raises:
        TypeError: the reply is not an AIMessage.
        OutputParserException: the call's arguments are not valid JSON.
        InvalidInputError: they are JSON but neither an object nor a string.
    """
    if not isinstance(message, AIMessage):
        raise TypeError(f"Expected an AI message got {type(message)}")
    call = message.additional_kwargs.get("function_call", {})
    if not call:
        return AgentFinish({"output": message.content}, str(message.content))
    name = call["name"]
    try:
        arguments = json.loads(call["arguments"], strict=False) if call["arguments"].strip() else {}
    except json.JSONDecodeError as err:
        raise OutputParserException(
            f"Could not parse tool input: {call} because the `arguments` is not valid JSON."
        ) from err
    # `in`, not .get: the arguments may be a JSON string or list, as LangChain reads them
    tool_input = arguments["__arg1"] if "__arg1" in arguments else arguments  # noqa: SIM401
    if not isinstance(tool_input, (str, dict)):  # what LangChain's action type accepts
        raise InvalidInputError(
            f"function {name!r} was called with {type(tool_input).__name__} arguments "
            f"{tool_input!r}; a tool takes a JSON object or a string"
        )
    log = _invoking_log(name, tool_input, message)
    return AgentActionMessageLog(tool=name, tool_input=tool_input, log=log, message_log=[message])


class OpenAIFunctionsAgentOutputParser(Runnable[Any, "AgentAction | AgentFinish"]):
    """Parse a chat model's reply with an OpenAI ``function_call`` into the action, or
    without one into the finish (what ``create_openai_functions_agent`` ends with).
    Reported as a parser run.

    Example:
        >>> call = {"name": "add", "arguments": '{"a": 1}'}
        >>> reply = AIMessage("", additional_kwargs={"function_call": call})
        >>> OpenAIFunctionsAgentOutputParser().invoke(reply).tool_input
        {'a': 1}
    """

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AgentAction | AgentFinish:
        self._reject_kwargs(kwargs)
        if not isinstance(input, AIMessage) and not hasattr(input, "content"):
            raise ValueError("This output parser only works on ChatGeneration output")
        return self._call_with_config(  # type: ignore[no-any-return]
            parse_ai_message_to_function_action, input, config, run_type="parser"
        )

    def parse_result(self, result: list[Any], *, partial: bool = False) -> Any:
        """LangChain's parser hook: the first generation's message."""
        return parse_ai_message_to_function_action(result[0].message)

    def parse(self, text: str) -> Any:
        """Text alone has no function call.

        Raises:
            ValueError: always.
        """
        raise ValueError("Can only parse messages")

    def __str__(self) -> str:  # LangChain's: a pydantic model without fields set prints ""
        return f"name={self.name!r}" if self.name else ""


# The tags of the XML agent's scratchpad, and the stand-ins written for them inside a
# tool name, input or observation (so a tool's text cannot close a tag).
XML_TAG_STAND_INS = {
    f"<{slash}{tag}>": f"[[{slash}{tag}]]"
    for tag in ("tool", "tool_input", "observation")
    for slash in ("", "/")
}


def escape_xml_tags(text: str) -> str:
    """The tags of :data:`XML_TAG_STAND_INS` replaced by their stand-ins."""
    for tag, stand_in in XML_TAG_STAND_INS.items():
        text = text.replace(tag, stand_in)
    return text


def unescape_xml_tags(text: str) -> str:
    """The stand-ins of :data:`XML_TAG_STAND_INS` back into tags."""
    for tag, stand_in in XML_TAG_STAND_INS.items():
        text = text.replace(stand_in, tag)
    return text


class XMLAgentOutputParser(AgentOutputParser):
    """Parse an XML agent's reply: ``<tool>name</tool><tool_input>input</tool_input>``
    calls a tool (no ``<tool_input>``: the input is ``""``), and
    ``<final_answer>text</final_answer>`` ends the run. With ``escape_format="minimal"``
    (the default) the tag stand-ins ``[[tool]]`` ... in the parts become tags again.

    Raises (from ``parse``):
        ValueError: more than one ``<tool>`` or ``<tool_input>`` block, more than one
            final answer, or neither a tool call nor a final answer.

    Example:
        >>> XMLAgentOutputParser().parse("<tool>search</tool><tool_input>etna</tool_input>").tool
        'search'
    """

    escape_format: str | None = "minimal"

    def __repr__(self) -> str:
        return (
            "XMLAgentOutputParser()"
            if self.escape_format == "minimal"
            else (f"XMLAgentOutputParser(escape_format={self.escape_format!r})")
        )

    def _unescaped(self, text: str) -> str:
        return unescape_xml_tags(text) if self.escape_format == "minimal" else text

    def parse(self, text: str) -> AgentAction | AgentFinish:
        tools = re.findall(r"<tool>(.*?)</tool>", text, re.DOTALL)
        if tools:
            if len(tools) != 1:
                raise ValueError(
                    "Malformed tool invocation: expected exactly one <tool> block, but "
                    f"found {len(tools)}."
                )
            inputs = re.findall(r"<tool_input>(.*?)</tool_input>", text, re.DOTALL)
            if len(inputs) > 1:
                raise ValueError(
                    "Malformed tool invocation: expected at most one <tool_input> block, "
                    f"but found {len(inputs)}."
                )
            tool_input = inputs[0] if inputs else ""
            return AgentAction(self._unescaped(tools[0]), self._unescaped(tool_input), text)
        if "<final_answer>" in text and "</final_answer>" in text:
            answers = re.findall(r"<final_answer>(.*?)</final_answer>", text, re.DOTALL)
            if len(answers) != 1:
                raise ValueError(
                    "Malformed output: expected exactly one <final_answer>...</final_answer> block."
                )
            return AgentFinish({"output": self._unescaped(answers[0])}, text)
        raise ValueError(
            "Malformed output: expected either a tool invocation or a final answer in XML format."
        )
