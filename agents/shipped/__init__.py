"""The shipped agents, ready to play with no training: ``champion`` and ``learned``.

Their weights sit inside the package (``agents/shipped/weights/``, each file with its
provenance: the source run, the commit, the figures; see experiments/strength), so
``make_agent("champion")`` works on a fresh install, in ``texas42 match``, tournaments and
``texas42 play`` (whose bots they are by default). Each is a lineup per ruleset, built when
the agent is set up for a game:

- ``champion``: the strongest full agent (search allowed, about 100 ms a decision at most on
  average);
- ``learned``: the strongest searchless one (nets only, well under a millisecond a decision
  batched).

``LINEUP`` says what each is. ``seed`` seeds the parts that draw.
"""

from __future__ import annotations

from pathlib import Path

from agents.base import Agent, make_agent, register

WEIGHTS = Path(__file__).resolve().parent / "weights"


def weights(name: str) -> str:
    """The path of the shipped weights file ``name``; ``ValueError`` if the install lacks
    it."""
    path = WEIGHTS / name
    if not path.is_file():
        raise ValueError(f"shipped weights {name} are missing from this install ({WEIGHTS}); "
                         "reinstall texas42")
    return str(path)


def _bidnet(seed: int) -> dict:
    return {"name": "bidnet", "path": weights("bidnet-standard.pt"), "seed": seed}


# agent -> ruleset -> the spec of a seed: what each shipped agent is in each game
LINEUP = {
    "champion": {
        "standard": lambda seed: {"name": "compose", "bid": _bidnet(seed),
                                  "play": {"name": "pimc", "n_worlds": 32, "objective": "make",
                                           "seed": seed}},
        "six-player": lambda seed: {"name": "pimc", "seed": seed},
    },
    "learned": {
        # one net: its play from expert iteration on its own play-outs, its bidding then
        # trained by PPO for that play; on seed 100 each step beat the net before it
        # (experiments/learning: own_dev, finetune_own_dev, rollout_dev, rollout2_dev,
        # reprice_dev); then its play 12 rounds more (expert_long: its last round, fixed
        # before measuring; its curve on seed 12345, eval.jsonl); then a move-ranking head
        # on its play net and 30 rounds more (section 11: 12, then 18; each candidate fixed
        # on seed 100)
        "standard": lambda seed: {"name": "neural", "path": weights("learned-standard.pt")},
        "six-player": lambda seed: {"name": "neural", "path": weights("learned-six-player.pt")},
    },
}


class ShippedAgent(Agent):
    """An agent of ``LINEUP``: the ruleset's lineup, built at ``setup``."""

    kind = ""
    rulesets = ("standard", "six-player")
    needs_state = True  # until set up: then what the lineup's agent needs
    needs_observation = True

    def __init__(self, seed: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be >= 0, got {seed!r}")
        self.seed = seed
        self.inner: Agent | None = None

    def setup(self, game):
        super().setup(game)
        spec = LINEUP[self.kind][game.rules.ruleset](self.seed)
        self.inner = make_agent(spec).setup(game)
        self.needs_state = self.inner.needs_state
        self.needs_observation = self.inner.needs_observation
        return self

    def act(self, observations, masks, context=None):
        if self.inner is None:
            raise ValueError(f"{self.kind}: set it up for a game first (agent.setup(game))")
        return self.inner.act(observations, masks, context)


@register("champion")
class ChampionAgent(ShippedAgent):
    kind = "champion"


@register("learned")
class LearnedAgent(ShippedAgent):
    kind = "learned"


__all__ = ["LINEUP", "WEIGHTS", "ChampionAgent", "LearnedAgent", "ShippedAgent", "weights"]
