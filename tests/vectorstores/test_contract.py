"""Run the VectorStore contract suite on every backend of the ``store_factory`` fixture."""

from .contract import VectorStoreContract


class TestVectorStoreContract(VectorStoreContract):
    """Parametrized by ``store_factory`` (tests/vectorstores/conftest.py)."""
