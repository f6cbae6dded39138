"""Where a learner's nets live: ``device`` (``auto`` | ``cpu`` | ``cuda`` | ``cuda:N`` |
``mps``), the config key of every trainer.

``auto`` takes a GPU when torch sees one (CUDA, then Apple's MPS), else the CPU. Asking for a
device torch cannot use is a ``ConfigError`` naming the key and what this install has, raised
before any work starts. Checkpoints are always written from CPU copies and read onto the
CPU (``agents/nets/checkpoint.py``), so a net trained on a GPU plays on a CPU-only install
and the reverse.
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


__all__ = ["DEVICE", "available", "on_cpu", "resolve_device"]
