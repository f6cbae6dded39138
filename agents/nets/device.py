"""Where a learner's nets live: ``device`` (``auto`` | ``cpu`` | ``cuda`` | ``cuda:N`` |
``mps``), the config key of every trainer.

``auto`` takes a GPU when torch sees one (CUDA, then Apple's MPS), else the CPU. Asking for a
device torch cannot use is a ``ConfigError`` naming the key and what this install has, raised
before any work starts. Checkpoints are always written from CPU copies and read onto the
CPU (``agents/nets/checkpoint.py``), so a net trained on a GPU plays on a CPU-only install
and the reverse.

``precision`` (``auto`` | ``fp32`` | ``bf16``), beside it, is the arithmetic of the learner's
forward and backward passes: ``fp32`` (the default, the same weights on every machine for a
seed), or ``bf16`` under torch's autocast to bfloat16 (weights, optimizer and losses stay
float32; the trunks' matrix products round to bfloat16): meant for devices that compute
bfloat16 natively (a GPU's tensor cores; on a 2-core CPU with AVX512-BF16 it gained nothing
end to end), and weights that differ from fp32's. ``auto`` takes bf16 there (a CUDA GPU
with bfloat16, a CPU with AVX512-BF16 or AMX) and fp32 elsewhere.
"""

from __future__ import annotations

import re
from typing import Any

from texas42_env.config import Rule
from texas42_env.rules import ConfigError

_NAME = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")
DEVICE = Rule(test=lambda v: isinstance(v, str) and bool(_NAME.match(v)),
              says="auto, cpu, cuda, cuda:N or mps")


def available() -> str:
    """What this install of torch can use, in words."""
    import torch  # torch: only when a device is chosen

    have = ["cpu"]
    if torch.cuda.is_available():
        n = torch.cuda.device_count()
        have.append("cuda" + (f" (cuda:0..cuda:{n - 1})" if n > 1 else ""))
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        have.append("mps")
    return ", ".join(have)


def resolve_device(name: str, key: str = "device") -> Any:
    """The ``torch.device`` that ``name`` means here; ``ConfigError`` (naming ``key``) when
    this install of torch cannot use it."""
    import torch  # torch: only when a device is chosen

    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(key=key, value=name, allowed=DEVICE.says)
    mps = getattr(torch.backends, "mps", None)
    has_mps = mps is not None and mps.is_available()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else
                            "mps" if has_mps else "cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ConfigError(f"{key}: {name} asked, but torch sees no CUDA GPU here "
                              f"(this install can use: {available()}); use {key}=cpu or auto",
                              key=key, value=name, allowed=available())
        index = int(name.partition(":")[2] or 0)
        if index >= torch.cuda.device_count():
            raise ConfigError(f"{key}: {name} asked, but torch sees "
                              f"{torch.cuda.device_count()} CUDA GPU(s) here",
                              key=key, value=name, allowed=available())
    if name == "mps" and not has_mps:
        raise ConfigError(f"{key}: mps asked, but torch sees no Apple GPU here (this install "
                          f"can use: {available()}); use {key}=cpu or auto",
                          key=key, value=name, allowed=available())
    return torch.device(name)


PRECISION = Rule(test=lambda v: v in ("auto", "fp32", "bf16"), says="auto, fp32 or bf16")


def native_bf16(device: Any) -> bool:
    """Whether ``device`` (a ``torch.device``) computes bfloat16 natively."""
    import torch  # torch: only when a device is chosen

    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    if device.type == "cpu":
        cpu = torch.cpu
        return any(bool(getattr(cpu, test, lambda: False)())
                   for test in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))
    return False


def resolve_precision(name: str, device: Any, key: str = "precision") -> str:
    """``fp32`` or ``bf16``: what ``name`` means on ``device``; ``ConfigError`` (naming
    ``key``) for a name not in ``PRECISION``."""
    if name not in ("auto", "fp32", "bf16"):
        raise ConfigError(key=key, value=name, allowed=PRECISION.says)
    if name == "auto":
        return "bf16" if native_bf16(device) else "fp32"
    return name


def on_cpu(x: Any) -> Any:
    """``x`` (tensors in dicts, lists and tuples) with every tensor copied to the CPU, for
    checkpoints and for workers."""
    import torch  # torch: only with tensors

    if isinstance(x, torch.Tensor):
        return x.detach().to("cpu", copy=True)
    if isinstance(x, dict):
        return {k: on_cpu(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(on_cpu(v) for v in x)
    return x


__all__ = ["DEVICE", "PRECISION", "available", "native_bf16", "on_cpu", "resolve_device",
           "resolve_precision"]
