"""PIMC plays only legal moves and searches with the seat's knowledge."""

import numpy as np
import pytest

from agents.arena import play_duplicate
from agents.pimc import PimcAgent
from texas42_env.rules import RulesConfig


@pytest.mark.parametrize("bidding", ["simulate", "heuristic"])
def test_pimc_plays_legal_whole_hands(bidding):
    recs = []
    agent = PimcAgent(n_worlds=4, bid_worlds=2, bidding=bidding, seed=1)
    stats = play_duplicate(RulesConfig.make(), agent, "random", deals=3, seed=5,
                           on_records=recs.extend)
    assert stats.hands.sum() == 6 and len(recs) == 6


def test_pimc_needs_its_context_and_a_known_bidding_mode():
    with pytest.raises(ValueError, match="bidding"):
        PimcAgent(bidding="guess")
    from texas42_env.core import Game

    agent = PimcAgent().setup(Game())
    with pytest.raises(ValueError, match="context"):
        agent.act(np.zeros((1, 10), np.float32), np.ones((1, 64), bool))
