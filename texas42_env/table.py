"""The chores of a single-table environment, written once for ``Texas42Env`` (Gymnasium) and
the PettingZoo ``raw_env``: checking their shared options, dealing a table from the env's
generator or setting it up from a record, and playing one action (an illegal one refused
with the core's reason or ending the episode, the team rewards when a hand ends, the next
hand in ``episode="game"``). Each env only maps this onto its own API.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from gymnasium import spaces

from .core import GAME_OVER, HAND_OVER, Game, State
from .narrator import describe_hand
from .observation import make_encoder
from .records import position_from_record
from .rewards import check_reward, seat_rewards, team_rewards
from .rules import RulesConfig

ILLEGAL = ("lose", "raise")
EPISODES = ("hand", "game")


def check_choice(what: str, value, allowed) -> None:
    """``ValueError`` naming ``what`` and the allowed values unless ``value`` is one."""
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; allowed: {', '.join(map(str, allowed))}")


def make_rules(ruleset: str = "standard", rules: RulesConfig | dict | None = None) -> RulesConfig:
    """A rules configuration from a ruleset name and options (or a ready ``RulesConfig``)."""
    if isinstance(rules, RulesConfig):
        return rules
    return RulesConfig.from_options(ruleset, rules or {})


def table_spaces(game: Game, encoder) -> tuple[spaces.Dict, spaces.Discrete]:
    """The observation space (observation vector and int8 action mask) and action space of
    one seat at one table."""
    obs = spaces.Dict({"observation": spaces.Box(0, 1, (encoder.size,), np.float32),
                       "action_mask": spaces.Box(0, 1, (game.n_actions,), np.int8)})
    return obs, spaces.Discrete(game.n_actions)


@dataclass
class Outcome:
    """What one action did at the table: every seat's reward (zeros until a hand ends),
    whether the episode is over, and ``illegal`` (seat, action, phase, reason) when the
    action was refused; ``hand_over`` when it ended a hand."""

    seat: int
    rewards: np.ndarray
    terminated: bool = False
    illegal: dict | None = None
    hand_over: bool = False
    extra: dict = field(default_factory=dict)


class SingleTable:
    """Mixin of the single-table environments: ``self.game``, ``self.encoder`` and the
    options after ``_configure``; ``_deal`` and ``_play`` for their ``reset`` and ``step``."""

    game: Game
    state: State | None

    def _configure(self, ruleset, rules, reward, episode, illegal_action, illegal_reward,
                   observation, render_mode) -> None:
        check_choice("episode", episode, EPISODES)
        check_choice("illegal_action", illegal_action, ILLEGAL)
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.game = Game(make_rules(ruleset, rules))
        self.reward = check_reward(reward)
        self.episode = episode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.encoder = make_encoder(self.game, observation)
        self.render_mode = render_mode

    @property
    def n_seats(self) -> int:
        return self.game.n_seats

    def _deal(self, np_random: np.random.Generator, options: dict) -> State:
        """The table a reset starts: the record's position (``options["record"]``), or a
        deal drawn from ``np_random`` (the same two draws in both envs, so one seed deals
        the same hand in either)."""
        if "record" in options:
            return position_from_record(options["record"], self.game.rules)
        game_id = int(np_random.integers(0, 2**62))
        deal_seed = int(np_random.integers(0, 2**62))
        return self.game.reset(1, seed=deal_seed, game_ids=[game_id])

    def _play(self, st: State, action) -> Outcome:
        """Play ``action`` for the seat to move at table ``st``."""
        game = self.game
        seat = int(st.to_move[0])
        a = int(action)
        S = game.n_seats
        if not (0 <= a < game.n_actions and st.legal[0, a]):
            if self.illegal_action == "raise":
                game.step(st, np.array([a]))  # raises IllegalActionError before any change
            phase, _, reason = game.explain(st, 0, a)
            rewards = np.full(S, -self.illegal_reward, np.float32)
            rewards[np.arange(S) % 2 == seat % 2] = self.illegal_reward
            return Outcome(seat, rewards, True, {"seat": seat, "action": a, "phase": phase,
                                                 "reason": reason})
        game.step(st, np.array([a]))
        if st.phase[0] < HAND_OVER:
            return Outcome(seat, np.zeros(S, np.float32))
        rewards = seat_rewards(team_rewards(st, np.array([0]), self.reward), S)[0]
        extra = {"hand_over": True, "made": int(st.made[0]), "points": st.points[0].tolist(),
                 "marks": st.hand_marks[0].tolist(), "score": st.score[0].tolist()}
        terminated = bool(self.episode == "hand" or st.phase[0] == GAME_OVER)
        if not terminated:
            game.next_hand(st)
        return Outcome(seat, rewards, terminated, None, True, extra)

    def _table(self) -> State | None:
        """The core state of the one table (the envs name it differently)."""
        return self.state

    def render_text(self) -> str:
        return describe_hand(self.game, self._table(), 0)
