"""Modules that moved, still importable by their old names: ``import agents.training.app``
gives ``agents.training.ppo_run`` itself (the same module object, so ``isinstance`` and
monkeypatching agree) and warns once with a ``DeprecationWarning`` naming the new path.
Installed when ``agents`` is imported (a finder on ``sys.meta_path``)."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

# the old dotted name: the new one
MOVED = {
    "agents.apps": "agents.hydra_apps",
    "agents.training.app": "agents.training.ppo_run",
    "agents.training.bidnet": "agents.training.bidnet_training",
    "agents.arena.bidders": "agents.arena.bidder_matches",
    "agents.ui.web.app": "agents.ui.web.server",
    "agents.search.kernels": "agents.search.points",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name of ``MOVED`` and loads it as the module it became."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} is now {new}: import that (the old name will go)",
                      DeprecationWarning, stacklevel=4)
        return importlib.import_module(new)

    def exec_module(self, module) -> None:  # the new module is already executed
        pass


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())


__all__ = ["MOVED", "install"]
