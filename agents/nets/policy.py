"""Policy networks for 42: a bidding net and a play net, each with masked logits and a value.

Both read the seat's observation vector (``texas42_env.observation``) and score the whole flat
action space of the ruleset; the legal mask sets the logits of illegal actions to a large
negative number, so they are never sampled and take no probability. Which net acts follows
from the mask alone: a decision whose legal actions are tile plays is the play net's, every
other (bids, the contract, the six-player exchange) the bidding net's. So an agent built on
them needs only what any agent gets: observations and masks.

A net is an MLP trunk (``hidden`` units, ``layers`` deep, ReLU) with two heads: policy logits
and a value, the expected reward of the seat's team from here (marks of the hand by default).
With a perfect-information critic (``critic="perfect"``) the value head is a separate MLP that
reads the perfect-information view (all hands); the policy never sees it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from texas42_env.config import one_of, setting, validate, whole

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
                 critic_size: int = 0):
        super().__init__()
        self.trunk = mlp(obs_size, hidden, layers)
        self.logits = nn.Linear(hidden, n_actions)
        self.critic_size = critic_size
        if critic_size:  # a perfect-information critic of its own
            self.critic = nn.Sequential(mlp(critic_size, hidden, layers), nn.Linear(hidden, 1))
        else:
            self.value_head = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.logits.weight, 0.01)
        nn.init.zeros_(self.logits.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor,
                critic_obs: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs)
        logits = self.logits(h).masked_fill(~mask, NEG)
        if self.critic_size:
            value = self.critic(critic_obs).squeeze(-1) if critic_obs is not None else \
                torch.zeros(obs.shape[0])
        else:
            value = self.value_head(h).squeeze(-1)
        return logits, value


class Policy(nn.Module):
    """The bidding net and the play net of one agent."""

    def __init__(self, obs_size: int, n_actions: int, play0: int, config: ModelConfig,
                 critic_size: int = 0):
        super().__init__()
        self.obs_size, self.n_actions, self.play0 = obs_size, n_actions, play0
        self.config = config
        c = critic_size if config.critic == "perfect" else 0
        self.bid = PolicyNet(obs_size, n_actions, config.bid_hidden, config.bid_layers, c)
        self.play = PolicyNet(obs_size, n_actions, config.hidden, config.layers, c)

    def is_play(self, masks: np.ndarray | torch.Tensor):
        """Which rows are play decisions (their legal actions are tile plays)."""
        return masks[:, self.play0:].any(1)

    @torch.no_grad()
    def act(self, obs: np.ndarray, masks: np.ndarray, generator: torch.Generator | None = None,
            greedy: bool = False, critic_obs: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sample (or, ``greedy``, pick the likeliest) one action per row: (actions,
        log-probabilities, values), NumPy arrays."""
        n = obs.shape[0]
        actions = np.zeros(n, np.int64)
        logp = np.zeros(n, np.float32)
        values = np.zeros(n, np.float32)
        play = self.is_play(masks)
        for net, rows in ((self.play, np.flatnonzero(play)), (self.bid, np.flatnonzero(~play))):
            if rows.size == 0:
                continue
            o = torch.from_numpy(obs[rows])
            m = torch.from_numpy(np.ascontiguousarray(masks[rows], dtype=bool))
            co = torch.from_numpy(critic_obs[rows]) if critic_obs is not None else None
            logits, v = net(o, m, co)
            lp = torch.log_softmax(logits, -1)
            if greedy:
                a = lp.argmax(-1)
            else:
                a = torch.multinomial(lp.exp(), 1, generator=generator).squeeze(-1)
            actions[rows] = a.numpy()
            logp[rows] = lp.gather(1, a[:, None]).squeeze(-1).numpy()
            values[rows] = v.numpy()
        return actions, logp, values


__all__ = ["ModelConfig", "Policy", "PolicyNet", "mlp"]
