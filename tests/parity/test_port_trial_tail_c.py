"""Parity: causes left after the port trials' sets 14-17 (issue 24, helper tail C).

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print, read or catch.
"""

import asyncio
import os
from typing import Any

import langchain_core.runnables as lc_runnables
import langchain_core.tools as lc_tools
from typing_extensions import TypedDict

import ragline.core as rl
import ragline.tools as rl_tools


class _Pair(TypedDict):
    a: int
    b: list[int]


def _times_max(x: _Pair) -> str:
    return str(x["a"] * max(x["b"]))


def _shout(x: str) -> str:
    return x.upper() + "!"


def _as_tool_forms(runnables: Any, tools: Any) -> list[Any]:
    typed = runnables.RunnableLambda(_times_max).as_tool(name="pair", description="Pairs.")
    by_types = runnables.RunnableLambda(lambda x: x["a"] + x["b"]).as_tool(
        name="add", description="Adds.", arg_types={"a": int, "b": int}
    )
    text = runnables.RunnableLambda(_shout).as_tool(description="Shouts.")
    forms = []
    for tool in (typed, by_types, text):
        forms += [
            type(tool).__name__,
            isinstance(tool, tools.StructuredTool),
            isinstance(tool, tools.Tool),
            isinstance(tool, tools.BaseTool),
            tool.name,
            tool.description,
            tool.args,
        ]
    forms += [
        typed.invoke({"a": 3, "b": [1, 2]}),
        asyncio.run(typed.ainvoke({"a": 2, "b": [4]})),
        list(typed.stream({"a": 1, "b": [7]})),
        by_types.invoke({"a": 2, "b": 5}),
        text.invoke("hi"),
        asyncio.run(text.ainvoke("yo")),
        text.run("hey"),
        typed.tool_call_schema.model_json_schema(),
        by_types.tool_call_schema.model_json_schema(),
    ]
    return forms


def test_runnable_as_tool_is_a_structured_tool_or_a_tool_as_langchains() -> None:
    # set 14 wpbarco_runnable_as_tool_typed_dict: type(tool).__name__ printed RunnableTool
    # where LangChain returns a StructuredTool (dict input) or a Tool (string input)
    assert _as_tool_forms(rl, rl_tools) == _as_tool_forms(lc_runnables, lc_tools)


def _undecodable_file_error(loaders: Any, path: Any) -> list[Any]:
    path.write_bytes("Caf\u00e9 na\u00efve.\n".encode("cp1252"))
    try:
        loaders.TextLoader(str(path), encoding="utf-8").load()
    except RuntimeError as err:
        return [type(err).__name__, repr(err).split("(")[0], type(err.__cause__).__name__]
    return []


def test_an_undecodable_text_file_raises_a_runtime_error_as_langchains(tmp_path: Any) -> None:
    # set 11 text_loader_encoding_error: print(type(e).__name__) printed DecodeError where
    # LangChain's TextLoader raises RuntimeError (the message stays ragline's own)
    import langchain_community.document_loaders as lc_loaders

    import ragline.loaders as rl_loaders

    assert _undecodable_file_error(rl_loaders, tmp_path / "a.txt") == _undecodable_file_error(
        lc_loaders, tmp_path / "b.txt"
    )


def _structured_output_refused(models: Any) -> list[Any]:
    caught = []
    for method in (None, "function_calling", "json_schema"):
        model = models.GenericFakeChatModel(messages=iter(["hello matey"]))
        try:
            model.with_structured_output({"foo": "bar"}, method=method)
        except NotImplementedError as err:
            caught += [type(err).__name__, repr(err).split("(")[0]]
    return caught


def test_structured_output_of_a_model_without_tools_is_not_implemented_as_langchains() -> None:
    # set 13 rohit_generic_fake_structured_dict_schema: ragline raised ConfigurationError
    # (a ValueError) where LangChain raises NotImplementedError
    import langchain_core.language_models as lc_models

    assert _structured_output_refused(rl) == _structured_output_refused(lc_models)


def _default_cache_file(caches: Any, models: Any, set_llm_cache: Any, folder: Any) -> list[Any]:
    os.chdir(folder)
    cache = caches.SQLiteCache()
    seen = [os.path.exists(".langchain.db")]
    set_llm_cache(cache)
    try:
        llm = models.FakeListLLM(responses=["first", "second"])
        seen += [llm.invoke("joke"), llm.invoke("joke"), llm.invoke("other")]
    finally:
        set_llm_cache(None)
    return seen


def test_sqlite_cache_with_no_path_writes_langchains_file(tmp_path: Any, monkeypatch: Any) -> None:
    # set 14 mdaniyalkhann_sqlite_cache_joke: SQLiteCache() wrote .ragline_cache.db, so
    # os.path.exists(".langchain.db") printed False where LangChain's printed True
    import langchain_community.cache as lc_caches
    import langchain_core.globals as lc_globals
    import langchain_core.language_models as lc_models

    monkeypatch.chdir(tmp_path)
    (tmp_path / "lc").mkdir()
    (tmp_path / "rl").mkdir()
    theirs = _default_cache_file(lc_caches, lc_models, lc_globals.set_llm_cache, tmp_path / "lc")
    ours = _default_cache_file(rl, rl, rl.set_llm_cache, tmp_path / "rl")
    assert ours == theirs
    assert {name.split("-")[0] for name in os.listdir(tmp_path / "rl")} == {".langchain.db"}


def test_ragline_and_langchain_share_the_default_file_without_touching_each_others_rows(
    tmp_path: Any, monkeypatch: Any
) -> None:
    # the same .langchain.db used by both libraries: both write LangChain's table, and each
    # model reads its own answers back (the models' llm strings differ, so neither one's
    # rows replace the other's)
    import langchain_community.cache as lc_caches
    import langchain_core.globals as lc_globals
    import langchain_core.language_models as lc_models

    monkeypatch.chdir(tmp_path)
    lc_llm = lc_models.FakeListLLM(responses=["lc answer", "lc again"])
    rl_llm = rl.FakeListLLM(responses=["rl answer", "rl again"])
    try:
        lc_globals.set_llm_cache(lc_caches.SQLiteCache())
        assert lc_llm.invoke("q") == "lc answer"
        rl.set_llm_cache(rl.SQLiteCache())
        assert [rl_llm.invoke("q"), rl_llm.invoke("q")] == ["rl answer", "rl answer"]
        lc_globals.set_llm_cache(lc_caches.SQLiteCache())
        assert lc_llm.invoke("q") == "lc answer"
        rl.set_llm_cache(rl.SQLiteCache())
        assert rl_llm.invoke("q") == "rl answer"
    finally:
        lc_globals.set_llm_cache(None)
        rl.set_llm_cache(None)
    assert {name.split("-")[0] for name in os.listdir(tmp_path)} == {".langchain.db"}


def _schema_forms(prompts: Any, models: Any) -> list[Any]:
    prompt = prompts.ChatPromptTemplate.from_template("Tell me about {topic} in {n} words")
    llm = models.FakeListLLM(responses=["x"])
    forms: list[Any] = []
    for schema in (
        prompt.input_schema,
        prompt.output_schema,
        llm.input_schema,
        llm.output_schema,
        (prompt | llm).input_schema,
        prompts.PromptTemplate.from_template("{a} {b}").input_schema,
    ):
        fields = schema.model_fields
        forms += [
            str(schema).rsplit(".", 1)[-1],  # the class's own name; the module path differs
            str(schema).startswith("<class '"),
            schema.__name__,
            schema.__qualname__,
            isinstance(schema, type),
            schema == schema,
            list(fields),
            [field.is_required() for field in fields.values()],
            schema.model_json_schema()["title"],
        ]
    forms += [
        prompt.input_schema == prompt.input_schema,
        repr(prompt.input_schema.model_fields["topic"]),
        repr(prompt.input_schema.model_fields["topic"].annotation),
        llm.output_schema.model_fields["root"].annotation,
    ]
    return forms


def test_input_and_output_schemas_are_classes_as_langchains() -> None:
    # set 17 sudoroom_prompt_output_schema_llm_input_schema: print(prompt.output_schema)
    # printed Schema('ChatPromptTemplateOutput') where LangChain prints the class; programs
    # also read __name__ and list model_fields
    import langchain_core.language_models as lc_models
    import langchain_core.prompts as lc_prompts

    assert _schema_forms(rl, rl) == _schema_forms(lc_prompts, lc_models)


def _fake_chat_batch_order(models: Any, limiters: Any, handlers: Any) -> list[Any]:
    events: list[str] = []

    class Record(handlers.BaseCallbackHandler):
        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            events.append(f"start {messages[0][0].content}")

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            events.append(f"end {response.generations[0][0].text}")

    limiter = limiters.InMemoryRateLimiter(
        requests_per_second=50, check_every_n_seconds=0.005, max_bucket_size=1
    )
    model = models.FakeListChatModel(responses=["first", "second"], rate_limiter=limiter)
    config = {"callbacks": [Record()]}
    answers = [m.content for m in model.batch(["a", "b"], config)]
    answers += [m.content for m in asyncio.run(model.abatch(["c", "d"], config))]
    answers += [m.content for m in model.batch(["e", "f"], [config, config])]
    return [answers, events]


def test_fake_list_chat_model_batches_in_input_order_as_langchains() -> None:
    # set 14 bleroni_rate_limiter_fake_chat: FakeListChatModel(rate_limiter=...).batch
    # gave the scripted answers to the inputs in thread order (['second', 'first'] in some
    # runs); LangChain's fake runs a batch one input after another, in order
    import langchain_core.callbacks as lc_callbacks
    import langchain_core.language_models as lc_models
    import langchain_core.rate_limiters as lc_limiters

    assert _fake_chat_batch_order(rl, rl, rl) == _fake_chat_batch_order(
        lc_models, lc_limiters, lc_callbacks
    )


def _serialized_forms(load: Any, prompts: Any, runnables: Any, parsers: Any) -> list[Any]:
    prompt = prompts.PromptTemplate.from_template("{q}")
    fields = prompt.configurable_fields(
        template=runnables.ConfigurableField(id="tpl", name="Template", description="d")
    )
    options = prompt.configurable_fields(
        template=runnables.ConfigurableFieldSingleOption(
            id="style", options={"ask": "{q}?", "say": "{q}!"}, default="ask"
        ),
    )
    many = prompt.configurable_fields(
        template=runnables.ConfigurableFieldMultiOption(
            id="parts", options={"a": "{q}A", "b": "{q}B"}, default=["a"]
        ),
    )
    alternatives = prompt.configurable_alternatives(
        runnables.ConfigurableField(id="which"),
        default_key="plain",
        shout=prompts.PromptTemplate.from_template("{q}!!"),
    )
    typed = prompts.PromptTemplate(template="{x}", input_variables=["x"], input_types={"x": str})
    parsed = prompts.PromptTemplate(
        template="{x}", input_variables=["x"], output_parser=parsers.StrOutputParser()
    )
    forms: list[Any] = []
    for runnable in (fields, options, alternatives, typed, parsed):
        text = load.dumps(runnable)
        back = load.loads(text)
        forms += [text, type(back).__name__, load.dumps(back) == text]
    for runnable, chosen in (
        (fields, {"tpl": "<{q}>"}),
        (options, {"style": "say"}),
        (alternatives, {"which": "shout"}),
    ):
        back = load.loads(load.dumps(runnable))
        forms += [
            back.invoke({"q": "hi"}).to_string(),
            back.invoke({"q": "hi"}, {"configurable": chosen}).to_string(),
        ]
    forms.append(load.dumpd(many))
    return forms


def test_configurable_runnables_and_typed_prompts_serialize_as_langchains() -> None:
    # ragline's dumps refused configurable_fields / configurable_alternatives and a prompt
    # with input_types or an output parser (TypeError); LangChain writes them all (a
    # prompt's input_types left out) and reads the configurables back
    import warnings

    import langchain_core.load as lc_load
    import langchain_core.output_parsers as lc_parsers
    import langchain_core.prompts as lc_prompts

    import ragline.core.load as rl_load

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _serialized_forms(lc_load, lc_prompts, lc_runnables, lc_parsers)
    assert _serialized_forms(rl_load, rl, rl, rl) == theirs


def _typed_bindings(load: Any, prompts: Any) -> list[Any]:
    prompt = prompts.PromptTemplate.from_template("{q}")
    forms: list[Any] = []
    for binding in (
        prompt.with_types(input_type=dict, output_type=str),
        prompt.bind(x=1).with_types(output_type=list[str]),
        prompt.with_types(input_type=dict).with_config(tags=["t"]),
        prompt.with_types(input_type=dict).with_types(output_type=str),
    ):
        text = load.dumps(binding)
        try:
            load.loads(text)
        except NotImplementedError as err:
            text += f" | {type(err).__name__}"
        forms += [load.dumpd(binding), text, str(binding)]
        forms += [binding.get_input_jsonschema(), binding.get_output_jsonschema()["title"]]
    return forms


def test_with_types_bindings_serialize_as_langchains() -> None:
    # dumps of a with_types() binding raised TypeError; LangChain writes the types as
    # not_implemented entries (so neither library reads it back). bind(...).with_types()
    # and with_types().with_types() are one binding there; a declared type's schema is
    # titled after the binding
    import warnings

    import langchain_core.load as lc_load
    import langchain_core.prompts as lc_prompts

    import ragline.core.load as rl_load

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _typed_bindings(lc_load, lc_prompts)
    assert _typed_bindings(rl_load, rl) == theirs
