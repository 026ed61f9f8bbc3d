"""MapReduceChain: split one text, then map-reduce its pieces (LangChain's older chain).

The chain takes the text under ``input_key`` (``"input_text"``), splits it with
``text_splitter`` (any object with ``split_text(text) -> list[str]``, such as ragline's
splitters), makes each piece a :class:`~ragline.core.Document` and hands them, with the
other inputs, to ``combine_documents_chain`` (a map-reduce documents chain); its answer
comes back under ``output_key`` (``"output_text"``). :meth:`MapReduceChain.from_params`
builds the documents chain from one model and one prompt, used for the map and the
reduce steps, as LangChain's does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragline.chains._chain import Chain
from ragline.chains._llm_chain import LLMChain
from ragline.core import Document

__all__ = ["MapReduceChain"]


class MapReduceChain(Chain):
    """Split the input text and combine its pieces with a documents chain.

    Args:
        combine_documents_chain: the chain the pieces go to (under its ``input_key``).
        text_splitter: has ``split_text(text) -> list[str]``.
        input_key: the text's key (``"input_text"``).
        output_key: the answer's key (``"output_text"``).

    Example:
        >>> from ragline.core import FakeListLLM, PromptTemplate
        >>> from ragline.splitters import CharacterTextSplitter
        >>> splitter = CharacterTextSplitter(separator=" ", chunk_size=9, chunk_overlap=0)
        >>> chain = MapReduceChain.from_params(
        ...     FakeListLLM(responses=["one", "two", "both"]),
        ...     PromptTemplate.from_template("Sum up: {text}"),
        ...     splitter,
        ... )
        >>> chain.invoke({"input_text": "ants bees wasps"})
        {'output_text': 'both'}
    """

    combine_documents_chain: Any
    text_splitter: Any
    input_key: str = "input_text"
    output_key: str = "output_text"

    @classmethod
    def from_params(
        cls,
        llm: Any,
        prompt: Any,
        text_splitter: Any,
        callbacks: Any = None,
        combine_chain_kwargs: Mapping[str, Any] | None = None,
        reduce_chain_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> MapReduceChain:
        """The chain over one ``LLMChain(llm, prompt)`` for both steps: the map step
        asks it about each piece, the reduce step stuffs the answers into the same
        prompt (joined by blank lines). ``combine_chain_kwargs`` go to the
        ``MapReduceDocumentsChain``, ``reduce_chain_kwargs`` to the
        ``StuffDocumentsChain`` (``document_variable_name`` when the prompt has more
        than one variable)."""
        from ragline.chains._base import StuffDocumentsChain
        from ragline.chains._map_reduce import MapReduceDocumentsChain, ReduceDocumentsChain

        llm_chain = LLMChain(llm=llm, prompt=prompt, callbacks=callbacks)
        stuff = StuffDocumentsChain(
            llm_chain=llm_chain, callbacks=callbacks, **dict(reduce_chain_kwargs or {})
        )
        combine = MapReduceDocumentsChain(
            llm_chain=llm_chain,
            reduce_documents_chain=ReduceDocumentsChain(combine_documents_chain=stuff),
            callbacks=callbacks,
            **dict(combine_chain_kwargs or {}),
        )
        return cls(
            combine_documents_chain=combine,
            text_splitter=text_splitter,
            callbacks=callbacks,
            **kwargs,
        )

    @property
    def input_keys(self) -> list[str]:
        return [self.input_key]

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key]

    def _documents_inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        # taken out of the inputs, so the text is not among the outputs (as LangChain's)
        text = inputs.pop(self.input_key)
        documents = [Document(page_content=piece) for piece in self.text_splitter.split_text(text)]
        return {**inputs, self.combine_documents_chain.input_key: documents}

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        answer = self.combine_documents_chain.run(
            self._documents_inputs(inputs), callbacks=callbacks
        )
        return {self.output_key: answer}

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        answer = await self.combine_documents_chain.arun(
            self._documents_inputs(inputs), callbacks=callbacks
        )
        return {self.output_key: answer}
