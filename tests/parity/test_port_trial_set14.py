"""Parity: differences found by the fourteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.prompts as lc_prompts
import langchain_core.runnables as lc_runnables

import ragline.core as rl


def _model_with_float_fields(mod: Any, prompts: Any, runnables: Any) -> list[Any]:
    class FakeOllama(mod.FakeListLLM):
        model: str = "llama3.1"
        temperature: float = 0.0
        top_p: float | None = None
        num_ctx: int = 2048

        def _call(
            self, prompt: str, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> str:
            text = super()._call(prompt, stop=stop, run_manager=run_manager, **kwargs)
            return f"[{self.model} t={self.temperature} p={self.top_p}] {text}"

    llm = FakeOllama(temperature=0, top_p=1, num_ctx=4096, responses=["joke"])
    configurable = llm.configurable_fields(
        temperature=runnables.ConfigurableField(id="temperature", name="T", description="d")
    )
    chain = prompts.ChatPromptTemplate.from_messages([("user", "{input}")]) | configurable
    return [
        llm.temperature,
        type(llm.temperature).__name__,
        llm.top_p,
        llm.num_ctx,
        chain.invoke({"input": "x"}),
        chain.with_config(configurable={"temperature": 1}).invoke({"input": "x"}),
        [(spec.id, spec.default) for spec in chain.config_specs],
    ]


def test_an_int_given_for_a_float_field_reads_back_as_a_float() -> None:
    # xlusean_configurable_fields_model_temperature: FakeOllama(temperature=0) printed
    # 't=0.0' under LangChain (pydantic makes the int a float), 't=0' under ragline
    assert _model_with_float_fields(rl, rl, rl) == _model_with_float_fields(
        lc_models, lc_prompts, lc_runnables
    )
