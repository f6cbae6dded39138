"""The move-ranking head's per-move features (agents/nets/moves.py) against a slow per-tile
reference written from the game's state (hands, the trick's plays, the rules' tables), over
positions of random games of every contract, in both games."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import torch

from agents.nets.moves import NAMES, MoveFeatures
from texas42_env import tiles as T
from texas42_env.actions import NO_ACTION
from texas42_env.core import PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import N_CONTRACTS, SEVENS, RulesConfig, preset

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def reference(game: Game, st, b: int) -> np.ndarray:
    """[28, len(NAMES)]: the features of table ``b``'s seat to move, tile by tile."""
    tab, S, C = game.rules.tables, game.n_seats, game.rules.copies
    me, c = int(st.to_move[b]), int(st.contract[b])
    hand = Counter(game.hand_tiles(st, b, me))
    k, n = int(st.n_in_trick[b]), int(st.n_plays[b])
    trick = [(int(st.plays[b, i]) % T.N_TILES, int(st.play_seats[b, i])) for i in range(n - k, n)]
    played = Counter(int(st.plays[b, i]) % T.N_TILES for i in range(n))
    out = Counter({t: C - hand[t] - played[t] for t in range(T.N_TILES)})
    trump = [c != SEVENS and tab.is_trump(c, t) for t in range(T.N_TILES)]
    rows = []
    for t in range(T.N_TILES):
        s = int(st.led[b]) if k else tab.led_suit(c, t)
        rank = (lambda u: int(tab.sevens_rank[u])) if c == SEVENS else \
            (lambda u: tab._strength(c, s, u))
        before = max((rank(u) for u, _ in trick), default=0)
        mine = rank(t)
        wins = mine > before
        beaten = sum(out[u] for u in range(T.N_TILES) if rank(u) > max(mine, before))
        partner = False
        if trick:
            # the first of the best wins (a second copy of the same tile does not)
            seat = max(trick, key=lambda x: rank(x[0]))[1]
            rel = (seat - me) % S
            partner = rel % 2 == 0 and rel != 0
        of_suit = [u for u in range(T.N_TILES) if s in tab.suits_of(c, u)]
        after = max(0, S - 1 - k - (int(st.sit_out[b]) >= 0)) / (S - 1)
        rows.append([not k, trump[t], T.IS_DOUBLE[t], T.COUNT[t] / 10, mine / 40, wins,
                     beaten / 7, wins and beaten == 0, partner,
                     sum(T.COUNT[u] for u, _ in trick) / 10, after,
                     sum(out[u] for u in range(T.N_TILES) if trump[u]) / 7,
                     sum(hand[u] for u in of_suit) / 7, sum(out[u] for u in of_suit) / 7,
                     bool(k) and s in tab.suits_of(c, t)])
    return np.array(rows, np.float32)


def positions(game: Game, tables: int, seed: int):
    """(state, the playing tables) at every play step of random games."""
    rng = np.random.default_rng(seed)
    st = game.reset(tables, seed=seed)
    while True:
        idx = np.flatnonzero(st.phase == PLAYING)
        if idx.size:
            yield st, idx
        m = game.legal_mask(st)
        if not m.any():
            return
        game.step(st, np.array([rng.choice(np.flatnonzero(r)) if r.any() else NO_ACTION
                                for r in m]))


@pytest.mark.parametrize("rules", [
    preset("all-specials"),
    RulesConfig.from_options("standard", {"nello_doubles": "low", "sevens": True}),
    RulesConfig.from_options("standard", {"nello_doubles": "own_suit",
                                          "follow_me_doubles": "own_suit"}),
    preset("six-player"),
], ids=["all-specials", "nello-low", "doubles-own-suit", "six-player"])
def test_features_equal_the_reference(rules):
    game = Game(rules)
    enc, moves = make_encoder(game), MoveFeatures(game)
    contracts, checked = Counter(), 0
    for st, idx in positions(game, 128, seed=7):
        obs = enc.encode(st, st.to_move[idx], idx)
        got = moves(torch.from_numpy(obs)).numpy()
        assert got.shape == (len(idx), T.N_TILES, len(NAMES))
        for j, b in enumerate(idx):
            want = reference(game, st, b)
            bad = np.flatnonzero(np.abs(got[j] - want).max(0) > 1e-6)
            assert not bad.size, (int(st.contract[b]), [NAMES[i] for i in bad])
            contracts[int(st.contract[b])] += 1
            checked += 1
    assert checked > 1000
    assert len(contracts) >= (8 if game.six else 9), contracts  # most contracts came up
    assert all(0 <= c < N_CONTRACTS for c in contracts)

