"""Parity: differences found by the sixty-fourth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# stuff_from_file_pretty_print: the program wrote an import over a backslash line
# continuation; ``ragline port`` left it importing LangChain's create_stuff_documents_chain,
# which then refused ragline's prompt.
_CONTINUED_IMPORT = """
from langchain_classic.chains.combine_documents \\
    import create_stuff_documents_chain
from \\
    langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

chain = create_stuff_documents_chain(
    FakeListLLM(responses=["short"]), PromptTemplate.from_template("Sum up: {context}")
)
print(chain.invoke({"context": [Document(page_content="a"), Document(page_content="b")]}))
"""


def test_an_import_over_a_line_continuation_is_ported() -> None:
    langchain_printed = _printed(_CONTINUED_IMPORT)
    assert langchain_printed == "short\n"
    assert _printed(_ported(_CONTINUED_IMPORT)) == langchain_printed
