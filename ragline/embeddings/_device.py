"""Where a local model runs: a CUDA GPU when torch sees one, else the CPU.

``device`` (or ``RAGLINE_DEVICE`` when none is given) is ``auto``, ``cpu``, ``cuda`` or
``cuda:N``. ``auto`` picks CUDA when torch is installed and sees a GPU; so that a
CPU-only machine never pays for importing torch (~1 s, and the ONNX query path imports
none), torch is only asked when the machine shows an NVIDIA device at all.
``cuda`` means every local GPU for a batch (the encoder runs one model copy on each),
``cuda:N`` one of them.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from ragline.core import ConfigurationError, InvalidInputError

__all__ = ["DEVICE_ENV", "cuda_devices", "is_cuda", "requested_device", "resolve_device"]

DEVICE_ENV = "RAGLINE_DEVICE"
_FORM = re.compile(r"auto|cpu|cuda(:\d+)?")
# what a machine with an NVIDIA GPU shows before any library is loaded
_NVIDIA_SIGNS = ("/dev/nvidia0", "/dev/nvidiactl", "/proc/driver/nvidia/gpus", "/dev/dxg")


def requested_device(device: str | None, *, where: str = "device") -> str:
    """The device asked for: ``device``, else ``RAGLINE_DEVICE``, else ``"auto"``.

    Raises:
        InvalidInputError: not ``auto``, ``cpu``, ``cuda`` or ``cuda:N`` (names the value
            and where it came from).
    """
    source = where
    if device is None or device == "auto":
        configured = os.environ.get(DEVICE_ENV, "").strip()
        if device is None and configured:
            device, source = configured, DEVICE_ENV
        else:
            device = "auto"
    if not isinstance(device, str) or not _FORM.fullmatch(device):
        raise InvalidInputError(
            f"{source} {device!r} is not a device: use auto, cpu, cuda or cuda:N "
            "(N: the GPU's number)"
        )
    return device


def _torch_sees_cuda() -> bool:
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    if not any(Path(sign).exists() for sign in _NVIDIA_SIGNS):
        return False
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def resolve_device(device: str | None, *, where: str = "device") -> str:
    """``cpu``, ``cuda`` or ``cuda:N``: ``auto`` (or nothing) decided on this machine.

    Raises:
        InvalidInputError: a malformed device.
        ConfigurationError: CUDA asked for, but torch is missing or sees no GPU (or not
            GPU N).
    """
    asked = requested_device(device, where=where)
    if asked == "auto":
        return "cuda" if _torch_sees_cuda() else "cpu"
    if asked == "cpu":
        return asked
    if not _torch_sees_cuda():
        raise ConfigurationError(
            f"{where} {asked!r}: torch is not installed or sees no CUDA GPU on this "
            "machine; use cpu or auto"
        )
    import torch

    count = torch.cuda.device_count()
    if ":" in asked and int(asked.split(":")[1]) >= count:
        raise ConfigurationError(
            f"{where} {asked!r}: this machine has {count} CUDA GPU(s), numbered from 0"
        )
    return asked


def is_cuda(device: str | None) -> bool:
    """Whether a resolved device names CUDA."""
    return device is not None and device.split(":")[0] == "cuda"


def cuda_devices(device: str) -> list[str]:
    """The torch devices a resolved CUDA device stands for: every GPU for ``cuda``."""
    if ":" in device:
        return [device]
    import torch

    return [f"cuda:{index}" for index in range(max(1, torch.cuda.device_count()))]
