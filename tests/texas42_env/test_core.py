"""The one-table path of ``Game.step`` and the batch path agree field for field."""

import numpy as np
import pytest

from texas42_env.core import GAME_OVER, HAND_OVER, Game
from texas42_env.rules import RulesConfig
from texas42_env.sampling import uniform_legal

CONFIGS = [
    {},
    {"all_pass": "redeal", "first_bidder": "holder_of_1_0", "splash": True, "sevens": True,
     "sevens_tie": "bidder", "sevens_min_marks": 0, "nello_min_marks": 0, "play_out": True},
    {"nello_doubles": "own_suit", "follow_me_doubles": "own_suit", "plunge_min_doubles": 2,
     "plunge_marks": 2, "max_opening_marks": 7, "scoring": "points", "target": 100},
    {"nello_doubles": "low", "sevens": True, "plunge_min_doubles": 1, "splash": True},
]


@pytest.mark.parametrize("options", CONFIGS)
def test_single_table_steps_match_the_batch(options):
    game = Game(RulesConfig.make(**options))
    B, seed = 48, 11
    rng = np.random.default_rng(5)
    big = game.reset(B, seed=seed)
    singles = [game.reset(1, seed=seed, game_ids=[b]) for b in range(B)]
    next_game = B
    for _ in range(400):
        actions = uniform_legal(game.legal_mask(big), rng)
        game.step(big, actions)
        for b, one in enumerate(singles):
            game.step(one, actions[b:b + 1])
        for b in np.flatnonzero(big.phase >= HAND_OVER):
            if big.phase[b] == GAME_OVER:
                game.new_games(big, [b], [next_game])
                game.new_games(singles[b], [0], [next_game])
                next_game += 1
            else:
                game.next_hand(big, [b])
                game.next_hand(singles[b])
        for b, one in enumerate(singles):
            mine = big.take([b])
            for f in big.STORED:
                assert np.array_equal(getattr(mine, f), getattr(one, f)), (f, b)
    assert next_game > B  # whole games were finished and new ones begun


def test_a_deal_depends_on_seed_game_and_hand_only():
    game = Game()
    a = game.reset(10, seed=3)
    b = game.reset(3, seed=3, game_ids=[7, 2, 9])
    assert np.array_equal(a.dealt[[7, 2, 9]], b.dealt)
    assert np.array_equal(a.dealer[[7, 2, 9]], b.dealer)
    c = game.reset(10, seed=4)
    assert not np.array_equal(a.dealt, c.dealt)
    hands, _ = game.deal(3, [7, 7], [0, 1])
    assert np.array_equal(hands[0], a.dealt[7]) and not np.array_equal(hands[1], a.dealt[7])
