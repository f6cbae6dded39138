"""World sampling (determinization): complete deals consistent with what one seat knows.

``sample_worlds(record, seat, n, rng)`` draws ``n`` deals of the tiles ``seat`` cannot see,
uniformly at random over every deal that agrees with all the seat knows, and returns them as a
``Worlds``; ``Worlds.states()`` turns them into a batched core ``State`` at the record's
position, so a search agent can step all the worlds at once. Deals are over tile instances, as
the core deals a uniform permutation of instances: uniform over instance assignments is the
posterior of a uniform deal given the facts below.

What the observer knows, and every world respects:
- its own hand, the bids, the contract, every tile played and by whom, each hand's size;
- voids: a seat that did not follow suit s holds no tile of s (the core's ``State.voids``);
- sevens: a seat that played a tile d away from 7 held none closer, so all it holds now is at
  least d away (the largest such d over its plays);
- ``first_bidder: holder_of_1_0``: the first bidder was dealt ``1-0``;
- a plunge (a splash) shows at least ``plunge_min_doubles`` (3) doubles in the bidder's hand
  as dealt (its hand now plus what it played);
- six-player: a bid naming a suit shows the bidder was dealt a tile of it (a double for
  ``doubles``); the bidder saw the cat and knows its exchange, so the cat now is known to it.
  The others know the number of swaps (``n_swaps``) and the exchange rules: discards are
  non-count, and a count tile of the cat must be taken, so the cat after the exchange holds no
  count tile unless the bidder had nothing left to discard for it, which needs every tile it
  then held to be a count tile (worlds where that is possible are drawn with that condition
  checked by rejection).

How: exact counting. The hidden tile instances fall into classes by the set of pseudo-seats (the
hidden hands, and the cat when it is unseen) allowed to hold them. A dynamic programme over the
classes, its state the capacity left in each pseudo-seat (and, for an "at least r of these
tiles" bid fact kept in it, how many such tiles are placed so far), counts the deals. Each
world draws its split of every class from the programme's conditional probabilities (all worlds
at once), then the instances of each class are shuffled among the seats of its split. The
standard game's plunge and splash facts are in the programme (exact, no rejection); the
six-player bid facts (and the rare count-tile-in-the-cat case) are checked by rejection on top
of the exact sampler, which keeps the draw exactly uniform over the true set (these facts
seldom reject; when they reject most draws the sampler puts them in the programme instead).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import tiles as T
from .actions import PASS, PLUNGE, SIX_TRUMPS, SPLASH
from .core import EXCHANGING, Game, State
from .counting import ClassDP
from .records import Record, parse_record, replay_steps
from .rules import CONTRACT_NAMES, SEVENS, SUIT_NAMES

CAT = -1  # the pseudo-seat of the cat (six-player)

_U1 = np.uint64(1)
_DOUBLES = T.DOUBLES_MASK
_COUNT_TYPES = T.mask_of(np.flatnonzero(T.COUNT))
_DIST = np.abs(T.PIPS.astype(np.int64) - 7)


def _inst(types: int, copies: int) -> int:
    """Instance bitmask of a tile-type bitmask (both copies in the six-player game)."""
    return types | (types << 28) if copies == 2 else types


def _lowbit(x: np.ndarray) -> np.ndarray:
    return x & (~x + _U1)


def _bit_index(bit: np.ndarray) -> np.ndarray:
    """Index of the single set bit of each nonzero uint64 (-1 where zero)."""
    return np.where(bit != 0, np.bitwise_count(bit - _U1).astype(np.int64), -1)


# ----------------------------------------------------------------------------- what a seat knows
@dataclass(frozen=True)
class _Quota:
    seats: int  # bitmask over pseudo-seats
    tiles: int  # instance bitmask
    need: int
    why: str


class _Knowledge:
    """Everything ``seat`` knows at a one-table state, as constraints on the hidden tiles."""

    def __init__(self, game: Game, st: State, seat: int):
        r = game.rules
        self.game, self.base, self.seat = game, st, seat
        S = self.S = game.n_seats
        six = self.six = game.six
        copies = r.copies
        phase, contract = int(st.phase[0]), int(st.contract[0])
        bidder = int(st.bidder[0])
        self.bidder = bidder
        n_swaps = int(st.n_swaps[0])
        cat_known = six and seat == bidder and contract >= 0
        exchanged = six and contract >= 0 and phase > EXCHANGING
        if six and phase == EXCHANGING and not cat_known and (
                n_swaps > 0 or int(st.ex_pending[0]) >= 0):
            raise ValueError("worlds in the middle of the exchange are known only to the bidder")
        self.cat_known, self.exchanged, self.n_swaps = cat_known, exchanged, n_swaps
        self.own_now, self.own_dealt = int(st.hands[0, seat]), int(st.dealt[0, seat])
        known = self.own_now | self.own_dealt
        if cat_known:
            known |= int(st.cat[0]) | int(st.dealt_cat[0])
        nplays = int(st.n_plays[0])
        plays = st.plays[0, :nplays].tolist()
        pseats = st.play_seats[0, :nplays].tolist()
        played_types = [0] * S
        others: list[list[int]] = [[] for _ in range(T.N_TILES)]
        far = [0] * S  # sevens: everything the seat holds is at least this far from 7
        for t, s in zip(plays, pseats):
            played_types[s] |= 1 << t
            if s != seat:
                others[t].append(s)
            if contract == SEVENS:
                far[s] = max(far[s], int(_DIST[t]))
        self.played_types = played_types

        # pseudo-seats and their capacities
        pseudo = [s for s in range(S) if s != seat]
        if six and not cat_known:
            pseudo.append(CAT)
        self.pseudo = pseudo
        self.pidx = {s: i for i, s in enumerate(pseudo)}
        P = self.P = len(pseudo)
        self.caps = np.array([int(st.cat[0] if s == CAT else st.hands[0, s]).bit_count()
                              for s in pseudo], np.int64)

        # the hidden instances; tiles played by others take the lowest free labels of their
        # tile (the core plays the first copy held), the hidden ones the rest
        played_inst = [0] * S
        hidden = []
        for t in range(T.N_TILES):
            labels = [t, t + 28][:copies]
            free = [lab for lab in labels if not known >> lab & 1]
            if len(others[t]) > len(free):
                raise ValueError(f"tile {T.tile_name(t)} was played more often than it can be")
            for lab, s in zip(free, others[t]):
                played_inst[s] |= 1 << lab
            hidden += free[len(others[t]):]
        self.played_inst = played_inst
        self.hidden = np.array(hidden, np.int64)
        if len(hidden) != int(self.caps.sum()):
            raise ValueError(f"the hidden hands hold {int(self.caps.sum())} tiles but "
                             f"{len(hidden)} tiles are unseen by seat {seat}")

        # tile types each pseudo-seat may not hold, and why
        tables = game.tables
        bad = [0] * P
        whys: list[list[str]] = [[] for _ in range(P)]
        for p, s in enumerate(pseudo):
            if s == CAT:
                continue
            v = int(st.voids[0, s])
            if contract >= 0 and contract != SEVENS and v:
                for suit in range(9):
                    if v >> suit & 1:
                        bad[p] |= int(tables.follow[contract, suit])
                        whys[p].append(f"void in {SUIT_NAMES[suit]}")
            if far[s]:
                bad[p] |= T.mask_of(np.flatnonzero(_DIST < far[s]))
                whys[p].append(f"sevens: nothing closer to 7 than {far[s]}")
            if not six and r.first_bidder == "holder_of_1_0" and s != int(st.first_bidder[0]):
                bad[p] |= 1 << T.tile_id(1, 0)
                whys[p].append("1-0 went to the first bidder")
        self.b_mode = False
        if CAT in self.pidx and exchanged:
            cp = self.pidx[CAT]
            hidden_count = sum(1 for lab in hidden if T.COUNT[lab % 28])
            self.b_mode = (n_swaps < 2 and not played_types[bidder] & ~_COUNT_TYPES
                           and hidden_count >= int(self.caps[self.pidx[bidder]]) + 1)
            if not self.b_mode:
                bad[cp] |= _COUNT_TYPES
                whys[cp].append("no count tile is left in the cat after the exchange")
        self.bad_types, self.whys = bad, whys
        self.bad_inst = [_inst(b, copies) for b in bad]
        allowed = np.zeros(len(hidden), np.int64)
        for i, lab in enumerate(hidden):
            t = lab % 28
            allowed[i] = sum(1 << p for p in range(P) if not bad[p] >> t & 1)
        self.allowed = allowed
        nobody = [T.tile_name(lab % 28) for lab, a in zip(hidden, allowed) if a == 0]
        if nobody:
            raise ValueError(f"no deal fits what seat {seat} has seen: {nobody[0]} can be in "
                             "no hidden hand (every seat that could hold it has shown void)")

        # bid facts: "at least `need` of these tiles in these pseudo-seats"
        quotas = []
        first = int(st.first_bidder[0])
        for i, a in enumerate(st.bids[0, :int(st.n_bids[0])].tolist()):
            s = (first + i) % S
            if s == seat or a == PASS:
                continue
            name = game.actions.name(a)
            if six:
                trump = (a - 1) % SIX_TRUMPS
                if trump == 8:  # follow-me needs nothing
                    continue
                types = _DOUBLES if trump == 7 else T.mask_of(T.suit_tiles(trump))
                need = 1 - bool(played_types[s] & types)
                seats = 1 << self.pidx[s]
                if s == bidder and exchanged and n_swaps and CAT in self.pidx:
                    seats |= 1 << self.pidx[CAT]  # the tile of the suit may have been discarded
                what = "a double" if trump == 7 else f"a tile of {CONTRACT_NAMES[trump]}"
                why = f"seat {s} bid {name}, so was dealt {what}"
            elif a in (PLUNGE, SPLASH):
                types = _DOUBLES
                least = r.plunge_min_doubles if a == PLUNGE else 3
                need = least - (played_types[s] & _DOUBLES).bit_count()
                seats = 1 << self.pidx[s]
                why = f"seat {s} bid {name}, so was dealt at least {least} doubles"
            else:
                continue
            if need > 0:
                quotas.append(_Quota(seats, _inst(types, copies), need, why))
        self.quotas = quotas
        for q in quotas:
            room = sum(int(self.caps[p]) for p in range(P) if q.seats >> p & 1)
            fits = sum(1 for lab, a in zip(hidden, allowed)
                       if q.tiles >> lab & 1 and a & q.seats)
            if min(room, fits) < q.need:
                raise ValueError(f"no deal fits what seat {seat} has seen: {q.why}, but only "
                                 f"{min(room, fits)} more such tiles can be in its hand")
        self._dps: dict = {}

    # ----- counting
    def dp(self, quotas: tuple[_Quota, ...] = (), exact: bool = False) -> tuple[ClassDP, dict]:
        key = (quotas, exact)
        if key in self._dps:
            return self._dps[key]
        hidden, allowed = self.hidden, self.allowed
        member = np.zeros((len(hidden), len(quotas)), bool)
        for j, q in enumerate(quotas):
            member[:, j] = [(q.tiles >> int(lab)) & 1 for lab in hidden]
        sig = allowed * (1 << len(quotas)) + (member * (1 << np.arange(len(quotas)))).sum(1)
        uniq, inv, sizes = np.unique(sig, return_inverse=True, return_counts=True)
        order = np.argsort(sizes, kind="stable")  # the largest class last: its split is forced
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        cls = rank[inv]  # class index of each hidden instance
        sizes = sizes[order]
        uniq = uniq[order]
        cls_allowed = (uniq >> len(quotas)).tolist()
        inq = ((uniq[:, None] >> np.arange(len(quotas))[None, :]) & 1).astype(bool)
        dp = ClassDP(sizes, cls_allowed, self.caps, inq, [q.seats for q in quotas],
                      [q.need for q in quotas], exact=exact)
        pos = np.argsort(cls, kind="stable")
        layout = {"inst": hidden[pos], "cls": cls[pos].astype(np.float64)}
        self._dps[key] = (dp, layout)
        return dp, layout

    def why_none(self, quotas=()) -> str:
        """Why no deal fits (when the count is 0), as best it can be said."""
        for p, s in enumerate(self.pseudo):
            fits = int(sum(1 for a in self.allowed if a >> p & 1))
            if fits < self.caps[p]:
                who = "the cat" if s == CAT else f"seat {s}"
                return (f"{who} holds {int(self.caps[p])} tiles but only {fits} unseen tiles fit "
                        f"what it has shown ({', '.join(self.whys[p])})")
        if quotas:
            return "the bids cannot all hold with the voids shown: " + "; ".join(
                q.why for q in quotas)
        return "the voids shown cannot all hold at once"

    # ----- drawing
    def draw(self, n: int, rng: np.random.Generator, quotas=()) -> np.ndarray:
        """Pseudo-seat hands (uint64 [n, P]) of ``n`` deals uniform under the allowed sets and
        ``quotas``."""
        dp, lay = self.dp(tuple(quotas))
        if not dp.total > 0:
            raise ValueError(f"no deal fits what seat {self.seat} has seen: "
                             + self.why_none(quotas))
        P, H = self.P, len(self.hidden)
        out = np.zeros((n, P), np.uint64)
        if H == 0:
            return out
        ks = dp.sample(n, rng)  # [n, K, P]
        keys = rng.random((n, H)) + lay["cls"][None, :]
        inst = lay["inst"][np.argsort(keys, axis=1)]
        seats = np.repeat(np.tile(np.arange(P), n * dp.K), ks.reshape(-1)).reshape(n, H)
        bits = _U1 << inst.astype(np.uint64)
        zero = np.uint64(0)
        for p in range(P):
            out[:, p] = np.bitwise_or.reduce(np.where(seats == p, bits, zero), axis=1)
        return out

    def checks(self, pseudo_hands: np.ndarray, quotas) -> np.ndarray:
        """Bool [n]: the deals that meet ``quotas`` and the count-tile-in-the-cat condition."""
        ok = np.ones(len(pseudo_hands), bool)
        for q in quotas:
            got = np.zeros(len(pseudo_hands), np.int64)
            for p in range(self.P):
                if q.seats >> p & 1:
                    got += np.bitwise_count(pseudo_hands[:, p] & np.uint64(q.tiles))
            ok &= got >= q.need
        if self.b_mode:
            cnt = np.uint64(_inst(_COUNT_TYPES, 2))
            post = pseudo_hands[:, self.pidx[self.bidder]] | np.uint64(
                self.played_inst[self.bidder])
            cat = pseudo_hands[:, self.pidx[CAT]]
            ok &= ((cat & cnt) == 0) | ((post & ~cnt) == 0)
            ok &= np.bitwise_count(cat & ~cnt) >= self.n_swaps  # discards are non-count
        return ok

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Pseudo-seat hands of ``n`` deals uniform over every fact (rejection on top of the
        programme for the facts not in it)."""
        in_dp = tuple(self.quotas) if not self.six else ()
        rest = [q for q in self.quotas if q not in in_dp]
        if not rest and not self.b_mode:
            return self.draw(n, rng, in_dp)
        got, parts, tried = 0, [], 0
        rate = 1.0
        while got < n:
            m = int(min(max((n - got) / rate * 1.2 + 16, 64), 1 << 16))
            hands = self.draw(m, rng, in_dp)
            ok = self.checks(hands, rest)
            tried += m
            acc = int(ok.sum())
            parts.append(hands[ok])
            got += acc
            rate = max((got + 1) / (tried + 1), 1e-4)
            if got == 0 and tried >= 1 << 22:
                raise ValueError(f"no deal fits what seat {self.seat} has seen: none of "
                                 f"{tried} deals drawn meets the bids and the exchange rules")
            if got < n and tried >= 4096 and rate < 0.02 and rest:
                # the facts reject most draws: count them into the programme instead
                in_dp, rest = tuple(self.quotas), []
                if not self.b_mode:
                    parts.append(self.draw(n - got, rng, in_dp))
                    break
        return np.concatenate(parts)[:n]

    def admits(self, hands: np.ndarray, cat: np.ndarray | None = None) -> np.ndarray:
        """Bool [n]: the deals (current hands [n, seats], cat [n]) that fit every fact, tile
        types compared (which copy of a tile is which does not matter)."""
        hands = np.atleast_2d(np.asarray(hands, np.uint64))
        n = len(hands)
        cat = np.zeros(n, np.uint64) if cat is None else np.broadcast_to(
            np.asarray(cat, np.uint64), (n,))
        ok = hands[:, self.seat] == np.uint64(self.own_now)
        if self.six and self.cat_known:
            ok &= cat == self.base.cat[0]
        ph = np.stack([cat if s == CAT else hands[:, s] for s in self.pseudo], axis=1) \
            if self.P else np.zeros((n, 0), np.uint64)
        ok &= (np.bitwise_count(ph) == self.caps[None, :]).all(1)
        for p in range(self.P):
            ok &= (ph[:, p] & np.uint64(self.bad_inst[p])) == 0
        want = np.zeros(T.N_TILES, np.int64)
        for lab in self.hidden.tolist():
            want[lab % 28] += 1
        have = np.zeros((n, T.N_TILES), np.int64)
        for t in range(T.N_TILES):
            bits = np.uint64(_inst(1 << t, self.game.rules.copies))
            have[:, t] = np.bitwise_count(ph & bits).sum(1)
        ok &= (have == want[None, :]).all(1)
        return ok & self.checks(ph, self.quotas)

    # ----- worlds
    def worlds(self, pseudo_hands: np.ndarray) -> "Worlds":
        st, S, n = self.base, self.S, len(pseudo_hands)
        hands = np.zeros((n, S), np.uint64)
        hands[:, self.seat] = np.uint64(self.own_now)
        cat = np.zeros(n, np.uint64)
        for p, s in enumerate(self.pseudo):
            if s == CAT:
                cat = pseudo_hands[:, p].copy()
            else:
                hands[:, s] = pseudo_hands[:, p]
        dealt = hands | np.array(self.played_inst, np.uint64)[None, :]
        dealt[:, self.seat] = np.uint64(self.own_dealt)
        if self.cat_known:
            cat[:] = st.cat[0]
            dealt_cat = np.full(n, st.dealt_cat[0], np.uint64)
        else:
            dealt_cat = cat.copy()
        ex_take = ex_discard = None
        if self.exchanged and not self.cat_known:
            ex_take, ex_discard = self._exchange(hands, cat, dealt, dealt_cat)
        return Worlds(hands=hands, cat=cat, dealt=dealt, dealt_cat=dealt_cat, seat=self.seat,
                      game=self.game, base=st, ex_take=ex_take, ex_discard=ex_discard)

    def _exchange(self, hands, cat, dealt, dealt_cat):
        """An exchange of the (unseen) bidder that leads to each world: discards from the cat
        (non-count; one of the bid's suit first when the hand has none left), takes from what
        the bidder held after it (other tiles than the bid's suit first). Fills ``dealt`` and
        ``dealt_cat`` in place; returns the exchange as tile types [n, 2] (-1: none)."""
        b, ns, n = self.bidder, self.n_swaps, len(hands)
        a = int(self.base.high_action[0])
        trump = (a - 1) % SIX_TRUMPS
        suit = 0 if trump == 8 else _inst(_DOUBLES if trump == 7 else
                                          T.mask_of(T.suit_tiles(trump)), 2)
        suit = np.uint64(suit)
        noncount = np.uint64(_inst(((1 << 28) - 1) & ~_COUNT_TYPES, 2))
        post = hands[:, b] | np.uint64(self.played_inst[b])
        lacks = (suit != 0) & ((post & suit) == 0)
        zero = np.uint64(0)
        left, discards = cat.copy(), []
        for j in range(ns):
            pool = left & noncount
            pref = np.where(lacks & (j == 0), pool & suit, zero)
            pick = _lowbit(np.where(pref != 0, pref, pool))
            left &= ~pick
            discards.append(pick)
        rest, takes = post.copy(), []
        for j in range(ns):
            pref = rest & ~suit
            pick = _lowbit(np.where(pref != 0, pref, rest))
            rest &= ~pick
            takes.append(pick)
        take_all = np.bitwise_or.reduce(takes, axis=0) if ns else np.zeros(n, np.uint64)
        disc_all = np.bitwise_or.reduce(discards, axis=0) if ns else np.zeros(n, np.uint64)
        dealt[:, b] = (post & ~take_all) | disc_all
        dealt_cat[:] = (cat & ~disc_all) | take_all
        ex_take = np.full((n, 2), -1, np.int64)
        ex_discard = np.full((n, 2), -1, np.int64)
        tt = [_bit_index(x) % 28 for x in takes]
        if ns == 2:  # count tiles are taken first (as a record's exchange is stepped)
            swap = (T.COUNT[tt[1]] > 0) & (T.COUNT[tt[0]] == 0)
            tt = [np.where(swap, tt[1], tt[0]), np.where(swap, tt[0], tt[1])]
        for j in range(ns):
            ex_take[:, j] = tt[j]
            ex_discard[:, j] = _bit_index(discards[j]) % 28
        return ex_take, ex_discard


# ----------------------------------------------------------------------------- the interface
@dataclass
class Worlds:
    """``n`` complete deals at one position, as one seat may imagine them.

    ``hands`` (uint64 [n, seats]): the tiles each seat holds now, the observer's row its real
    hand; ``cat`` (uint64 [n]): the six-player cat now (0 standard). ``dealt`` and
    ``dealt_cat``: the deal each world starts from (its record's hands and cat).
    """

    hands: np.ndarray
    cat: np.ndarray
    dealt: np.ndarray
    dealt_cat: np.ndarray
    seat: int
    game: Game
    base: State = field(repr=False)
    ex_take: np.ndarray | None = field(default=None, repr=False)
    ex_discard: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.hands)

    def states(self, game: Game | None = None) -> State:
        """A ``State`` of ``n`` tables at the position, one world each, legal masks computed
        from the worlds' hands."""
        game = game or self.game
        if game.rules != self.game.rules:
            raise ValueError("states: the game's rules are not the worlds' rules")
        n = len(self.hands)
        st = self.base.take(np.zeros(n, np.int64))
        st.hands[:] = self.hands
        st.dealt[:] = self.dealt
        st.cat[:] = self.cat
        st.dealt_cat[:] = self.dealt_cat
        if self.ex_take is not None:
            st.ex_take[:] = self.ex_take
            st.ex_discard[:] = self.ex_discard
        game.refresh_legal(st)
        return st




def replayed(record: dict | Record) -> tuple[Game, State]:
    """The game and a one-table state at the end of ``record``; ``ValueError`` (a
    ``RecordError`` for a malformed record) naming the first action that is not legal."""
    rec = record if isinstance(record, Record) else parse_record(record)
    game, st, e = replay_steps(rec)
    if e is None:
        return game, st
    if e.kind == "exchange":
        raise ValueError(f"record action {e.index} (exchange {e.raw}): {e.reason}")
    if e.kind in ("notation", "misplaced"):
        raise ValueError(f"record action {e.index}: {e.raw!r} is not a "
                         f"{e.where.rstrip('s')} action")
    raise ValueError(f"record action {e.index} ({e.raw}) is not legal for seat {e.seat}: "
                     f"{e.reason}")


def _check_seat(game: Game, seat: Any) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or \
            not 0 <= seat < game.n_seats:
        raise ValueError(f"seat must be a seat 0..{game.n_seats - 1}, got {seat!r}")
    return int(seat)


def worlds_from_state(game: Game, state: State, table: int, seat: int, n: int,
                      rng: np.random.Generator | int | None = None) -> Worlds:
    """``sample_worlds`` for table ``table`` of a batched ``state`` (only what ``seat`` may
    know of it is read)."""
    seat = _check_seat(game, seat)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive number of worlds, got {n!r}")
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    know = _Knowledge(game, state.take([table]), seat)
    return know.worlds(know.sample(int(n), rng))


def sample_worlds(record: dict | Record, seat: int, n: int,
                  rng: np.random.Generator | int | None = None) -> Worlds:
    """``n`` deals uniform over those consistent with all ``seat`` knows at the end of
    ``record`` (a game-record dict or a parsed ``Record``, possibly partial, either ruleset).

    Exact: classes of hidden tiles counted by a dynamic programme, each world's class splits
    drawn from it, tiles shuffled within classes; the six-player bid facts are checked by
    rejection on top (exactly uniform over the true set). See the module's docstring for the
    facts. ``ValueError`` for a bad seat or ``n``, an illegal record, or a position no deal fits.
    """
    game, st = replayed(record)
    return worlds_from_state(game, st, 0, seat, n, rng)


def count_worlds(record: dict | Record, seat: int, bids: bool = False) -> int:
    """How many deals (of tile instances) fit what ``seat`` knows from its hand, the plays, the
    voids, the sevens distances, the holder of 1-0 and the cat: the programme's total for the
    allowed-set facts. With ``bids=True`` the bid facts (plunge, splash, six-player suits) are
    counted too (not the rare count-tile-in-the-cat case)."""
    game, st = replayed(record)
    know = _Knowledge(game, st, _check_seat(game, seat))
    dp, _ = know.dp(tuple(know.quotas) if bids else (), exact=True)
    return int(dp.total)


