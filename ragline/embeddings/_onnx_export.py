"""Export a sentence-transformers transformer to ONNX, once, into ragline's cache.

The one place torch is needed by the ONNX backend: ``torch.onnx.export`` traces the
Hugging Face model loaded from the packaged weights (nothing is downloaded), then
ONNX Runtime's transformer optimizer fuses each layer's attention (as
``MultiHeadAttention``), GELU and skip-layer-normalisation into single operators.
The encoder never pads (it runs texts of one length together), so the attention mask
is then taken out of the graph: without a mask, ONNX Runtime runs attention with its
flash-attention kernel. The result is written to a temporary name in the cache
folder and renamed into place, so two processes exporting at once both succeed and
the reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import platform
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragline.core import MissingDependencyError
from ragline.core._optional import require
from ragline.embeddings._onnx import (
    EXPORT_VERSION,
    ModelSpec,
    export_path,
    write_atomic,
)

__all__ = ["drop_attention_mask", "ensure_export"]

OPSET = 17
_log = logging.getLogger(__name__)
_export_lock = threading.Lock()


def ensure_export(
    spec: ModelSpec,
    sha256: str,
    *,
    precision: str = "fp32",
) -> Path:
    """Return the cached ONNX export of ``spec``'s weights, exporting it first if needed.

    Args:
        spec: the model folder.
        sha256: the digest of ``spec.weights`` (the cache key).
        precision: ``"fp32"``, or ``"int8"``: the fp32 export with its matrix products'
            weights quantised to int8 per output channel (dynamic quantisation: the
            activations are quantised as each run goes), made from the fp32 export.

    Raises:
        MissingDependencyError: no export is cached and torch, transformers or onnx is
            missing; the message says how to prepare one elsewhere.
    """
    target = export_path(sha256, precision)
    if target.is_file():
        return target
    source = ensure_export(spec, sha256) if precision == "int8" else None
    with _export_lock:
        if target.is_file():  # another thread of this process finished it meanwhile
            return target
        if source is not None:
            require("onnx", "onnx")
            _quantize(source, target)
            return target
        modules = _export_modules(target)
        # a warning, so a person sees why this first call takes seconds (logging's
        # last-resort handler prints it on stderr when the application set none up)
        _log.warning("exporting %s to ONNX once, into %s", spec.path, target.parent)
        _export(spec, sha256, target, modules)
    return target


def _quantize(source: Path, target: Path) -> None:
    """Dynamic int8 quantisation of ``source``'s matrix products, per output channel
    (per-tensor scales lost too much here: cosine ~0.9 to fp32; docs/embeddings.md)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with (
        tempfile.TemporaryDirectory(dir=target.parent, prefix=".quantize-") as work,
        _without_preprocessing_advice(),
    ):
        quantized = Path(work) / target.name
        quantize_dynamic(
            str(source),
            str(quantized),
            weight_type=QuantType.QInt8,
            per_channel=True,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        os.replace(quantized, target)  # same folder: an atomic rename


@contextlib.contextmanager
def _without_preprocessing_advice() -> Iterator[None]:
    """Drop the quantiser's advice to pre-process the model first, which it logs on the
    root logger: the export it quantises is already shape-inferred and fused."""

    def keep(record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Please consider to run pre-processing")

    root = logging.getLogger()
    root.addFilter(keep)
    try:
        yield
    finally:
        root.removeFilter(keep)


def _export_modules(target: Path) -> tuple[Any, Any]:
    try:
        torch = require("torch", "local")
        transformers = require("transformers", "local")
        require("onnx", "onnx")
    except MissingDependencyError as err:
        raise MissingDependencyError(
            f"the ONNX backend needs a one-time export of the model to {target}, and the "
            f"export needs torch, transformers and onnx ({err}). Install them "
            "(pip install 'ragline[local,onnx]'), or copy that folder from a machine that "
            "has made the export (set RAGLINE_CACHE_DIR to move the cache), or use "
            "backend='torch'"
        ) from err
    return torch, transformers


def _export(spec: ModelSpec, sha256: str, target: Path, modules: tuple[Any, Any]) -> None:
    torch, transformers = modules
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are local; never download
    config = json.loads((spec.transformer_path / "config.json").read_text(encoding="utf-8"))
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".export-") as work:
        traced = Path(work) / "traced.onnx"
        fused = Path(work) / "fused.onnx"
        _trace(torch, transformers, spec, traced)
        if config.get("model_type") == "bert":  # the fusions ONNX Runtime knows for BERT
            _fuse(traced, fused, config)
        else:
            fused = traced
        os.replace(fused, target)  # same folder: an atomic rename
    details = {
        "weights": str(spec.weights),
        "weights_sha256": sha256,
        "export_version": EXPORT_VERSION,
        "opset": OPSET,
        "torch": str(torch.__version__),
        "transformers": str(transformers.__version__),
        "python": platform.python_version(),
    }
    write_atomic(target.parent / "export.json", (json.dumps(details, indent=2) + "\n").encode())


def _trace(torch: Any, transformers: Any, spec: ModelSpec, destination: Path) -> None:
    """``torch.onnx.export`` of the transformer: token ids and mask in, token vectors out."""
    bars = transformers.utils.logging.is_progress_bar_enabled()
    transformers.utils.logging.disable_progress_bar()  # its weight-loading bar says nothing
    try:
        _trace_quietly(torch, transformers, spec, destination)
    finally:
        if bars:
            transformers.utils.logging.enable_progress_bar()


def _trace_quietly(torch: Any, transformers: Any, spec: ModelSpec, destination: Path) -> None:
    model = transformers.AutoModel.from_pretrained(
        str(spec.transformer_path), attn_implementation="eager", local_files_only=True
    ).eval()

    class TokenEmbeddings(torch.nn.Module):  # type: ignore[misc,name-defined]
        """The transformer with token types fixed at 0 (one text per input)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            output = self.model(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=torch.zeros_like(input_ids),
            )
            return output.last_hidden_state

    # two texts of different lengths, so padding is traced as a general case
    input_ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]])
    attention_mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
    dynamic = {0: "batch", 1: "tokens"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # tracer notes about constant shapes checks
        torch.onnx.export(
            TokenEmbeddings(),
            (input_ids, attention_mask),
            str(destination),
            input_names=["input_ids", "attention_mask"],
            output_names=["token_embeddings"],
            dynamic_axes={
                "input_ids": dynamic,
                "attention_mask": dynamic,
                "token_embeddings": dynamic,
            },
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )


def _fuse(source: Path, destination: Path, config: dict[str, Any]) -> None:
    """Fuse attention, GELU and layer norms (ONNX Runtime's BERT optimizer, CPU-safe),
    then drop the attention mask the encoder never needs."""
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    options = FusionOptions("bert")
    options.use_multi_head_attention = True  # the operator with a CPU flash-attention path
    optimized = optimize_model(
        str(source),
        model_type="bert",
        num_heads=int(config["num_attention_heads"]),
        hidden_size=int(config["hidden_size"]),
        opt_level=0,  # graph fusions only: the file stays portable across CPUs
        use_gpu=False,
        optimization_options=options,
    )
    drop_attention_mask(optimized.model)
    optimized.save_model_to_file(str(destination))


def drop_attention_mask(model: Any) -> bool:
    """Remove the ``attention_mask`` input from a fused BERT graph, in place.

    The mask reaches the fused graph in two places: the ``MultiHeadAttention`` nodes'
    key padding mask (input 4) and ``EmbedLayerNormalization``'s mask (input 7, which
    only computes a mask index). Both are optional inputs; once they are cut, the
    nodes that only fed them are removed, then the graph input. Any other use of the
    mask (a graph this recipe does not know) leaves the graph as it was.

    Returns:
        Whether the mask was removed.
    """
    if not any(item.name == "attention_mask" for item in model.graph.input):
        return False
    attention = [n for n in model.graph.node if n.op_type == "MultiHeadAttention"]
    if not attention or any(len(node.input) > 5 for node in attention):
        return False  # no fused attention, or attention biases / past state: keep the mask
    graph = type(model.graph)()
    graph.CopyFrom(model.graph)  # cut a copy: a graph that uses the mask otherwise stays
    for node in graph.node:
        if node.op_type == "MultiHeadAttention":
            del node.input[4:]
        elif node.op_type == "EmbedLayerNormalization":
            del node.input[7:]
    _remove_unused_nodes(graph)
    if any("attention_mask" in node.input for node in graph.node):
        return False
    graph.input.remove(next(item for item in graph.input if item.name == "attention_mask"))
    model.graph.CopyFrom(graph)
    return True


def _remove_unused_nodes(graph: Any) -> None:
    """Drop nodes none of whose outputs is used (repeatedly: their inputs' producers
    may become unused in turn). A node with any output still used stays whole."""
    needed = {output.name for output in graph.output}
    while True:
        used = needed | {name for node in graph.node for name in node.input}
        unused = [n for n in graph.node if not any(out in used for out in n.output if out)]
        if not unused:
            return
        for node in unused:
            graph.node.remove(node)
