"""``Texas42Env``: one table as a turn-based ``gymnasium.Env``.

Each ``step`` is the action of the seat to move; ``info["to_move"]`` says who moves next and
``info["action_mask"]`` (also ``obs["action_mask"]``) which actions are legal for them. The
observation is what that seat may know (``observation.ObservationEncoder``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from .core import GAME_OVER, HAND_OVER, Game
from .demo import describe_hand
from .observation import make_encoder
from .records import position_from_record
from .rewards import check_reward, seat_rewards, team_rewards
from .rules import RulesConfig
from .vector_env import check_choice, make_rules, table_spaces

ILLEGAL = ("lose", "raise")


def configure_table(env, ruleset, rules, reward, episode, illegal_action, illegal_reward,
                    observation, render_mode) -> None:
    """Check and set the options the single-table environments share (this one and the
    PettingZoo one)."""
    check_choice("episode", episode, ("hand", "game"))
    check_choice("illegal_action", illegal_action, ILLEGAL)
    if render_mode is not None:
        check_choice("render_mode", render_mode, env.metadata["render_modes"])
    env.game = Game(make_rules(ruleset, rules))
    env.reward = check_reward(reward)
    env.episode = episode
    env.illegal_action = illegal_action
    env.illegal_reward = float(illegal_reward)
    env.encoder = make_encoder(env.game, observation)
    env.render_mode = render_mode


class Texas42Env(gym.Env):
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
        configure_table(self, ruleset, rules, reward, episode, illegal_action, illegal_reward,
                        observation, render_mode)
        self.observation_space, self.action_space = table_spaces(self.game, self.encoder)
        self.state = None
        self._done = True
        self._viewer = 0

    @property
    def n_seats(self) -> int:
        return self.game.n_seats

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        unknown = set(options) - {"record"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; allowed: record")
        if "record" in options:
            self.state = self._from_record(options["record"])
        else:
            game_id = int(self.np_random.integers(0, 2**62))
            deal_seed = int(self.np_random.integers(0, 2**62))
            self.state = self.game.reset(1, seed=deal_seed, game_ids=[game_id])
        self._done = False
        return self._observe()

    def _from_record(self, record: dict):
        return position_from_record(record, self.game.rules)

    def step(self, action):
        if self.state is None or self._done:
            raise RuntimeError("the episode is over: call reset()")
        st, game = self.state, self.game
        seat = int(st.to_move[0])
        a = int(action)
        if not (0 <= a < game.n_actions and st.legal[0, a]):
            if self.illegal_action == "raise":
                game.step(st, np.array([a]))  # raises IllegalActionError with the reason
            phase, _, reason = game.explain(st, 0, a)
            rewards = np.full(game.n_seats, -self.illegal_reward, np.float32)
            rewards[np.arange(game.n_seats) % 2 == seat % 2] = self.illegal_reward
            self._done = True
            obs, info = self._observe()
            info.update(rewards=rewards, illegal_action={
                "seat": seat, "action": a, "phase": phase, "reason": reason})
            return obs, float(rewards[seat]), True, False, info
        game.step(st, np.array([a]))
        rewards = np.zeros(game.n_seats, np.float32)
        terminated = False
        if st.phase[0] >= HAND_OVER:
            rewards = seat_rewards(team_rewards(st, np.array([0]), self.reward),
                                   game.n_seats)[0]
            game_over = st.phase[0] == GAME_OVER
            if self.episode == "hand" or game_over:
                terminated = True
            else:
                game.next_hand(st)
        self._done = terminated
        obs, info = self._observe()
        info["rewards"] = rewards
        if self.render_mode == "human":
            print(self.render_text())
        return obs, float(rewards[seat]), terminated, False, info

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

    def render_text(self) -> str:
        return describe_hand(self.game, self.state, 0)

    def render(self):
        if self.render_mode == "ansi":
            return self.render_text()
        if self.render_mode == "human":
            print(self.render_text())
        return None
