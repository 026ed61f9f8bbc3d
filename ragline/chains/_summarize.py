"""``load_summarize_chain``: LangChain's classic summarizing chains.

The chains are ragline's combine-documents chains (stuff, map-reduce, refine) in
LangChain's shape: ``{"input_documents": [...]}`` in, the same dict plus
``"output_text"`` out, the documents under ``{text}`` in the prompts. The default
prompts are ragline's own words.
"""

from __future__ import annotations

from typing import Any

from ragline.chains._base import BaseCombineDocumentsChain
from ragline.chains._retrieval import create_documents_chain
from ragline.core import ConfigurationError, PromptTemplate
from ragline.core.runnables.base import Runnable

__all__ = ["load_summarize_chain"]

SUMMARY_PROMPT = PromptTemplate.from_template(
    "Summarize the following text in a few sentences.\n\n{text}\n\nSummary:"
)
REFINE_SUMMARY_PROMPT = PromptTemplate.from_template(
    "Here is a summary written so far:\n{existing_answer}\n\n"
    "Here is more of the text:\n{text}\n\n"
    "Rewrite the summary so that it also covers the new text. If the new text adds "
    "nothing, repeat the summary as it is."
)
_SUMMARY_TYPES = ("stuff", "map_reduce", "refine")


def load_summarize_chain(
    llm: Runnable[Any, Any],
    chain_type: str = "stuff",
    verbose: bool | None = None,
    **kwargs: Any,
) -> BaseCombineDocumentsChain:
    """A chain that summarizes documents, with LangChain's arguments.

    Args:
        llm: the model.
        chain_type: ``"stuff"`` (every document in one prompt, ``prompt=``),
            ``"map_reduce"`` (``map_prompt=`` per document, then ``combine_prompt=``;
            ``token_max``) or ``"refine"`` (``question_prompt=`` for the first document,
            then ``refine_prompt=`` with ``{existing_answer}`` for each next one).
        verbose: print the chain's run and prompts.
        callbacks: handlers of the chain's own runs; as in LangChain, a stuff or refine
            chain keeps them to itself (its inner LLMChains report only to handlers given
            at invoke time), a map-reduce chain gives them to the chains inside too.
        kwargs: LangChain's options of that type (``document_variable_name``,
            ``map_reduce_document_variable_name``, ``combine_document_variable_name``,
            ``initial_response_name``, ``collapse_prompt``, ``return_intermediate_steps``
            ...), and the options of ragline's chain of that type.

    Raises:
        ConfigurationError: an unknown ``chain_type``; a separate ``reduce_llm``,
            ``collapse_llm`` or ``refine_llm`` (ragline's chains use one model).

    Example:
        >>> from ragline.core import Document, FakeListLLM
        >>> chain = load_summarize_chain(FakeListLLM(responses=["Two fruits."]))
        >>> chain.invoke({"input_documents": [Document("apples"), Document("pears")]})
        {'input_documents': [...], 'output_text': 'Two fruits.'}
    """
    if chain_type not in _SUMMARY_TYPES:
        raise ConfigurationError(
            f"unknown summarize chain_type {chain_type!r}; use one of {', '.join(_SUMMARY_TYPES)}"
        )
    for separate in ("reduce_llm", "collapse_llm", "refine_llm"):
        if kwargs.pop(separate, None) is not None:
            raise ConfigurationError(
                f"load_summarize_chain: ragline's chains use one model; drop {separate}=..."
            )
    options: dict[str, Any] = {
        "input_key": "input_documents",
        "output_key": "output_text",
        "empty_answer": None,  # no documents: the model is still asked, as in LangChain
    }
    if verbose is not None:
        options["verbose"] = verbose
    if chain_type == "stuff":
        options["prompt"] = kwargs.pop("prompt", None) or SUMMARY_PROMPT
        options["document_variable_name"] = kwargs.pop("document_variable_name", "text")
    elif chain_type == "map_reduce":
        variable = kwargs.pop("map_reduce_document_variable_name", "text")
        combine_variable = kwargs.pop("combine_document_variable_name", "text")
        combine = kwargs.pop("combine_prompt", None) or SUMMARY_PROMPT
        options["question_prompt"] = kwargs.pop("map_prompt", None) or SUMMARY_PROMPT
        options["combine_prompt"] = combine
        collapse = kwargs.pop("collapse_prompt", None)
        if {"max_concurrency", "token_counter"} & set(kwargs):  # ragline's own map-reduce
            if combine_variable != variable:
                raise ConfigurationError(
                    "load_summarize_chain: with max_concurrency or token_counter the map and "
                    "combine prompts take the documents under one variable, got "
                    f"{variable!r} and {combine_variable!r}"
                )
            options["collapse_prompt"] = collapse or combine
        else:  # LangChain's classic chain: no collapse prompt collapses with the combine one
            if collapse is not None:
                options["collapse_prompt"] = collapse
            options["combine_document_variable_name"] = combine_variable
        options["document_variable_name"] = variable
    else:
        options["question_prompt"] = kwargs.pop("question_prompt", None) or SUMMARY_PROMPT
        options["refine_prompt"] = kwargs.pop("refine_prompt", None) or REFINE_SUMMARY_PROMPT
        options["document_variable_name"] = kwargs.pop("document_variable_name", "text")
        options["existing_answer_variable"] = kwargs.pop("initial_response_name", "existing_answer")
    # LangChain gives a stuff or refine summary's callbacks to the outer chain only (its
    # LLMChains get none, so a handler sees one chain start); its map-reduce chain passes
    # them to every chain inside, as create_documents_chain does
    outer_only = kwargs.pop("callbacks", None) if chain_type != "map_reduce" else None
    chain = create_documents_chain(llm, chain_type, **{**options, **kwargs})
    if outer_only is not None:
        chain.callbacks = outer_only
    return chain
