"""The legality rules that explain a refusal in words, and the fast tables built from them.

``Legality`` is a part of ``Game``: the reasons (``bid_reason``, ``declare_reason``,
``six_bid_reason``, ``exchange_reason``, ``reason``, ``explain``) are written from the rules
one case at a time, and the legal-mask tables the core steps with (``_build_bid_tables``,
``_build_six_tables``) are built by asking them, so the fast masks and the words agree.
"""

from __future__ import annotations

import numpy as np

from . import tiles as T
from .actions import (BID, DECLARE, EXCHANGE, MARKS0, PASS, PLAY, PLUNGE, POINTS0, SIX_LEVELS,
                      SIX_TRUMPS, SPLASH)
from .rules import CONTRACT_NAMES, NELLO, SEVENS
from .state import (BIDDING, DECLARING, EXCHANGING, GAME_OVER, HAND_OVER, PHASE_NAMES,
                    IllegalActionError, State)

_M28 = np.uint64((1 << 28) - 1)


class Legality:
    """The rules of legality, in words and as tables (mixed into ``Game``)."""

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
