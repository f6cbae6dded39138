"""Uniform sampling by exact counting, the engine of world sampling (``worlds``).

Tile instances fall into classes of those with the same allowed pseudo-seats; a dynamic
programme over the classes (``ClassDP``), its state the capacity left in each pseudo-seat
(and how many tiles of an "at least r of these" quota are placed so far), counts the deals
and draws each world's split of every class from its conditional probabilities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_FACT = [math.factorial(i) for i in range(64)]
_FACT_F = np.array([float(f) for f in _FACT])


# ----------------------------------------------------------------------------- the counting DP
def _compositions(m: int, seats: list[int], caps: np.ndarray) -> np.ndarray:
    """Every split of ``m`` tiles over ``seats`` (int64 [k, P]), at most ``caps[p]`` to seat p."""
    P = len(caps)
    rows = np.zeros((1, P), np.int64)
    rem = np.array([m], np.int64)
    room = [int(sum(caps[q] for q in seats[j + 1:])) for j in range(len(seats))]
    for j, p in enumerate(seats):
        if j == len(seats) - 1:
            ok = rem <= caps[p]
            rows, rem = rows[ok], rem[ok]
            rows[:, p] = rem
            return rows
        lo = np.maximum(rem - room[j], 0)
        hi = np.minimum(rem, caps[p])
        cnt = np.maximum(hi - lo + 1, 0)
        rows = np.repeat(rows, cnt, axis=0)
        k = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt) + np.repeat(lo, cnt)
        rem = np.repeat(rem, cnt) - k
        rows[:, p] = k
    return rows if m == 0 else rows[:0]


@dataclass
class _Layer:
    splits: np.ndarray  # int64 [Nk, P]
    weights: np.ndarray  # float64 [Nk]: multinomial m! / prod(k!)
    trans: np.ndarray  # int64 [Ns, Nk]: next state's index (Ns_next where not allowed)
    cdf: np.ndarray | None = None  # flat [Ns * Nk]: state index + its cumulative probability
    last: np.ndarray | None = None  # int64 [Ns]: last split of positive probability


class ClassDP:
    """Counts, and samples, the ways to deal classes of tile instances to pseudo-seats.

    ``sizes[c]`` instances in class c may go to the pseudo-seats in the bitmask ``allowed[c]``;
    pseudo-seat p takes exactly ``caps[p]``. Quota q ("at least ``need[q]`` of the tiles of the
    classes with ``inq[c, q]`` go to the pseudo-seats ``qseats[q]``") adds a state coordinate:
    how many are placed so far, capped at the need. States are enumerated forwards from the
    start, counted backwards (``F[c][s]``: the ways to deal classes c.. from state s).
    """

    def __init__(self, sizes, allowed, caps, inq=None, qseats=(), need=(), exact=False):
        K, P, Q = len(sizes), len(caps), len(need)
        self.K, self.P = K, P
        caps = np.asarray(caps, np.int64)
        need = np.asarray(need, np.int64).reshape(Q)
        inq = np.zeros((K, Q), bool) if inq is None else np.asarray(inq, bool).reshape(K, Q)
        qmat = np.array([[qs >> p & 1 for p in range(P)] for qs in qseats], np.int64).reshape(Q, P)
        allow = np.array([[a >> p & 1 for p in range(P)] for a in allowed], bool).reshape(K, P)
        # the most each seat / quota can still get from the classes after c (to prune states)
        room = np.zeros((K + 1, P), np.int64)
        qroom = np.zeros((K + 1, Q), np.int64)
        for c in range(K - 1, -1, -1):
            room[c] = room[c + 1] + sizes[c] * allow[c]
            qroom[c] = qroom[c + 1] + sizes[c] * (inq[c] & ((qmat & allow[c]).sum(1) > 0))
        states = np.concatenate([caps, np.zeros(Q, np.int64)])[None, :]
        radix = np.concatenate([caps + 1, need + 1])
        place = np.concatenate([[1], np.cumprod(radix)[:-1]]).astype(np.int64)
        space = int(np.prod(radix))
        self.layers: list[_Layer] = []
        ok0 = (states[0, :P] <= room[0]).all() and (need <= qroom[0]).all() and K > 0
        if not ok0:
            self.states_last = states[:0]
            self._finish(exact, need, inq, qmat, allow, sizes)
            return
        for c in range(K - 1):
            seats = [p for p in range(P) if allow[c, p]]
            splits = _compositions(int(sizes[c]), seats, caps)
            w = _FACT_F[sizes[c]] / np.prod(_FACT_F[splits], axis=1)
            # next state = state - split on the capacities (its code too: no borrows where
            # every capacity stays >= 0), quota progress capped at the need
            codes = (states[:, :P] @ place[:P])[:, None] - (splits @ place[:P])[None, :]
            ok = np.ones(codes.shape, bool)
            for p in range(P):
                left = states[:, p, None] - splits[None, :, p]
                ok &= (left >= 0) & (left <= room[c + 1, p])
            if Q:
                gain = (splits @ qmat.T) * inq[c]  # [Nk, Q]
                for q in range(Q):
                    prog = np.minimum(states[:, P + q, None] + gain[None, :, q], need[q])
                    ok &= need[q] - prog <= qroom[c + 1, q]
                    codes += prog * place[P + q]
            if space <= 1 << 22:  # a dense table from code to index
                present = np.zeros(space, bool)
                present[codes[ok]] = True
                index = np.cumsum(present) - 1
                uniq = np.flatnonzero(present)
                trans = np.where(ok, index[np.where(ok, codes, 0)], len(uniq))
            else:
                uniq, inv = np.unique(codes[ok], return_inverse=True)
                trans = np.full(codes.shape, len(uniq), np.int64)
                trans[ok] = inv
            self.layers.append(_Layer(splits, w, trans))
            states = (uniq[:, None] // place[None, :]) % radix[None, :]
        self.states_last = states
        self._finish(exact, need, inq, qmat, allow, sizes)

    def _finish(self, exact, need, inq, qmat, allow, sizes) -> None:
        K, P = self.K, self.P
        st = self.states_last
        if K == 0:
            self.f = [np.ones(1)]
            self.total = 1
            return
        c = K - 1
        ok = ~(st[:, :P] > 0)[:, ~allow[c]].any(1) if len(st) else np.zeros(0, bool)
        if len(need):
            got = np.minimum(st[:, P:] + (st[:, :P] @ qmat.T) * inq[c], need)
            ok &= (got >= need).all(1)
        dtype = object if exact else np.float64
        if exact:
            f = np.array([_FACT[int(sizes[c])] // math.prod(_FACT[int(k)] for k in row) if o else 0
                          for row, o in zip(st[:, :P], ok)] + [0], dtype=object)[:-1]
        else:
            f = np.where(ok, _FACT_F[sizes[c]] / np.prod(_FACT_F[st[:, :P]], axis=1), 0.0)
        fs = [f]
        for layer in reversed(self.layers):
            if exact:
                w = np.array([_FACT[int(layer.splits[k].sum())] //
                              math.prod(_FACT[int(x)] for x in layer.splits[k])
                              for k in range(len(layer.splits))] + [0], dtype=object)[:-1]
            else:
                w = layer.weights
            fpad = np.concatenate([f, np.zeros(1, dtype=dtype)])
            f = (fpad[layer.trans] * w[None, :]).sum(axis=1)
            fs.append(f)
        fs.reverse()
        self.f = fs
        self.total = (int(fs[0][0]) if exact else float(fs[0][0])) if len(fs[0]) else 0

    def _prepare(self) -> None:
        for c, layer in enumerate(self.layers):
            if layer.cdf is not None:
                continue
            fpad = np.concatenate([self.f[c + 1], [0.0]])
            prob = fpad[layer.trans] * layer.weights[None, :]
            cum = np.cumsum(prob, axis=1)
            tot = cum[:, -1:]
            cdf = np.divide(cum, tot, out=np.zeros_like(cum), where=tot > 0)
            cdf[:, -1] = 1.0
            ns, nk = cdf.shape
            layer.cdf = (cdf + np.arange(ns)[:, None]).ravel()
            pos = prob > 0
            layer.last = np.where(pos.any(1), nk - 1 - np.argmax(pos[:, ::-1], axis=1), 0)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Splits of every class for ``n`` worlds: int64 [n, K, P]."""
        self._prepare()
        K, P = self.K, self.P
        ks = np.zeros((n, K, P), np.int64)
        s = np.zeros(n, np.int64)
        for c, layer in enumerate(self.layers):
            nk = layer.splits.shape[0]
            idx = np.searchsorted(layer.cdf, s + rng.random(n), side="right")
            choice = np.minimum(idx - s * nk, layer.last[s])
            ks[:, c] = layer.splits[choice]
            s = layer.trans[s, choice]
        if K:
            ks[:, K - 1] = self.states_last[s, :P]
        return ks


