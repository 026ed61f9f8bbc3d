"""Parity: differences found by the thirty-sixth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# configurable_temperature_field_study: print(llm) of a model.configurable_fields(...)
# printed ragline's short form (``RunnableConfigurableFields(ChatDeepSeek(), fields=
# ['temperature'])``); LangChain prints the runnable's fields, each ConfigurableField with
# its annotation and is_shared. (Its model's ``lc_versions`` metadata stays a documented
# difference, so the scenario's defaults are prompts.)
_CONFIGURABLE_PRINTED = """
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import (
    ConfigurableField,
    ConfigurableFieldMultiOption,
    ConfigurableFieldSingleOption,
)

prompt = PromptTemplate.from_template("Tell me a joke about {topic}")
fields = prompt.configurable_fields(
    template=ConfigurableField(id="tpl", name="Template", description="the text")
)
print(fields)
print(repr(fields))
print([fields])
print(ConfigurableField("tpl"))
print(ConfigurableField("t", "T", "d", str, True))
shared = prompt.configurable_fields(
    template=ConfigurableField(id="tpl", annotation=str, is_shared=True)
)
for spec in shared.config_specs:
    print(spec.id, spec.annotation, spec.is_shared, spec.default)
single = prompt.configurable_fields(
    template=ConfigurableFieldSingleOption(
        id="style", options={"joke": "joke {topic}", "poem": "poem {topic}"}, default="joke"
    )
)
print(single)
multi = prompt.configurable_fields(
    input_variables=ConfigurableFieldMultiOption(
        id="vars", options={"t": "topic", "u": "user"}, default=["t"]
    )
)
print(repr(multi))
alternatives = prompt.configurable_alternatives(
    ConfigurableField(id="prompt", name="Prompt"),
    default_key="joke",
    poem=PromptTemplate.from_template("Write a poem about {topic}"),
)
print(alternatives)
print(repr(alternatives))
prefixed = prompt.configurable_alternatives(
    ConfigurableField(id="p"), prefix_keys=True, other=prompt
)
print(repr(prefixed))
print(fields.invoke({"topic": "cats"}, {"configurable": {"tpl": "Cats: {topic}"}}).text)
"""


def test_configurable_runnables_and_fields_print_as_langchains() -> None:
    ported = _ported(_CONFIGURABLE_PRINTED)
    assert "from ragline.core" in ported
    langchain_printed = _printed(_CONFIGURABLE_PRINTED)
    assert "fields={'template': ConfigurableField(id='tpl', name='Template'" in langchain_printed
    assert _printed(ported) == langchain_printed


# Noticed with the scenario above, in the set's theme (with_fallbacks / with_retry): a
# printed chain holding a fallback or a retry showed ragline's short forms
# (``RunnableWithFallbacks(RunnableLambda(f), fallbacks=[...])``, ``RunnableRetry(...,
# stop_after_attempt=2)``); LangChain prints their fields, those at their defaults left out.
_FALLBACK_RETRY_PRINTED = """
from langchain_core.runnables import RunnableLambda


def answer(x):
    return x


def spare(x):
    return "spare"


primary = RunnableLambda(answer)
plain = primary.with_fallbacks([RunnableLambda(spare)])
print(plain)
print(repr(plain))
keyed = primary.with_fallbacks(
    [RunnableLambda(spare)], exceptions_to_handle=(ValueError, KeyError), exception_key="error"
)
print(repr(keyed))
named = primary.with_fallbacks([RunnableLambda(spare)]).with_config(run_name="guarded")
print(repr(named))
print(repr(primary.with_retry()))
print(primary.with_retry(stop_after_attempt=2))
print(
    repr(
        primary.with_retry(
            retry_if_exception_type=(ValueError,),
            wait_exponential_jitter=False,
            stop_after_attempt=5,
        )
    )
)
print(repr(primary.with_retry(exponential_jitter_params={"initial": 2})))
chain = primary | primary.with_retry(stop_after_attempt=2) | plain
print(chain.steps)
print(chain.invoke("ok"))
"""


def test_fallbacks_and_retries_print_as_langchains() -> None:
    ported = _ported(_FALLBACK_RETRY_PRINTED)
    assert "from ragline.core" in ported
    langchain_printed = _printed(_FALLBACK_RETRY_PRINTED)
    assert "RunnableRetry(bound=RunnableLambda(answer), kwargs={}" in langchain_printed
    assert _printed(ported) == langchain_printed


# Noticed while probing the set's theme (.pick): a RunnablePick printed as
# ``RunnablePick()``, so a printed chain ending in ``.pick([...])`` lost its keys;
# LangChain prints ``RunnablePick(keys=[...])`` (str: ``keys=[...]``). And the output
# schema of a chain ending in a pick was the pick's own (``RunnablePick<n>Output``, no
# type); LangChain's is ``RunnableSequenceOutput`` built from the step before: the picked
# fields, or the one picked field's schema.
_PICK_PRINTED = """
from pydantic import BaseModel

from langchain_core.runnables import RunnableLambda, RunnablePassthrough, RunnablePick

chain = RunnablePassthrough.assign(square=RunnableLambda(lambda d: d["n"] ** 2)).pick(
    ["n", "square"]
)
print(chain)
print(chain.last)
print(repr(RunnablePick("answer")), str(RunnablePick(["a", "b"])))
print(chain.invoke({"n": 3}), RunnablePick("answer").invoke({"answer": 42}))


def untyped(x):
    return x


def typed(x: int) -> int:
    return x


class Row(BaseModel):
    n: int
    s: str


rows = RunnableLambda(lambda d: d).with_types(input_type=Row, output_type=Row)
for picked in (
    RunnablePassthrough.assign(y=RunnableLambda(untyped)).pick(["y"]),
    RunnablePassthrough.assign(y=RunnableLambda(typed)).pick("y"),
    rows.pick(["n"]),
    rows.pick("s"),
    rows.pick(["n", "missing"]),
    RunnablePick("a"),
):
    print(picked.get_output_jsonschema())
    print(picked.output_schema.model_json_schema())
"""


def test_a_pick_prints_its_keys_as_langchains() -> None:
    ported = _ported(_PICK_PRINTED)
    assert "from ragline.core" in ported
    langchain_printed = _printed(_PICK_PRINTED)
    assert "RunnablePick(keys='answer') keys=['a', 'b']" in langchain_printed
    assert "{'title': 'RunnableSequenceOutput', 'type': 'string'}" in langchain_printed
    assert _printed(ported) == langchain_printed
