"""``ragline port``: a LangChain program's imports rewritten with the path table.

Every test writes a small multi-file project in tmp_path. The end-to-end test runs the
project under LangChain (the dev environment has it), ports it in place, runs it again
under ragline and compares the two stdouts.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from ragline.cli import main
from ragline.cli._port_rewrite import COMPOSE_LINE, port_source

MAIN = '''\
"""A LangChain program: a prompt, a scripted model, a parser and a helper module."""
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser as Text
from langchain_core.prompts import (
    ChatPromptTemplate,
    PromptTemplate,  # the second prompt
)
import langchain_core.documents as lcdocs

from helpers import shout

prompt = ChatPromptTemplate.from_messages(
    [("system", "Answer in one word."), ("human", "{question}")]
)
model = FakeListChatModel(responses=["Paris", "Rome"])
chain = prompt | model | Text() | shout
print(chain.invoke({"question": "Capital of France?"}))
print(chain.invoke({"question": "Capital of Italy?"}))
print(PromptTemplate.from_template("Q: {q}").format(q="why"))
doc = lcdocs.Document(page_content="hello", metadata={"n": 1})
print(doc.page_content, doc.metadata)
'''

HELPERS = """\
from langchain_core.runnables import RunnableLambda, RunnablePassthrough as Same

shout = RunnableLambda(lambda text: text.upper() + "!") | Same()
"""

# Runs a program and reports on stderr which LangChain packages it imported.
RUNNER = (
    "import runpy, sys; sys.path.insert(0, '.'); runpy.run_path('main.py', "
    "run_name='__main__'); sys.stderr.write(repr(sorted({m.split('.')[0] for m in "
    "sys.modules if m.startswith('langchain')})))"
)


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def run_program(folder: Path) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout, done.stderr.strip().splitlines()[-1]


def test_ported_project_prints_what_the_langchain_program_printed(tmp_path, capsys):
    project = write_project(tmp_path / "app", {"main.py": MAIN, "helpers.py": HELPERS})
    before, imported = run_program(project)
    assert before == ("PARIS!\nROME!\nQ: why\nhello {'n': 1}\n"), "the LangChain original itself"
    assert "langchain_core" in imported

    assert main(["port", str(project)]) == 0
    after, imported = run_program(project)
    assert after == before
    assert imported == "[]", "the ported program imports no LangChain package"
    assert (project / "helpers.py").read_text() == (
        "from ragline.core import RunnableLambda, RunnablePassthrough as Same\n"
        '\nshout = RunnableLambda(lambda text: text.upper() + "!") | Same()\n'
    )
    ported = (project / "main.py").read_text()
    assert ported == (
        MAIN.replace("langchain_core.language_models", "ragline.core")
        .replace("langchain_core.output_parsers", "ragline.core")
        .replace("langchain_core.prompts", "ragline.core")
        .replace("import langchain_core.documents as", "import ragline.core as")
    ), "only the imports changed; the comment inside the parenthesised import stays"
    err = capsys.readouterr().err
    assert f"{project / 'main.py'}: 4 import(s) rewritten" in err
    assert f"{project / 'helpers.py'}: 1 import(s) rewritten" in err


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path, capsys):
    source = "import os\nfrom langchain_core.documents import Document\nprint(os.sep)\n"
    project = write_project(tmp_path, {"one.py": source})
    assert main(["port", "--diff", str(project / "one.py")]) == 0
    out = capsys.readouterr().out
    path = project / "one.py"
    assert out == (
        f"--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n import os\n"
        "-from langchain_core.documents import Document\n"
        "+from ragline.core import Document\n print(os.sep)\n"
    )
    assert path.read_text() == source


def test_names_it_cannot_map_are_reported_with_the_reason_and_kept(tmp_path, capsys):
    source = textwrap.dedent(
        """\
        from langchain_community.vectorstores import FAISS, Chroma as C
        from langchain_core.tracers.evaluation import EvaluatorCallbackHandler
        import langchain_core
        from langchain_core.documents import Document
        print(langchain_core.__version__)
        """
    )
    path = write_project(tmp_path, {"app.py": source}) / "app.py"
    assert main(["port", str(path)]) == 1
    assert path.read_text() == textwrap.dedent(
        """\
        import ragline.interop.langchain.compose  # ragline port: LangChain objects join chains
        from ragline.vectorstores import FAISS
        from langchain_community.vectorstores import Chroma as C
        from langchain_core.tracers.evaluation import EvaluatorCallbackHandler
        import langchain_core
        from ragline.core import Document
        print(langchain_core.__version__)
        """
    )
    err = capsys.readouterr().err.splitlines()
    assert err[:3] == [
        f"{path}:1: cannot map langchain_community.vectorstores.Chroma: ragline lacks it",
        f"{path}:2: cannot map langchain_core.tracers.evaluation.EvaluatorCallbackHandler: "
        "unknown module (the path table has no entry for it)",
        f"{path}:3: cannot map langchain_core: a plain `import` is used by its dotted "
        "LangChain name; write `import langchain_core as NAME` or import the names from it",
    ]


def test_module_imports_with_an_alias(tmp_path, capsys):
    source = textwrap.dedent(
        """\
        import langchain_core.runnables as lcr, json
        import langchain_core.messages as m
        from langchain_core import prompts as p
        import langchain_core.documents as d

        lcr.RunnableLambda(json.dumps)
        m.HumanMessage("hi")
        p.PromptTemplate
        d.Document, d.BaseDocumentCompressor
        """
    )
    path = write_project(tmp_path, {"mod.py": source}) / "mod.py"
    assert main(["port", str(path)]) == 1
    assert path.read_text().splitlines()[:5] == [
        "import ragline.interop.langchain.compose  # ragline port: LangChain objects join chains",
        "import ragline.core as lcr, json",
        "import ragline.core as m",
        "import ragline.core as p",
        "import langchain_core.documents as d",
    ]
    assert capsys.readouterr().err.splitlines()[0] == (
        f"{path}:4: cannot map langchain_core.documents: its names live in several ragline "
        "modules: BaseDocumentCompressor (ragline.retrievers), Document (ragline.core); "
        "import them by name"
    )


def test_from_imports_split_by_ragline_module_keep_aliases_and_layout(tmp_path):
    source = textwrap.dedent(
        """\
        def build():
            from langchain_classic.retrievers import (
                BM25Retriever as Keywords,
                EnsembleRetriever,
            )
            from langchain.chains import RetrievalQA; from langchain.text_splitter import (
                RecursiveCharacterTextSplitter)
            from langchain_community.retrievers import BM25Retriever, SVMRetriever
            return Keywords, EnsembleRetriever, RetrievalQA, RecursiveCharacterTextSplitter
        """
    )
    path = write_project(tmp_path, {"deep/inner.py": source}) / "deep" / "inner.py"
    assert main(["port", str(tmp_path), "-q"]) == 1
    assert path.read_text() == textwrap.dedent(
        """\
        def build():
            from ragline.retrievers import (
                BM25Retriever as Keywords,
                EnsembleRetriever,
            )
            from ragline.chains import RetrievalQA; from ragline.splitters import (
                RecursiveCharacterTextSplitter)
            from ragline.retrievers import BM25Retriever
            from langchain_community.retrievers import SVMRetriever
            return Keywords, EnsembleRetriever, RetrievalQA, RecursiveCharacterTextSplitter
        """
    ), "langchain.X is read as langchain_classic.X; a mixed import is split in two"


def test_a_file_that_does_not_parse_changes_nothing(tmp_path, capsys):
    good = "from langchain_core.documents import Document\n"
    project = write_project(tmp_path, {"a.py": good, "b.py": "def broken(:\n"})
    assert main(["port", str(project)]) == 2
    assert f"{project / 'b.py'}:1: not Python this interpreter parses" in capsys.readouterr().err
    assert (project / "a.py").read_text() == good


def test_redis_filter_classes_port_from_each_langchain_path(tmp_path, capsys):
    source = textwrap.dedent(
        """\
        from langchain_community.vectorstores.redis import RedisTag, RedisNum
        from langchain_community.vectorstores.redis.filters import (
            RedisFilter,
            RedisFilterExpression,
            RedisText,
        )
        from langchain_community.vectorstores.redis.base import Redis

        expr = (RedisTag("color") == "red") & (RedisNum("year") > 2020)
        print(isinstance(expr, RedisFilterExpression), RedisText, RedisFilter, Redis)
        """
    )
    path = write_project(tmp_path, {"app.py": source}) / "app.py"
    assert main(["port", str(path)]) == 0
    assert path.read_text().splitlines()[:7] == [
        "from ragline.vectorstores import RedisTag, RedisNum",
        "from ragline.vectorstores import (",
        "    RedisFilter,",
        "    RedisFilterExpression,",
        "    RedisText,",
        ")",
        "from ragline.vectorstores import Redis",
    ]
    assert capsys.readouterr().err == f"{path}: 3 import(s) rewritten\n"
    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True)
    assert ran.stdout.startswith("True ")


def test_a_langchain_runnable_left_unmapped_joins_the_ported_chain(tmp_path):
    # ReActJsonSingleInputOutputParser is not ragline's: its import stays, and the line port
    # adds lets the LangChain parser run inside the chain ragline's prompt and model start.
    source = textwrap.dedent(
        """\
        from langchain_core.language_models import FakeListChatModel
        from langchain_classic.agents.output_parsers import ReActJsonSingleInputOutputParser
        from langchain_core.prompts import PromptTemplate


        class Lines(ReActJsonSingleInputOutputParser):
            def parse(self, text):
                return [line.strip() for line in text.strip().split("\\n")]


        reply = "red\\ngreen\\nblue"
        model = FakeListChatModel(responses=[reply, reply])
        chain = PromptTemplate.from_template("{q}") | model | Lines()
        print(type(chain).__module__.split(".")[0])
        print(chain.invoke({"q": "colors"}))
        print(list(chain.stream({"q": "colors"}))[-1])
        """
    )
    path = write_project(tmp_path, {"app.py": source}) / "app.py"
    assert main(["port", str(path)]) == 1  # a name stayed unmapped
    ported = path.read_text()
    assert ported.splitlines()[0] == (
        "import ragline.interop.langchain.compose  # ragline port: LangChain objects join chains"
    )
    run = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert run.stdout == ("ragline\n['red', 'green', 'blue']\n['red', 'green', 'blue']\n")


def test_nothing_is_added_when_every_name_maps_or_none_does(tmp_path):
    every = "from langchain_core.documents import Document\n"
    none = "from langchain_community.vectorstores import Chroma\n"
    project = write_project(tmp_path, {"every.py": every, "none.py": none})
    main(["port", str(project / "every.py"), str(project / "none.py")])
    assert (project / "every.py").read_text() == "from ragline.core import Document\n"
    assert (project / "none.py").read_text() == none


def test_an_integration_package_gets_ragline_embeddings_through_compose(tmp_path):
    # port trial set 14 (abhishek_qdrant_memory_minilm): langchain_qdrant stays as written
    # and checks isinstance(embedding, langchain_core Embeddings) on ragline's embeddings
    source = textwrap.dedent(
        """\
        from langchain_core.embeddings import DeterministicFakeEmbedding
        from langchain_qdrant import QdrantVectorStore
        from qdrant_client import QdrantClient
        from qdrant_client.http.models import Distance, VectorParams

        client = QdrantClient(":memory:")
        client.create_collection("c", vectors_config=VectorParams(size=8, distance=Distance.COSINE))
        store = QdrantVectorStore(client=client, collection_name="c",
                                  embedding=DeterministicFakeEmbedding(size=8))
        store.add_texts(["foo", "bar", "baz"], ids=[1, 2, 3])
        print(type(store.embeddings).__module__.split(".")[0])
        found = store.similarity_search_with_score("bar", k=2)
        print([(d.page_content, round(s, 6)) for d, s in found])
        """
    )
    path = write_project(tmp_path, {"app.py": source}) / "app.py"
    assert main(["port", str(path), "-q"]) == 0  # everything LangChain's here maps
    ported = path.read_text().splitlines()
    assert ported[0] == (
        "import ragline.interop.langchain.compose  # ragline port: LangChain objects join chains"
    )
    assert ported[1] == "from ragline.embeddings import DeterministicFakeEmbedding"
    run = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    lines = run.stdout.splitlines()
    assert lines[0] == "ragline"
    assert lines[1].startswith("[('bar', 1.0), ")


STAR = """\
from langchain_core.runnables import *


@chain
def step(d, **keywords):
    return RunnablePassthrough.assign(key=lambda x: keywords.get("i")) | RunnableLambda(dict)


head = RunnablePassthrough()
for i in ["1", "2"]:
    head = head | step.bind(i=i)
print(head.invoke({}), type(head).__name__, sorted(RunnableConfig.__annotations__)[:2])
"""


def test_a_star_import_is_written_out_as_the_names_the_program_uses(tmp_path, capsys):
    # port trial set 19 (issue17241): `from langchain_core.runnables import *` was left
    # as written (its names live in ragline.core and ragline.core.runnables), so the
    # whole program ran on LangChain's runnables
    folder = write_project(tmp_path, {"main.py": STAR})
    before, imported = run_program(folder)
    assert imported == "['langchain_core']"
    assert main(["port", str(folder / "main.py")]) == 0
    assert (folder / "main.py").read_text().splitlines()[0] == (
        "from ragline.core import RunnableConfig, RunnableLambda, RunnablePassthrough, chain"
    )
    after, imported = run_program(folder)
    assert (after, imported) == (before, "[]")
    capsys.readouterr()


def test_a_star_import_keeps_the_names_the_modules_all_lists(tmp_path):
    # a module that star-imports runnables and lists some of them in __all__ hands them
    # on (`from tools import *` elsewhere); writing out only the names it reads as
    # variables dropped RunnablePassthrough, and app.py's import of it failed
    tools = (
        "from langchain_core.runnables import *\n"
        "\n"
        '__all__ = ["RunnablePassthrough", "double"]\n'
        "double = RunnableLambda(lambda x: x * 2)\n"
    )
    app = "from tools import *\n\nprint((RunnablePassthrough() | double).invoke(21))\n"
    folder = write_project(tmp_path, {"tools.py": tools, "app.py": app})
    assert main(["port", str(folder / "tools.py"), "-q"]) == 0
    assert (folder / "tools.py").read_text().splitlines()[0] == (
        "from ragline.core import RunnableLambda, RunnablePassthrough"
    )
    run = subprocess.run(
        [sys.executable, "app.py"], capture_output=True, text=True, cwd=folder, check=False
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, "42\n", "")


STAR_LACKING = """\
import asyncio
from langchain_core.runnables import *

double = RunnableLambda(lambda x: x * 2)


async def twice(x):
    return add([await double.ainvoke(x), 0])


print(asyncio.run(twice(21)), type(double).__name__)
"""


def test_a_star_import_keeps_the_used_names_ragline_lacks_from_langchain(tmp_path, capsys):
    # writing out `from langchain_core.runnables import *` as ragline's names dropped a
    # name ragline lacks (run_in_executor then, add now) without a word: the ported
    # program failed with NameError. It stays imported from LangChain and is reported, as
    # in an explicit import.
    folder = write_project(tmp_path, {"main.py": STAR_LACKING})
    path = folder / "main.py"
    before, imported = run_program(folder)
    assert (before, imported) == ("42 RunnableLambda\n", "['langchain_core']")
    report = f"{path}:2: cannot map langchain_core.runnables.add: ragline lacks it"

    assert main(["port", "--diff", str(path)]) == 1
    out, err = capsys.readouterr()
    assert [line for line in out.splitlines() if line[:1] in "+-"][2:] == [
        "-from langchain_core.runnables import *",
        "+import ragline.interop.langchain.compose  # ragline port: LangChain objects join chains",
        "+from ragline.core import RunnableLambda",
        "+from langchain_core.runnables import add",
    ]
    assert err.splitlines() == [report]
    assert path.read_text() == STAR_LACKING

    assert main(["port", str(path)]) == 1
    assert path.read_text().splitlines()[:5] == [
        "import asyncio",
        "import ragline.interop.langchain.compose  # ragline port: LangChain objects join chains",
        "from ragline.core import RunnableLambda",
        "from langchain_core.runnables import add",
        "",
    ]
    assert capsys.readouterr().err.splitlines() == [report, f"{path}: 1 import(s) rewritten"]
    assert run_program(folder) == (before, "['langchain_core']")


def test_a_star_import_of_a_module_ragline_holds_in_one_place_keeps_what_it_lacks():
    # `from langchain_core.tools import *` becomes `from ragline.tools import *`, which
    # does not give BaseToolkit: it stays imported from LangChain, after the star
    result = port_source(
        "from langchain_core.tools import *\n\nprint(tool, BaseToolkit, ToolsRenderer)\n"
    )
    assert result.source == (
        COMPOSE_LINE + "from ragline.tools import *\n"
        "from langchain_core.tools import BaseToolkit, ToolsRenderer\n"
        "\nprint(tool, BaseToolkit, ToolsRenderer)\n"
    )
    assert [item.describe() for item in result.unmapped] == [
        "1: cannot map langchain_core.tools.BaseToolkit: ragline lacks it",
        "1: cannot map langchain_core.tools.ToolsRenderer: ragline lacks it",
    ]


def test_an_unused_plain_langchain_import_is_dropped_and_a_block_keeps_a_statement():
    source = textwrap.dedent(
        """\
        import os, langchain
        try:
            import langchain_classic
        except ImportError:
            pass
        import langchain.chains; x = 1  # note
        import langchain_core  # why
        print(os.sep, x)
        """
    )
    ported = port_source(source)
    assert ported.unmapped == []
    assert ported.source == textwrap.dedent(
        """\
        import os
        try:
            pass  # ragline port: an unused LangChain import was dropped
        except ImportError:
            pass
        pass; x = 1  # note
        pass  # ragline port: an unused LangChain import was dropped  # why
        print(os.sep, x)
        """
    )


LANGGRAPH_PROGRAM = """\
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


@tool
def double(x: int) -> int:
    \"\"\"Twice x.\"\"\"
    return 2 * x


call = AIMessage(content="", tool_calls=[{"name": "double", "args": {"x": 21}, "id": "c1"}])
graph = StateGraph(MessagesState)
graph.add_node("tools", ToolNode([double]))
graph.add_edge(START, "tools")
graph.add_edge("tools", END)
print(graph.compile().invoke({"messages": [call]})["messages"][-1].content)
"""


def test_a_langgraph_import_is_warned_of_once_imports_are_rewritten(tmp_path, capsys):
    path = write_project(tmp_path, {"app.py": LANGGRAPH_PROGRAM}) / "app.py"
    assert main(["port", "--quiet", str(path)]) == 0  # every LangChain name mapped
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:3: warning: langgraph takes only langchain_core's objects, and this "
        "program's are now ragline's: hand it plain functions, or cross with "
        "ragline.interop.langchain.to_langchain (runnables, tools) and "
        "message_to_langchain (messages)"
    ]
    # What the warning is about: LangGraph refuses the ported program's ragline tool...
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 1 and "ValueError" in done.stderr.splitlines()[-1]
    # ...and takes it, and ragline's message, once they cross as the warning says.
    crossed = path.read_text().replace(
        'graph.add_node("tools", ToolNode([double]))',
        "from ragline.interop.langchain import message_to_langchain, to_langchain\n"
        'graph.add_node("tools", ToolNode([to_langchain(double)]))\n'
        "call = message_to_langchain(call)",
    )
    path.write_text(crossed)
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert (done.returncode, done.stdout) == (0, "42\n"), done.stderr


def test_no_langgraph_warning_when_no_import_was_rewritten() -> None:
    source = "from langgraph.graph import StateGraph\nprint(StateGraph)\n"
    assert port_source(source).warnings == []
    # an import inside a function counts too, at its own line
    nested = "import langchain_core.messages as m\n\ndef f():\n    import langgraph.graph\n"
    assert [line for line, _ in port_source(nested).warnings] == [4]
