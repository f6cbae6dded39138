"""Training the bid net (``agents.bidding.bidnet``): supervised on the hand-value dataset
(``train_bidnet``: cross-entropy against the dataset's per-world shares and squared error on
the mean points) and fine-tuned by self-play (``finetune_bidnet``: each round plays hands
with the current net and fits the outcomes, with an anchor on the dataset)."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from texas42_env.actions import PLUNGE
from texas42_env.config import check, number, one_of, setting, validate, whole
from texas42_env.core import HAND_OVER, Game
from texas42_env.observation import make_encoder

from agents.arena.bidder_matches import calibration
from agents.base import REGISTRY, Agent, spec_name
from agents.baselines.compose import ComposeAgent
from agents.bidding.bidnet import (KIND, N_FEATURES, N_HAND, N_NEEDS, BidNetConfig, LearnedBidder,
                                   _torch_net, auction_context, features)
from agents.bidding.dataset import DatasetError, load_dataset
from agents.bidding.rule import bid_need
from agents.bidding.values import CONTRACTS
from agents.driver import choose
from agents.nets.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from agents.nets.device import DEVICE, on_cpu, resolve_device
from agents.training.ppo import THREADS, use_threads


@dataclass
class TrainBidConfig:
    """Supervised training of the bid net on a hand-value dataset."""

    data: str = ""
    epochs: int = setting(30, whole(1))
    batch: int = setting(1024, whole(1))
    lr: float = setting(1e-3, number(above=0))
    weight_decay: float = setting(1e-5, number(0))
    # the share of deals held out to measure the net
    val_share: float = setting(0.1, number(above=0, below=1))
    seed: int = setting(0, whole())
    # torch threads; auto: one a process (why: THREADS in agents/training/ppo.py)
    threads: int | str = setting("auto", THREADS)
    # the net, its optimizer and minibatches: auto (a GPU when torch sees one), cpu, cuda,
    # cuda:N, mps
    device: str = setting("auto", DEVICE)
    hidden: int = setting(128, whole(1))
    layers: int = setting(2, whole(1))
    max_hands: int | None = setting(None, whole(1, optional=True))

    def __post_init__(self):
        validate(self)


def _load_dataset(path, max_hands: int | None = None) -> dict:
    """``agents.bidding.dataset.load_dataset``, refusing a dataset that does not value every contract
    of ``CONTRACTS`` in that order (the net's rows)."""

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
    (each need's and contract's average) as a floor to beat. The net trains on
    ``config.device``; the checkpoint holds CPU copies."""
    device = resolve_device(config.device)
    torch.manual_seed(config.seed)
    use_threads(config.threads)
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
    Xd, Pd, Md = X.to(device), P.to(device), M.to(device)
    va_d = torch.from_numpy(va).to(device)
    net_cfg = BidNetConfig(config.hidden, config.layers)
    net = _torch_net(net_cfg).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=config.epochs)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    gen = torch.Generator().manual_seed(config.seed)

    def evaluate(idx) -> dict:
        net.eval()
        with torch.no_grad():
            logits, mean = net(Xd[idx])
            p = torch.sigmoid(logits)
            out = {"bce": float(bce(logits, Pd[idx])),
                   "brier": float(((p - Pd[idx]) ** 2).mean()),
                   "points_mae": float((mean - Md[idx]).abs().mean() * 42)}
        net.train()
        return out

    history = []
    t0 = time.perf_counter()
    for epoch in range(config.epochs):
        perm = torch.from_numpy(tr)[torch.randperm(len(tr), generator=gen)].to(device)
        for lo in range(0, len(perm), config.batch):
            b = perm[lo:lo + config.batch]
            logits, mean = net(Xd[b])
            loss = bce(logits, Pd[b]) + ((mean - Md[b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        figures = {"epoch": epoch + 1, **evaluate(va_d)}
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
    save_checkpoint(out, {"kind": KIND, "model": on_cpu(net.state_dict()), "net": asdict(net_cfg),
                          "train": asdict(config), "data": data["config"], "result": result,
                          "history": history})
    return result


@dataclass
class FinetuneConfig:
    """Self-play fine-tuning of a bid net (``finetune_bidnet``)."""

    rounds: int = setting(4, whole(1))
    hands: int = setting(16384, whole(1))  # self-play hands per round
    # the chance of a least bid where the rule passes
    explore: float = setting(0.2, number(0, 1))
    # self: the net bids at all four seats; heuristic: at one team
    opponents: str = setting("self", one_of("self", "heuristic", noun="kind of opponents"))
    epochs: int = setting(2, whole(1))
    batch: int = setting(512, whole(1))
    lr: float = setting(3e-4, number(above=0))
    # weight of the hand-value loss kept from the dataset (0: none)
    anchor: float = setting(0.5, number(0))
    data: str | None = None  # the dataset for the anchor (default: the net's own)
    # the card play of the net's seats (an agent spec: a name or NAME:KEY=VALUE,...): the
    # play the bidder is priced for
    play: str = "heuristic"
    seed: int = 0
    threads: int | str = setting("auto", THREADS)  # as TrainBidConfig.threads
    device: str = setting("auto", DEVICE)  # as TrainBidConfig.device; self-play on the CPU

    def __post_init__(self):
        validate(self, "finetune.")
        check("finetune.play", spec_name(self.play), one_of(*sorted(REGISTRY), noun="agent"))


def self_play_outcomes(checkpoint: dict, hands: int, seed: int, first_game: int,
                       explore: float = 0.0, opponents: str = "self",
                       play: str | dict | Agent = "heuristic") -> dict:
    """Play ``hands`` hands (games ``first_game..``, hand 0 each) with the net's bidder at
    every seat (``opponents="self"``) or at one team, the heuristic at the other (alternating
    by table). The net's seats play the cards as ``play`` does (an agent spec: the heuristic
    by default, or the play the bidder is to bid for, e.g. a play net or PIMC), the
    heuristic's seats as the heuristic. For each hand the net's bidder won with a suit,
    doubles or follow-me: the hand, the auction context at its winning bid, the contract,
    the need's index in ``NEEDS``, whether it was made, and the chance it had predicted."""

    game = Game()
    enc = make_encoder(game)
    bidder = LearnedBidder(checkpoint=checkpoint, explore=explore, seed=seed + first_game) \
        .setup(game)
    heur = bidder.fallback if opponents == "heuristic" else None
    agent = bidder if play == "heuristic" else ComposeAgent(bid=bidder, play=play).setup(game)
    st = game.reset(hands, seed=seed, game_ids=np.arange(first_game, first_game + hands))
    learned_team = np.arange(hands) % 2  # with heuristic opponents: the net's team per table
    while True:
        active = np.flatnonzero(st.phase < HAND_OVER)
        if active.size == 0:
            break
        who = np.full(hands, -1, np.int64)  # 0: the net, 1: the heuristic
        who[active] = 0 if heur is None else (st.to_move[active] % 2 != learned_team[active])
        game.step(st, choose(game, st, [agent, heur], who, enc))
    t = np.flatnonzero((st.bidder >= 0) & np.isin(st.contract, CONTRACTS)
                       & (st.high_action > 0) & (st.high_action < PLUNGE))
    b = st.bidder[t]
    if heur is not None:
        keep = (b % 2) == learned_team[t]
        t, b = t[keep], b[keep]
    pred = [bidder.predictions.get((int(st.game_id[x]), int(st.hand_no[x]), int(y)),
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
    rate, the mean predicted chance and the calibration error of those predictions. The net
    trains on ``config.device``; the self-play bids from CPU copies."""
    device = resolve_device(config.device)
    torch.manual_seed(config.seed)
    use_threads(config.threads)
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
    net.to(device)
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
        DX = torch.from_numpy(features(data["hands"]).reshape(-1, N_FEATURES)).to(device)
        DP = torch.from_numpy(data["p_make"].reshape(-1, N_NEEDS)).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=1e-5)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    gen = torch.Generator().manual_seed(config.seed)
    pool: dict[str, list] = {k: [] for k in ("x", "need", "made")}
    history = []

    def snapshot() -> dict:  # (the supervised run's figures are not this net's: dropped)
        return {**{k: v for k, v in ck.items() if k not in ("model", "history", "result")},
                "model": on_cpu(net.state_dict()),
                "context": True}

    for r in range(config.rounds):
        # deals of their own: seed + 1 (the dataset and the evaluations use others)
        res = self_play_outcomes(snapshot(), config.hands, config.seed + 1,
                                 first_game=r * config.hands, explore=config.explore,
                                 opponents=config.opponents, play=config.play)
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
        X = torch.cat(pool["x"]).to(device)
        need = torch.cat(pool["need"]).to(device)
        made = torch.cat(pool["made"]).to(device)
        losses = []
        for _ in range(config.epochs):
            perm = torch.randperm(len(X), generator=gen).to(device)
            for lo in range(0, len(perm), config.batch):
                b = perm[lo:lo + config.batch]
                logits, _ = net(X[b])
                loss = bce(logits.gather(1, need[b, None])[:, 0], made[b])
                if data is not None:
                    d = torch.randint(0, len(DX), (config.batch,), generator=gen).to(device)
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


__all__ = ["FinetuneConfig", "TrainBidConfig", "finetune_bidnet", "self_play_outcomes",
           "train_bidnet"]
