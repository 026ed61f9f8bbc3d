"""Parity: differences found by the nineteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

import asyncio
from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.output_parsers as lc_parsers
import langchain_core.prompts as lc_prompts

import ragline.core as rl


def _partial_in_a_message_template(prompts: Any, models: Any, parsers: Any) -> list[Any]:
    # issue17560 / issue2517: a message template with a partial variable, in a chat prompt
    read: list[Any] = []
    for cls_name in ("HumanMessagePromptTemplate", "SystemMessagePromptTemplate"):
        cls = getattr(prompts, cls_name)
        message = cls.from_template(
            "Tell me about {name}. Answer in {lang}", partial_variables={"lang": "Spanish"}
        )
        read += [message.input_variables, message.prompt.partial_variables, repr(message)]
        read.append(message.format(name="OpenAI").content)
        chat = prompts.ChatPromptTemplate.from_messages([message])
        read += [chat.input_variables, [m.content for m in chat.format_messages(name="AI")]]
    instructions = prompts.HumanMessagePromptTemplate.from_template(
        "Give me colors.\n {format_instructions}", partial_variables={"format_instructions": "JSON"}
    )
    read.append(repr(prompts.ChatPromptTemplate.from_messages([instructions]).format_messages()))
    chain = (
        prompts.ChatPromptTemplate.from_messages([message])
        | models.FakeListChatModel(responses=["hola"])
        | parsers.StrOutputParser()
    )
    read.append(asyncio.run(chain.ainvoke({"name": "Open AI"})))
    read.append(
        prompts.ChatMessagePromptTemplate.from_template(
            "{a} {b}", role="critic", partial_variables={"b": "B"}
        )
        .format(a="A")
        .content
    )
    return [str(x) if not isinstance(x, (list, dict, str)) else x for x in read]


def test_a_message_template_takes_partial_variables() -> None:
    # ragline's from_template had no partial_variables keyword (TypeError)
    expected = _partial_in_a_message_template(lc_prompts, lc_models, lc_parsers)
    assert _partial_in_a_message_template(rl, rl, rl) == expected


_USAGE_PROGRAM = """
import sys
if sys.argv[1] == "langchain":
    from langchain_core.callbacks import UsageMetadataCallbackHandler
    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
else:
    from ragline.core import AIMessage, GenericFakeChatModel
    from ragline.core.callbacks import UsageMetadataCallbackHandler

def reply(i, o):
    usage = {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}
    return AIMessage("ok", response_metadata={"model_name": "deepseek-v3"}, usage_metadata=usage)

llm = GenericFakeChatModel(messages=iter([reply(5, 9), reply(8, 8), reply(6, 14)]))
handler = UsageMetadataCallbackHandler()
for question in ("hello", "What's your name?", "Tell me a joke"):
    llm.invoke(question, config={"callbacks": [handler]})
    print(handler.usage_metadata)
"""


def _usage_printed(library: str, seed: str) -> str:
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-c", _USAGE_PROGRAM, library],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_usage_sums_keep_langchains_key_order() -> None:
    # cmoaciopm_usage_metadata_callback_three_calls: LangChain's add_usage builds each sum
    # over a set of the keys, so a printed sum lists them in that set's order (the first
    # run's usage is kept as it came); under PYTHONHASHSEED=0 that is total, output, input
    for seed in ("0", "1", "2"):
        expected = _usage_printed("langchain", seed)
        assert _usage_printed("ragline", seed) == expected
        if seed == "0":  # the order differs from the insertion order here
            assert "{'total_tokens': 30, 'output_tokens': 17, 'input_tokens': 13}" in expected


_V0_BLOCKS = [
    {"type": "text", "text": "Describe these."},
    {"type": "image", "source_type": "url", "url": "https://example.com/a.png"},
    {
        "type": "image",
        "source_type": "url",
        "url": "u",
        "mime_type": "image/png",
        "x": None,
        "y": 2,
    },
    {"type": "image", "source_type": "base64", "data": "AAA", "mime_type": "image/png"},
    {"type": "file", "source_type": "base64", "data": "JVB", "mime_type": "", "filename": "a.pdf"},
    {"type": "audio", "source_type": "id", "id": "f1", "mime_type": "audio/wav"},
    {"type": "image", "source_type": "id", "id": "f2"},
    {"type": "file", "source_type": "text", "url": "plain words"},
    {"type": "file", "source_type": "text", "url": "# md", "mime_type": "text/markdown", "k": 1},
    {"type": "image", "source_type": "text", "url": "left as it is"},
    {"type": "image", "image_url": "not a v0 block"},
    {"type": "image_url", "image_url": {"url": "https://example.com/b.png"}},
]


def _what_a_chat_model_receives(
    models: Any, messages: Any, prompts: Any, outputs: Any, given: list[Any] = _V0_BLOCKS
) -> list[Any]:
    # wpbarco_multimodal_prompt_image_block_text: LangChain's chat models turn v0 data
    # blocks (with source_type) into v1 standard blocks before the model's hook sees them
    seen: list[Any] = []

    class Echo(models.BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "echo"

        def _generate(self, messages_in: Any, stop: Any = None, **kwargs: Any) -> Any:
            seen.append([m.content for m in messages_in])
            reply = messages.AIMessage("ok")
            return outputs.ChatResult(generations=[outputs.ChatGeneration(message=reply)])

    sent = messages.HumanMessage(content=[dict(block) for block in given])
    Echo().invoke([messages.SystemMessage("look"), sent])
    prompt = prompts.ChatPromptTemplate(
        [
            {
                "role": "user",
                "content": [{"type": "image", "source_type": "url", "url": "{image_url}"}],
            }
        ]
    )
    (prompt | Echo()).invoke({"image_url": "https://example.com/c.png"})
    # the program's own message is left as it was
    seen.append(sent.content == given)
    return seen


def _without_generated_ids(value: Any) -> Any:
    if isinstance(value, list):
        return [_without_generated_ids(v) for v in value]
    if isinstance(value, dict):
        return {
            k: (
                "lc_<uuid>" if k == "id" and str(v).startswith("lc_") else _without_generated_ids(v)
            )
            for k, v in value.items()
        }
    return value


def test_a_chat_model_receives_v0_data_blocks_as_v1_blocks() -> None:
    import langchain_core.messages as lc_messages
    import langchain_core.outputs as lc_outputs

    expected = _what_a_chat_model_receives(lc_models, lc_messages, lc_prompts, lc_outputs)
    got = _what_a_chat_model_receives(rl, rl, rl, rl)
    assert _without_generated_ids(got) == _without_generated_ids(expected)


def test_the_old_pydantic_to_openai_names_map_and_agree() -> None:
    # issue21516_json_output_functions_parser_sql: langchain_community.utils.openai_functions
    # (and langchain.utils.openai_functions) were not in the path table
    import warnings

    from pydantic import BaseModel, Field

    from ragline.cli._port_rewrite import port_source

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import langchain_classic.utils.openai_functions as lc_classic
        import langchain_community.utils.openai_functions as lc_community

    class SQLQuery(BaseModel):
        query: str = Field(..., description="SQL query to answer the question")

    class Doc(BaseModel):
        """Some doc."""

        a: int

    for model in (SQLQuery, Doc):
        for lc_module in (lc_community, lc_classic):
            assert rl.convert_pydantic_to_openai_function(
                model
            ) == lc_module.convert_pydantic_to_openai_function(model)
            assert rl.convert_pydantic_to_openai_tool(
                model
            ) == lc_module.convert_pydantic_to_openai_tool(model)
    for path in ("langchain_community.utils", "langchain.utils"):
        ported = port_source(
            f"from {path}.openai_functions import convert_pydantic_to_openai_function as c\n"
        )
        assert ported.source == (
            "from ragline.core import convert_pydantic_to_openai_function as c\n"
        )
        assert ported.unmapped == []


def _message_dicts(messages: Any) -> list[str]:
    # opentutorial_configure_alternatives_dict: print(chain.invoke(...).__dict__)
    import copy
    import pickle

    built = [
        messages.AIMessage("hi", id="run-1", usage_metadata=None),
        messages.AIMessage(
            "",
            tool_calls=[{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}],
            name="bot",
        ),
        messages.HumanMessage("q", name="bob"),
        messages.SystemMessage("s"),
        messages.ToolMessage("r", tool_call_id="c1"),
        messages.ChatMessage("c", role="critic"),
        messages.AIMessageChunk("part"),
        messages.HumanMessageChunk("h"),
    ]
    printed = []
    for message in built:
        printed.append(repr(message.__dict__))
        printed.append(repr(vars(copy.copy(message))))
        printed.append(repr(vars(pickle.loads(pickle.dumps(message)))))
        printed.append(repr(copy.deepcopy(message)))
    return printed


def test_a_messages_instance_dict_lists_its_type_as_langchains() -> None:
    # LangChain's messages are pydantic models: type is a field, in __dict__ after
    # response_metadata; ragline's type was a class attribute only
    import langchain_core.messages as lc_messages

    assert _message_dicts(rl) == _message_dicts(lc_messages)


def _usage_as_messages_keep_it(messages: Any) -> list[str]:
    given = {
        "total_tokens": 6,
        "output_token_details": {"reasoning": 1, "zz": 3, "audio": 2},
        "input_tokens": 2,
        "extra": 7,
        "output_tokens": 4,
        "input_token_details": {"cache_read": 1, "audio": 0},
    }
    plain = {"total_tokens": 3, "input_tokens": 1, "output_tokens": 2}
    first = messages.AIMessageChunk("a", usage_metadata=dict(plain))
    second = messages.AIMessageChunk("b", usage_metadata=dict(plain))
    return [
        repr(messages.AIMessage("x", usage_metadata=given).usage_metadata),
        repr(messages.AIMessage("x", usage_metadata=dict(plain)).usage_metadata),
        repr((first + second).usage_metadata),
        repr(messages.AIMessage("x", usage_metadata=dict(plain))),
    ]


def test_a_messages_usage_lists_its_keys_in_langchains_order() -> None:
    # noticed with cmoaciopm (set 19): LangChain's AIMessage validates usage_metadata as
    # its TypedDict, so the known keys come in the TypedDict's order (details too),
    # others after, also for a sum of chunks
    import langchain_core.messages as lc_messages

    assert _usage_as_messages_keep_it(rl) == _usage_as_messages_keep_it(lc_messages)


_OPENAI_DATA_BLOCKS = [
    {"type": "text", "text": "Listen and read."},
    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    {
        "type": "input_audio",
        "input_audio": {"data": "UklGRg==", "format": "mp3", "x": 1, "y": None},
        "cache_control": {"t": 1},
    },
    {"type": "input_audio", "input_audio": {"data": "no format"}},
    {"type": "file", "file": {"file_id": "file-1"}},
    {"type": "file", "file": {"file_id": "file-1", "filename": "a.pdf", "p": None}, "k": 2},
    {"type": "file", "file": {"filename": "n.pdf", "file_data": "data:application/pdf;base64,JV"}},
    {"type": "file", "file": {"file_data": "data:text/plain;base64,aGk=", "z": 1}, "k": 2},
    {"type": "file", "file": {"file_data": "not a data url"}},
    {"type": "file", "file": {"file_id": "x", "file_data": "data:application/pdf;base64,JV"}},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}},
]


def test_a_chat_model_receives_openai_audio_and_file_blocks_as_v1_blocks() -> None:
    # the same LangChain step converts OpenAI input_audio / file blocks (image_url blocks
    # are passed on as they are)
    import langchain_core.messages as lc_messages
    import langchain_core.outputs as lc_outputs

    expected = _what_a_chat_model_receives(
        lc_models, lc_messages, lc_prompts, lc_outputs, _OPENAI_DATA_BLOCKS
    )
    got = _what_a_chat_model_receives(rl, rl, rl, rl, _OPENAI_DATA_BLOCKS)
    assert _without_generated_ids(got) == _without_generated_ids(expected)
