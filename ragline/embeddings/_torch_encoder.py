"""A throughput encoder for sentence-transformers models on torch: built for GPUs.

sentence-transformers embeds a list in batches of a fixed number of texts, tokenising
each batch on the thread that drives the GPU, padding it to its longest text and
running it in fp32: on an H200 its default reached 1,713 chunks/s where the transformer
alone, fed pre-tokenised fp16 batches, ran 13,712 (issue 25). This encoder computes the
same vectors (``Transformer -> mean Pooling [-> Normalize]``, read by
:func:`ragline.embeddings._onnx.read_spec`) the fast way:

- **Tokenisation runs ahead of the GPU**: a producer thread tokenises the texts in
  windows with the Rust tokenizer (``encode_batch`` is parallel and releases the GIL)
  and queues ready batches, so the forward passes never wait on it after the first.
- **Texts are grouped by token length**: each window is sorted by length and cut into
  consecutive runs, so a batch's texts differ by a few tokens and almost nothing is
  padding; a batch whose texts are all one length gets no attention mask at all
  (PyTorch's attention then takes its fastest kernel).
- **Batches are sized by a token budget** (:data:`CUDA_TOKEN_BUDGET` on a GPU), not a
  text count: a batch of short texts holds many, a batch of long ones few, and each
  fills the GPU about equally.
- **Reduced precision where it is free**: on CUDA the weights run in fp16 (or bf16);
  on the CPU ``bf16`` runs under autocast. Pooling and normalisation are done in fp32
  (cosine to the fp32 vectors >= 0.999 on every text; ``tests/embeddings``).
- **No stalls between batches**: token ids go from pinned host memory with
  non-blocking copies, the vectors stay on the device until the call ends (one copy
  back, no synchronisation per batch), and results come back in input order.
- **Every local GPU**: ``devices`` may name several; each runs its own copy of the
  model on a thread of its own, pulling batches from the one queue.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragline.core import ConfigurationError
from ragline.core._optional import require
from ragline.embeddings._onnx import ModelSpec

__all__ = [
    "CPU_TOKEN_BUDGET",
    "CUDA_TOKEN_BUDGET",
    "TorchEncoder",
    "length_batches",
]

CUDA_TOKEN_BUDGET = 262_144  # tokens per forward pass on a GPU (~1,000 texts of 256)
CPU_TOKEN_BUDGET = 8_192  # on a CPU, activations that stay near the caches
WINDOW = 16_384  # texts tokenised, sorted and cut into batches together
FIRST_WINDOW = 2_048  # a small first window: the GPU starts sooner
QUEUE_DEPTH = 6  # ready batches waiting for the GPU
TORCH_PRECISIONS = ("fp32", "fp16", "bf16")


def length_batches(lengths: np.ndarray, *, token_budget: int, max_batch: int) -> list[np.ndarray]:
    """Cut texts, sorted by token length, into batches that fit a token budget.

    A batch is padded to its longest text, so its cost is ``rows * longest``; rows are
    added (in length order, shortest first) while that product stays within
    ``token_budget`` and the batch holds at most ``max_batch`` texts. A text longer
    than the budget gets a batch of its own.

    Args:
        lengths: the token count of each text.
        token_budget: the most padded tokens one batch may hold.
        max_batch: the most texts one batch may hold.

    Returns:
        The indices (into ``lengths``) of each batch, in order of length.

    Example:
        >>> [b.tolist() for b in length_batches(np.array([5, 2, 9, 2]), token_budget=10,
        ...                                     max_batch=8)]
        [[1, 3], [0], [2]]
    """
    order = np.argsort(lengths, kind="stable")
    batches: list[np.ndarray] = []
    start = 0
    count = len(order)
    while start < count:
        end = start + 1
        # sorted ascending, so the batch's longest text is always its last
        while end < count and end - start < max_batch:
            if (end - start + 1) * int(lengths[order[end]]) > token_budget:
                break
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


@dataclass
class _Batch:
    rows: np.ndarray  # the texts' positions in the call's input
    ids: Any  # (len(rows), longest) int64 tensor, pinned on a GPU run
    lengths: Any  # (len(rows),) int64 tensor
    uniform: bool  # every text has the same length: no mask needed


_DONE = object()


class TorchEncoder:
    """Texts to sentence vectors on torch, in length-grouped, token-budgeted batches.

    Args:
        spec: the model folder (:func:`ragline.embeddings._onnx.read_spec`).
        devices: torch devices, e.g. ``["cuda:0"]``, ``["cuda:0", "cuda:1"]`` or
            ``["cpu"]``.
        precision: ``"fp32"``, ``"fp16"`` or ``"bf16"``.
        token_budget: padded tokens per forward pass (default: by device).
        max_batch: texts per forward pass at most.

    Raises:
        ConfigurationError: an unknown precision.
        MissingDependencyError: torch, transformers or tokenizers is missing.
    """

    def __init__(
        self,
        spec: ModelSpec,
        *,
        devices: Sequence[str],
        precision: str = "fp16",
        token_budget: int | None = None,
        max_batch: int = 2_048,
    ) -> None:
        if precision not in TORCH_PRECISIONS:
            raise ConfigurationError(
                f"precision {precision!r} is not one of {', '.join(TORCH_PRECISIONS)}"
            )
        self.torch = require("torch", "local")
        self.spec = spec
        self.devices = [self.torch.device(device) for device in devices]
        self.precision = precision
        on_cuda = self.devices[0].type == "cuda"
        self.token_budget = token_budget or (CUDA_TOKEN_BUDGET if on_cuda else CPU_TOKEN_BUDGET)
        self.max_batch = max_batch
        self.tokenizer = _tokenizer(spec)
        self._models: list[Any] = []
        self._lock = threading.Lock()

    # -- the models ---------------------------------------------------------------

    def _dtype(self) -> Any:
        return {"fp16": self.torch.float16, "bf16": self.torch.bfloat16}.get(self.precision)

    def _weights_in_half(self, device: Any) -> bool:
        # on a GPU the weights themselves run in half precision (no cast per pass);
        # the CPU has no fast fp16 matrix products, so it keeps fp32 weights and autocasts
        return device.type == "cuda" and self._dtype() is not None

    def models(self) -> list[Any]:
        """One loaded model per device (loaded on first use, then kept)."""
        with self._lock:
            if not self._models:
                transformers = require("transformers", "local")
                for device in self.devices:
                    model = transformers.AutoModel.from_pretrained(
                        str(self.spec.transformer_path), attn_implementation="sdpa"
                    )
                    if self._weights_in_half(device):
                        model = model.to(dtype=self._dtype())
                    self._models.append(model.to(device).eval())
        return self._models

    def warm_up(self) -> None:
        """Load the models and run one small batch on each device."""
        self.models()
        self.encode(["warm up"] * len(self.devices), normalize=False)

    # -- encoding ------------------------------------------------------------------

    def encode(
        self,
        texts: Sequence[str],
        *,
        normalize: bool,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Embed ``texts`` into a float32 ``(len(texts), dimension)`` matrix, in input order.

        Args:
            texts: the texts.
            normalize: scale every vector to unit length (also done when the model
                ends with a Normalize module).
            progress: called with the number of texts of each finished batch.
        """
        vectors = np.empty((len(texts), self.spec.dimension), dtype=np.float32)
        if not texts:
            return vectors
        models = self.models()
        normalize = normalize or self.spec.normalize
        ready: queue.Queue[Any] = queue.Queue(maxsize=QUEUE_DEPTH * len(models))
        stop = threading.Event()
        producer = threading.Thread(
            target=self._produce,
            args=(texts, ready, stop, len(models)),
            name="ragline-tokenize",
            daemon=True,
        )
        producer.start()
        errors: list[BaseException] = []
        try:
            if len(models) == 1:
                self._consume(models[0], self.devices[0], ready, vectors, normalize, progress)
            else:
                self._consume_on_all(models, ready, vectors, normalize, progress, errors)
        finally:
            stop.set()
            _drain(ready)
            producer.join()
        if errors:
            raise errors[0]
        error = getattr(producer, "error", None)
        if error is not None:
            raise error
        return vectors

    def _consume_on_all(
        self,
        models: list[Any],
        ready: queue.Queue[Any],
        vectors: np.ndarray,
        normalize: bool,
        progress: Callable[[int], None] | None,
        errors: list[BaseException],
    ) -> None:
        lock = threading.Lock()

        def counted(count: int) -> None:
            if progress is not None:
                with lock:
                    progress(count)

        def work(model: Any, device: Any) -> None:
            try:
                self._consume(model, device, ready, vectors, normalize, counted)
            except BaseException as error:  # reported on the calling thread
                errors.append(error)

        threads = [
            threading.Thread(target=work, args=(model, device), name=f"ragline-{device}")
            for model, device in zip(models, self.devices, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _produce(
        self, texts: Sequence[str], ready: queue.Queue[Any], stop: threading.Event, consumers: int
    ) -> None:
        """Tokenise window by window, queueing batches; one end marker per consumer."""
        thread = threading.current_thread()
        try:
            for batch in self._batches(texts):
                while not stop.is_set():
                    try:
                        ready.put(batch, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
        except BaseException as error:  # raised again by encode()
            thread.error = error  # type: ignore[attr-defined]
        finally:
            for _ in range(consumers):
                _put_unless_stopped(ready, _DONE, stop)

    def _batches(self, texts: Sequence[str]) -> Iterator[_Batch]:
        torch = self.torch
        pin = self.devices[0].type == "cuda"
        lowercase = self.spec.lowercase
        encode = getattr(self.tokenizer, "encode_batch_fast", self.tokenizer.encode_batch)
        start = 0
        window = FIRST_WINDOW
        while start < len(texts):
            chunk = texts[start : start + window]
            inputs = [text.lower() for text in chunk] if lowercase else list(chunk)
            encodings = encode(inputs, add_special_tokens=True)
            lengths = np.fromiter((len(item) for item in encodings), np.int64, len(encodings))
            for rows in length_batches(
                lengths, token_budget=self.token_budget, max_batch=self.max_batch
            ):
                longest = int(lengths[rows[-1]])
                ids = torch.zeros((len(rows), longest), dtype=torch.int64, pin_memory=pin)
                array = ids.numpy()
                for row, index in enumerate(rows):
                    array[row, : lengths[index]] = encodings[index].ids
                batch_lengths = torch.from_numpy(lengths[rows])
                if pin:
                    batch_lengths = batch_lengths.pin_memory()
                uniform = int(lengths[rows[0]]) == longest
                yield _Batch(rows + start, ids, batch_lengths, uniform)
            start += len(chunk)
            window = WINDOW

    def _consume(
        self,
        model: Any,
        device: Any,
        ready: queue.Queue[Any],
        vectors: np.ndarray,
        normalize: bool,
        progress: Callable[[int], None] | None,
    ) -> None:
        """Run batches from ``ready`` on one device until the end marker."""
        torch = self.torch
        on_cuda = device.type == "cuda"
        dtype = self._dtype()
        autocast = dtype is not None and not self._weights_in_half(device)
        kept: list[tuple[np.ndarray, Any]] = []  # results still on the device
        kept_rows = 0
        with torch.inference_mode():
            while (batch := ready.get()) is not _DONE:
                ids = batch.ids.to(device, non_blocking=on_cuda)
                lengths = batch.lengths.to(device, non_blocking=on_cuda)
                positions = torch.arange(ids.shape[1], device=device)
                mask = (positions[None, :] < lengths[:, None]).to(torch.int64)
                with torch.autocast(device.type, dtype=dtype, enabled=autocast):
                    output = model(input_ids=ids, attention_mask=None if batch.uniform else mask)
                tokens = output[0].float()
                summed = (tokens * mask[:, :, None].float()).sum(dim=1)
                pooled = summed / lengths[:, None].float()
                if normalize:
                    pooled = torch.nn.functional.normalize(pooled, p=2.0, dim=1)
                kept.append((batch.rows, pooled))
                kept_rows += len(batch.rows)
                if progress is not None:
                    progress(len(batch.rows))
                if kept_rows >= 65_536:  # bound the device memory a long call holds
                    _copy_back(torch, kept, vectors)
                    kept, kept_rows = [], 0
            _copy_back(torch, kept, vectors)


def _copy_back(torch: Any, kept: list[tuple[np.ndarray, Any]], vectors: np.ndarray) -> None:
    """One copy of the kept results to the host, scattered into input order."""
    if not kept:
        return
    rows = np.concatenate([item[0] for item in kept])
    vectors[rows] = torch.cat([item[1] for item in kept]).cpu().numpy()


def _tokenizer(spec: ModelSpec) -> Any:
    tokenizers = require("tokenizers", "onnx")
    tokenizer = tokenizers.Tokenizer.from_file(str(spec.transformer_path / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=spec.max_seq_length)
    tokenizer.no_padding()  # batches are padded here, to their own longest text
    return tokenizer


def _put_unless_stopped(ready: queue.Queue[Any], item: Any, stop: threading.Event) -> None:
    while True:
        try:
            ready.put(item, timeout=0.1)
            return
        except queue.Full:
            if stop.is_set():
                return


def _drain(ready: queue.Queue[Any]) -> None:
    while True:
        try:
            ready.get_nowait()
        except queue.Empty:
            return
