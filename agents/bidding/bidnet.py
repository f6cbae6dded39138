"""The learned bidder: a network that predicts a hand's values, trained on the hand-value
dataset, and the agent that bids from its predictions.

``BidNet`` reads one (hand, contract) pair at a time (the hand's tiles, the contract, its
trumps in rank order, suit lengths, doubles and count held: ``features``) and gives the
chance of taking each need of ``NEEDS`` (30..42; the chances fall with the need by
construction: a base logit minus a running sum of positive steps) and the expected points.
One net serves every contract, so each hand of the dataset teaches it nine times. It is
trained (``agents.training.bidnet_training.train_bidnet``) by cross-entropy against the dataset's per-world shares and
squared error on the mean points; a checkpoint (``save_checkpoint`` format, weights only)
holds the weights, the model and data configs and the validation figures.

``LearnedBidder`` (registered ``bidnet``, ``bidnet:path=FILE``) bids by the same
``BidRule`` as the simulation bidder, from the net's chances. It runs the net in NumPy
(no torch call per decision): one hand is nine rows through a small MLP.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from texas42_env import tiles as T
from texas42_env.actions import PLUNGE
from texas42_env.rules import TRUMP_SUIT, RulesConfig

from agents.base import register
from agents.bidding.bidders import CONTRACTS, NEEDS, ValueBidder, bid_need, bids_before
from agents.nets.checkpoint import CheckpointError, load_checkpoint

N_NEEDS = len(NEEDS)
KIND = "bidnet"


def _trump_order() -> np.ndarray:
    """int [contracts, 7]: each contract's trumps, best first (-1: follow-me has none)."""
    tb = RulesConfig.make().tables
    out = np.full((len(CONTRACTS), 7), -1, np.int64)
    for c in CONTRACTS:
        m = int(tb.follow[c][TRUMP_SUIT])
        ts = sorted((t for t in range(T.N_TILES) if m >> t & 1), key=lambda t: -tb.rank[c][TRUMP_SUIT][t])
        out[c, :len(ts)] = ts
    return out


_TRUMPS = _trump_order()
_SUIT = np.zeros((T.N_TILES, 7))
for _s in range(7):
    _SUIT[T.suit_tiles(_s), _s] = 1.0
_DOUBLE = np.array([(T.DOUBLES_MASK >> t) & 1 for t in range(T.N_TILES)], np.float64)
_COUNT = np.asarray(T.COUNT, np.float64)
N_CONTEXT = 8
N_HAND = T.N_TILES + len(CONTRACTS) + 7 + 7 + 4
N_FEATURES = N_HAND + N_CONTEXT


def auction_context(st, tables: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """float32 [n, N_CONTEXT]: what the auction said when each (table, seat) bid (or is about
    to): the opponents' highest bid before it, (need - 29) / 13, and whether one bid, the
    same for the partner, and the seat's place in the bidding order (one-hot, first to
    dealer). Zeros (no context) is what the hand-value dataset teaches: a hand valued on
    its own."""
    tables = np.asarray(tables)
    seats = np.asarray(seats)
    out = np.zeros((len(tables), N_CONTEXT), np.float32)
    for i, (t, s) in enumerate(zip(tables.tolist(), seats.tolist())):
        k = bids_before(st, t, s)
        for j in range(k):
            a = int(st.bids[t, j])
            if a <= 0:  # a pass
                continue
            level = 1.0 if a >= PLUNGE else (bid_need(a) - 29) / 13.0  # plunge/splash: top
            col = 2 if (s - k + j) % 4 == (s + 2) % 4 else 0  # the partner's, else opponents'
            out[i, col] = max(out[i, col], level)
            out[i, col + 1] = 1.0
        out[i, 4 + min(k, 3)] = 1.0
    return out


def features(hands: np.ndarray, context: np.ndarray | None = None) -> np.ndarray:
    """float32 [n, contracts, N_FEATURES] for uint64 hands [n]: tiles held, the contract
    (one-hot), its trumps held best first, suit lengths / 7, and doubles / 7, count / 35,
    trumps held / 7 and 1 - (the top trump held); then ``context`` ([n, N_CONTEXT] from
    ``auction_context``; zeros when None)."""
    hands = np.atleast_1d(np.asarray(hands, np.uint64))
    n, C = hands.size, len(CONTRACTS)
    bits = ((hands[:, None] >> np.arange(T.N_TILES, dtype=np.uint64)) & np.uint64(1)) \
        .astype(np.float32)  # [n, 28]
    padded = np.concatenate([bits, np.zeros((n, 1), np.float32)], axis=1)  # index -1 -> 0
    trumps = padded[:, _TRUMPS]  # [n, C, 7]
    out = np.zeros((n, C, N_FEATURES), np.float32)
    out[:, :, :T.N_TILES] = bits[:, None, :]
    out[:, :, T.N_TILES:T.N_TILES + C] = np.eye(C, dtype=np.float32)
    o = T.N_TILES + C
    out[:, :, o:o + 7] = trumps
    out[:, :, o + 7:o + 14] = (bits @ _SUIT / 7.0)[:, None, :]
    out[:, :, o + 14] = (bits @ _DOUBLE / 7.0)[:, None]
    out[:, :, o + 15] = (bits @ _COUNT / 35.0)[:, None]
    out[:, :, o + 16] = trumps.sum(axis=2) / 7.0
    out[:, :, o + 17] = 1.0 - trumps[:, :, 0]
    if context is not None:
        out[:, :, N_HAND:] = np.asarray(context, np.float32)[:, None, :]
    return out


@dataclass
class BidNetConfig:
    hidden: int = 128
    layers: int = 2


def _torch_net(cfg: BidNetConfig):
    import torch  # torch: only when a net is trained or converted
    from torch import nn  # (torch, as above)

    class BidNet(nn.Module):
        """(hand, contract) features -> need logits [13] (falling) and mean points / 42."""

        def __init__(self):
            super().__init__()
            dims = [N_FEATURES] + [cfg.hidden] * cfg.layers
            layers = []
            for a, b in zip(dims[:-1], dims[1:]):
                layers += [nn.Linear(a, b), nn.ReLU()]
            self.trunk = nn.Sequential(*layers)
            self.head = nn.Linear(cfg.hidden, N_NEEDS + 1)

        def forward(self, x):
            out = self.head(self.trunk(x))
            base, steps, mean = out[..., :1], out[..., 1:N_NEEDS], out[..., N_NEEDS]
            logits = torch.cat([base, base - torch.cumsum(nn.functional.softplus(steps), -1)], -1)
            return logits, mean

    return BidNet()


class NumpyBidNet:
    """The bid net's forward pass in NumPy, from a checkpoint."""

    def __init__(self, path: str | Path, checkpoint: dict | None = None):
        ck = checkpoint if checkpoint is not None else load_checkpoint(path,
                                                                       require=("model",))
        if ck.get("kind") != KIND or "net" not in ck:
            raise CheckpointError(f"{path}: not a bid-net checkpoint (kind {ck.get('kind')!r}; "
                                  "make one with scripts/train_bidnet.py)")
        sd = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in ck["model"].items()}
        cfg = BidNetConfig(**ck["net"])
        try:
            self.layers = [(sd[f"trunk.{2 * i}.weight"].T.copy(), sd[f"trunk.{2 * i}.bias"])
                           for i in range(cfg.layers)]
            self.head = (sd["head.weight"].T.copy(), sd["head.bias"])
        except KeyError as e:
            raise CheckpointError(f"{path}: bid-net weights lack {e}") from None
        if self.layers[0][0].shape[0] != N_FEATURES:
            raise CheckpointError(f"{path}: the net reads {self.layers[0][0].shape[0]} "
                                  f"features; this version gives {N_FEATURES}")
        self.checkpoint = ck
        # every feature is affine in the tiles held, so the first layer folds into one
        # [28, contracts * hidden] matrix: features(h) @ W = bits(h) @ A @ W + b @ W
        empty = features(np.zeros(1, np.uint64))[0]  # [C, F]
        basis = features(np.uint64(1) << np.arange(T.N_TILES, dtype=np.uint64)) - empty
        w1, b1 = self.layers[0]
        self.first_w = np.einsum("tcf,fh->tch", basis, w1).reshape(T.N_TILES, -1) \
            .astype(np.float32)
        self.first_b = (empty @ w1 + b1).reshape(-1).astype(np.float32)
        self.hidden = w1.shape[1]
        # the first layer for one hand as four lookups: quarter k of the 28 tile bits (7
        # tiles, 128 values) -> its part of bits @ first_w; the bias rides in quarter 0
        seven = ((np.arange(128)[:, None] >> np.arange(7)) & 1).astype(np.float32)
        self._quarters = [seven @ self.first_w[7 * k:7 * k + 7] for k in range(4)]
        self._quarters[0] += self.first_b
        self.context_w = w1[N_HAND:]  # [N_CONTEXT, hidden], the same for every contract
        # a net fine-tuned in self-play reads the auction; one trained on hand values alone
        # has only seen zeros there
        self.uses_context = bool(ck.get("context", False))
        # _steps[j, k] = 1 for 1 <= j <= k: column k sums the steps up to need k (row 0, the
        # base, counts nowhere)
        self._steps = np.triu(np.ones((N_NEEDS, N_NEEDS), np.float32))
        self._steps[0] = 0.0

    def __call__(self, hands: np.ndarray, context: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        """(chances [n, contracts, 13], expected points [n, contracts])."""
        hands = np.atleast_1d(np.asarray(hands, np.uint64))
        n, C = len(hands), len(CONTRACTS)
        if n == 1:  # one decision (the common case): four table rows, no product
            h = int(hands[0])
            q = self._quarters
            x = q[0][h & 127] + q[1][h >> 7 & 127]
            x += q[2][h >> 14 & 127]
            x += q[3][h >> 21 & 127]
        else:
            bits = np.unpackbits(hands.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1,
                                 bitorder="little")[:, :T.N_TILES].astype(np.float32)
            x = bits @ self.first_w
            x += self.first_b
        x = x.reshape(n * C, self.hidden)  # rows: (hand, contract)
        if context is not None and self.uses_context:
            x = (x.reshape(n, C, self.hidden)
                 + (np.asarray(context, np.float32) @ self.context_w)[:, None, :]) \
                .reshape(n * C, self.hidden)
        np.maximum(x, 0.0, out=x)
        for w, b in self.layers[1:]:
            x = x @ w
            x += b
            np.maximum(x, 0.0, out=x)
        out = x @ self.head[0]
        out += self.head[1]  # [n * C, 14]
        # need k's logit: the base (column 0) less the softplus steps 1..k (a triangular
        # matrix sums them); the chance is 1 / (1 + exp(-logit)), worked in place
        z = np.log1p(np.exp(out[:, :N_NEEDS])) @ self._steps
        z -= out[:, :1]
        np.exp(z, out=z)
        z += 1.0
        np.reciprocal(z, out=z)
        return z.reshape(n, C, N_NEEDS), out[:, N_NEEDS].reshape(n, C) * 42.0


def untrained_checkpoint(seed: int = 0, cfg: BidNetConfig | None = None) -> dict:
    """A bid-net checkpoint (in memory) of freshly initialised weights: for timing and
    tests; it bids as badly as untrained weights do."""
    import torch  # torch: only when a net is trained or converted

    cfg = cfg or BidNetConfig()
    torch.manual_seed(seed)
    return {"format": "texas42-checkpoint", "kind": KIND, "net": asdict(cfg),
            "model": _torch_net(cfg).state_dict()}


@register("bidnet")
class LearnedBidder(ValueBidder):
    """Bids by ``BidRule`` from a trained bid net's chances (``path``: its checkpoint);
    plays as ``play``."""

    def __init__(self, path: str = "", play: str = "heuristic", q_open: float = 0.5,
                 q_partner: float = 0.7, q_opp: float = 0.7, game_weight: float = 1.0,
                 explore: float = 0.0, seed: int = 0, checkpoint: dict | None = None,
                 special_worlds: int = 16):
        if not path and checkpoint is None:
            raise ValueError("bidnet needs path=CHECKPOINT (made by scripts/train_bidnet.py)")
        super().__init__(play, q_open, q_partner, q_opp, game_weight, explore, seed,
                         special_worlds)
        self.path = path
        self.net = NumpyBidNet(path, checkpoint)

    def estimates(self, hands: np.ndarray, where=None) -> np.ndarray:
        context = auction_context(*where) if where is not None and self.net.uses_context \
            else None
        return self.net(hands, context)[0]


__all__ = ["BidNetConfig", "LearnedBidder", "NumpyBidNet", "auction_context", "features",
           "untrained_checkpoint"]
