"""The vectorized game core: B tables stepped at once.

The state of B tables is a ``State``: NumPy arrays with a leading batch axis (hands as
bitmasks, phase, bids, contract, the trick so far, points, scores). ``Game`` holds the rules
and the lookup tables and offers whole-batch operations: ``reset``, ``legal_mask``, ``step``,
``next_hand``. Tables in different phases step together; the only Python branching is per
action kind present in the batch, never per table.

A deal is fixed by ``(seed, game, hand)``: the seed of the run, the game's id and the hand's
number within that game. It does not depend on the batch size or a table's position.
"""

from __future__ import annotations

import numpy as np

from . import tiles as T
from .actions import (BID, DECLARE, EXCHANGE, NO_ACTION, PASS, PLAY, PLUNGE, POINTS0, SIX_TRUMPS,
                      SPLASH, action_space_for)
from .deals import deal_hands, first_dealer
from .legality import Legality
from .rules import NELLO, SEVENS, RulesConfig
from .state import (BIDDING, DECLARING, EXCHANGING, GAME_OVER, HAND_OVER, PHASE_NAMES, PLAYING,
                    IllegalActionError, State)

_U1 = np.uint64(1)
_M28 = np.uint64((1 << 28) - 1)

class Game(Legality):
    """The rules of one configuration, and batch operations over ``State``s of that game."""

    def __init__(self, rules: RulesConfig | None = None):
        self.rules = rules = rules or RulesConfig.make()
        self.six = rules.ruleset == "six-player"
        self.actions = action_space_for(rules)
        self.tables = rules.tables
        self.n_seats = rules.n_seats
        self.n_tricks = rules.n_tricks
        self.n_actions = self.actions.n
        self.hand_size = rules.hand_size
        self.n_instances = T.N_TILES * rules.copies
        self.total_points = rules.total_points
        self.target = rules.resolved_target
        self._kind = self.actions.kind.astype(np.int64)
        self._count = self.tables.count.astype(np.int64)
        self._rank = self.tables.rank.astype(np.int64)
        self._led = self.tables.led.astype(np.int64)
        self._follow = self.tables.follow
        self._sevens_rank = self.tables.sevens_rank.astype(np.int64)
        if rules.sevens:  # sevens: closeness to 7 decides the trick, whatever was led
            self._rank[SEVENS] = self._sevens_rank[None, :] * 2
        self._force = rules.all_pass == "force_dealer"
        # _follows[c, s, t]: tile t belongs to suit s under contract c; a tile played that does
        # not shows its seat holds none of the led suit (sevens has no suits: never a void)
        shifts = np.arange(T.N_TILES, dtype=np.uint64)
        self._follows = (self._follow[:, :, None] >> shifts) & _U1 == 1
        self._follows[SEVENS] = True
        self._follows_l = self._follows.tolist()
        self._sevens_bidder_tie = rules.sevens and rules.sevens_tie == "bidder"
        if self.six:
            self._build_six_tables()
        else:
            self._build_bid_tables()
        # _next_seat[sit_out, seat]: who plays after seat (row -1: nobody sits out)
        S = self.n_seats
        nxt = np.array([[(s + 1) % S for s in range(S)] for _ in range(S + 1)], np.int64)
        for out in range(S):
            nxt[out] = [(s + 2) % S if (s + 1) % S == out else (s + 1) % S for s in range(S)]
        self._next_seat = nxt
        # plain-Python copies of the tables for the one-table path of ``step``
        self._kind_l = self._kind.tolist()
        self._rank_l = self._rank.tolist()
        self._led_l = self._led.tolist()
        self._follow_l = [[int(x) for x in row] for row in self._follow]
        self._count_l = self._count.tolist()
        self._sevens_class_l = [int(x) for x in self.tables.sevens_class]
        self._bit_rows = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                                       bitorder="little").astype(bool)
        n_game = len(State.GAME_FIELDS)
        self._hand_rows = slice(n_game, n_game + len(State.HAND_FIELDS))
        self._hand_init = np.array([-1 if v is None else v for _, v in State.HAND_FIELDS],
                                   np.int64)[:, None]
        arrays = State.hand_arrays(self.n_seats, self.n_tricks)
        self._columns_init = np.concatenate([np.full(w, v, np.int64) for _, w, v in arrays])

    # ------------------------------------------------------------------ dealing
    def deal(self, seed: int, game_ids, hand_nos) -> tuple[np.ndarray, np.ndarray]:
        """Hands (uint64 bitmasks, [n, seats]) and cats for the deals ``(seed, game, hand)``."""
        return deal_hands(seed, game_ids, hand_nos, self.n_seats, self.hand_size,
                          self.n_instances)

    def first_dealer(self, seed: int, game_ids) -> np.ndarray:
        return first_dealer(seed, game_ids, self.n_seats)

    # ------------------------------------------------------------------ batch operations
    def reset(self, batch_size: int, seed: int = 0, game_ids=None) -> State:
        """``batch_size`` new games; table i plays game ``game_ids[i]`` (default i)."""
        st = State(batch_size, self, seed)
        idx = np.arange(batch_size)
        self.new_games(st, idx, idx if game_ids is None else game_ids)
        return st

    def new_games(self, st: State, idx, game_ids) -> None:
        """Start games ``game_ids`` afresh at tables ``idx`` (score 0, hand 0)."""
        idx = np.atleast_1d(np.asarray(idx, np.int64))
        game_ids = np.broadcast_to(np.asarray(game_ids, np.int64), idx.shape)
        self._start_games(st, idx, game_ids)
        hands, cat = self.deal(st.seed, game_ids, 0)
        self.set_hands(st, idx, hands, self.first_dealer(st.seed, game_ids), cat)

    def next_hand(self, st: State, idx=None) -> None:
        """Deal the next hand of the game at each table in ``idx`` (default: every table
        whose hand is over and game is not); the deal passes to the left."""
        if idx is None:
            idx = np.flatnonzero(st.phase == HAND_OVER)
        idx = np.atleast_1d(np.asarray(idx, np.int64))
        if idx.size == 0:
            return
        bad = idx[st.phase[idx] != HAND_OVER]
        if bad.size:
            raise ValueError(f"table {int(bad[0])}: next_hand needs its hand over "
                             f"and its game not over (phase {PHASE_NAMES[st.phase[bad[0]]]})")
        st.hand_no[idx] += 1
        hands, cat = self.deal(st.seed, st.game_id[idx], st.hand_no[idx])
        self.set_hands(st, idx, hands, (st.dealer[idx] + 1) % self.n_seats, cat)

    def deal_next(self, st: State, idx, new_game_ids) -> None:
        """Deal on at tables ``idx`` whose hand is over, in one pass: the next hand of the game,
        or, where the game is over, hand 0 of a new game (its id from ``new_game_ids``, in
        table order)."""
        idx = np.atleast_1d(np.asarray(idx, np.int64))
        if idx.size == 0:
            return
        if (st.phase[idx] < HAND_OVER).any():
            b = int(idx[st.phase[idx] < HAND_OVER][0])
            raise ValueError(f"table {b}: deal_next needs its hand over")
        fresh = st.phase[idx] == GAME_OVER
        g = idx[fresh]
        st.hand_no[idx] += 1
        self._start_games(st, g, np.asarray(new_game_ids, np.int64)[:g.size])
        hands, cat = self.deal(st.seed, st.game_id[idx], st.hand_no[idx])
        dealer = np.where(fresh, self.first_dealer(st.seed, st.game_id[idx]),
                          (st.dealer[idx] + 1) % self.n_seats)
        self.set_hands(st, idx, hands, dealer, cat)

    @staticmethod
    def _start_games(st: State, idx, game_ids) -> None:
        """Tables ``idx`` begin games ``game_ids``: hand 0, score 0, no winner."""
        st.game_id[idx] = game_ids
        st.hand_no[idx] = 0
        st.score[idx] = 0
        st.winner[idx] = -1

    def set_hands(self, st: State, idx, hands, dealer, cat=None) -> None:
        """Begin a hand at tables ``idx`` with the given hands (bitmasks) and dealer."""
        idx = np.atleast_1d(np.asarray(idx, np.int64))
        S = self.n_seats
        st.dealt[idx] = hands
        st.hands[idx] = hands
        st.cat[idx] = 0 if cat is None else cat
        st.dealt_cat[idx] = st.cat[idx]
        st.dealer[idx] = dealer
        if self.rules.first_bidder == "holder_of_1_0":
            holder = (np.asarray(hands, np.uint64) >> np.uint64(T.tile_id(1, 0))) & _U1
            first = np.argmax(holder, axis=1)
        else:
            first = (st.dealer[idx] + 1) % S
        st.scalars[self._hand_rows, idx] = self._hand_init
        st.columns[idx] = self._columns_init
        st.first_bidder[idx] = first
        st.to_move[idx] = first
        st.phase[idx] = BIDDING
        st.trick_size[idx] = S
        self._update_legal(st, idx)

    def trick_tables(self, contract: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The core's own trick tables under ``contract``, as search reads them: rank [suit
        led, tile] (sevens: by closeness to 7), the suit each tile leads, the tiles following
        each suit (bitmasks) and each tile's count."""
        return self._rank[contract], self._led[contract], self._follow[contract], self._count

    def refresh_legal(self, st: State, idx=None) -> None:
        """Recompute the legal masks of tables ``idx`` (default: all) after their fields were
        set directly, as search does when it opens worlds or contracts."""
        self._update_legal(st, np.arange(st.batch_size) if idx is None else
                           np.atleast_1d(np.asarray(idx)))

    def open_play(self, st: State, seat: int, contract) -> None:
        """Every table of ``st`` at its opening lead from its dealt hands: ``seat`` has won
        the bid at 30, declared ``contract`` (one, or one per table) and leads."""
        st.phase[:] = PLAYING
        st.bidder[:] = st.declarer[:] = st.leader[:] = st.to_move[:] = seat
        st.high_bidder[:] = seat
        st.high_action[:] = POINTS0
        st.contract[:] = contract
        st.need[:] = 30
        st.hands[:] = st.dealt
        self.refresh_legal(st)

    def legal_mask(self, st: State) -> np.ndarray:
        """Bool [B, n_actions]: the legal actions of the seat to move at each table
        (all False where the hand is over). A read-only view: copy it to change it."""
        view = st.legal.view()
        view.flags.writeable = False
        return view

    def step(self, st: State, actions) -> None:
        """Apply one action per table (``NO_ACTION`` where a table's hand is over).

        Raises ``IllegalActionError`` for the first table whose action is not legal, before
        any table changes.
        """
        actions = np.asarray(actions)
        B = st.batch_size
        if actions.shape != (B,):
            raise ValueError(f"step needs one action per table: shape ({B},), got {actions.shape}")
        if actions.dtype.kind not in "iu":
            raise IllegalActionError(0, None, actions.tolist(), "actions must be integer ids")
        actions = actions.astype(np.int64, copy=False)
        if B == 1:  # one table: the same rules on Python ints, without index arrays
            a = int(actions[0])
            if not (0 <= a < self.n_actions and st.legal[0, a]):
                if a == NO_ACTION and st.phase[0] >= HAND_OVER:
                    return
                self._raise_illegal(st, 0, a)
            kind = self._kind_l[a]
            if self.six:
                (self._bid, self._declare, self._exchange, self._play)[kind](st, _ONE, actions)
                self._update_legal(st, _ONE)
                return
            if kind == PLAY:
                self._play_one(st, a - self.actions.play0)
            elif kind == BID:
                self._bid_one(st, a)
            else:
                (self._bid, self._declare, self._exchange, self._play)[kind](st, _ONE, actions)
            self._legal_one(st)
            return
        rows = np.arange(B)
        idle_kind = 4  # tables taking NO_ACTION
        if actions.min() >= 0 and actions.max() < self.n_actions and st.legal[rows, actions].all():
            acted, kind = rows, self._kind[actions]  # every table acts, legally
        else:
            inrange = (actions >= 0) & (actions < self.n_actions)
            safe = np.where(inrange, actions, 0)
            ok = inrange & st.legal[rows, safe]
            idle = (actions == NO_ACTION) & (st.phase >= HAND_OVER)
            if not (ok | idle).all():
                b = int(np.flatnonzero(~(ok | idle))[0])
                self._raise_illegal(st, b, int(actions[b]))
            kind = np.where(ok, self._kind[safe], idle_kind)
            acted = np.flatnonzero(ok)
        counts = np.bincount(kind, minlength=idle_kind + 1)
        if counts[PLAY] == B:  # the common case mid-hand
            self._play(st, acted, actions)
        else:
            for k, handler in ((PLAY, self._play), (BID, self._bid), (DECLARE, self._declare),
                               (EXCHANGE, self._exchange)):
                if counts[k]:
                    idx = np.flatnonzero(kind == k)
                    handler(st, idx, actions[idx])
        self._update_legal(st, acted)

    # ------------------------------------------------------------------ action handlers
    def _bid(self, st: State, idx: np.ndarray, a: np.ndarray) -> None:
        S = self.n_seats
        seat = st.to_move[idx]
        nb = st.n_bids[idx]
        st.bids[idx, nb] = a
        nb = nb + 1
        st.n_bids[idx] = nb
        level = st.high_level[idx]
        hm = np.maximum(level - 12, 0)
        if self.six:
            new_level = (a - 1) // SIX_TRUMPS + 1
        else:
            new_level = np.where(a == PLUNGE, 12 + np.maximum(self.rules.plunge_marks, hm + 1),
                                 np.where(a == SPLASH, 12 + np.maximum(2, hm + 1), a))
        bid = a != PASS
        st.high_level[idx] = np.where(bid, new_level, level)
        st.high_bidder[idx] = np.where(bid, seat, st.high_bidder[idx])
        st.high_action[idx] = np.where(bid, a, st.high_action[idx])
        st.to_move[idx] = (seat + 1) % S
        done = nb == S
        if done.any():
            self._end_bidding(st, idx[done])

    def _end_bidding(self, st: State, idx: np.ndarray) -> None:
        S = self.n_seats
        bidder = st.high_bidder[idx]
        thrown = bidder < 0
        if thrown.any():
            t = idx[thrown]
            st.phase[t] = HAND_OVER
            st.to_move[t] = -1
            idx, bidder = idx[~thrown], bidder[~thrown]
        if idx.size == 0:
            return
        level = st.high_level[idx]
        action = st.high_action[idx]
        if self.six:
            marks = np.where(level <= 15, 1, level - 14)
            points = np.where(level <= 15, 58 + 2 * level, 88 * marks)
            st.bidder[idx] = bidder
            st.declarer[idx] = bidder
            st.bid_marks[idx] = marks
            st.bid_value[idx] = marks if self.rules.scoring == "marks" else points
            st.need[idx] = np.where(level <= 15, points, -1)
            st.phase[idx] = DECLARING
            st.to_move[idx] = bidder
            return
        special = (action == PLUNGE) | (action == SPLASH)
        declarer = np.where(special, (bidder + 2) % S, bidder)
        marks = np.maximum(level - 12, 0)
        points_bid = level <= 12
        st.bidder[idx] = bidder
        st.declarer[idx] = declarer
        st.bid_marks[idx] = np.maximum(marks, 1)
        if self.rules.scoring == "marks":
            st.bid_value[idx] = np.maximum(marks, 1)
        else:
            st.bid_value[idx] = np.where(points_bid, level + 29, 42 * marks)
        st.need[idx] = np.where(points_bid, level + 29, -1)
        st.phase[idx] = DECLARING
        st.to_move[idx] = declarer

    def _declare(self, st: State, idx: np.ndarray, a: np.ndarray) -> None:
        S = self.n_seats
        c = a - self.actions.contract0
        st.contract[idx] = c
        nello = c == NELLO
        st.sit_out[idx] = np.where(nello, (st.bidder[idx] + 2) % S, -1)
        st.trick_size[idx] = S - nello
        st.need[idx] = np.where(c == SEVENS, -1, st.need[idx])
        st.leader[idx] = st.declarer[idx]
        st.to_move[idx] = st.declarer[idx]
        st.phase[idx] = EXCHANGING if self.six else PLAYING

    def _exchange(self, st: State, idx: np.ndarray, a: np.ndarray) -> None:
        """Six-player exchange: take a cat tile, then discard a tile of the hand as dealt;
        ``keep`` (or a second swap) ends it and the declarer leads."""
        sp = self.actions
        seat = st.to_move[idx]
        take = a < sp.discard0
        if take.any():
            i, s = idx[take], seat[take]
            t = (a[take] - sp.take0).astype(np.uint64)
            cat = st.cat[i]
            bit = _U1 << np.where((cat & st.dealt_cat[i]) >> t & _U1, t, t + np.uint64(28))
            st.cat[i] = cat & ~bit
            st.hands[i, s] |= bit
            st.ex_take[i, st.n_swaps[i]] = t
            st.ex_pending[i] = t
        discard = (a >= sp.discard0) & (a < sp.keep)
        done = a == sp.keep
        if discard.any():
            i, s = idx[discard], seat[discard]
            d = (a[discard] - sp.discard0).astype(np.uint64)
            dealt = st.hands[i, s] & st.dealt[i, s]
            bit = _U1 << np.where((dealt >> d) & _U1, d, d + np.uint64(28))
            st.hands[i, s] &= ~bit
            st.cat[i] |= bit
            n = st.n_swaps[i]
            st.ex_discard[i, n] = d
            st.n_swaps[i] = n + 1
            st.ex_pending[i] = -1
            done[discard] = n + 1 == 2
        if done.any():
            st.phase[idx[done]] = PLAYING

    def _play(self, st: State, idx: np.ndarray, a: np.ndarray) -> None:
        """Play tiles; the trick's best tile so far and its points are kept as it goes."""
        tile = a - self.actions.play0
        seat = st.to_move[idx]
        bit = _U1 << tile.astype(np.uint64)
        hand = st.hands[idx, seat]
        if self.six:  # the first copy held goes
            bit = np.where(hand & bit, bit, bit << np.uint64(28))
        st.hands[idx, seat] = hand & ~bit
        pos = st.n_in_trick[idx]
        n = st.n_plays[idx]
        st.plays[idx, n] = tile
        st.play_seats[idx, n] = seat
        st.n_plays[idx] = n + 1
        if self.six:  # which copy of its tile a play is: 0 the first played, 1 the second
            played = st.played_types[idx]
            st.play_slots[idx, n] = (played >> tile) & 1
            st.played_types[idx] = played | (1 << tile)
        contract = st.contract[idx]
        lead = pos == 0
        led = np.where(lead, self._led[contract, tile], st.led[idx])
        st.led[idx] = led
        rank = self._rank[contract, led, tile]
        # a seat that does not follow the led suit shows it holds none (bit = suit, 0..8)
        void = ~lead & ~self._follows[contract, led, tile]
        if void.any():
            vi = idx[void]
            st.voids[vi, seat[void]] |= 1 << led[void]
        if self._sevens_bidder_tie:  # ties for closest go to the bidding team
            rank += (contract == SEVENS) & ((seat & 1) == (st.bidder[idx] & 1))
        better = rank > np.where(lead, -1, st.best_rank[idx])  # the first of equals wins
        st.best_rank[idx] = np.where(better, rank, st.best_rank[idx])
        st.best_seat[idx] = np.where(better, seat, st.best_seat[idx])
        st.trick_pts[idx] = np.where(lead, 0, st.trick_pts[idx]) + self._count[tile]
        pos = pos + 1
        st.n_in_trick[idx] = pos
        st.to_move[idx] = self._next_seat[st.sit_out[idx], seat]
        done = pos == st.trick_size[idx]
        if done.all():
            self._finish_trick(st, idx, contract)
        elif done.any():
            self._finish_trick(st, idx[done], contract[done])

    def _bid_one(self, st: State, a: int) -> None:
        """``_bid`` for a batch of one table."""
        seat, nb = int(st.to_move[0]), int(st.n_bids[0])
        st.bids[0, nb] = a
        st.n_bids[0] = nb + 1
        if a != PASS:
            st.high_level[0] = self.special_level(a, int(st.high_level[0])) \
                if a in (PLUNGE, SPLASH) else a
            st.high_bidder[0] = seat
            st.high_action[0] = a
        st.to_move[0] = (seat + 1) % self.n_seats
        if nb + 1 == self.n_seats:
            self._end_bidding(st, _ONE)

    def _play_one(self, st: State, tile: int) -> None:
        """``_play`` for a batch of one table."""
        seat = int(st.to_move[0])
        st.hands[0, seat] = int(st.hands[0, seat]) & ~(1 << tile)
        pos, n, c = int(st.n_in_trick[0]), int(st.n_plays[0]), int(st.contract[0])
        st.plays[0, n] = tile
        st.play_seats[0, n] = seat
        st.n_plays[0] = n + 1
        if pos == 0:
            led, best, pts = self._led_l[c][tile], -1, 0
            st.led[0] = led
        else:
            led, best, pts = int(st.led[0]), int(st.best_rank[0]), int(st.trick_pts[0])
        rank = self._rank_l[c][led][tile]
        if pos and not self._follows_l[c][led][tile]:
            st.voids[0, seat] |= 1 << led
        if self._sevens_bidder_tie and c == SEVENS and seat & 1 == int(st.bidder[0]) & 1:
            rank += 1
        if rank > best:
            st.best_rank[0] = rank
            st.best_seat[0] = seat
        st.trick_pts[0] = pts + self._count_l[tile]
        st.n_in_trick[0] = pos + 1
        st.to_move[0] = self._next_seat[int(st.sit_out[0]), seat]
        if pos + 1 == st.trick_size[0]:
            self._finish_trick(st, _ONE, st.contract[:1])

    def _legal_one(self, st: State) -> None:
        """``_update_legal`` for a batch of one table."""
        phase = int(st.phase[0])
        legal = st.legal[0]
        if phase == PLAYING:
            hand = int(st.hands[0, st.to_move[0]])
            c = int(st.contract[0])
            if c == SEVENS:
                plays = next(x for x in (hand & m for m in self._sevens_class_l) if x)
            else:
                follow = self._follow_l[c][int(st.led[0])] & hand if st.n_in_trick[0] else 0
                plays = follow or hand
            p0 = self.actions.play0
            legal[:p0] = False
            rows = self._bit_rows
            legal[p0:p0 + 8] = rows[plays & 255]
            legal[p0 + 8:p0 + 16] = rows[plays >> 8 & 255]
            legal[p0 + 16:p0 + 24] = rows[plays >> 16 & 255]
            legal[p0 + 24:p0 + 28] = rows[plays >> 24 & 15, :4]
        elif phase == BIDDING:
            level = int(st.high_level[0])
            forced = self._force and level == 0 and st.n_bids[0] == self.n_seats - 1
            dbl = (int(st.hands[0, st.to_move[0]]) & T.DOUBLES_MASK).bit_count()
            legal[:] = self._bid_legal[level, int(forced), dbl]
        else:
            self._update_legal(st, _ONE)

    def _finish_trick(self, st: State, idx: np.ndarray, contract: np.ndarray) -> None:
        winner = st.best_seat[idx]
        pts = st.trick_pts[idx] + self.rules.points_per_trick
        team = winner & 1
        st.points[idx, team] += pts
        st.tricks_won[idx, team] += 1
        tn = st.trick_no[idx]
        st.trick_leaders[idx, tn] = st.leader[idx]
        st.trick_winners[idx, tn] = winner
        st.trick_points[idx, tn] = pts
        tn = tn + 1
        st.trick_no[idx] = tn
        st.n_in_trick[idx] = 0
        st.to_move[idx] = winner
        st.leader[idx] = winner
        # decided? judged from what has been taken, never by looking ahead
        bt = st.bidder[idx] & 1
        need = st.need[idx]
        last = tn == self.n_tricks
        nello = contract == NELLO
        every = (need < 0) | nello
        lost = (team == bt) == nello  # nello: the bidder took a trick; else the others did
        set_ = np.where(every, lost, st.points[idx, bt ^ 1] > self.total_points - need)
        made = np.where(every, last & ~lost, st.points[idx, bt] >= need)
        set_ |= last & ~made  # six-player: count left in the cat can leave a bid short
        new = (st.made[idx] < 0) & (set_ | made)
        if new.any():
            ni = idx[new]
            m = made[new]
            st.made[ni] = m
            win_team = np.where(m, bt[new], bt[new] ^ 1)
            st.hand_marks[ni, win_team] = st.bid_marks[ni]
            value = st.bid_value[ni]
            st.hand_score[ni, win_team] = value
            st.score[ni, win_team] += value
        over = last | ((contract == SEVENS) & set_)
        if not self.rules.play_out:
            over |= st.made[idx] >= 0
        if over.any():
            oi = idx[over]
            st.phase[oi] = HAND_OVER
            st.to_move[oi] = -1
            sc = st.score[oi]
            won = np.maximum(sc[:, 0], sc[:, 1]) >= self.target
            if won.any():
                gi = oi[won]
                st.phase[gi] = GAME_OVER
                st.winner[gi] = np.argmax(sc[won], axis=1)

    # ------------------------------------------------------------------ legality
    def _update_legal(self, st: State, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        phase = st.phase[idx]
        if idx.size == 1:
            groups = [(int(phase[0]), idx)]
        else:
            counts = np.bincount(phase, minlength=GAME_OVER + 1)
            if counts[PLAYING] == idx.size:
                groups = [(PLAYING, idx)]
            else:
                groups = [(p, idx[phase == p]) for p in range(GAME_OVER + 1) if counts[p]]
        for p, sub in groups:
            if p == PLAYING:
                self._legal_plays(st, sub)
            elif p == BIDDING and self.six:
                self._legal_six_bids(st, sub)
            elif p == BIDDING:
                level = st.high_level[sub]
                forced = (st.n_bids[sub] == self.n_seats - 1) & (level == 0) & self._force
                hand = st.hands[sub, st.to_move[sub]]
                dbl = np.bitwise_count(hand & np.uint64(T.DOUBLES_MASK)).astype(np.int64)
                st.legal[sub] = self._bid_legal[level, forced.astype(np.int64), dbl]
            elif p == DECLARING and self.six:
                st.legal[sub] = self._six_declare[(st.high_action[sub] - 1) % SIX_TRUMPS]
            elif p == EXCHANGING:
                self._legal_exchange(st, sub)
            elif p == DECLARING:
                special = (st.high_action[sub] == PLUNGE) | (st.high_action[sub] == SPLASH)
                marks = np.maximum(st.high_level[sub] - 12, 0)
                st.legal[sub] = self._declare_legal[marks, special.astype(np.int64)]
            else:
                st.legal[sub] = False

    def _type_bits(self, mask: np.ndarray) -> np.ndarray:
        """Bool [n, 28]: the tile types in bitmasks (either copy)."""
        mask = (mask | (mask >> np.uint64(28))) & _M28
        return np.unpackbits(mask.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1,
                             bitorder="little")[:, :T.N_TILES].view(bool)

    def _legal_six_bids(self, st: State, sub: np.ndarray) -> None:
        level = st.high_level[sub]
        forced = (st.n_bids[sub] == self.n_seats - 1) & (level == 0) & self._force
        hand = st.hands[sub, st.to_move[sub]]
        held = ((hand | (hand >> np.uint64(28))) & _M28).astype(np.int64)
        sb = self._six_suit_bytes
        suits = sb[0, held & 255] | sb[1, held >> 8 & 255] | sb[2, held >> 16 & 255] | \
            sb[3, held >> 24]
        st.legal[sub] = self._six_bid_legal[level, forced.astype(np.int64), suits]

    def _legal_exchange(self, st: State, sub: np.ndarray) -> None:
        sp = self.actions
        seat = st.to_move[sub]
        hand = st.hands[sub, seat]
        avail = hand & st.dealt[sub, seat] & self._noncount_inst
        n_avail = np.bitwise_count(avail).astype(np.int64)
        cat = st.cat[sub] & st.dealt_cat[sub]  # what is left to take of the cat as dealt
        cat_count = np.bitwise_count(cat & self._count_inst).astype(np.int64)
        pending = st.ex_pending[sub] >= 0
        cat_types = self._type_bits(cat)
        count_type = self._count > 0
        take = cat_types & ~pending[:, None] & (n_avail >= 1)[:, None] & (
            count_type[None, :] | (n_avail - 1 >= cat_count)[:, None])
        legal = np.zeros((len(sub), self.n_actions), bool)
        legal[:, sp.take0:sp.take0 + T.N_TILES] = take
        legal[:, sp.discard0:sp.discard0 + T.N_TILES] = self._type_bits(avail) & pending[:, None]
        legal[:, sp.keep] = ~pending & ((cat_count == 0) | (n_avail == 0))
        st.legal[sub] = legal

    def _legal_plays(self, st: State, idx: np.ndarray) -> None:
        hand = st.hands[idx, st.to_move[idx]]
        if self.six:
            hand = (hand | (hand >> np.uint64(28))) & _M28
        contract = st.contract[idx]
        follow = self._follow[contract, st.led[idx]] & hand
        plays = np.where((st.n_in_trick[idx] > 0) & (follow != 0), follow, hand)
        sevens = contract == SEVENS
        if sevens.any():
            h = hand[sevens]
            out = np.zeros_like(h)
            found = np.zeros(h.shape, bool)
            for cls in self.tables.sevens_class:
                x = h & cls
                take = ~found & (x != 0)
                out = np.where(take, x, out)
                found |= take
            plays[sevens] = out
        if self.six:
            st.legal[idx] = False
            st.legal[idx, self.actions.play0:] = self._type_bits(plays)
            return
        # the plays are the top 28 of the 64 actions: one word shifted into place is the row
        row = (plays << np.uint64(self.actions.play0)).astype("<u8")
        st.legal[idx] = np.unpackbits(row.view(np.uint8).reshape(-1, 8), axis=1,
                                      bitorder="little").view(bool)

    # ------------------------------------------------------------------ conveniences
    def hand_tiles(self, st: State, b: int, seat: int, dealt: bool = False) -> list[int]:
        """Tile ids held by ``seat`` at table ``b`` (as dealt with ``dealt=True``)."""
        m = int((st.dealt if dealt else st.hands)[b, seat])
        return [t % T.N_TILES for t in T.tiles_of(m)]


_ONE = np.zeros(1, np.int64)


__all__ = ["BIDDING", "DECLARING", "EXCHANGING", "GAME_OVER", "HAND_OVER", "NO_ACTION",
           "PHASE_NAMES", "PLAYING", "Game", "IllegalActionError", "State"]
