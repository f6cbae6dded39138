"""``Texas42VectorEnv``: B tables stepped at once on the core, for self-play."""

from __future__ import annotations

from typing import Any

import numpy as np

from .core import GAME_OVER, HAND_OVER, Game
from .observation import make_encoder
from .rewards import check_reward, seat_rewards, team_rewards
from .rules import RulesConfig
from .table import EPISODES, check_choice, make_rules, table_spaces


class Texas42VectorEnv:
    """B tables at once; each ``step`` takes one action per table, for whichever seat is to
    move there, and returns what the next seat to move at each table sees.

    ``reset(seed) -> (obs, info)``, ``step(actions) -> (obs, rewards, terminated,
    truncated, info)`` with ``obs = {"observation": float32 [B, N], "action_mask": int8 [B, A]}``
    and ``info["to_move"]`` the seat to move per table (the seat ``obs`` belongs to).

    - ``episode="hand"`` (default): every hand is an episode; a table whose hand ends reports
      ``terminated`` and its rewards and the same step deals its next hand (the game goes on,
      the deal passing left; a finished game is followed by a new one). ``episode="game"``:
      the episode is the whole game; hands end with rewards but without ``terminated``.
    - ``reward``: ``marks``, ``points`` or ``game`` (see ``rewards``); ``reward_layout``:
      ``team`` gives [B, 2] (team 0 = seats 0, 2, ...), ``seat`` gives [B, seats].
    - ``copy=False`` writes every step's observations into one buffer the env owns (valid
      until the next step, as with Gymnasium's vector envs): faster when the caller copies
      them into a rollout buffer anyway.
    - ``info`` also holds, for tables whose hand ended this step, ``hand_over`` (bool [B]),
      ``game_over``, ``made`` (1 made, 0 set, -1 thrown in or not ended), ``hand_marks`` and
      ``points`` (zeros where the hand did not end this step).
    """

    def __init__(self, num_envs: int = 64, ruleset: str = "standard",
                 rules: RulesConfig | dict | None = None, reward: str = "marks",
                 reward_layout: str = "team", episode: str = "hand",
                 observation: str = "imperfect", seed: int = 0, copy: bool = True):
        check_choice("episode", episode, EPISODES)
        check_choice("reward_layout", reward_layout, ("team", "seat"))
        self.reward = check_reward(reward)
        self.reward_layout = reward_layout
        self.episode = episode
        self.game = Game(make_rules(ruleset, rules))
        self.encoder = make_encoder(self.game, observation)
        self.num_envs = num_envs
        self.seed = seed
        self.single_observation_space, self.single_action_space = table_spaces(self.game,
                                                                               self.encoder)
        self.state = None
        self._next_game = 0
        self.copy = copy
        self._buffer = None if copy else np.zeros((num_envs, self.encoder.size), np.float32)

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None) -> tuple[dict, dict]:
        """New games at every table: games 0..B-1 of ``seed``; without a seed, the next
        games of the current seed (so a second reset deals new hands)."""
        if seed is not None:
            self.seed = seed
            self._next_game = 0
        B = self.num_envs
        ids = np.arange(self._next_game, self._next_game + B)
        self._next_game += B
        self.state = self.game.reset(B, seed=self.seed, game_ids=ids)
        return self._obs(), {"to_move": self.state.to_move.copy()}

    def step(self, actions) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        st, game = self.state, self.game
        game.step(st, np.asarray(actions))
        B = self.num_envs
        ended = np.flatnonzero(st.phase >= HAND_OVER)
        width = 2 if self.reward_layout == "team" else game.n_seats
        rewards = np.zeros((B, width), np.float32)
        info: dict[str, Any] = {"hand_over": np.zeros(B, bool), "game_over": np.zeros(B, bool),
                                "made": np.full(B, -1), "hand_marks": np.zeros((B, 2), np.int64),
                                "points": np.zeros((B, 2), np.int64)}
        terminated = np.zeros(B, bool)
        if ended.size:
            team = team_rewards(st, ended, self.reward)
            rewards[ended] = team if width == 2 else seat_rewards(team, game.n_seats)
            game_over = st.phase[ended] == GAME_OVER
            info["hand_over"][ended] = True
            info["game_over"][ended] = game_over
            info["made"][ended] = st.made[ended]
            info["hand_marks"][ended] = st.hand_marks[ended]
            info["points"][ended] = st.points[ended]
            terminated[ended] = True if self.episode == "hand" else game_over
            n_new = int(game_over.sum())
            game.deal_next(st, ended, np.arange(self._next_game, self._next_game + n_new))
            self._next_game += n_new
        info["to_move"] = st.to_move.copy()
        return self._obs(), rewards, terminated, np.zeros(B, bool), info

    def close(self) -> None:
        self.state = None

    def _obs(self) -> dict:
        st = self.state
        return {"observation": self.encoder.encode(st, st.to_move, out=self._buffer),
                "action_mask": st.legal.astype(np.int8)}
