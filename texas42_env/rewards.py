"""Rewards: zero-sum between the teams, partners sharing their team's reward.

- ``marks`` (default): at the end of each hand, the marks my team earned from it minus the
  marks the other team earned (a made 2m is +2 / -2; a thrown-in hand 0).
- ``points``: at the end of each hand, the points my team took in it minus the other
  team's (tricks and count, 42 or 88 in a played-out hand).
- ``game``: +1 to the team that wins the game and -1 to the other, when the game ends;
  0 for every other step.
"""

from __future__ import annotations

import numpy as np

from .core import GAME_OVER, State

REWARDS = ("marks", "points", "game")


def check_reward(name: str) -> str:
    if name not in REWARDS:
        raise ValueError(f"unknown reward {name!r}; allowed: {', '.join(REWARDS)}")
    return name


def team_rewards(st: State, idx: np.ndarray, name: str) -> np.ndarray:
    """Float32 [n, 2]: each team's reward at tables ``idx`` whose hand just ended."""
    if name == "marks":
        v = st.hand_marks[idx].astype(np.float32)
    elif name == "points":
        v = st.points[idx].astype(np.float32)
    else:
        over = st.phase[idx] == GAME_OVER
        v = np.zeros((len(idx), 2), np.float32)
        v[over, st.winner[idx][over]] = 1
    return v - v[:, ::-1]


def seat_rewards(team: np.ndarray, n_seats: int) -> np.ndarray:
    """[n, 2] team rewards as [n, seats]: each seat gets its team's."""
    return team[:, np.arange(n_seats) % 2]
