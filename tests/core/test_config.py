"""RunnableConfig: defaults, merging, the current-config ContextVar, batch config lists."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ragline.core import (
    BaseCallbackHandler,
    ConfigurationError,
    RunCollectorCallbackHandler,
    RunnableLambda,
    ensure_config,
    get_current_config,
)
from ragline.core.callbacks import CallbackManager
from ragline.core.config import get_config_list, legacy_call_config, merge_configs, patch_config


def test_ensure_config_defaults_outside_any_run():
    assert get_current_config() is None
    # unset keys (run_name, run_id, max_concurrency) are left out, as LangChain's
    assert ensure_config() == {
        "tags": [],
        "metadata": {},
        "callbacks": None,
        "recursion_limit": 25,
        "configurable": {},
    }
    assert "run_name" not in ensure_config({"run_name": None, "max_concurrency": None})


def test_merge_unites_tags_merges_dicts_and_replaces_scalars():
    merged = merge_configs(
        {
            "tags": ["a", "b"],
            "metadata": {"x": 1, "y": 1},
            "max_concurrency": 2,
            "configurable": {"k": 1},
        },
        {
            "tags": ["b", "c"],
            "metadata": {"y": 2},
            "max_concurrency": None,
            "recursion_limit": 5,
            "configurable": {"j": 2},
        },
    )
    assert merged == {
        "tags": ["a", "b", "c"],
        "metadata": {"x": 1, "y": 2},
        "max_concurrency": 2,  # None does not erase an inherited value
        "recursion_limit": 5,
        "configurable": {"k": 1, "j": 2},
    }


def test_legacy_call_options_become_a_config_merged_into_the_given_one():
    """chain(x, callbacks=...), get_relevant_documents(q, tags=...), generate(...,
    metadata=...): the options given, and only those; merged, never replacing."""
    handler = RunCollectorCallbackHandler()
    assert legacy_call_config() is None
    assert legacy_call_config(None, ["t"], None, "run") == {"tags": ["t"], "run_name": "run"}
    assert legacy_call_config([handler], metadata={"k": 1}) == {
        "callbacks": [handler],
        "metadata": {"k": 1},
    }
    given = {"tags": ["a"], "metadata": {"x": 1}}
    assert legacy_call_config(config=given) is given
    assert legacy_call_config(tags=["b"], metadata={"y": 2}, config=given) == {
        "tags": ["a", "b"],
        "metadata": {"x": 1, "y": 2},
    }


def test_unknown_config_keys_move_into_configurable_as_in_langchain():
    """Seed 003: ``invoke(x, config={"configurable": {"total": 100}, "foo": 2})`` works; the
    extra key is readable from ``config["configurable"]`` (LangChain's ensure_config)."""
    seen = []

    def func2(x, config):
        seen.append(dict(config["configurable"]))
        return x["num"] + config["configurable"]["total"]

    config = {"configurable": {"total": 100}, "foo": 2, "nothing": None}
    assert RunnableLambda(func2).invoke({"num": 1}, config=config) == 101
    assert seen == [{"total": 100, "foo": 2}]  # None values are dropped, as LangChain does
    assert config == {"configurable": {"total": 100}, "foo": 2, "nothing": None}  # untouched
    assert ensure_config({"tag": ["x"]})["configurable"] == {"tag": ["x"]}
    # a configurable key of the same name wins over a moved one
    assert ensure_config({"k": 1, "configurable": {"k": 2}})["configurable"] == {"k": 2}


def test_model_and_checkpoint_ns_are_copied_into_metadata_as_in_langchain():
    config = ensure_config({"configurable": {"model": "m1", "checkpoint_ns": "ns", "x": "y"}})
    assert config["metadata"] == {"model": "m1", "checkpoint_ns": "ns"}
    kept = ensure_config({"configurable": {"model": "m1"}, "metadata": {"model": "mine"}})
    assert kept["metadata"] == {"model": "mine"}


def test_config_must_be_a_dict():
    with pytest.raises(TypeError, match="config must be a dict"):
        ensure_config(["tags"])  # type: ignore[arg-type]


def test_handler_list_joins_an_inherited_manager():
    outer = RunCollectorCallbackHandler()
    extra = RunCollectorCallbackHandler()
    manager = CallbackManager([outer], parent_run_id=None)
    merged = merge_configs({"callbacks": manager}, {"callbacks": [extra]})
    assert isinstance(merged["callbacks"], CallbackManager)
    assert merged["callbacks"].handlers == [outer, extra]
    assert manager.handlers == [outer]  # the inherited manager is not modified
    # and the other way round: a bound handler list under a call's manager
    merged = merge_configs({"callbacks": [extra]}, {"callbacks": manager})
    assert merged["callbacks"].handlers == [outer, extra]


def test_patch_config_replaces_and_drops_one_run_keys_with_callbacks():
    # the config filled in first, as LangChain's patch_config does
    config = {"tags": ["a"], "run_name": "x", "run_id": None}
    filled = {"tags": ["a"], "metadata": {}, "callbacks": None, "recursion_limit": 25}
    assert patch_config(config, max_concurrency=2, configurable={"k": 1}) == {
        **filled,
        "configurable": {"k": 1},
        "run_name": "x",
        "max_concurrency": 2,
    }
    assert patch_config(config, callbacks=[]) == {**filled, "configurable": {}, "callbacks": []}
    with pytest.raises(ConfigurationError, match="max_concurrency"):
        patch_config(config, max_concurrency=0)


def test_get_config_list_shares_one_config_but_not_its_run_id():
    import uuid

    run_id = uuid.uuid4()
    with pytest.warns(RuntimeWarning, match="names the first input's run only"):
        configs = get_config_list({"tags": ["t"], "run_id": run_id}, 3)
    # each filled in (as LangChain's are), the run id kept for the first only
    filled = ensure_config({"tags": ["t"]})
    assert (
        configs
        == [{**filled, "run_id": run_id}]
        + [{key: value for key, value in filled.items() if key != "run_id"}] * 2
    )
    configs[1]["tags"].append("own")  # each its own containers
    assert configs[2]["tags"] == ["t"]
    with pytest.raises(ValueError, match="batch got 2 configs for 3 inputs"):
        get_config_list([{}, {}], 3)


def test_current_config_inside_a_lambda_is_the_child_config():
    seen = {}

    def look(x):
        seen["config"] = get_current_config()
        return x

    RunnableLambda(look).invoke(
        1,
        {
            "tags": ["t"],
            "metadata": {"m": 1},
            "run_name": "outer",
            "configurable": {"c": 2},
            "max_concurrency": 3,
        },
    )
    config = seen["config"]
    assert config["tags"] == ["t"]
    assert config["metadata"] == {"m": 1}
    assert config["configurable"] == {"c": 2}
    assert config["max_concurrency"] == 3
    assert "run_name" not in config  # run_name names one run only
    assert isinstance(config["callbacks"], CallbackManager)
    assert get_current_config() is None  # restored after the call


def test_lambda_with_config_parameter_receives_the_child_config():
    def with_config(x, config):
        return (x, config["tags"], config["metadata"])

    assert RunnableLambda(with_config).invoke(1, {"tags": ["a"], "metadata": {"k": "v"}}) == (
        1,
        ["a"],
        {"k": "v"},
    )


def test_config_flows_into_nested_invoke_without_passing_it():
    collector = RunCollectorCallbackHandler()
    inner = RunnableLambda(lambda x: x * 2, name="inner")
    outer = RunnableLambda(lambda x: inner.invoke(x) + 1, name="outer")
    assert outer.invoke(5, {"callbacks": [collector], "tags": ["root-tag"]}) == 11
    (root,) = collector.traced_runs
    assert root.tree() == ("outer", [("inner", [])])
    assert root.children[0].tags == ["root-tag"]
    assert root.children[0].parent_run_id == root.id


def test_explicit_handlers_inside_a_run_keep_the_parent():
    outer_collector = RunCollectorCallbackHandler()
    parents = []

    class Parents(BaseCallbackHandler):
        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
            parents.append((kwargs["name"], parent_run_id))

    inner = RunnableLambda(lambda x: x, name="inner")
    outer = RunnableLambda(lambda x: inner.invoke(x, {"callbacks": [Parents()]}), name="outer")
    outer.invoke(1, {"callbacks": [outer_collector]})
    assert outer_collector.traced_runs[0].tree() == ("outer", [("inner", [])])
    # the extra handler saw only the inner run, still pointing at its real parent
    assert parents == [("inner", outer_collector.traced_runs[0].id)]


async def test_ainvoke_default_copies_contextvars_into_the_worker_thread():
    collector = RunCollectorCallbackHandler()
    threads = []

    def sync_inner(x):
        threads.append(threading.get_ident())
        return x + 1

    inner = RunnableLambda(sync_inner, name="inner")

    async def outer(x):
        return await inner.ainvoke(x)  # sync lambda: runs in a worker thread

    result = await RunnableLambda(outer, name="outer").ainvoke(1, {"callbacks": [collector]})
    assert result == 2
    assert threads[0] != threading.get_ident()
    assert collector.traced_runs[0].tree() == ("outer", [("inner", [])])


async def test_current_config_is_isolated_between_concurrent_tasks():
    seen = {}

    async def record(x, config):
        await asyncio.sleep(0.01)
        seen[x] = config["tags"]
        return x

    lam = RunnableLambda(record)
    await asyncio.gather(lam.ainvoke("a", {"tags": ["A"]}), lam.ainvoke("b", {"tags": ["B"]}))
    assert seen == {"a": ["A"], "b": ["B"]}


@pytest.mark.parametrize(
    "config, message",
    [
        (
            {"callbacks": RunCollectorCallbackHandler()},
            "callbacks must be a list of handlers or a CallbackManager, got "
            "RunCollectorCallbackHandler",
        ),
        ({"tags": "one"}, "tags must be a list of str, got 'one'"),
        ({"metadata": ["a"]}, "metadata must be a dict, got list"),
        ({"max_concurrency": 0}, "max_concurrency must be an int >= 1 or None, got 0"),
        ({"recursion_limit": "5"}, "recursion_limit must be an int >= 1, got '5'"),
        ({"run_name": 3}, "run_name must be a str, got int"),
    ],
)
def test_config_values_of_the_wrong_type_are_named(config, message):
    calls = []
    with pytest.raises(ConfigurationError) as info:
        RunnableLambda(calls.append).invoke(1, config)
    assert str(info.value) == message
    assert calls == []
