"""Policy networks for 42: a bidding net and a play net, each with masked logits and a value.

Both read the seat's observation vector (``texas42_env.observation``) and score the whole flat
action space of the ruleset; the legal mask sets the logits of illegal actions to a large
negative number, so they are never sampled and take no probability (``Policy.act`` guards
rows whose logits are NaN or infinite: ``safe_logits``). Which net acts follows
from the mask alone: a decision whose legal actions are tile plays is the play net's, every
other (bids, the contract, the six-player exchange) the bidding net's. So an agent built on
them needs only what any agent gets: observations and masks.

A net is an MLP trunk (``hidden`` units, ``layers`` deep, ReLU) with two heads: policy logits
and a value, the expected reward of the seat's team from here (marks of the hand by default).
With a perfect-information critic (``critic="perfect"``) the value head is a separate MLP that
reads the perfect-information view (all hands); the policy never sees it.

The play net may also have a move-ranking head (``ranking`` units; ``agents.nets.moves``):
each tile's logit plus a score of the trunk's features of the position and that tile's
features as a candidate play (wins the trick now, can be beaten, count at stake...). Its
output layer starts at zero, so a head added to a trained net (``with_ranking``) leaves its
play as it was until it is trained.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import asdict, dataclass, replace

import numpy as np
import torch
from torch import nn

from texas42_env import tiles as T
from texas42_env.config import one_of, setting, validate, whole

from .moves import NAMES, MoveFeatures

NEG = -1e9  # the logit of an illegal action


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the two nets (from the ``model`` config group)."""

    hidden: int = setting(256, whole(1))
    layers: int = setting(2, whole(1))
    bid_hidden: int = setting(128, whole(1))
    bid_layers: int = setting(2, whole(1))
    # "shared": a value head on the policy's trunk; "perfect": a critic that sees every hand
    critic: str = setting("shared", one_of("shared", "perfect", noun="critic"))
    # units of the play net's move-ranking head (0: none; agents/nets/moves.py)
    ranking: int = setting(0, whole(0))

    def __post_init__(self):
        validate(self, "model.")

    def to_dict(self) -> dict:
        return asdict(self)


def mlp(n_in: int, hidden: int, layers: int) -> nn.Sequential:
    mods: list[nn.Module] = []
    for _ in range(layers):
        mods += [nn.Linear(n_in, hidden), nn.ReLU()]
        n_in = hidden
    return nn.Sequential(*mods)


class PolicyNet(nn.Module):
    """Observation -> (masked logits over every action, value)."""

    def __init__(self, obs_size: int, n_actions: int, hidden: int, layers: int,
                 critic_size: int = 0, ranking: int = 0, moves: MoveFeatures | None = None):
        super().__init__()
        self.trunk = mlp(obs_size, hidden, layers)
        self.logits = nn.Linear(hidden, n_actions)
        self.critic_size = critic_size
        self.ranking = ranking
        if ranking:  # the move-ranking head over the last N_TILES actions (the tile plays)
            if moves is None:
                raise ValueError("a move-ranking head needs the game's move features")
            self.moves = moves
            self.rank_position = nn.Linear(hidden, ranking)
            self.rank_move = nn.Linear(len(NAMES), ranking)
            self.rank_out = nn.Linear(ranking, 1)
            nn.init.zeros_(self.rank_out.weight)
            nn.init.zeros_(self.rank_out.bias)
        if critic_size:  # a perfect-information critic of its own
            self.critic = nn.Sequential(mlp(critic_size, hidden, layers), nn.Linear(hidden, 1))
        else:
            self.value_head = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.logits.weight, 0.01)
        nn.init.zeros_(self.logits.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor,
                critic_obs: torch.Tensor | None = None,
                bf16: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """``bf16``: the trunks under autocast to bfloat16, the heads in float32 (the
        learner's ``precision: bf16``)."""
        critic = self.critic_size and critic_obs is not None
        with torch.autocast(obs.device.type, torch.bfloat16) if bf16 else nullcontext():
            h = self.trunk(obs)
            c = self.critic[0](critic_obs) if critic else None
        if bf16:
            h, c = h.float(), c.float() if critic else None
        logits = self.logits(h)
        if self.ranking:
            z = self.rank_move(self.moves(obs))  # [rows, tile, units]; in place: a fresh
            z = torch.relu_(z.add_(self.rank_position(h)[:, None, :]))  # one costs more
            n = logits.shape[1] - T.N_TILES
            logits = torch.cat([logits[:, :n], logits[:, n:] + self.rank_out(z).squeeze(-1)], 1)
        logits = logits.masked_fill(~mask, NEG)
        if self.critic_size:
            value = self.critic[1](c).squeeze(-1) if critic else torch.zeros(obs.shape[0])
        else:
            value = self.value_head(h).squeeze(-1)
        return logits, value


class Policy(nn.Module):
    """The bidding net and the play net of one agent."""

    def __init__(self, obs_size: int, n_actions: int, play0: int, config: ModelConfig,
                 critic_size: int = 0, game=None):
        """``game``: the ``Game`` it plays, needed only for a move-ranking head."""
        super().__init__()
        self.obs_size, self.n_actions, self.play0 = obs_size, n_actions, play0
        self.config = config
        self.critic_size = critic_size
        if config.ranking and game is None:
            raise ValueError("a play net with a move-ranking head (model.ranking) needs the game "
                             "it plays: Policy(..., game=)")
        if config.ranking and n_actions - play0 != T.N_TILES:
            raise ValueError(f"a move-ranking head scores {T.N_TILES} tile plays; this action "
                             f"space has {n_actions - play0}")
        moves = MoveFeatures(game) if config.ranking else None
        if moves is not None and moves.size != obs_size:
            raise ValueError(f"the game's observations have {moves.size} entries, "
                             f"not {obs_size}")
        c = critic_size if config.critic == "perfect" else 0
        self.bid = PolicyNet(obs_size, n_actions, config.bid_hidden, config.bid_layers, c)
        self.play = PolicyNet(obs_size, n_actions, config.hidden, config.layers, c,
                              config.ranking, moves)

    def is_play(self, masks: np.ndarray | torch.Tensor):
        """Which rows are play decisions (their legal actions are tile plays)."""
        return masks[:, self.play0:].any(1)

    @torch.no_grad()
    def log_probs(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """float32 [n, actions]: each row's log-probabilities (-inf where illegal), play
        decisions by the play net and the others by the bid net, as ``act`` draws from."""
        masks = np.ascontiguousarray(masks, dtype=bool)
        out = np.full(masks.shape, -np.inf, np.float32)
        for rows, m, lp, _ in self._heads(np.ascontiguousarray(obs, np.float32), masks):
            out[rows] = lp.masked_fill(~m, -torch.inf).numpy()
        return out

    def _heads(self, obs: np.ndarray, masks: np.ndarray, critic_obs: np.ndarray | None = None):
        """For the play decisions (by the play net), then the others (by the bid net), where
        there are any: (their rows, their masks, log-probabilities, values), as tensors."""
        play = self.is_play(masks)
        for net, rows in ((self.play, np.flatnonzero(play)), (self.bid, np.flatnonzero(~play))):
            if rows.size == 0:
                continue
            o = torch.from_numpy(obs[rows])
            m = torch.from_numpy(np.ascontiguousarray(masks[rows], dtype=bool))
            co = torch.from_numpy(critic_obs[rows]) if critic_obs is not None else None
            logits, v = net(o, m, co)
            yield rows, m, torch.log_softmax(safe_logits(logits, m), -1), v

    @torch.no_grad()
    def act(self, obs: np.ndarray, masks: np.ndarray, generator: torch.Generator | None = None,
            greedy: bool = False, critic_obs: np.ndarray | None = None,
            uniforms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sample (or, ``greedy``, pick the likeliest) one legal action per row: (actions,
        log-probabilities, values), NumPy arrays. Samples come from ``generator`` (the
        trainer's rollouts), or, given ``uniforms`` (float [n] in [0, 1): keyed draws), by
        inverse CDF on each row's own number, so a row's action does not depend on the others.
        Rows whose logits are not finite are guarded (``safe_logits``)."""
        n = obs.shape[0]
        actions = np.zeros(n, np.int64)
        logp = np.zeros(n, np.float32)
        values = np.zeros(n, np.float32)
        for rows, m, lp, v in self._heads(obs, masks, critic_obs):
            if greedy:
                a = lp.argmax(-1)
            elif uniforms is not None:
                a = torch.from_numpy(inverse_cdf(lp.exp().numpy(), m.numpy(),
                                                 np.asarray(uniforms)[rows]))
            else:
                a = torch.multinomial(lp.exp(), 1, generator=generator).squeeze(-1)
            actions[rows] = a.numpy()
            logp[rows] = lp.gather(1, a[:, None]).squeeze(-1).numpy()
            values[rows] = v.numpy()
        return actions, logp, values


def with_ranking(policy: Policy, units: int, game) -> Policy:
    """``policy`` with a move-ranking head of ``units`` on its play net (a new ``Policy``:
    the same weights, the head's output at zero, so it plays as ``policy`` does); ``policy``
    itself where it has one of that size already. ``ValueError`` where it has another."""
    have = policy.config.ranking
    if have == units:
        return policy
    if have:
        raise ValueError(f"the play net has a move-ranking head of {have} units already, "
                         f"not {units}")
    grown = Policy(policy.obs_size, policy.n_actions, policy.play0,
                   replace(policy.config, ranking=units), policy.critic_size, game)
    missing, unexpected = grown.load_state_dict(policy.state_dict(), strict=False)
    assert not unexpected and all(k.startswith("play.rank_") for k in missing), \
        (missing, unexpected)
    grown.train(policy.training)
    return grown


def safe_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` (masked) with every row that has a legal action safe to sample and to
    argmax: a row with a NaN or +inf legal logit, or whose legal logits are all at most
    ``NEG / 2`` (so the illegal ones could compete), is rebuilt with the illegal actions at
    -inf and its legal ones as: the +inf ones (equally likely) if any, else the finite ones,
    else (all NaN or -inf) the first legal action alone. Other rows are returned untouched,
    so finite logits sample exactly as before."""
    top = torch.where(mask, logits, torch.tensor(-torch.inf)).amax(-1)  # NaN if a legal NaN
    bad = mask.any(-1) & ((mask & torch.isnan(logits)).any(-1) | (top == torch.inf)
                          | ~(top > NEG / 2))
    if not bad.any():
        return logits
    x, mk = logits[bad], mask[bad]
    high = mk & (x == torch.inf)
    finite = mk & torch.isfinite(x)
    first = torch.zeros_like(mk)
    first[torch.arange(len(mk)), mk.to(torch.uint8).argmax(-1)] = True
    keep = torch.where(high.any(-1, keepdim=True), high,
                       torch.where(finite.any(-1, keepdim=True), finite, first))
    fixed = torch.where(keep, torch.where(finite, x, torch.zeros_like(x)),
                        torch.full_like(x, -torch.inf))
    out = logits.clone()
    out[bad] = fixed.to(out.dtype)
    return out


def inverse_cdf(probs: np.ndarray, masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """int64 [n]: per row the action where the cumulative legal probability first exceeds
    ``u * total`` (``u`` the row's uniform in [0, 1)); always a legal action with positive
    probability, or the first legal one when none has any (or the row is not finite)."""
    p = np.where(masks, np.nan_to_num(probs.astype(np.float64), nan=0.0, posinf=0.0), 0.0)
    p = np.maximum(p, 0.0)
    cdf = np.cumsum(p, axis=1)
    total = cdf[:, -1]
    a = (cdf <= (np.asarray(uniforms, np.float64) * total)[:, None]).sum(1)
    last = p.shape[1] - 1 - np.argmax(p[:, ::-1] > 0, axis=1)  # the last with probability
    a = np.minimum(a, last)
    first = np.argmax(masks, axis=1)
    return np.where(total > 0, a, first).astype(np.int64)


__all__ = ["ModelConfig", "Policy", "PolicyNet", "inverse_cdf", "mlp", "safe_logits",
           "with_ranking"]
