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

from .core import GAME_OVER, HAND_OVER, PHASE_NAMES, State
from .demo import describe_hand
from .records import position_from_record
from .rewards import seat_rewards, team_rewards
from .rules import RulesConfig
from .env import configure_table
from .vector_env import table_spaces



def env(**kwargs) -> AECEnv:
    """``raw_env(**kwargs)`` wrapped as PettingZoo's classic environments are."""
    aec = raw_env(**kwargs)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    aec = wrappers.OrderEnforcingWrapper(aec)
    return aec


class raw_env(AECEnv, EzPickle):
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
        configure_table(self, ruleset, rules, reward, episode, illegal_action, illegal_reward,
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
        options = options or {}
        if "record" in options:
            self.table = self._from_record(options["record"])
        else:  # the same draws as Texas42Env: one seed deals the same hand in both
            game_id = int(self.np_random.integers(0, 2**62))
            deal_seed = int(self.np_random.integers(0, 2**62))
            self.table = self.game.reset(1, seed=deal_seed, game_ids=[game_id])
        self._done = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[int(self.table.to_move[0])]

    def _from_record(self, record: dict):
        return position_from_record(record, self.game.rules)

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
        st, game = self.table, self.game
        seat = self._seat[agent]
        a = int(action)
        S = game.n_seats
        legal = 0 <= a < game.n_actions and bool(st.legal[0, a])
        if not legal and self.illegal_action == "raise":
            game.step(st, np.array([a]))  # raises IllegalActionError before anything changes
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.infos = {name: {} for name in self.agents}
        if not legal:
            phase, _, reason = game.explain(st, 0, a)
            illegal = {"seat": seat, "action": a, "phase": phase, "reason": reason}
            for s, name in enumerate(self.possible_agents):
                self.rewards[name] = self.illegal_reward * (1.0 if s % 2 == seat % 2 else -1.0)
                self.infos[name] = {"illegal_action": dict(illegal)}
            self._end()
        else:
            game.step(st, np.array([a]))
            if st.phase[0] >= HAND_OVER:
                rewards = seat_rewards(team_rewards(st, np.array([0]), self.reward), S)[0]
                result = {"hand_over": True, "made": int(st.made[0]),
                          "points": st.points[0].tolist(), "marks": st.hand_marks[0].tolist(),
                          "score": st.score[0].tolist()}
                for s, name in enumerate(self.possible_agents):
                    self.rewards[name] = float(rewards[s])
                    self.infos[name] = dict(result)
                if self.episode == "hand" or st.phase[0] == GAME_OVER:
                    self._end()
                else:
                    game.next_hand(st)
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

    def render_text(self) -> str:
        return describe_hand(self.game, self.table, 0)

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
