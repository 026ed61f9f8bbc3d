"""Regenerate ragline/cli/_port_table.py: LangChain import paths to ragline's.

Run from the repository root with the dev environment (LangChain installed):

    .venv/bin/python scripts/gen_port_table.py > ragline/cli/_port_table.py
    .venv/bin/ruff format ragline/cli/_port_table.py

For every LangChain module below, each public name that ragline also exports (and that
is the same kind of thing: NOT_THE_SAME lists the names that only share a spelling) is
mapped to the ragline package that exports it, preferring the package of the same
domain (``...vectorstores`` to ``ragline.vectorstores``). The output is plain data: the
``ragline port`` command and the parity coverage test read it without LangChain.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
import textwrap
import typing
import warnings

RAGLINE_PACKAGES = [
    "ragline.core",
    "ragline.loaders",
    "ragline.splitters",
    "ragline.embeddings",
    "ragline.chat_models",
    "ragline.vectorstores",
    "ragline.retrievers",
    "ragline.tools",
    "ragline.agents",
    "ragline.memory",
    "ragline.chains",
    "ragline.indexing",
    "ragline.evaluation",
    "ragline.pipelines",
    "ragline.sql",
    "ragline.serve",
    # core's subpackages: only for names ragline.core itself does not export
    "ragline.core.runnables",
    "ragline.core.messages",
    "ragline.core.prompts",
    "ragline.core.output_parsers",
    "ragline.core.callbacks",
    "ragline.core.language_models",
    "ragline.core.stores",
    "ragline.core.tools",
    "ragline.core.caches",
    "ragline.core.agents",
    "ragline.core.chat_history",
    "ragline.core.config",
    "ragline.core.example_selectors",
    "ragline.core.load",
    "ragline.core.structured_query",
]

# Names ragline exports that LangChain also has, but as something else. (Not
# ``ArgsSchema``: LangChain's is a type alias for a pydantic model class or a JSON Schema
# dict, ragline's the class of a tool's argument schema; a program only writes it in an
# annotation, ``args_schema: ArgsSchema | None = Input``, where either reads alike.)
NOT_THE_SAME = {
    "Field",
    "Fields",
    "RunInfo",
    "Corpus",
    "Manifest",
    "Evaluation",
    "QueryResult",  # ragline.evaluation's per-query result; LangChain's is Kendra's
    "TOKEN_ENCODING",
    "RUN_KEY",
    "LegacyChainAPI",
    "RetryState",
    "DEFAULT_RECURSION_LIMIT",
    "check_keys",
    "check_pairs",
    "chunk_text",
    "loadd",
    "PREFIX",
    "SUFFIX",
    "FORMAT_INSTRUCTIONS",
    "SUMMARY_PROMPT",
    "ENTITY_MEMORY_CONVERSATION_TEMPLATE",
    "Callbacks",
}

# Modules whose names only share a spelling with ragline's (another vendor's variant;
# the docarray and zep retrievers' own SearchType enums; the chat-conversational agent's
# ConvoOutputParser, a JSON parser, where ragline's ConvoOutputParser is the text agent's).
SKIPPED_MODULES = (
    "langchain_classic.agents.conversational_chat.output_parser",
    "langchain_classic.chains.ernie_functions",
    "langchain_classic.retrievers.docarray",
    "langchain_classic.retrievers.zep",
)

# LangChain packages walked in full (every public module).
WALKED = ["langchain_core", "langchain_text_splitters"]
# Subpackages of langchain_classic walked in full.
CLASSIC_WALKED = [
    "chains",
    "agents",
    "memory",
    "retrievers",
    "output_parsers",
    "storage",
    "indexes",
    "prompts",
    "schema",
    "embeddings",
    "tools",
    "evaluation",
]
# Modules read through their ``__all__`` only (lazy re-export packages).
LISTED = [
    "langchain_classic",
    "langchain_classic.vectorstores",
    "langchain_classic.vectorstores.faiss",
    "langchain_classic.document_loaders",
    "langchain_classic.chat_models",
    "langchain_classic.llms",
    "langchain_classic.llms.base",
    "langchain_classic.callbacks",
    "langchain_classic.callbacks.base",
    "langchain_classic.callbacks.manager",
    "langchain_classic.callbacks.streaming_stdout",
    "langchain_classic.callbacks.streaming_aiter",
    "langchain_classic.callbacks.streaming_stdout_final_only",
    "langchain_classic.callbacks.openai_info",
    "langchain_classic.cache",
    # the memory base class's own module (app code checks isinstance(memory, BaseMemory))
    "langchain_classic.base_memory",
    "langchain_classic.docstore",
    "langchain_classic.docstore.document",
    "langchain_classic.text_splitter",
    "langchain_classic.document_transformers",
    "langchain_classic.document_transformers.embeddings_redundant_filter",
    # create_kv_docstore's module, private but imported by tutorials
    "langchain_classic.storage._lc_store",
    "langchain_classic.globals",
    "langchain_classic.utils.openai_functions",
    "langchain_community.document_loaders",
    "langchain_community.vectorstores",
    "langchain_community.embeddings",
    "langchain_community.chat_models",
    "langchain_community.llms",
    "langchain_community.retrievers",
    "langchain_community.chat_message_histories",
    "langchain_community.cache",
    "langchain_community.callbacks",
    "langchain_community.storage",
    "langchain_community.docstore",
    "langchain_community.document_transformers",
    "langchain_community.document_transformers.long_context_reorder",
    "langchain_community.document_transformers.embeddings_redundant_filter",
    "langchain_community.document_compressors",
    "langchain_community.tools",
    "langchain_community.vectorstores.faiss",
    "langchain_community.vectorstores.redis",
    "langchain_community.vectorstores.redis.base",
    "langchain_community.vectorstores.redis.filters",
    "langchain_community.vectorstores.inmemory",
    "langchain_community.vectorstores.utils",
    "langchain_community.utils.math",
    "langchain_community.utils.openai_functions",
    "langchain_community.docstore.in_memory",
    "langchain_community.docstore.document",
    "langchain_community.callbacks.manager",
    # OpenAICallbackHandler's own module, imported by token-counting tutorials
    "langchain_community.callbacks.openai_info",
    "langchain_community.embeddings.huggingface",
    "langchain_community.embeddings.sentence_transformer",
    "langchain_community.chat_models.openai",
    "langchain_community.embeddings.openai",
    "langchain_community.llms.fake",
    "langchain_community.chat_models.fake",
    "langchain_community.retrievers.bm25",
    "langchain_community.document_loaders.base",
    "langchain_community.document_loaders.text",
    "langchain_community.document_loaders.csv_loader",
    "langchain_community.document_loaders.directory",
    "langchain_community.document_loaders.json_loader",
    "langchain_community.document_loaders.pdf",
    "langchain_community.document_loaders.html_bs",
    "langchain_community.document_loaders.web_base",
    "langchain_community.document_loaders.generic",
    "langchain_community.document_loaders.blob_loaders",
    "langchain_community.document_loaders.blob_loaders.file_system",
    "langchain_community.document_loaders.parsers",
    "langchain_community.document_loaders.parsers.generic",
    "langchain_community.document_loaders.parsers.txt",
    "langchain_community.chat_message_histories.file",
    "langchain_community.chat_message_histories.redis",
    "langchain_community.chat_message_histories.sql",
    "langchain_community.chat_message_histories.in_memory",
    "langchain_community.storage.redis",
    "langchain_community.query_constructors.redis",
    "langchain_community.utilities",
    "langchain_community.utilities.sql_database",
    "langchain_community.tools.sql_database.tool",
    "langchain_community.tools.file_management",
    "langchain_community.tools.file_management.move",
    "langchain_community.tools.file_management.copy",
    "langchain_community.tools.file_management.delete",
    "langchain_community.tools.file_management.file_search",
    "langchain_community.tools.file_management.list_dir",
    "langchain_community.tools.file_management.read",
    "langchain_community.tools.file_management.write",
    "langchain_community.agent_toolkits.file_management",
    "langchain_community.agent_toolkits.file_management.toolkit",
    "langchain_community.agent_toolkits",
    "langchain_community.agent_toolkits.sql.toolkit",
    "langchain_community.agent_toolkits.sql.base",
    "langserve",
]

DOMAINS = {
    "tools": "ragline.tools",
    "agents": "ragline.agents",
    "chains": "ragline.chains",
    "memory": "ragline.memory",
    "chat_message_histories": "ragline.memory",
    "vectorstores": "ragline.vectorstores",
    "retrievers": "ragline.retrievers",
    "embeddings": "ragline.embeddings",
    "document_loaders": "ragline.loaders",
    "text_splitter": "ragline.splitters",
    "langchain_text_splitters": "ragline.splitters",
    "indexes": "ragline.indexing",
    "indexing": "ragline.indexing",
    "chat_models": "ragline.chat_models",
    "langserve": "ragline.serve",
    "document_compressors": "ragline.retrievers",
    "document_transformers": "ragline.retrievers",
    "evaluation": "ragline.evaluation",
}


def ragline_exports() -> dict[str, list[str]]:
    by_name: dict[str, list[str]] = {}
    for package in RAGLINE_PACKAGES:
        for name in importlib.import_module(package).__all__:
            by_name.setdefault(name, []).append(package)
    return by_name


# Names a module imports from elsewhere (outside its ``__all__``, if it has one) that
# programs import from it (tutorials' ``from langchain.chains.query_constructor.base
# import AttributeInfo``).
RE_EXPORTS = {
    # the document chains a map-reduce program imports from the map-reduce chain's module
    "langchain_classic.chains.mapreduce": {
        "LLMChain",
        "MapReduceDocumentsChain",
        "ReduceDocumentsChain",
        "StuffDocumentsChain",
    },
    # the tool base class the agents' tools module imports (type hints of custom agents)
    "langchain_classic.agents.tools": {"BaseTool"},
    "langchain_classic.chains.query_constructor.base": {"AttributeInfo"},
    # a string, so no __module__ says where it was defined; mapped although ragline's
    # router text is its own wording: it takes the same {destinations} and its router
    # reads the same JSON reply (77a3efb, port trial set 42)
    "langchain_classic.chains.router.multi_prompt": {"MULTI_PROMPT_ROUTER_TEMPLATE"},
    "langchain_classic.chains.router.multi_prompt_prompt": {"MULTI_PROMPT_ROUTER_TEMPLATE"},
    "langchain_classic.chains.router.multi_retrieval_prompt": {"MULTI_RETRIEVAL_ROUTER_TEMPLATE"},
    "langchain_classic.chains.router.multi_retrieval_qa": {"MULTI_RETRIEVAL_ROUTER_TEMPLATE"},
    "langchain_community.embeddings.sentence_transformer": {
        "HuggingFaceEmbeddings",
        "SentenceTransformerEmbeddings",
    },
    # a string too; ragline's is its own wording with the same {schema} placeholder, which
    # a custom parser fills (port trial set 51)
    "langchain_core.output_parsers.format_instructions": {"JSON_FORMAT_INSTRUCTIONS"},
    # the history module imports it, and programs import it from there (port trial set 49)
    "langchain_core.runnables.history": {"RunnablePassthrough"},
    # the SQL agent's module imports the toolkit, and programs import it from there with
    # create_sql_agent (port trial set 53)
    "langchain_community.agent_toolkits.sql.base": {"SQLDatabaseToolkit"},
}


def public_names(module, ragline_names: set[str]) -> set[str]:
    imported = RE_EXPORTS.get(module.__name__, set()) & set(vars(module))
    names = getattr(module, "__all__", None)
    if names is not None:
        return {n for n in names if not n.startswith("_")} | imported
    # A type alias (``RETURN_VAL_TYPE = Sequence[Generation]``) carries the module of its
    # origin (``collections.abc``), not the module that names it: taken when the module
    # assigns it itself (not imported) and ragline defines an alias under the same name
    # (port trial set 50).
    aliases = {
        n
        for n in assigned_names(module) & ragline_names
        if typing.get_origin(getattr(module, n, None)) is not None
    }
    defined = {
        n
        for n, obj in vars(module).items()
        if not n.startswith("_") and getattr(obj, "__module__", "").startswith(module.__name__)
    }
    return defined | imported | aliases


def assigned_names(module) -> set[str]:
    """The names a module's own top-level statements assign (``X = ...``, ``X: T = ...``)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return set()
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def walk(package: str):
    root = importlib.import_module(package)
    yield root
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        try:
            yield importlib.import_module(info.name)
        except Exception:  # optional extras LangChain lacks here
            continue


def langchain_modules():
    for package in WALKED:
        yield from walk(package)
    for sub in CLASSIC_WALKED:
        yield from walk("langchain_classic." + sub)
    for name in LISTED:
        try:
            yield importlib.import_module(name)
        except Exception:  # a module that needs an extra not installed
            continue


def target(module: str, candidates: list[str]) -> str:
    parts = module.split(".")
    for part in reversed(parts):
        preferred = DOMAINS.get(part)
        if preferred in candidates:
            return preferred
    # a name another domain's package re-exports (ragline.retrievers' BooleanOutputParser)
    # maps to core's spelling when core has it
    others = set(DOMAINS.values())
    for package in candidates:
        if package.startswith("ragline.core") or package not in others:
            return package
    for package in candidates:  # top-level packages come first in RAGLINE_PACKAGES
        return package
    raise AssertionError(candidates)


def main() -> None:
    warnings.simplefilter("ignore")
    exports = ragline_exports()
    table: dict[str, dict[str, list[str]]] = {}
    public: dict[str, set[str]] = {}
    seen = set()
    for module in langchain_modules():
        if module.__name__ in seen or module.__name__.startswith(SKIPPED_MODULES):
            continue
        seen.add(module.__name__)
        public[module.__name__] = public_names(module, set(exports))
        for name in sorted(public[module.__name__] & exports.keys() - NOT_THE_SAME):
            package = target(module.__name__, exports[name])
            table.setdefault(module.__name__, {}).setdefault(package, []).append(name)
    out = sys.stdout
    out.write(HEADER)
    out.write("PATHS: dict[str, dict[str, str]] = {\n")
    for module in sorted(table):
        out.write(f'    "{module}": {{\n')
        for package, names in sorted(table[module].items()):
            out.write(entry(package, names))
        out.write("    },\n")
    out.write("}\n")
    # A star import gives these too: port imports the ones a program uses from LangChain.
    out.write("\nMISSING: dict[str, str] = {\n")
    for module in sorted(table):
        mapped = {name for names in table[module].values() for name in names}
        # (pydantic puts generic classes such as `RunnableSerializable[...]` in a module's
        # namespace: not names an import can give)
        missing = sorted(n for n in public[module] - mapped if n.isidentifier())
        if missing:
            out.write(entry(module, missing, indent="    "))
    out.write("}\n")


def entry(package: str, names: list[str], indent: str = "        ") -> str:
    """One ``"ragline.x": "A B C",`` line, wrapped as joined strings past 100 columns."""
    line = f'{indent}"{package}": "{" ".join(names)}",\n'
    if len(line) <= 101:
        return line
    width = 84 - len(indent)
    lines = textwrap.wrap(" ".join(names), width=width, break_long_words=False)
    inner = indent + "    "
    pieces = [f'{inner}"{text} "' for text in lines[:-1]] + [f'{inner}"{lines[-1]}"']
    return f'{indent}"{package}": (\n' + "\n".join(pieces) + f"\n{indent}),\n"


HEADER = '''"""The path table: LangChain import paths to ragline's (generated; do not edit by hand).

``PATHS[langchain_module][ragline_module]`` is the space-separated list of the names
that ``from langchain_module import Name`` gives and ``from ragline_module import Name``
gives too: the same behaviour under the same name, which the parity tests check
(``tests/parity``). ``ragline port`` rewrites imports with it; ``langchain.X`` (the
package before it became ``langchain_classic``) is read as ``langchain_classic.X``.

``MISSING[langchain_module]`` lists that module's other public names (its ``__all__``,
or the names it defines): ragline lacks them, so when ``port`` writes out a star import
the ones a program uses stay imported from LangChain, and are reported.

Regenerate with ``scripts/gen_port_table.py`` (it reads the installed LangChain).
"""

'''

if __name__ == "__main__":
    main()
