"""``ragline ask``: a chat model answers a question from the store's passages.

With ``--agent`` a tool-calling agent searches the store itself (several times if it
needs), printing its searches. Without a configured model the passages are shown instead.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ragline.cli._common import (
    NO_ANSWER_STATUS,
    NO_MODEL,
    CommandError,
    Commands,
    add_chain_option,
    add_model_option,
    chat_model,
    collect_answer,
    location,
    note,
    print_answer,
    print_answer_json,
    print_passages,
    require_text,
)
from ragline.cli._remote import remote_ask, server_url
from ragline.cli._search import add_search_options, folder_retriever
from ragline.core import Document

if TYPE_CHECKING:
    from ragline.core import BaseChatModel, BaseRetriever


def add_ask_command(commands: Commands) -> None:
    ask = commands.add_parser(
        "ask",
        help="answer a question with a chat model over the store",
        epilog=f"exit status: 0 answered; {NO_ANSWER_STATUS} no chat model answered (none "
        "configured, or the server has none), so the retrieved passages were shown instead "
        '(with --json: "answer": null); 2 an error',
    )
    ask.add_argument("question")
    add_search_options(ask)
    add_chain_option(ask)
    add_model_option(ask)
    ask.add_argument(
        "--agent",
        action="store_true",
        help="let a tool-calling agent search the store (several times if it needs) before "
        "answering, printing its searches",
    )
    ask.add_argument(
        "--max-steps",
        type=int,
        default=5,
        help="with --agent: at most this many rounds of searches",
    )
    ask.add_argument(
        "--json",
        action="store_true",
        help='print {"question", "answer", "sources"} as JSON ("answer": null when no model '
        "answered)",
    )
    ask.set_defaults(handler=command_ask)


def command_ask(args: argparse.Namespace) -> int:
    require_text("question", args.question, hint="give the question to answer")
    server = server_url(args)
    if server is not None:
        return remote_ask(server, args)
    from ragline.chains import create_documents_chain, create_retrieval_chain

    retriever, _ = folder_retriever(args)
    model = chat_model(args)
    if model is None:
        print(f"{NO_MODEL}; showing the retrieved passages instead", file=sys.stderr)
        passages = retriever.invoke(args.question)
        if args.json:
            print_answer_json(args.question, None, passages)
        else:
            print_passages(passages, args.width)
        return NO_ANSWER_STATUS
    if args.agent:
        return ask_agent(args, model, retriever)
    chain = create_retrieval_chain(
        retriever, create_documents_chain(model, args.chain, question_key="input")
    )
    if args.json:
        print_answer_json(args.question, *collect_answer(chain.stream({"input": args.question})))
    else:
        print_answer(chain.stream({"input": args.question}))
    return 0


AGENT_INSTRUCTIONS = (
    "You answer questions about the user's documents. Search them with the search_documents "
    "tool before answering, and search again with other words when the passages found do not "
    "answer the question. Answer only from the passages; say so when they do not contain the "
    "answer."
)


def ask_agent(args: argparse.Namespace, model: BaseChatModel, retriever: BaseRetriever) -> int:
    """``ask --agent``: a tool-calling agent with the store's retriever as its one tool."""
    from ragline.agents import AgentExecutor, create_tool_calling_agent
    from ragline.core import BaseCallbackHandler, ChatPromptTemplate, MessagesPlaceholder
    from ragline.tools import create_retriever_tool

    if args.max_steps < 1:
        raise CommandError(f"--max-steps must be at least 1, got {args.max_steps}")
    search = create_retriever_tool(
        retriever, "search_documents", "Search the indexed documents for passages about a query."
    )
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", AGENT_INSTRUCTIONS),
            ("human", "{input}"),
            MessagesPlaceholder("agent_scratchpad"),
        ]
    )
    sources: dict[str, Document] = {}
    found: list[int] = []  # passages per search, in the order the searches ran

    class Sources(BaseCallbackHandler):  # what the searches found: counts and the source list
        def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
            found.append(len(documents))
            for document in documents:
                sources.setdefault(location(document), document)

    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [search], prompt),
        tools=[search],
        max_iterations=args.max_steps,
        handle_parsing_errors=True,
    )
    for chunk in executor.stream({"input": args.question}, {"callbacks": [Sources()]}):
        for action in chunk.get("actions", []):
            query = action.tool_input
            query = query.get("query", query) if isinstance(query, dict) else query
            note(args, f"> {action.tool}: {query}")
        for step in chunk.get("steps", []):
            count = found.pop(0) if step.action.tool == search.name and found else 0
            note(args, f"  {count} passage(s)")
        if "output" in chunk:
            if args.json:
                print_answer_json(args.question, chunk["output"], sources.values())
                return 0
            print(chunk["output"])
    if sources:
        print("\nsources:")
        for rank, place in enumerate(sources, 1):
            print(f"  [{rank}] {place}")
    return 0
