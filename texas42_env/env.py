"""``Texas42Env``: one table as a turn-based ``gymnasium.Env``.

Each ``step`` is the action of the seat to move; ``info["to_move"]`` says who moves next and
``info["action_mask"]`` (also ``obs["action_mask"]``) which actions are legal for them. The
observation is what that seat may know (``observation.ObservationEncoder``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from .rules import RulesConfig
from .table import SingleTable, table_spaces


class Texas42Env(SingleTable, gym.Env):
    """One table of Texas 42 (or the six-player game), turn by turn.

    - ``ruleset`` and ``rules`` (a dict of rules.md options, or a ``RulesConfig``).
    - ``reward``: ``marks`` (default), ``points`` or ``game``, zero-sum between teams; the
      step's reward is the one of the team of the seat that just acted, and
      ``info["rewards"]`` holds every seat's.
    - ``episode``: ``hand`` (default; the episode ends with the hand) or ``game``.
    - ``illegal_action``: ``lose`` (default, the Gymnasium and PettingZoo convention: any
      action of the space is accepted; an illegal one ends the episode, the team that played
      it gets ``illegal_reward`` and the other its negation, and ``info["illegal_action"]``
      says what was wrong) or ``raise`` (``IllegalActionError``, nothing changes).
    - ``observation``: ``imperfect`` (default) or ``perfect`` (all hands: research only).
    - ``reset(seed=..., options={"record": RECORD})`` starts from a game record (a dict of
      game-record.md, possibly partial: the position after its actions).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, ruleset: str = "standard", rules: RulesConfig | dict | None = None,
                 reward: str = "marks", episode: str = "hand", illegal_action: str = "lose",
                 illegal_reward: float = -1.0, observation: str = "imperfect",
                 render_mode: str | None = None):
        self._configure(ruleset, rules, reward, episode, illegal_action, illegal_reward,
                        observation, render_mode)
        self.observation_space, self.action_space = table_spaces(self.game, self.encoder)
        self.state = None
        self._done = True
        self._viewer = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        unknown = set(options) - {"record"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; allowed: record")
        self.state = self._deal(self.np_random, options)
        self._done = False
        return self._observe()

    def step(self, action):
        if self.state is None or self._done:
            raise RuntimeError("the episode is over: call reset()")
        out = self._play(self.state, action)
        self._done = out.terminated
        obs, info = self._observe()
        info["rewards"] = out.rewards
        if out.illegal is not None:
            info["illegal_action"] = out.illegal
            return obs, float(out.rewards[out.seat]), True, False, info
        if self.render_mode == "human":
            print(self.render_text())
        return obs, float(out.rewards[out.seat]), out.terminated, False, info

    def _observe(self) -> tuple[dict, dict[str, Any]]:
        """The observation of the seat to move (the last mover's once the hand is over) and
        the info that goes with it."""
        st = self.state
        to_move = int(st.to_move[0])
        if to_move >= 0:
            self._viewer = to_move
        mask = st.legal[0].astype(np.int8)
        obs = {"observation": self.encoder.encode(st, [self._viewer])[0], "action_mask": mask}
        info = {"to_move": to_move, "action_mask": mask,
                "phase": ("bid", "declare", "exchange", "play", "over", "over")[int(st.phase[0])]}
        return obs, info

    def action_masks(self) -> np.ndarray:
        """Bool [n_actions]: the legal actions now (the name sb3-contrib's MaskablePPO uses)."""
        return self.state.legal[0].copy()

    def render(self):
        if self.render_mode == "ansi":
            return self.render_text()
        if self.render_mode == "human":
            print(self.render_text())
        return None
