"""``texas42_v0``: one table as a PettingZoo AEC environment, agents ``seat_0``.. ``seat_3``
(six-player: ``seat_0``..``seat_5``; partners are the seats of the same parity).

Built on the core ``Game`` as ``Texas42Env`` is. ``agent_selection`` is the seat to move (the
trick's winner leads the next, so the order is not a fixed cycle). ``observe(agent)`` is what
that seat may know (``observation.ObservationEncoder``, relative to the seat) and
``observation["action_mask"]`` its legal actions (all zero when it is not its turn). Rewards come
at the end of a hand, the same for partners and zero-sum between the teams (``rewards``).

``env(**kwargs)`` is ``raw_env(**kwargs)`` in PettingZoo's usual wrappers (out-of-bounds
assertion, order enforcing). Illegal actions are handled by the raw env itself rather than by
``TerminateIllegalWrapper``, which would reward the offender alone and break the team
zero-sum: with ``illegal_action="lose"`` (default) the episode ends, the offender's team gets
``illegal_reward``, the other team its negation, and every agent's info holds
``illegal_action`` (seat, action, phase, reason); ``"raise"`` raises ``IllegalActionError``
and leaves the state as it was.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .core import PHASE_NAMES, State
from .rules import RulesConfig
from .table import SingleTable, table_spaces


def env(**kwargs) -> AECEnv:
    """``raw_env(**kwargs)`` wrapped as PettingZoo's classic environments are."""
    aec = raw_env(**kwargs)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    aec = wrappers.OrderEnforcingWrapper(aec)
    return aec


class raw_env(SingleTable, AECEnv, EzPickle):
    """One table of Texas 42 (or the six-player game) for four (six) agents.

    - ``ruleset`` and ``rules`` (a dict of rules.md options, or a ``RulesConfig``).
    - ``reward``: ``marks`` (default), ``points`` or ``game`` (see ``rewards``); every seat of a
      team gets the team's reward when a hand ends (``game``: when the game ends).
    - ``episode``: ``hand`` (default: every agent terminates when the hand ends) or ``game``
      (the next hand is dealt, the deal passing left, until a team reaches the target).
    - ``illegal_action``: ``lose`` (default) or ``raise``; ``illegal_reward`` (default -1).
    - ``observation``: ``imperfect`` (default) or ``perfect`` (every hand: research only).
    - ``render_mode``: ``ansi`` (``render()`` returns the hand as text) or ``human`` (prints it
      after every step).
    - ``reset(seed=..., options={"record": RECORD})`` starts from a partial game record (the
      position after its actions); other option keys are ignored.
    """

    metadata = {"name": "texas42_v0", "is_parallelizable": False,
                "render_modes": ["ansi", "human"]}

    def __init__(self, ruleset: str = "standard", rules: RulesConfig | dict | None = None,
                 reward: str = "marks", episode: str = "hand", illegal_action: str = "lose",
                 illegal_reward: float = -1.0, observation: str = "imperfect",
                 render_mode: str | None = None):
        EzPickle.__init__(self, ruleset=ruleset, rules=rules, reward=reward, episode=episode,
                          illegal_action=illegal_action, illegal_reward=illegal_reward,
                          observation=observation, render_mode=render_mode)
        super().__init__()
        self._configure(ruleset, rules, reward, episode, illegal_action, illegal_reward,
                        observation, render_mode)
        self.possible_agents = [f"seat_{s}" for s in range(self.game.n_seats)]
        self.agents = []
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        per_agent = {a: table_spaces(self.game, self.encoder) for a in self.possible_agents}
        self.observation_spaces = {a: obs for a, (obs, _) in per_agent.items()}
        self.action_spaces = {a: act for a, (_, act) in per_agent.items()}
        self.np_random = None
        self.table: State | None = None  # the core state of the one table
        self._done = True

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self.np_random is None:
            self.np_random, _ = seeding.np_random(seed)
        self.table = self._deal(self.np_random, options or {})
        self._done = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[int(self.table.to_move[0])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        st = self.table
        mask = np.zeros(self.game.n_actions, np.int8)
        if not self._done and int(st.to_move[0]) == seat:
            mask[:] = st.legal[0]
        return {"observation": self.encoder.encode(st, [seat])[0], "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is an action only once terminated")
        st = self.table
        out = self._play(st, action)  # IllegalActionError (illegal_action="raise"): no change
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.infos = {name: {} for name in self.agents}
        if out.illegal is not None:
            for s, name in enumerate(self.possible_agents):
                self.rewards[name] = self.illegal_reward * (1.0 if s % 2 == out.seat % 2 else -1.0)
                self.infos[name] = {"illegal_action": dict(out.illegal)}
            self._end()
        elif out.hand_over:
            for name in self.possible_agents:
                self.rewards[name] = float(out.rewards[self._seat[name]])
                self.infos[name] = dict(out.extra)
            if out.terminated:
                self._end()
        if not self._done:
            self.agent_selection = self.possible_agents[int(st.to_move[0])]
        self._accumulate_rewards()
        if self._done:
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _end(self) -> None:
        self._done = True
        self.terminations = dict.fromkeys(self.agents, True)

    # ------------------------------------------------------------------ extras
    @property
    def phase(self) -> str:
        """The hand's phase: bid, declare, exchange, play or over."""
        return PHASE_NAMES[int(self.table.phase[0])]

    def _table(self) -> State | None:
        return self.table

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (ansi or human)")
            return None
        if self.table is None:
            return None
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.metadata["name"]


__all__ = ["env", "raw_env"]
