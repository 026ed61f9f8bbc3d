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


def _usage_summed_per_model(models: Any, messages: Any, callbacks: Any) -> str:
    # cmoaciopm_usage_metadata_callback_three_calls: three runs of one model summed
    def reply(i: int, o: int, details: bool) -> Any:
        usage: dict[str, Any] = {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}
        if details:
            usage["input_token_details"] = {"cache_read": 1, "audio": 0, "cache_creation": 2}
            usage["output_token_details"] = {"reasoning": 3, "audio": 1}
        return messages.AIMessage(
            "ok", response_metadata={"model_name": "deepseek-v3"}, usage_metadata=usage
        )

    llm = models.GenericFakeChatModel(
        messages=iter([reply(5, 9, False), reply(8, 8, True), reply(6, 14, False)])
    )
    handler = callbacks.UsageMetadataCallbackHandler()
    printed = []
    for question in ("hello", "What's your name?", "Tell me a joke"):
        llm.invoke(question, config={"callbacks": [handler]})
        printed.append(repr(handler.usage_metadata))
    return "\n".join(printed)


def test_usage_sums_keep_langchains_key_order() -> None:
    # LangChain's add_usage builds each sum over a set of the keys, so a printed sum
    # lists them in that set's order (the first run's usage is kept as it came)
    import langchain_core.callbacks as lc_callbacks
    import langchain_core.messages as lc_messages

    import ragline.core.callbacks as rl_callbacks

    expected = _usage_summed_per_model(lc_models, lc_messages, lc_callbacks)
    assert _usage_summed_per_model(rl, rl, rl_callbacks) == expected


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
    models: Any, messages: Any, prompts: Any, outputs: Any
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

    sent = messages.HumanMessage(content=[dict(block) for block in _V0_BLOCKS])
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
    seen.append(sent.content == _V0_BLOCKS)
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
