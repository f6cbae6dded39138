"""Per-move features for the play net's move-ranking head (``ModelConfig.ranking``).

An MLP over the observation must work out from raw fields what a player reads off the table
at a glance: whether a tile wins the trick now, whether anything still out can beat it, what
count is at stake. ``MoveFeatures`` computes such facts for every tile as a candidate play,
from the seat's observation alone (``texas42_env.observation``: its hand, the contract, the
trick on the table, the tiles played; no hidden hand), with the ruleset's own tables
(``texas42_env.rules.Tables``: a tile's suit when led, its rank in a suit, trumps), so the
ranking head scores each legal tile from the trunk's view of the position plus the tile's
features (an action-conditioned head, as in DouZero's move encoding).

The features of candidate tile ``t`` (``NAMES``), where "the suit" is the led suit when a
trick is under way and ``t``'s own suit if ``t`` leads, and "out" is a tile neither in the
seat's hand nor played yet (the other hands and, in the six-player game, the cat):

- ``leads``: the trick is empty (the same for every tile);
- ``trump``, ``double``, ``count`` (its count / 10);
- ``rank``: its rank in the suit (``Tables.rank`` / 40; 0: it cannot win the trick);
- ``wins``: it would win the trick as it stands (a lead always does, but in sevens);
- ``beaten_by``: tiles out that would beat the trick after it is played / 7;
- ``sure``: it wins now and nothing out can beat it;
- ``partner_wins``: the trick's winner so far is a partner (the same for every tile);
- ``table_count``: count on the table / 10 (the same for every tile);
- ``after``: seats still to play to the trick after this one / (seats - 1);
- ``trumps_out``: trumps out / 7 (the same for every tile);
- ``suit_mine``, ``suit_out``: tiles of the suit in the hand, and out, / 7;
- ``follows``: it belongs to the led suit (0 when leading).

Sevens has no suits: there a tile's rank is its closeness to 7 (``Tables.sevens_rank``), the
first of the closest winning (``sevens_tie: bidder``, ties to the bidding team, is not
modelled), and the suit features are 0.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from texas42_env import tiles as T
from texas42_env.observation import make_encoder
from texas42_env.rules import N_CONTRACTS, N_LED, SEVENS, TRUMP_SUIT

NAMES = ("leads", "trump", "double", "count", "rank", "wins", "beaten_by", "sure",
         "partner_wins", "table_count", "after", "trumps_out", "suit_mine", "suit_out",
         "follows")


class MoveFeatures(nn.Module):
    """Observations [n, size] -> float32 [n, 28, len(NAMES)]: each tile's features as a
    candidate play (see the module). Built from a ``Game``; its tables are buffers that
    are not saved (they follow from the rules)."""

    def __init__(self, game):
        super().__init__()
        enc = make_encoder(game)
        self.size = enc.size
        self.S, self.C = game.n_seats, game.rules.copies
        self._fields = {f.name: (f.offset, f.size) for f in enc.fields}
        tab = game.rules.tables
        n = T.N_TILES
        rank = tab.rank.astype(np.int64)  # [contract, suit, tile]
        rank[SEVENS] = tab.sevens_rank  # no suits: the closest to 7 wins, whatever is led
        rank = torch.from_numpy(rank)
        member = torch.tensor([[[bool(int(tab.follow[c, s]) >> t & 1) for t in range(n)]
                                for s in range(N_LED)] for c in range(N_CONTRACTS)],
                              dtype=torch.float32)  # [contract, suit, tile]
        self.levels = int(rank.max()) + 1  # ranks are 0 .. levels - 1
        buffers = {"ranks": rank, "members": member,
                   "leds": torch.from_numpy(tab.led.astype(np.int64)),  # [contract, tile]
                   "trumps": member[:, TRUMP_SUIT, :].clone(),
                   "counts": torch.from_numpy(T.COUNT.astype(np.float32)),
                   "doubles": torch.from_numpy(T.IS_DOUBLE.astype(np.float32))}
        for name, value in buffers.items():
            self.register_buffer(name, value, persistent=False)

    def _field(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        off, size = self._fields[name]
        return obs[:, off:off + size]

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        rows, S, C, n, K = obs.shape[0], self.S, self.C, T.N_TILES, self.levels
        obs = obs.float()
        hand = self._field(obs, "hand") * C  # copies held
        c = self._field(obs, "contract").argmax(-1)  # [rows]
        trick = self._field(obs, "current_trick").reshape(rows, S, n)
        on_table = trick.sum(1)  # [rows, tile]
        played = self._field(obs, "played_by").reshape(rows, C, n, S).sum((1, 3))
        out = (C - hand - played).clamp(min=0)
        follows = on_table.sum(-1) > 0  # [rows]: a trick is under way
        s_led = self._field(obs, "led_suit").argmax(-1)  # (none in sevens: 0, rankless)
        # per suit: the tiles' ranks, the best on the table, the out tiles above each rank
        rank = self.ranks[c]  # [rows, suit, tile]
        member = self.members[c]
        hist = torch.zeros(rows, N_LED, K).scatter_add_(2, rank, out[:, None, :].expand(
            -1, N_LED, -1))
        above = hist.sum(-1, keepdim=True) - hist.cumsum(-1)  # out tiles of rank > v
        table_best = (rank * (on_table[:, None, :] > 0)).amax(-1)  # [rows, suit]; 0: none
        # the suit that counts for each candidate: the led one, or its own if it leads
        suit = torch.where(follows[:, None], s_led[:, None], self.leds[c])  # [rows, tile]
        mine = rank.gather(1, suit[:, None, :]).squeeze(1)
        best_before = table_best.gather(1, suit)
        wins = (mine > best_before).float()
        best = torch.maximum(mine, best_before)
        beaten_by = above.reshape(rows, -1).gather(1, suit * K + best)
        led_rank = rank.gather(1, s_led[:, None, None].expand(-1, 1, n)).squeeze(1)
        led_member = member.gather(1, s_led[:, None, None].expand(-1, 1, n)).squeeze(1)
        winner = (trick * led_rank[:, None, :]).sum(-1).argmax(-1)  # [rows]: its seat
        partner_wins = (follows & (winner % 2 == 0) & (winner != 0)).float()
        sits_out = self._field(obs, "sits_out").any(-1).float()
        after = (S - 1 - on_table.sum(-1) - sits_out).clamp(min=0) / (S - 1)
        trump = self.trumps[c]  # [rows, tile]
        leads = (~follows).float()

        def each(v):  # a per-row value as a column for every tile
            return v[:, None].expand(-1, n)

        def of_suit(x):  # [rows, tile]: per suit sums of x's tiles, for each candidate's suit
            return (member * x[:, None, :]).sum(-1).gather(1, suit) / 7

        feats = [each(leads), trump, self.doubles.expand(rows, -1),
                 self.counts.expand(rows, -1) / 10, mine / 40, wins, beaten_by / 7,
                 wins * (beaten_by == 0).float(), each(partner_wins),
                 each((on_table * self.counts).sum(-1) / 10), each(after),
                 each((out * trump).sum(-1) / 7), of_suit(hand), of_suit(out),
                 led_member * (1 - leads[:, None])]
        return torch.stack(feats, -1)


__all__ = ["MoveFeatures", "NAMES"]
