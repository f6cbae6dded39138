"""Fixtures shared by the test files."""

import signal

import pytest


def pytest_configure(config):
    """Ctrl-C as in a terminal, whoever started pytest: a job started in the background by a
    shell without job control (``nohup pytest &`` in a script) inherits SIGINT ignored, and
    so would the scripts the Ctrl-C tests start; they must see it."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def torch_one_thread():
    """Torch on one thread for the test (small nets: threads only add noise), restored after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def restore_torch_threads():
    """Torch's thread count as it was before the test (training sets it)."""
    import torch

    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def alone() -> tuple[dict, int]:
    """Three updates of ``helpers.actor_trainer`` in this process (actors: 0) at one torch
    thread: the weights and samples every other arrangement of actors must give."""
    import torch

    from helpers import actor_trainer, trained

    torch.set_num_threads(1)
    t = actor_trainer()
    return trained(t), t.samples
