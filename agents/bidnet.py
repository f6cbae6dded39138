"""The learned bidder: a network that predicts a hand's values, trained on the hand-value
dataset, and the agent that bids from its predictions.

``BidNet`` reads one (hand, contract) pair at a time (the hand's tiles, the contract, its
trumps in rank order, suit lengths, doubles and count held: ``features``) and gives the
chance of taking each need of ``NEEDS`` (30..42; the chances fall with the need by
construction: a base logit minus a running sum of positive steps) and the expected points.
One net serves every contract, so each hand of the dataset teaches it nine times. It is
trained (``train_bidnet``) by cross-entropy against the dataset's per-world shares and
squared error on the mean points; a checkpoint (``save_checkpoint`` format, weights only)
holds the weights, the model and data configs and the validation figures.

``LearnedBidder`` (registered ``bidnet``, ``bidnet:path=FILE``) bids by the same
``BidRule`` as the simulation bidder, from the net's chances. It runs the net in NumPy
(no torch call per decision): one hand is nine rows through a small MLP.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from texas42_env import tiles as T
from texas42_env.actions import PLUNGE
from texas42_env.rules import RulesConfig, TRUMP_SUIT

from .base import Context, register
from .bidding import CONTRACTS, NEEDS, ValueBidder, bid_need, bids_before

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
    import torch
    from torch import nn

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


@dataclass
class TrainBidConfig:
    """Supervised training of the bid net on a hand-value dataset."""

    data: str = ""
    epochs: int = 30
    batch: int = 1024
    lr: float = 1e-3
    weight_decay: float = 1e-5
    val_share: float = 0.1
    seed: int = 0
    threads: int = 2
    hidden: int = 128
    layers: int = 2
    max_hands: int | None = None

    def __post_init__(self):
        for name in ("epochs", "batch", "threads", "hidden", "layers"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if self.max_hands is not None and (isinstance(self.max_hands, bool) or
                                           not isinstance(self.max_hands, int) or
                                           self.max_hands < 1):
            raise ValueError(f"max_hands must be a positive integer or null, got "
                             f"{self.max_hands!r}")
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)) or not self.lr > 0:
            raise ValueError(f"lr must be a positive number, got {self.lr!r}")
        if not 0.0 < self.val_share < 1.0:
            raise ValueError(f"val_share must be between 0 and 1 (the share of deals held out "
                             f"to measure the net), got {self.val_share!r}")


def _load_dataset(path, max_hands: int | None = None) -> dict:
    """``hand_values.load_dataset``, refusing a dataset that does not value every contract
    of ``CONTRACTS`` in that order (the net's rows)."""
    from .hand_values import DatasetError, load_dataset

    data = load_dataset(path, max_hands)
    if list(data["config"]["contracts"]) != list(CONTRACTS):
        raise DatasetError(f"{path}: the dataset values contracts "
                           f"{data['config']['contracts']}; the bid net needs all of "
                           f"{list(CONTRACTS)} in order")
    return data


def train_bidnet(config: TrainBidConfig, out: str | Path,
                 progress: Callable[[int, dict], None] | None = None) -> dict:
    """Train on ``config.data``; write ``out`` (a checkpoint file). The last ``val_share`` of
    the deals is held out; returns the validation figures of the final epoch (also in the
    checkpoint): cross-entropy and Brier score against the dataset's shares, the mean
    absolute error of the expected points, and the same figures for a constant predictor
    (each need's and contract's average) as a floor to beat."""
    import torch

    from .checkpoint import save_checkpoint

    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    data = _load_dataset(config.data, config.max_hands)
    n = len(data["hands"])
    deals = data["deal"]
    cut = np.quantile(np.unique(deals), 1.0 - config.val_share)
    val = deals >= cut
    if val.all() or not val.any():
        raise ValueError(f"{config.data}: {n} hands are too few to hold out "
                         f"{config.val_share:.0%} of the deals")
    X = torch.from_numpy(features(data["hands"]).reshape(-1, N_FEATURES))
    P = torch.from_numpy(data["p_make"].reshape(-1, N_NEEDS))
    M = torch.from_numpy(data["mean_points"].reshape(-1) / 42.0)
    rows_val = np.repeat(val, len(CONTRACTS))
    tr, va = np.flatnonzero(~rows_val), np.flatnonzero(rows_val)
    net_cfg = BidNetConfig(config.hidden, config.layers)
    net = _torch_net(net_cfg)
    opt = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=config.epochs)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    gen = torch.Generator().manual_seed(config.seed)

    def evaluate(idx) -> dict:
        net.eval()
        with torch.no_grad():
            logits, mean = net(X[idx])
            p = torch.sigmoid(logits)
            out = {"bce": float(bce(logits, P[idx])),
                   "brier": float(((p - P[idx]) ** 2).mean()),
                   "points_mae": float((mean - M[idx]).abs().mean() * 42)}
        net.train()
        return out

    history = []
    t0 = time.perf_counter()
    for epoch in range(config.epochs):
        perm = torch.from_numpy(tr)[torch.randperm(len(tr), generator=gen)]
        for lo in range(0, len(perm), config.batch):
            b = perm[lo:lo + config.batch]
            logits, mean = net(X[b])
            loss = bce(logits, P[b]) + ((mean - M[b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        figures = {"epoch": epoch + 1, **evaluate(va)}
        history.append(figures)
        if progress:
            progress(epoch + 1, figures)
    # the floor: each (contract, need)'s training average as the prediction
    C = len(CONTRACTS)
    P3, M3 = P.view(n, C, N_NEEDS), M.view(n, C)
    pc = P3[~val].mean(0).clamp(1e-6, 1 - 1e-6).expand(int(val.sum()), C, N_NEEDS)
    floor = {"bce": float(torch.nn.functional.binary_cross_entropy(pc, P3[val])),
             "brier": float(((pc - P3[val]) ** 2).mean()),
             "points_mae": float((M3[~val].mean(0) - M3[val]).abs().mean() * 42)}
    result = {"val": history[-1], "constant_predictor": floor,
              "train_hands": int((~val).sum()), "val_hands": int(val.sum()),
              "seconds": time.perf_counter() - t0}
    save_checkpoint(out, {"kind": KIND, "model": net.state_dict(), "net": asdict(net_cfg),
                          "train": asdict(config), "data": data["config"], "result": result,
                          "history": history})
    return result


class NumpyBidNet:
    """The bid net's forward pass in NumPy, from a checkpoint."""

    def __init__(self, path: str | Path, checkpoint: dict | None = None):
        from .checkpoint import CheckpointError, load_checkpoint

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
    import torch

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
                 explore: float = 0.0, seed: int = 0, checkpoint: dict | None = None):
        if not path and checkpoint is None:
            raise ValueError("bidnet needs path=CHECKPOINT (made by scripts/train_bidnet.py)")
        super().__init__(play, q_open, q_partner, q_opp, game_weight, explore, seed)
        self.path = path
        self.net = NumpyBidNet(path, checkpoint)

    def estimates(self, hands: np.ndarray, where=None) -> np.ndarray:
        context = auction_context(*where) if where is not None and self.net.uses_context \
            else None
        return self.net(hands, context)[0]


@dataclass
class FinetuneConfig:
    """Self-play fine-tuning of a bid net (``finetune_bidnet``)."""

    rounds: int = 4
    hands: int = 16384  # self-play hands per round
    explore: float = 0.2  # the chance of a least bid where the rule passes
    opponents: str = "self"  # self: the net bids at all four seats; heuristic: at one team
    epochs: int = 2
    batch: int = 512
    lr: float = 3e-4
    anchor: float = 0.5  # weight of the hand-value loss kept from the dataset (0: none)
    data: str | None = None  # the dataset for the anchor (default: the net's own)
    seed: int = 0
    threads: int = 2

    def __post_init__(self):
        if self.opponents not in ("self", "heuristic"):
            raise ValueError(f"opponents: {self.opponents!r}; allowed: self, heuristic")
        for name in ("rounds", "hands", "epochs", "batch"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if not 0.0 <= self.explore <= 1.0:
            raise ValueError(f"explore must be in [0, 1], got {self.explore!r}")
        if isinstance(self.anchor, bool) or not isinstance(self.anchor, (int, float)) \
                or not self.anchor >= 0:
            raise ValueError(f"anchor must be a weight >= 0, got {self.anchor!r}")
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)) or not self.lr > 0:
            raise ValueError(f"lr must be a positive number, got {self.lr!r}")


def self_play_outcomes(checkpoint: dict, hands: int, seed: int, first_game: int,
                       explore: float = 0.0, opponents: str = "self") -> dict:
    """Play ``hands`` hands (games ``first_game..``, hand 0 each) with the net's bidder at
    every seat (``opponents="self"``) or at one team, the heuristic at the other (alternating
    by table), everyone playing the cards as the heuristic does. For each hand the net's
    bidder won with a suit, doubles or follow-me: the hand, the auction context at its
    winning bid, the contract, the need's index in ``NEEDS``, whether it was made, and the
    chance it had predicted."""
    from texas42_env.actions import NO_ACTION
    from texas42_env.core import HAND_OVER, Game
    from texas42_env.observation import make_encoder

    game = Game()
    enc = make_encoder(game)
    agent = LearnedBidder(checkpoint=checkpoint, explore=explore, seed=seed + first_game) \
        .setup(game)
    heur = agent.fallback if opponents == "heuristic" else None
    st = game.reset(hands, seed=seed, game_ids=np.arange(first_game, first_game + hands))
    learned_team = np.arange(hands) % 2  # with heuristic opponents: the net's team per table
    while True:
        active = np.flatnonzero(st.phase < HAND_OVER)
        if active.size == 0:
            break
        seats = st.to_move[active]
        a = np.full(hands, NO_ACTION, np.int64)
        mine = np.ones(active.size, bool) if heur is None else \
            (seats % 2) == learned_team[active]
        for rows, who in ((active[mine], agent), (active[~mine], heur)):
            if rows.size:
                s = st.to_move[rows]
                a[rows] = who.act(enc.encode(st, s, idx=rows), st.legal[rows],
                                  Context(game, st, rows, s))
        game.step(st, a)
    t = np.flatnonzero((st.bidder >= 0) & np.isin(st.contract, CONTRACTS)
                       & (st.high_action > 0) & (st.high_action < PLUNGE))
    b = st.bidder[t]
    if heur is not None:
        keep = (b % 2) == learned_team[t]
        t, b = t[keep], b[keep]
    pred = [agent.predictions.get((int(st.game_id[x]), int(st.hand_no[x]), int(y)),
                                  (0, np.nan))[1] for x, y in zip(t, b)]
    return {"hands": st.dealt[t, b], "context": auction_context(st, t, b),
            "contract": st.contract[t].copy(),
            "need": np.array([bid_need(int(x)) - 30 for x in st.high_action[t]], np.int64),
            "made": (st.made[t] == 1).astype(np.float32), "predicted": np.array(pred)}


def finetune_bidnet(start: str | Path, config: FinetuneConfig, out: str | Path,
                    progress: Callable[[int, dict], None] | None = None) -> dict:
    """Fine-tune the bid net in checkpoint ``start`` by self-play; write ``out``.

    Each round plays ``hands`` hands with the current net (``self_play_outcomes``) and
    trains it, on every round's hands so far, to predict whether the contract it won was
    made given the hand and the auction (cross-entropy on that contract's and need's chance),
    keeping ``anchor`` times the hand-value loss on the dataset so the other contracts and
    needs stay put. The auction inputs start at zero weight, so round 0 bids exactly as the
    starting net. Each round's figures (before training on it: out of sample) are the make
    rate, the mean predicted chance and the calibration error of those predictions."""
    import torch

    from .bid_eval import calibration
    from .checkpoint import CheckpointError, load_checkpoint, save_checkpoint
    from .hand_values import DatasetError

    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    ck = load_checkpoint(start, require=("model", "net"))
    if ck.get("kind") != KIND:
        raise CheckpointError(f"{start}: not a bid-net checkpoint")
    net = _torch_net(BidNetConfig(**ck["net"]))
    try:
        net.load_state_dict(ck["model"])
    except RuntimeError as e:
        raise CheckpointError(f"{start}: the weights do not fit this version's bid net "
                              f"({str(e).splitlines()[-1].strip()})") from None
    if not ck.get("context", False):
        with torch.no_grad():  # the auction inputs have only seen zeros: start them at none
            net.trunk[0].weight[:, N_HAND:] = 0.0
    data = None
    if config.anchor > 0:
        data_path = config.data or ck.get("train", {}).get("data")
        if not data_path:
            raise ValueError(f"{start}: the checkpoint names no dataset; give the anchor's "
                             "dataset (finetune.data=FOLDER) or finetune.anchor=0")
        try:
            data = _load_dataset(data_path)
        except DatasetError as e:
            source = "finetune.data" if config.data else f"named by {start}"
            raise DatasetError(f"the anchor's dataset ({source}): {e}; give one with "
                               "finetune.data=FOLDER or set finetune.anchor=0") from None
    if data is not None:
        DX = torch.from_numpy(features(data["hands"]).reshape(-1, N_FEATURES))
        DP = torch.from_numpy(data["p_make"].reshape(-1, N_NEEDS))
    opt = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=1e-5)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    gen = torch.Generator().manual_seed(config.seed)
    pool: dict[str, list] = {k: [] for k in ("x", "need", "made")}
    history = []

    def snapshot() -> dict:  # (the supervised run's figures are not this net's: dropped)
        return {**{k: v for k, v in ck.items() if k not in ("model", "history", "result")},
                "model": {k: v.clone() for k, v in net.state_dict().items()},
                "context": True}

    for r in range(config.rounds):
        # deals of their own: seed + 1 (the dataset and the evaluations use others)
        res = self_play_outcomes(snapshot(), config.hands, config.seed + 1,
                                 first_game=r * config.hands, explore=config.explore,
                                 opponents=config.opponents)
        x = features(res["hands"], res["context"])
        x = x[np.arange(len(x)), res["contract"]]  # the row of the contract declared
        pool["x"].append(torch.from_numpy(x))
        pool["need"].append(torch.from_numpy(res["need"]))
        pool["made"].append(torch.from_numpy(res["made"]))
        ok = np.isfinite(res["predicted"])
        fig = {"round": r, "contracts": int(len(x)), "made_rate": float(res["made"].mean()),
               "predicted": float(res["predicted"][ok].mean()) if ok.any() else float("nan")}
        if ok.any():
            fig["ece"] = calibration(res["predicted"][ok], res["made"][ok])["ece"]
        X = torch.cat(pool["x"])
        need = torch.cat(pool["need"])
        made = torch.cat(pool["made"])
        losses = []
        for _ in range(config.epochs):
            perm = torch.randperm(len(X), generator=gen)
            for lo in range(0, len(perm), config.batch):
                b = perm[lo:lo + config.batch]
                logits, _ = net(X[b])
                loss = bce(logits.gather(1, need[b, None])[:, 0], made[b])
                if data is not None:
                    d = torch.randint(0, len(DX), (config.batch,), generator=gen)
                    loss = loss + config.anchor * bce(net(DX[d])[0], DP[d])
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
        fig["loss"] = float(np.mean(losses))
        history.append(fig)
        if progress:
            progress(r + 1, fig)
    final = snapshot()
    final["finetune"] = {**asdict(config), "start": str(start)}
    final["finetune_history"] = history
    save_checkpoint(out, final)
    return {"history": history}


__all__ = ["BidNetConfig", "FinetuneConfig", "LearnedBidder", "NumpyBidNet", "TrainBidConfig",
           "auction_context", "features", "finetune_bidnet", "self_play_outcomes",
           "train_bidnet", "untrained_checkpoint"]
