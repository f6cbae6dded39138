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
from .actions import (BID, DECLARE, EXCHANGE, MARKS0, NO_ACTION, PASS, PLAY, PLUNGE, POINTS0,
                      SIX_LEVELS, SIX_TRUMPS, SPLASH, action_space_for)
from .rules import CONTRACT_NAMES, NELLO, SEVENS, RulesConfig

# phases
BIDDING, DECLARING, EXCHANGING, PLAYING, HAND_OVER, GAME_OVER = range(6)
PHASE_NAMES = ("bid", "declare", "exchange", "play", "over", "over")

_U1 = np.uint64(1)
_M28 = np.uint64((1 << 28) - 1)


class IllegalActionError(ValueError):
    """An action that is not legal at its table; the batch state was left unchanged."""

    def __init__(self, table: int, seat: int | None, action, reason: str, phase: str = ""):
        self.table, self.seat, self.action, self.reason, self.phase = table, seat, action, reason, phase
        super().__init__(
            f"illegal action at table {table}, seat {seat} (phase {phase}): {action!r}: {reason}")


class State:
    """B tables as a struct of arrays, mutated in place by ``Game.step``.

    Scalar fields per table (``phase``, ``to_move``, ``contract``...) are rows of one int64
    block and the per-hand 2-D fields (``bids``, ``plays``, tricks, points...) are column
    groups of another, so dealing a new hand resets each block in one operation. Every field
    is a plain NumPy view with the batch on its first axis.
    """

    GAME_FIELDS = ("game_id", "hand_no", "dealer", "first_bidder", "winner")
    # per-hand scalars and the value a new hand starts with (None: set when dealing)
    HAND_FIELDS = (
        ("to_move", None), ("phase", None), ("n_bids", 0), ("high_level", 0),
        ("high_bidder", -1), ("high_action", -1), ("bidder", -1), ("declarer", -1),
        ("bid_marks", 0), ("bid_value", 0), ("need", 0), ("contract", -1), ("sit_out", -1),
        ("trick_size", None), ("trick_no", 0), ("n_in_trick", 0), ("leader", -1), ("led", 0),
        ("n_plays", 0), ("made", -1), ("best_rank", -1), ("best_seat", -1), ("trick_pts", 0),
        ("n_swaps", 0), ("ex_pending", -1), ("played_types", 0),
    )

    @staticmethod
    def hand_arrays(S: int, Tn: int) -> tuple[tuple[str, int, int], ...]:
        """Per-hand 2-D fields: (name, width, start value)."""
        return (("bids", S, -1), ("plays", S * Tn, -1), ("play_seats", S * Tn, -1), ("trick_leaders", Tn, -1),
                ("trick_winners", Tn, -1), ("trick_points", Tn, 0), ("points", 2, 0),
                ("tricks_won", 2, 0), ("hand_marks", 2, 0), ("hand_score", 2, 0),
                ("ex_take", 2, -1), ("ex_discard", 2, -1), ("voids", S, 0),
                ("play_slots", S * Tn, 0))

    def __init__(self, batch: int, game: "Game", seed: int):
        S, Tn = game.n_seats, game.n_tricks
        self.seed = int(seed)
        self.n_seats, self.n_tricks = S, Tn
        names = self.GAME_FIELDS + tuple(n for n, _ in self.HAND_FIELDS)
        self.scalars = np.full((len(names), batch), -1, np.int64)
        arrays = self.hand_arrays(S, Tn)
        self.columns = np.zeros((batch, sum(w for _, w, _ in arrays)), np.int64)
        self.dealt = np.zeros((batch, S), np.uint64)  # hands as dealt (bitmasks)
        self.hands = np.zeros((batch, S), np.uint64)  # tiles still held
        self.cat = np.zeros(batch, np.uint64)  # six-player: the cat now (it changes in the exchange)
        self.dealt_cat = np.zeros(batch, np.uint64)
        self.score = np.zeros((batch, 2), np.int64)  # game score, this hand's once decided
        self.legal = np.zeros((batch, game.n_actions), bool)
        self._bind()
        self.phase[:] = HAND_OVER

    def _bind(self) -> None:
        names = self.GAME_FIELDS + tuple(n for n, _ in self.HAND_FIELDS)
        for i, name in enumerate(names):
            setattr(self, name, self.scalars[i])
        col = 0
        for name, width, _ in self.hand_arrays(self.n_seats, self.n_tricks):
            setattr(self, name, self.columns[:, col:col + width])
            col += width

    @property
    def batch_size(self) -> int:
        return self.scalars.shape[1]

    STORED = ("scalars", "columns", "dealt", "hands", "cat", "dealt_cat", "score", "legal")

    def _new(self, pick) -> "State":
        new = object.__new__(State)
        new.seed, new.n_seats, new.n_tricks = self.seed, self.n_seats, self.n_tricks
        for f in self.STORED:
            arr = getattr(self, f)
            setattr(new, f, pick(arr, f == "scalars"))
        new._bind()
        return new

    def copy(self) -> "State":
        return self._new(lambda arr, rows: arr.copy())

    def take(self, idx) -> "State":
        """A new state holding the tables ``idx`` (a copy)."""
        idx = np.atleast_1d(np.asarray(idx))
        return self._new(lambda arr, rows: arr[:, idx].copy() if rows else arr[idx].copy())

    def restore(self, other: "State") -> None:
        for f in self.STORED:
            getattr(self, f)[...] = getattr(other, f)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer over a uint64 array: a counter-based hash for seeding deals."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _key(seed: int, *parts) -> np.ndarray:
    h = _mix(np.array([seed & (2**64 - 1)], np.uint64))
    for p in parts:
        h = _mix(h ^ np.asarray(p).astype(np.uint64))
    return h


class Game:
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

    # ------------------------------------------------------------------ bidding rules
    def level_name(self, level: int) -> str:
        if self.six:
            return str(SIX_LEVELS[level - 1])
        return str(29 + level) if level <= 12 else f"{level - 12}m"

    def special_level(self, action: int, level: int) -> int:
        """The level a plunge or splash bid stands at over the high bid ``level``."""
        hm = max(level - 12, 0)
        if action == PLUNGE:
            return 12 + max(self.rules.plunge_marks, hm + 1)
        return 12 + max(2, hm + 1)

    def bid_reason(self, action: int, level: int, forced: bool, doubles: int) -> str | None:
        """Why ``action`` may not be bid over high ``level`` (None when it may)."""
        r = self.rules
        high = self.level_name(level) if level else None
        if action == PASS:
            return "the last bidder must bid when all have passed" if forced else None
        if action in (PLUNGE, SPLASH):
            name = "plunge" if action == PLUNGE else "splash"
            need = r.plunge_min_doubles if action == PLUNGE else 3
            if not (r.plunge if action == PLUNGE else r.splash):
                return f"{name} is not allowed under these rules"
            if doubles < need:
                return f"{name} needs at least {need} doubles"
            if action == SPLASH and self.special_level(action, level) > 12 + 3:
                return "a splash may not pass 3m"
            return None
        if POINTS0 <= action < MARKS0:
            if level >= MARKS0:
                return f"bid must exceed {high}"
            return f"bid must exceed {high}" if action <= level else None
        marks = action - 12
        if level < MARKS0:
            if marks > r.max_opening_marks:
                return f"the first mark bid may be at most {r.max_opening_marks}m"
            return None
        if action <= level:
            return f"bid must exceed {high}"
        if marks != level - 12 + 1:
            return f"a mark bid may only raise the high bid by one mark (to {level - 12 + 1}m)"
        return None

    def declare_reason(self, contract: int, marks: int, special: bool) -> str | None:
        r = self.rules
        if not r.contract_allowed(contract):
            return f"{CONTRACT_NAMES[contract]} is not allowed under these rules"
        if contract == NELLO:
            if special:
                return "nello may not be named after a plunge or splash"
            if marks < r.nello_min_marks:
                return f"nello needs a bid of at least {r.nello_min_marks}m"
        if contract == SEVENS and not special and marks < r.sevens_min_marks:
            return f"sevens needs a bid of at least {r.sevens_min_marks}m"
        return None

    def _build_bid_tables(self) -> None:
        A, c0 = self.n_actions, self.actions.contract0
        levels = 13 + 10
        table = np.zeros((levels, 2, 8, A), bool)
        for lv in range(levels):
            for forced in (0, 1):
                for dbl in range(8):
                    for a in range(c0):
                        table[lv, forced, dbl, a] = self.bid_reason(a, lv, bool(forced), dbl) is None
        self._bid_legal = table
        dec = np.zeros((11, 2, A), bool)
        for marks in range(11):
            for sp in (0, 1):
                for c in range(len(CONTRACT_NAMES)):
                    dec[marks, sp, c0 + c] = self.declare_reason(c, marks, bool(sp)) is None
        self._declare_legal = dec

    # ------------------------------------------------------------------ six-player rules
    def six_suit_masks(self) -> list[int]:
        """Tiles (by type) that let a player bid each six-player trump."""
        return [T.mask_of(T.suit_tiles(c)) for c in range(7)] + [T.DOUBLES_MASK, (1 << 28) - 1]

    def six_bid_reason(self, action: int, level: int, forced: bool, held: int) -> str | None:
        """Why six-player bid ``action`` is not allowed over ``level`` by a hand holding the
        tile types ``held`` (None when it is)."""
        if action == PASS:
            return "the last bidder must bid when all have passed" if forced else None
        lv, trump = (action - 1) // SIX_TRUMPS + 1, (action - 1) % SIX_TRUMPS
        if lv <= level:
            return f"bid must exceed {self.level_name(level)}"
        if not held & self.six_suit_masks()[trump]:
            return "must hold a double to bid doubles" if trump == 7 else \
                f"must hold a tile of {CONTRACT_NAMES[trump]} to bid it"
        return None

    def _build_six_tables(self) -> None:
        n_levels = len(SIX_LEVELS)
        level_ok = np.arange(1, n_levels + 1)[None, :] > np.arange(n_levels + 1)[:, None]
        # suits held, as 8 bits (0s..6s, doubles; follow-me needs nothing), by hand byte
        masks = self.six_suit_masks()
        self._six_suit_bytes = np.array(
            [[sum(1 << c for c in range(8) if any(
                t // 8 == k and v >> (t % 8) & 1 and masks[c] >> t & 1 for t in range(28)))
              for v in range(256)] for k in range(4)], np.int64)
        suits = np.arange(256)[:, None] >> np.arange(8)[None, :] & 1  # [pattern, suit]
        suit_ok = np.concatenate([suits, np.ones((256, 1), np.int64)], axis=1).astype(bool)
        bids = level_ok[:, None, :, None] & suit_ok[None, :, None, :]  # [level, pattern, lv, c]
        table = np.zeros((n_levels + 1, 2, 256, self.n_actions), bool)
        table[:, :, :, 1:self.actions.contract0] = bids.reshape(n_levels + 1, 1, 256, -1)
        table[:, 0, :, PASS] = True  # pass, unless forced
        self._six_bid_legal = table
        dec = np.zeros((SIX_TRUMPS, self.n_actions), bool)
        dec[np.arange(SIX_TRUMPS), self.actions.contract0 + np.arange(SIX_TRUMPS)] = True
        self._six_declare = dec
        count = np.uint64(T.mask_of(np.flatnonzero(T.COUNT)))
        self._count_inst = count | (count << np.uint64(28))  # both copies of the count tiles
        self._noncount_inst = ~self._count_inst & np.uint64((1 << 56) - 1)

    def exchange_reason(self, st: "State", b: int, action: int) -> str | None:
        """Why exchange ``action`` is not allowed at table ``b`` (None when it is)."""
        sp = self.actions
        seat = int(st.to_move[b])
        hand, dealt = int(st.hands[b, seat]), int(st.dealt[b, seat])
        cat = int(st.cat[b]) & int(st.dealt_cat[b])  # what is left to take of the cat as dealt
        avail = hand & dealt & int(self._noncount_inst)
        n_avail = avail.bit_count()
        cat_count = (cat & int(self._count_inst)).bit_count()
        pending = int(st.ex_pending[b]) >= 0
        if action == sp.keep:
            if pending:
                return "a discard is due for the tile taken"
            if cat_count and n_avail:
                return "a count tile in the cat must be taken"
            return None
        if action < sp.discard0:
            t = action - sp.take0
            if pending:
                return "a discard is due for the tile taken"
            if not (cat >> t | cat >> (t + 28)) & 1:
                return "not in the cat"
            if not n_avail:
                return "no tile of the hand as dealt is left to discard (count tiles may not be)"
            if not T.COUNT[t] and n_avail - 1 < cat_count:
                return "a count tile in the cat must be taken"
            return None
        t = action - sp.discard0
        if not pending:
            return "take a tile from the cat before discarding"
        if T.COUNT[t]:
            return "discards must be non-count tiles"
        if not (avail >> t | avail >> (t + 28)) & 1:
            return "not in the hand as dealt" if not (hand >> t | hand >> (t + 28)) & 1 \
                else "discards come from the hand as dealt"
        return None

    # ------------------------------------------------------------------ dealing
    def deal(self, seed: int, game_ids, hand_nos) -> tuple[np.ndarray, np.ndarray]:
        """Hands (uint64 bitmasks, [n, seats]) and cats for the deals ``(seed, game, hand)``."""
        game_ids = np.atleast_1d(np.asarray(game_ids, np.int64))
        hand_nos = np.broadcast_to(np.asarray(hand_nos, np.int64), game_ids.shape)
        base = _key(seed, 1, game_ids, hand_nos)
        ctr = np.arange(self.n_instances, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03)
        keys = _mix(base[:, None] ^ ctr[None, :])
        # one flat sort for all rows: (row, 40 bits of the tile's key, tile) in one word
        n, N = keys.shape
        perm = np.empty((n, N), np.uint64)
        for lo in range(0, n, 1 << 16):
            part = keys[lo:lo + (1 << 16)]
            rows = np.arange(len(part), dtype=np.uint64)[:, None] << np.uint64(46)
            word = rows | ((part >> np.uint64(24)) << np.uint64(6)) | np.arange(N, dtype=np.uint64)
            perm[lo:lo + len(part)] = (np.sort(word, axis=None) & np.uint64(63)).reshape(-1, N)
        S, H = self.n_seats, self.hand_size
        bits = _U1 << perm
        hands = np.bitwise_or.reduce(bits[:, : S * H].reshape(-1, S, H), axis=2)
        cat = np.bitwise_or.reduce(bits[:, S * H:], axis=1) if S * H < self.n_instances else \
            np.zeros(len(game_ids), np.uint64)
        return hands, cat

    def first_dealer(self, seed: int, game_ids) -> np.ndarray:
        game_ids = np.atleast_1d(np.asarray(game_ids, np.int64))
        return (_key(seed, 2, game_ids) % np.uint64(self.n_seats)).astype(np.int64)

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

    # ------------------------------------------------------------------ explanations (slow)
    def explain(self, st: State, b: int, action) -> tuple[str, int | None, str]:
        """(phase, seat, reason) for an action at table ``b`` that is not legal; slow."""
        phase = int(st.phase[b])
        seat = int(st.to_move[b]) if phase < HAND_OVER else None
        return PHASE_NAMES[phase], seat, self.reason(st, b, action) or "not legal"

    def reason(self, st: State, b: int, action) -> str | None:
        """Why ``action`` is not legal at table ``b``, in words; None when it is legal.

        Written from the rules one case at a time (slow): the tests hold the fast legal
        masks to it.
        """
        phase = int(st.phase[b])
        if phase >= HAND_OVER:
            return "game is over" if phase == GAME_OVER else "hand is over"
        seat = int(st.to_move[b])
        if not isinstance(action, (int, np.integer)) or not 0 <= action < self.n_actions:
            return f"not an action id (0..{self.n_actions - 1})"
        action = int(action)
        kind = int(self._kind[action])
        if kind != (BID, DECLARE, EXCHANGE, PLAY)[phase]:
            due = ("a bid", "a contract", "the exchange", "a play")[phase]
            return f"{due} is due, not {('a bid', 'a contract', 'an exchange', 'a play')[kind]}"
        hand = int(st.hands[b, seat])
        level = int(st.high_level[b])
        if phase == BIDDING:
            forced = self._force and level == 0 and int(st.n_bids[b]) == self.n_seats - 1
            if self.six:
                return self.six_bid_reason(action, level, forced, (hand | hand >> 28) & int(_M28))
            return self.bid_reason(action, level, forced, (hand & T.DOUBLES_MASK).bit_count())
        if phase == DECLARING:
            contract = action - self.actions.contract0
            if self.six:
                bid_trump = (int(st.high_action[b]) - 1) % SIX_TRUMPS
                if contract != bid_trump:
                    return f"the contract must be the winning bid's ({CONTRACT_NAMES[bid_trump]})"
                return None
            special = int(st.high_action[b]) in (PLUNGE, SPLASH)
            return self.declare_reason(contract, max(level - 12, 0), special)
        if phase == EXCHANGING:
            return self.exchange_reason(st, b, action)
        return self._play_reason(st, b, seat, action - self.actions.play0)

    def _play_reason(self, st: State, b: int, seat: int, tile: int) -> str | None:
        hand = int(st.hands[b, seat])
        if self.rules.copies == 2:
            hand = (hand | hand >> 28) & int(_M28)
        if not hand >> tile & 1:
            return "not in hand"
        c = int(st.contract[b])
        if c == SEVENS:
            d = abs(int(T.PIPS[tile]) - 7)
            best = min(abs(int(T.PIPS[t]) - 7) for t in T.tiles_of(hand))
            if d > best:
                return f"must play a tile closest to 7 (one {best} away)"
            return None
        if int(st.n_in_trick[b]) == 0:
            return None
        led = int(st.led[b])
        follow = int(self._follow[c, led]) & hand
        if follow and not follow >> tile & 1:
            return f"must follow {self.tables.suit_name(led)}"
        return None

    def _raise_illegal(self, st: State, b: int, action) -> None:
        phase, seat, reason = self.explain(st, b, action)
        name = self.actions.name(action) if isinstance(action, int) and 0 <= action < self.n_actions else action
        raise IllegalActionError(b, seat, name, reason, phase)

    # ------------------------------------------------------------------ conveniences
    def hand_tiles(self, st: State, b: int, seat: int, dealt: bool = False) -> list[int]:
        """Tile ids held by ``seat`` at table ``b`` (as dealt with ``dealt=True``)."""
        m = int((st.dealt if dealt else st.hands)[b, seat])
        return [t % T.N_TILES for t in T.tiles_of(m)]


_ONE = np.zeros(1, np.int64)
