"""Chains of chains: ``SimpleSequentialChain``, ``SequentialChain``, ``TransformChain``.

``SimpleSequentialChain`` passes one value along chains that each take one input and
give one output. ``SequentialChain`` passes named variables: each chain reads what the
inputs and the earlier chains provide (seed 000 §2.4); the variables are checked when
it is built, so a chain that needs a missing variable fails at construction, not half
way through a run. ``TransformChain`` wraps a plain function of the inputs dict.

Example:
    >>> from ragline.core import FakeListLLM, PromptTemplate
    >>> from ragline.chains import LLMChain
    >>> title = LLMChain(llm=FakeListLLM(responses=["Ode to Rust"]), output_key="title",
    ...                  prompt=PromptTemplate.from_template("A title about {topic}"))
    >>> poem = LLMChain(llm=FakeListLLM(responses=["Iron sleeps..."]), output_key="poem",
    ...                 prompt=PromptTemplate.from_template("A poem called {title}"))
    >>> chain = SequentialChain(chains=[title, poem], input_variables=["topic"],
    ...                         output_variables=["title", "poem"])
    >>> chain({"topic": "rust"})
    {'topic': 'rust', 'title': 'Ode to Rust', 'poem': 'Iron sleeps...'}
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ragline.chains._chain import Chain
from ragline.core import InvalidInputError
from ragline.core.callbacks.stdout import get_color_mapping

__all__ = ["SequentialChain", "SimpleSequentialChain", "TransformChain"]


def _check_chains(owner: str, chains: Any) -> list[Chain]:
    if not isinstance(chains, (list, tuple)) or not chains:
        raise InvalidInputError(f"{owner} needs a non-empty list of chains, got {chains!r:.60}")
    for position, chain in enumerate(chains):
        if not isinstance(chain, Chain):
            raise InvalidInputError(
                f"{owner}.chains[{position}] must be a Chain (LLMChain, TransformChain ...), "
                f"got {type(chain).__name__}"
            )
    return list(chains)


class SequentialChain(Chain):
    """Run chains in order, each reading the variables the inputs and earlier chains made.

    Args:
        chains: the chains, in order.
        input_variables: the chain's own input keys.
        output_variables: the keys returned (default: the last chain's outputs, or with
            ``return_all`` every variable made along the way).
        return_all: return every variable the chains made.

    Raises:
        InvalidInputError: a chain needs a variable nothing provides, makes one that
            already exists, an output variable is never made, or the memory's variables
            overlap the inputs (each message names the chain and the variables).
    """

    chains: list[Chain]
    input_variables: list[str]
    output_variables: list[str] | None = None
    return_all: bool = False

    def __post_init__(self) -> None:
        self.chains = _check_chains("SequentialChain", self.chains)
        memory_keys = self._memory_variables()
        overlap = sorted(set(memory_keys) & set(self.input_variables))
        if overlap:
            raise InvalidInputError(
                f"SequentialChain input_variables {overlap} are also memory variables; "
                "rename one of them"
            )
        known = set(self.input_variables) | set(memory_keys)
        for position, chain in enumerate(self.chains):
            own_memory = set(chain._memory_variables())
            missing = sorted(set(chain.input_keys) - known - own_memory)
            if missing:
                raise InvalidInputError(
                    f"SequentialChain: chains[{position}] ({chain.get_name()}) needs "
                    f"{missing}, which no input or earlier chain provides (known: "
                    f"{sorted(known)})"
                )
            again = sorted(known & set(chain.output_keys))
            if again:
                raise InvalidInputError(
                    f"SequentialChain: chains[{position}] ({chain.get_name()}) returns "
                    f"{again}, which already exist; give it another output_key"
                )
            known |= set(chain.output_keys)
        if self.output_variables is None:
            if self.return_all:
                self.output_variables = sorted(known - set(self.input_variables))
            else:
                self.output_variables = list(self.chains[-1].output_keys)
        never = sorted(set(self.output_variables) - known)
        if never:
            raise InvalidInputError(
                f"SequentialChain output_variables {never} are made by no chain (made: "
                f"{sorted(known - set(self.input_variables))})"
            )

    @property
    def input_keys(self) -> list[str]:
        return list(self.input_variables)

    @property
    def output_keys(self) -> list[str]:
        return list(self.output_variables or [])

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        known = dict(inputs)
        for chain in self.chains:
            known.update(chain(known, return_only_outputs=True))
        return {key: known[key] for key in self.output_keys}

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        known = dict(inputs)
        for chain in self.chains:
            known.update(await chain.acall(known, return_only_outputs=True))
        return {key: known[key] for key in self.output_keys}


class SimpleSequentialChain(Chain):
    """Pass one value through chains that each take one input and give one output.

    Args:
        chains: the chains, in order.
        strip_outputs: strip whitespace from each intermediate value.
        input_key, output_key: this chain's own keys.

    Raises:
        InvalidInputError: a chain has more than one input or output key.
    """

    chains: list[Chain]
    strip_outputs: bool = False
    input_key: str = "input"
    output_key: str = "output"

    def __post_init__(self) -> None:
        self.chains = _check_chains("SimpleSequentialChain", self.chains)
        for position, chain in enumerate(self.chains):
            inputs, outputs = chain._single_value_keys(), chain.output_keys
            if len(inputs) != 1 or len(outputs) != 1:
                raise InvalidInputError(
                    f"SimpleSequentialChain: chains[{position}] ({chain.get_name()}) must take "
                    f"one input and give one output; it takes {inputs} and gives {outputs}"
                )

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key]

    def _step_colors(self) -> list[str]:
        """Each step's output prints in its own colour (``verbose``), in turn."""
        return list(get_color_mapping([str(step) for step in range(len(self.chains))]).values())

    def _stripped(self, value: Any) -> Any:
        return value.strip() if self.strip_outputs and isinstance(value, str) else value

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        value = inputs[self.input_key]
        colors = self._step_colors()
        for step, chain in enumerate(self.chains):
            # each step's run is tagged step_<n> (that run only), as LangChain's are
            children = None if run_manager is None else run_manager.get_child(f"step_{step + 1}")
            value = self._stripped(chain.run(value, callbacks=children))
            if run_manager is not None and run_manager.handlers:
                run_manager.on_text(str(value), color=colors[step], end="\n", verbose=self.verbose)
        return {self.output_key: value}

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        value = inputs[self.input_key]
        colors = self._step_colors()
        for step, chain in enumerate(self.chains):
            children = None if run_manager is None else run_manager.get_child(f"step_{step + 1}")
            value = self._stripped(await chain.arun(value, callbacks=children))
            if run_manager is not None and run_manager.handlers:
                await run_manager.aon_text(
                    str(value), color=colors[step], end="\n", verbose=self.verbose
                )
        return {self.output_key: value}


class _TransformFields(Chain):
    input_variables: list[str]
    output_variables: list[str]
    transform_cb: Callable[[dict[str, Any]], dict[str, Any]]
    atransform_cb: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None


class TransformChain(_TransformFields):
    """A plain function of the inputs dict, as a chain.

    Args:
        input_variables, output_variables: the chain's keys.
        transform: ``function(inputs) -> outputs`` (a dict with the output variables);
            kept as ``transform_cb`` (``transform`` is the Runnable streaming method).
        atransform: an async version (default: ``transform`` in a worker thread).

    Example:
        >>> upper = TransformChain(input_variables=["text"], output_variables=["upper"],
        ...                        transform=lambda inputs: {"upper": inputs["text"].upper()})
        >>> upper.run("abc")
        'ABC'
    """

    def __init__(
        self,
        *,
        transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        atransform: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
        **fields: Any,
    ) -> None:
        if transform is not None:
            fields["transform_cb"] = transform
        if atransform is not None:
            fields["atransform_cb"] = atransform
        super().__init__(**fields)

    def __post_init__(self) -> None:
        if not callable(self.transform_cb):
            raise InvalidInputError(
                f"TransformChain transform must be a function, got "
                f"{type(self.transform_cb).__name__}"
            )

    @property
    def input_keys(self) -> list[str]:
        return list(self.input_variables)

    @property
    def output_keys(self) -> list[str]:
        return list(self.output_variables)

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        return self.transform_cb(inputs)

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        if self.atransform_cb is not None:
            return await self.atransform_cb(inputs)
        return await asyncio.to_thread(self.transform_cb, inputs)
