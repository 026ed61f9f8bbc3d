"""Parity: run configs, configurable fields and alternatives, a program's own
RunnableSerializable, and astream_log's RunLog / RunLogPatch, against langchain_core's.

Each scenario runs the same program on each library and compares what it can observe:
the config dicts the helpers return, outputs with and without ``configurable`` values,
``config_specs``, errors, and the log patches a chain streams.
"""

from __future__ import annotations

import asyncio
import types
import warnings
from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.output_parsers as lc_parsers
import langchain_core.prompts as lc_prompts
import langchain_core.runnables as lc_runnables
import langchain_core.runnables.config as lc_config
import langchain_core.runnables.configurable as lc_configurable
import langchain_core.tracers as lc_tracers
import pytest

import ragline.core as rl
import ragline.core.config as rl_config
import ragline.core.runnables as rl_runnables
from tests.parity._observe import observe

COVERS = {
    "core.RunnableConfig",
    "core.ensure_config",
    "core.config.get_config_list",
    "core.config.merge_configs",
    "core.config.patch_config",
    "core.ConfigurableField",
    "core.runnables.RunnableConfigurableAlternatives",
    "core.runnables.RunnableConfigurableFields",
    "core.RunnableSerializable",
    "core.RunLog",
    "core.RunLogPatch",
}

LC = types.SimpleNamespace(
    config=lc_config,
    ConfigurableField=lc_runnables.ConfigurableField,
    RunnableConfigurableAlternatives=lc_configurable.RunnableConfigurableAlternatives,
    RunnableConfigurableFields=lc_configurable.RunnableConfigurableFields,
    RunnableSerializable=lc_runnables.RunnableSerializable,
    RunnableLambda=lc_runnables.RunnableLambda,
    RunLog=lc_tracers.RunLog,
    RunLogPatch=lc_tracers.RunLogPatch,
    PromptTemplate=lc_prompts.PromptTemplate,
    FakeListLLM=lc_models.FakeListLLM,
    FakeListChatModel=lc_models.FakeListChatModel,
    StrOutputParser=lc_parsers.StrOutputParser,
    LLM=lc_models.LLM,
)
OURS = types.SimpleNamespace(
    config=rl_config,
    ConfigurableField=rl.ConfigurableField,
    RunnableConfigurableAlternatives=rl_runnables.RunnableConfigurableAlternatives,
    RunnableConfigurableFields=rl_runnables.RunnableConfigurableFields,
    RunnableSerializable=rl.RunnableSerializable,
    RunnableLambda=rl.RunnableLambda,
    RunLog=rl.RunLog,
    RunLogPatch=rl.RunLogPatch,
    PromptTemplate=rl.PromptTemplate,
    FakeListLLM=rl.FakeListLLM,
    FakeListChatModel=rl.FakeListChatModel,
    StrOutputParser=rl.StrOutputParser,
    LLM=rl.LLM,
)


def _plain(config: Any) -> dict[str, Any]:
    """A config as a program prints it, callbacks shown by their type name; every key,
    None values included (both leave unset keys out)."""
    shown = dict(config)
    if shown.get("callbacks") is not None:
        shown["callbacks"] = type(shown["callbacks"]).__name__
    return dict(sorted(shown.items()))


# ---- config helpers -------------------------------------------------------------------------
def test_ensure_config_fills_the_defaults():
    def run(ns: Any) -> Any:
        cfg = ns.config
        given = cfg.RunnableConfig(
            tags=["a"], configurable={"user": "u1", "temperature": 0.5, "__secret": 1}
        )
        return (
            _plain(cfg.ensure_config()),
            _plain(cfg.ensure_config(given)),
            _plain(cfg.ensure_config({"run_name": "n", "metadata": {"m": 1}})),
            type(given).__name__,
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[0] == {
        "callbacks": None,
        "configurable": {},
        "metadata": {},
        "recursion_limit": 25,
        "tags": [],
    }


def test_ensure_config_leaves_out_unset_keys():
    def run(ns: Any) -> Any:
        cfg = ns.config
        given = {"run_name": None, "run_id": None, "max_concurrency": None, "tags": None}
        return (
            sorted(cfg.ensure_config()),
            _plain(cfg.ensure_config(given)),
            _plain(cfg.ensure_config({"max_concurrency": 3})),
            # inside a run, the run's own name is not passed on
            cfg.ensure_config().get("run_name"),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[0] == ["callbacks", "configurable", "metadata", "recursion_limit", "tags"]
    assert lc[2]["max_concurrency"] == 3 and "run_name" not in lc[2]


def test_a_config_inside_a_run_leaves_out_the_runs_name_and_id():
    def run(ns: Any) -> Any:
        seen = []

        def look(x: Any) -> Any:
            seen.append(sorted(ns.config.ensure_config()))
            return x

        ns.RunnableLambda(look).invoke(1, {"run_name": "outer", "max_concurrency": 2})
        return seen

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc == [
        ["callbacks", "configurable", "max_concurrency", "metadata", "recursion_limit", "tags"]
    ]


def test_patch_config_fills_in_and_joins_configurable():
    def run(ns: Any) -> Any:
        cfg = ns.config
        base = {"tags": ["a"], "configurable": {"x": 1}, "run_name": "n"}
        return (
            _plain(cfg.patch_config(base, configurable={"y": 2})),
            _plain(cfg.patch_config(base, max_concurrency=2, recursion_limit=3)),
            _plain(cfg.patch_config(None)),
            _plain(cfg.patch_config(base, callbacks=[], run_name="m")),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[0]["configurable"] == {"x": 1, "y": 2}
    assert lc[3]["run_name"] == "m" and lc[3]["callbacks"] == "list"


def test_a_run_id_given_to_a_batch_warns():
    import uuid

    def run(ns: Any) -> Any:
        with pytest.warns(RuntimeWarning) as caught:
            configs = ns.config.get_config_list({"run_id": uuid.uuid4()}, 2)
        return [sorted(c) for c in configs], [w.category.__name__ for w in caught]

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[1] == ["RuntimeWarning"]


def test_get_config_list_merge_configs_and_patch_config():
    def run(ns: Any) -> Any:
        cfg = ns.config
        one = cfg.RunnableConfig(tags=["a"], metadata={"k": 1}, configurable={"x": 1})
        two = cfg.RunnableConfig(tags=["b", "a"], metadata={"j": 2}, configurable={"y": 2})
        merged = cfg.merge_configs(one, two, None)
        listed = cfg.get_config_list(one, 2)
        listed_from_list = cfg.get_config_list([one, two], 2)
        patched = cfg.patch_config(
            cfg.ensure_config({"run_name": "old", "tags": ["t"]}),
            recursion_limit=5,
            max_concurrency=2,
            run_name="new",
            configurable={"z": 3},
        )
        return (
            _plain(merged),
            [_plain(c) for c in listed],
            [_plain(c) for c in listed_from_list],
            listed[0] is not listed[1],
            _plain(patched),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[0]["tags"] == ["a", "b"]


def test_get_config_list_refuses_a_list_of_the_wrong_length():
    def run(ns: Any) -> str:
        with pytest.raises(ValueError) as info:
            ns.config.get_config_list([{}, {}], 3)
        return type(info.value).__name__

    assert run(OURS) == run(LC) == "ValueError"


def test_patch_config_with_new_callbacks_drops_run_name_and_run_id():
    def run(ns: Any) -> Any:
        cfg = ns.config
        base = cfg.ensure_config({"run_name": "n", "run_id": None, "tags": ["t"]})
        patched = cfg.patch_config(base, callbacks=[])
        return sorted(_plain(patched)), patched.get("run_name"), patched["callbacks"]

    assert run(OURS) == run(LC)


# ---- configurable fields ----------------------------------------------------------------------
def test_configurable_fields_of_a_prompt_and_a_model():
    def run(ns: Any) -> Any:
        prompt = ns.PromptTemplate.from_template("Tell me about {topic}").configurable_fields(
            template=ns.ConfigurableField(
                id="prompt_template", name="Template", description="The prompt's text"
            )
        )
        model = ns.FakeListLLM(responses=["r1", "r2"]).configurable_fields(
            responses=ns.ConfigurableField(id="replies")
        )
        chain = prompt | model
        specs = [(s.id, s.name, s.description) for s in chain.config_specs]
        changed = prompt.with_config(configurable={"prompt_template": "About {topic}!"})
        return (
            type(prompt).__name__,
            isinstance(prompt, ns.RunnableConfigurableFields),
            prompt.invoke({"topic": "cats"}).to_string(),
            changed.invoke({"topic": "cats"}).to_string(),
            prompt.invoke(
                {"topic": "dogs"}, {"configurable": {"prompt_template": "{topic}?"}}
            ).to_string(),
            # configured first: LangChain's fake copies its position (i) into the copy
            chain.with_config(configurable={"replies": ["other"]}).invoke({"topic": "x"}),
            chain.invoke({"topic": "x"}),
            sorted(specs),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[2:5] == ("Tell me about cats", "About cats!", "dogs?")
    assert lc[5:7] == ("other", "r1")


# ---- configurable alternatives -------------------------------------------------------------
def _alternatives(ns: Any) -> Any:
    joke = ns.PromptTemplate.from_template("Joke about {topic}")
    poem = ns.PromptTemplate.from_template("Poem about {topic}")
    prompt = joke.configurable_alternatives(
        ns.ConfigurableField(id="prompt", name="Prompt kind"), default_key="joke", poem=poem
    )
    echo = ns.RunnableLambda(lambda value: value.to_string())
    return prompt, prompt | echo


def test_configurable_alternatives_pick_by_key():
    def run(ns: Any) -> Any:
        prompt, chain = _alternatives(ns)
        (spec,) = chain.config_specs
        return (
            type(prompt).__name__,
            isinstance(prompt, ns.RunnableConfigurableAlternatives),
            chain.invoke({"topic": "owls"}),
            chain.with_config(configurable={"prompt": "poem"}).invoke({"topic": "owls"}),
            chain.invoke({"topic": "owls"}, {"configurable": {"prompt": "joke"}}),
            chain.batch(
                [{"topic": "a"}, {"topic": "b"}],
                [{"configurable": {"prompt": "poem"}}, {}],
            ),
            (spec.id, spec.name, spec.default),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[2:4] == ("Joke about owls", "Poem about owls")


def test_an_unknown_alternative_is_refused():
    def run(ns: Any) -> str:
        _, chain = _alternatives(ns)
        with pytest.raises(ValueError) as info:
            chain.with_config(configurable={"prompt": "limerick"}).invoke({"topic": "x"})
        return type(info.value).__name__, str(info.value)

    # both a plain ValueError, naming the unknown key
    assert run(OURS)[0] == run(LC)[0] == "ValueError"
    assert "limerick" in run(OURS)[1]
    assert "limerick" in run(LC)[1]


def test_alternatives_of_a_model_with_a_prefix_key_configure_the_chosen_one():
    def run(ns: Any) -> Any:
        model = ns.FakeListChatModel(responses=["from a"]).configurable_alternatives(
            ns.ConfigurableField(id="llm"),
            default_key="a",
            b=ns.FakeListChatModel(responses=["from b"]),
        )
        chain = model | ns.StrOutputParser()
        return (
            chain.invoke("q"),
            chain.with_config(configurable={"llm": "b"}).invoke("q"),
            sorted(s.id for s in chain.config_specs),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc == ("from a", "from b", ["llm"])


def _prefixed_models(ns: Any, b_reply: str = "from b", **options: Any) -> Any:
    """Two models, each with its own configurable replies under the same id."""

    def replies(first: str) -> Any:
        field = ns.ConfigurableField(id="responses", name="Replies")
        return ns.FakeListLLM(responses=[first]).configurable_fields(responses=field)

    return replies("from a").configurable_alternatives(
        ns.ConfigurableField(id="llm"), default_key="a", b=replies(b_reply), **options
    )


def test_prefix_keys_gives_each_alternative_its_own_fields():
    def run(ns: Any) -> Any:
        chain = _prefixed_models(ns, prefix_keys=True) | ns.StrOutputParser()
        b_own = {"llm": "b", "llm==b/responses": ["own b"], "llm==a/responses": ["own a"]}
        return (
            chain.invoke("q"),
            chain.invoke("q", {"configurable": {"llm==a/responses": ["own a"]}}),
            chain.with_config(configurable=b_own).invoke("q"),
            chain.batch(["q", "q"], {"configurable": b_own}),
            asyncio.run(chain.ainvoke("q", {"configurable": b_own})),
            "".join(chain.stream("q", {"configurable": b_own})),
            sorted((s.id, s.name, observe(s.default)) for s in chain.config_specs),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[:3] == ("from a", "own a", "own b")
    assert [spec[0] for spec in lc[6]] == ["llm", "llm==a/responses", "llm==b/responses"]


def test_without_prefix_keys_the_alternatives_share_their_fields():
    def run(ns: Any) -> Any:
        # (the same default reply: LangChain refuses one id with two defaults)
        chain = _prefixed_models(ns, b_reply="from a") | ns.StrOutputParser()
        shared = {"llm": "b", "responses": ["shared"]}
        return chain.invoke("q", {"configurable": shared}), [s.id for s in chain.config_specs]

    lc, ours = run(LC), run(OURS)
    assert ours == lc == ("shared", ["llm", "responses"])


# ---- a program's own RunnableSerializable -------------------------------------------------------
def _adder(ns: Any) -> type:
    class Add(ns.RunnableSerializable):  # type: ignore[misc, name-defined]
        n: int = 1

        def invoke(self, input: int, config: Any = None, **kwargs: Any) -> int:
            return input + self.n

    return Add


def test_a_runnable_serializable_subclass():
    def run(ns: Any) -> Any:
        add = _adder(ns)
        two = add(n=2)
        configurable = two.configurable_fields(n=ns.ConfigurableField(id="step"))
        chain = configurable | ns.RunnableLambda(lambda v: v * 10)
        return (
            two.invoke(1),
            two.batch([1, 2]),
            list(two.stream(3)),
            chain.invoke(1),
            chain.with_config(configurable={"step": 5}).invoke(1),
            [spec.id for spec in chain.config_specs],
            two.n,
            two.get_name(),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[:5] == (3, [3, 4], [5], 30, 60)


# ---- astream_log -------------------------------------------------------------------------
def _ops_without_ids(patch: Any) -> list[Any]:
    shown = []
    for op in patch.ops:
        value = op.get("value")
        if isinstance(value, dict) and "id" in value:  # a run's entry: its stable keys
            value = {
                "name": value.get("name"),
                "type": value.get("type"),
                # listed differences: ragline adds no seq:step:N tags, and no vendor
                # stamps (ls_*, lc_versions) to the metadata
                "tags": [t for t in value.get("tags", []) if not t.startswith("seq:step:")],
                "metadata": {
                    key: item
                    for key, item in value.get("metadata", {}).items()
                    if key != "lc_versions" and not key.startswith("ls_")
                },
            }
        elif hasattr(value, "to_string"):  # a prompt's value: its class and text
            value = (type(value).__name__, value.to_string())
        elif op["path"].endswith(("/start_time", "/end_time")):
            value = "<time>"
        shown.append((op["op"], op["path"], observe(value)))
    return shown


async def test_astream_log_patches_add_up_to_the_run_log():
    async def run(ns: Any) -> Any:
        class Upper(ns.LLM):  # type: ignore[misc, name-defined]
            @property
            def _llm_type(self) -> str:
                return "upper"

            def _call(
                self, prompt: str, stop: Any = None, run_manager: Any = None, **kw: Any
            ) -> str:
                return prompt.upper()

        prompt = ns.PromptTemplate.from_template("Q: {q}")
        chain = prompt | Upper() | ns.StrOutputParser()
        with warnings.catch_warnings():  # LangChain's astream_log is deprecated
            warnings.simplefilter("ignore")
            patches = [patch async for patch in chain.astream_log({"q": "x"})]
        whole = patches[0]
        for patch in patches[1:]:
            whole = whole + patch
        kinds = [type(patch).__name__ for patch in patches]
        state = whole.state
        return (
            kinds,
            _ops_without_ids(patches[0]),
            [op for patch in patches[1:] for op in _ops_without_ids(patch)],
            type(whole).__name__,
            state["final_output"],
            state["streamed_output"],
            sorted(state["logs"]),
            [state["logs"][key]["final_output"] is not None for key in sorted(state["logs"])],
        )

    lc, ours = await run(LC), await run(OURS)
    assert ours == lc
    assert lc[4] == "Q: X"


async def test_run_log_patches_built_by_hand():
    def run(ns: Any) -> Any:
        first = ns.RunLogPatch({"op": "replace", "path": "", "value": {"items": []}})
        second = ns.RunLogPatch({"op": "add", "path": "/items/-", "value": 1})
        whole = first + second + ns.RunLogPatch({"op": "add", "path": "/items/-", "value": 2})
        return (
            type(first + second).__name__,
            whole.state,
            whole.ops,
            first == ns.RunLogPatch({"op": "replace", "path": "", "value": {"items": []}}),
            isinstance(whole, ns.RunLogPatch),
        )

    lc, ours = run(LC), run(OURS)
    assert ours == lc
    assert lc[1] == {"items": [1, 2]}


# ---- which runnables are RunnableSerializable ---------------------------------------------------
def _runnables(library: str) -> dict[str, Any]:
    """One of each kind of runnable a program builds, from one library."""
    if library == "langchain":
        import langchain_classic.chains as chains
        import langchain_core.chat_history as history
        import langchain_core.output_parsers as parsers
        import langchain_core.prompts as prompts
        import langchain_core.runnables as runnables
        import langchain_core.tools as tools
        from langchain_core.language_models import FakeListLLM
    else:
        import ragline.chains as chains
        import ragline.core as history
        import ragline.core as parsers
        import ragline.core as prompts
        import ragline.core.runnables as runnables
        import ragline.tools as tools
        from ragline.core import FakeListLLM

    def shout(text: str) -> str:
        """Shout the text."""
        return text.upper()

    def each_chunk(chunks: Any) -> Any:
        yield from chunks

    prompt = prompts.PromptTemplate.from_template("Say {x}")
    llm = FakeListLLM(responses=["a"])
    lam = runnables.RunnableLambda(lambda x: x)
    field = runnables.ConfigurableField(id="responses")
    return {
        "PromptTemplate": prompt,
        "ChatPromptTemplate": prompts.ChatPromptTemplate.from_messages([("human", "{x}")]),
        "FewShotPromptTemplate": prompts.FewShotPromptTemplate(
            examples=[{"q": "1"}],
            example_prompt=prompts.PromptTemplate.from_template("{q}"),
            suffix="{x}",
            input_variables=["x"],
        ),
        "StrOutputParser": parsers.StrOutputParser(),
        "JsonOutputParser": parsers.JsonOutputParser(),
        "CommaSeparatedListOutputParser": parsers.CommaSeparatedListOutputParser(),
        "RunnableSequence": prompt | llm,
        "RunnableParallel": runnables.RunnableParallel(a=lam),
        "RunnablePassthrough": runnables.RunnablePassthrough(),
        "RunnableAssign": runnables.RunnablePassthrough.assign(b=lam),
        "RunnablePick": runnables.RunnablePick("a"),
        "RunnableBranch": runnables.RunnableBranch((lambda x: x, lam), lam),
        "RunnableWithFallbacks": lam.with_fallbacks([lam]),
        "RunnableBinding": llm.bind(stop=["x"]),
        "RunnableRetry": lam.with_retry(),
        "RunnableEach": lam.map(),
        "RunnableConfigurableFields": llm.configurable_fields(responses=field),
        "RunnableConfigurableAlternatives": llm.configurable_alternatives(
            runnables.ConfigurableField(id="llm"), b=llm
        ),
        "RunnableWithMessageHistory": runnables.RunnableWithMessageHistory(
            lam, lambda session_id: history.InMemoryChatMessageHistory()
        ),
        "FakeListLLM": llm,
        "tool": tools.tool(shout),
        "LLMChain": chains.LLMChain(llm=llm, prompt=prompt),
        "RunnableLambda": lam,
        "RunnableGenerator": runnables.RunnableGenerator(each_chunk),
    }


def test_which_runnables_are_runnable_serializable():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's deprecation of LLMChain
        lc, ours = _runnables("langchain"), _runnables("ragline")
    assert list(ours) == list(lc)

    def kinds(objects: dict[str, Any], base: type) -> dict[str, tuple[bool, bool]]:
        return {
            name: (isinstance(obj, base), issubclass(type(obj), base))
            for name, obj in objects.items()
        }

    theirs = kinds(lc, LC.RunnableSerializable)
    assert kinds(ours, OURS.RunnableSerializable) == theirs
    # every kind is one, but the function wrappers
    assert [name for name, (isa, _) in theirs.items() if not isa] == [
        "RunnableLambda",
        "RunnableGenerator",
    ]
