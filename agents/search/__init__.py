"""The exact solver (numba): every legal play's value with perfect play by all."""
