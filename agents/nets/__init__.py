"""PyTorch networks (``policy``) and checkpoint files (``checkpoint``)."""
