"""Tiles of a double-six set and their notation.

A tile is an id 0..27: tile (hi, lo) with hi >= lo has id ``hi * (hi + 1) // 2 + lo``, so
``0-0`` is 0, ``1-0`` is 1, ``1-1`` is 2 and ``6-6`` is 27. Hands are bitmasks over tile ids.
"""

from __future__ import annotations

import numpy as np

N_TILES = 28
N_SUITS = 7  # the numbers 0..6

HI = np.array([h for h in range(7) for _ in range(h + 1)], dtype=np.int8)
LO = np.array([lo for h in range(7) for lo in range(h + 1)], dtype=np.int8)
IS_DOUBLE = HI == LO
PIPS = (HI + LO).astype(np.int8)
COUNT = np.zeros(N_TILES, dtype=np.int8)  # count points of each tile

TILE_NAMES: tuple[str, ...] = tuple(f"{h}-{lo}" for h, lo in zip(HI.tolist(), LO.tolist()))


def tile_id(hi: int, lo: int) -> int:
    """The id of the tile with ends ``hi`` and ``lo`` (either order)."""
    if lo > hi:
        hi, lo = lo, hi
    return hi * (hi + 1) // 2 + lo


for _name, _pts in (("5-0", 5), ("4-1", 5), ("3-2", 5), ("6-4", 10), ("5-5", 10)):
    COUNT[tile_id(int(_name[0]), int(_name[2]))] = _pts

_BY_NAME = {}
for _t, _name in enumerate(TILE_NAMES):
    _BY_NAME[_name] = _t
    _BY_NAME[_name[::-1]] = _t


def parse_tile(text: str) -> int:
    """Tile id of ``text`` in the notation ``6-4`` (either order); ``ValueError`` otherwise."""
    if isinstance(text, str) and text in _BY_NAME:
        return _BY_NAME[text]
    raise ValueError(f"not a tile: {text!r} (tiles are written like '6-4', ends 0..6)")


def tile_name(t: int) -> str:
    return TILE_NAMES[int(t)]


def mask_of(tiles) -> int:
    """Bitmask (Python int) of an iterable of tile ids."""
    m = 0
    for t in tiles:
        m |= 1 << int(t)
    return m


def tiles_of(mask: int) -> list[int]:
    """Tile ids in a bitmask, ascending."""
    mask = int(mask)
    return [t for t in range(64) if mask >> t & 1]


def suit_tiles(s: int) -> list[int]:
    """Tiles that carry the number ``s``."""
    return [t for t in range(N_TILES) if HI[t] == s or LO[t] == s]


DOUBLES_MASK = mask_of(np.flatnonzero(IS_DOUBLE))
