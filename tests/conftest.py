"""Fixtures shared by the test files."""

import pytest


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
