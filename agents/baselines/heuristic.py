"""A rule-based player of the standard game, written from 42 strategy (a six-player game is
handed to the Texas 88 rules of thumb of ``heuristic_six.py`` at ``setup``).

``HeuristicAgent`` sees what any seat sees: the imperfect-information observation (decoded by
field name from the game's ``ObservationEncoder``) and the legal mask. Which tiles follow
which suit and what beats what it reads from the rules tables (``RulesConfig.tables``),
never re-deriving them. A batch is decoded with NumPy once; each row is then decided in
plain Python on bitmasks (ints).

The rules of thumb, as the code applies them:

Bidding ("bid backwards")
  - For each possible trump (each suit, doubles, follow-me), start at 42 and take off the
    points the hand is likely to lose: each *off* (not a trump, and some tile the others
    hold beats it in its suit) gives away a trick and the count thrown on it; trumps are
    pulled from the top, each drawing two of theirs, and one that meets a higher trump is
    lost; each opponent trump left when ours run out threatens a sure winner. The costs per
    tile were fitted to self-play hands (class attributes ``*_LOSS``). The count an off
    carries did not add to its cost once the rest was fitted, so it is not counted apart.
    The best of these estimates is the hand's.
  - Bid when the estimate, less a margin (``BID_MARGIN`` = 3: the bidders then take 30 or
    more about three times in four), beats the high bid: the least points bid that beats
    it (30..41, the estimate the ceiling; the mask says what is legal). Bidding the
    estimate itself (``BID_LEAST = False``) lost 0.02 marks a hand to it. Pass otherwise.
  - Do not overcall a partner who holds the bid, unless the hand is a lay-down.
  - Marks with very strong hands: a lay-down (the top trumps draw every trump however they
    lie, and every other tile is a sure winner) or an estimate of 39 or more (all seven
    tricks ~88% of the time) bids the most marks the ladder allows (2m to open).
  - A forced dealer bids 30.
  - Plunge when the mask allows it and the hand holds ``PLUNGE_DOUBLES`` = 6 doubles. The
    rule's minimum of 4 is too few: forced 4-double plunges made only ~30% (5 doubles ~40%),
    each losing four marks; with 6 and follow-me they made ~90%.
  - Nello (the least mark bid, declared nello) with a very low hand: every tile is beaten,
    in each suit it belongs to, by at least two tiles of the others, and no trump is worth
    a bid.
  - Splash (off by default) rarely: ``SPLASH_DOUBLES`` = 6 doubles, when no plunge.

Declaring
  - The contract with the best estimate: the most trumps, weighted by holding the double
    and the high trumps (the estimate sees both); doubles when the doubles are the
    strongest trump suit; follow-me when the doubles and sure winners are strong and no
    suit is long.
  - Nello when the bid was made for it (a mark bid on a nello hand that is no lay-down).
  - After the partner's plunge or splash: follow-me, where the partner's doubles all walk
    (unless my own hand is a lay-down with a trump).
  - Sevens (off by default) only with six tiles of 6 to 8 pips after a mark bid.

Play
  - Lead trumps to pull them while the opponents may hold any: the top trump out (the
    double first); without it, the bidders lead a low trump to draw it out.
  - Then walk the sure winners (doubles first, then those with count), unless an opponent
    known to be void in the suit may still ruff.
  - Else lead cheaply: the least valuable non-count tile (trumps, sure winners, doubles and
    high tiles are kept).
  - Following with the partner winning: when the trick is safe (no opponent still to play
    can beat it, by the tiles out and the voids shown), feed count; when it is not, make it
    safe with a sure winner if the trick is worth it, else throw low.
  - Following with an opponent winning: win with the cheapest safe winner (a count tile that
    wins safely banks its count); trump in when void if the trick has count, every trick
    matters, or our trumps outnumber theirs; otherwise protect count: throw the least
    valuable non-count tile.
  - A contract that needs every trick (marks, plunge, splash): the bidders try to win each
    trick, the defenders take any trick they can.
  - Nello: the bidder leads the tile with the most outstanding tiles above it, and follows
    with the highest tile that still loses (void: sheds its most dangerous tile); the
    defenders lead low in suits the bidder holds, stay under the bidder's tile, and shed
    high tiles once the bidder is out of a trick.
  - Sevens: the mask already holds only the tiles closest to 7; feed count to a winning
    partner, keep it from the opponents.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from texas42_env import tiles as T
from texas42_env.actions import MARKS0, PASS, PLUNGE, POINTS0, SPLASH
from texas42_env.core import Game
from texas42_env.observation import make_encoder
from texas42_env.rules import FOLLOW_ME, NELLO, SEVENS, TRUMP_SUIT

from agents.base import Agent, Context, register
from agents.baselines.heuristic_six import SixPlayerHeuristic

ALL_TILES = (1 << T.N_TILES) - 1
COUNT = [int(x) for x in T.COUNT]
IS_DOUBLE = [bool(x) for x in T.IS_DOUBLE]


def _bits(m: int):
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


def _popcount(m: int) -> int:
    return m.bit_count()


@register("heuristic")
class HeuristicAgent(Agent):
    """Rule-based 42: bid backwards, pull trumps, walk doubles, feed the partner count. A
    six-player game is handed to ``SixPlayerHeuristic`` (``heuristic_six.py``) at ``setup``."""

    rulesets = ("standard", "six-player")
    _six = None  # the six-player player, when set up for a six-player game

    # Bidding backwards: the points a hand loses, per tile, fitted (least squares) to the
    # points taken in 40,000 self-play hands, each played out by the four heuristic seats
    # after the first bidder bid 30 and declared its best trump. (A refit after the play
    # rules settled moved them a little and played no better: kept.)
    OFF_LOSS = 3.6  # an off: the trick, and the count the others throw on it
    WALKER_LOSS = 2.8  # a non-double sure winner: ruffed, or fallen under the partner's
    HELD_LOSS = 0.3  # a trump or an off double: rarely lost
    TRUMP_LOSS = 2.6  # more for a trump that meets a higher one while pulling
    RUFF_LOSS = 1.4  # per opponent trump left when ours are out (it threatens a winner)
    BID_MARGIN = 3.0  # bid this far under the estimate (2 and 4 played worse)
    MARKS_EST = 39.0  # an estimate this high takes all 7 tricks ~88% of the time: bid marks
    BID_LEAST = True  # bid the least that beats the high bid, up to the estimate; False:
    # bid the estimate itself (it blocks more, and lost 0.02 marks a hand to this rule)
    PLUNGE_DOUBLES = 6  # doubles for a plunge (at least the rule's minimum: the mask's)
    SPLASH_DOUBLES = 6
    NELLO_MARGIN = 2  # nello: each tile beaten in each of its suits by this many others

    def __init__(self, seed: int = 0):
        self.seed = seed  # the agent is deterministic; the seed is kept for configs

    # ------------------------------------------------------------------ setup
    def setup(self, game: Game) -> "HeuristicAgent":
        super().setup(game)
        # Texas 88 has rules of thumb of its own
        self._six = SixPlayerHeuristic(self.seed).setup(game) if game.six else None
        if self._six is not None:
            self.fallbacks = 0
            return self
        self.encoder = make_encoder(game)
        self.rules = game.rules
        sp = game.actions
        self.contract0, self.play0 = sp.contract0, sp.play0
        tb = game.rules.tables
        nc = tb.rank.shape[0]
        self._led = tb.led.astype(int).tolist()
        self._rank = tb.rank.astype(int).tolist()
        self._follow = [[int(x) for x in row] for row in tb.follow]
        self._trumps = [self._follow[c][TRUMP_SUIT] for c in range(nc)]
        # _above[c][s][t]: tiles ranked above t in a trick that called for s (trumps included)
        above = []
        for c in range(nc):
            per_s = []
            for s in range(tb.rank.shape[1]):
                r = self._rank[c][s]
                per_s.append([sum(1 << u for u in range(T.N_TILES) if r[u] > r[t])
                              for t in range(T.N_TILES)])
            above.append(per_s)
        self._above = above
        self._sevens = [int(x) for x in tb.sevens_rank]
        # each contract's trumps, best first
        self._trump_order = [sorted(_bits(self._trumps[c]),
                                    key=lambda t, c=c: -self._rank[c][TRUMP_SUIT][t])
                             for c in range(nc)]
        self._evaluate = lru_cache(maxsize=1 << 16)(self._evaluate_hand)
        self._w28 = (1 << np.arange(T.N_TILES, dtype=np.int64))
        self._w9 = (1 << np.arange(9, dtype=np.int64))
        self.fallbacks = 0  # decisions where a rule proposed an illegal action (should stay 0)
        return self

    # ------------------------------------------------------------------ batch entry
    def act(self, observations: np.ndarray, masks: np.ndarray,
            context: Context | None = None) -> np.ndarray:
        """One action per row; only the observations and masks are read (no ``context``)."""
        if self._six is not None:
            actions = self._six.act(observations, masks, context)
            self.fallbacks = self._six.fallbacks
            return actions
        obs = np.asarray(observations, np.float32)
        masks = np.asarray(masks, bool)
        n = masks.shape[0]
        out = np.full(n, -1, np.int64)
        c0, p0 = self.contract0, self.play0
        bid_rows = np.flatnonzero(masks[:, :c0].any(axis=1))
        dec_rows = np.flatnonzero(masks[:, c0:p0].any(axis=1))
        play_rows = np.flatnonzero(masks[:, p0:].any(axis=1))
        if bid_rows.size:
            out[bid_rows] = self._bid_batch(obs[bid_rows], masks[bid_rows])
        if dec_rows.size:
            out[dec_rows] = self._declare_batch(obs[dec_rows], masks[dec_rows])
        if play_rows.size:
            out[play_rows] = self._play_batch(obs[play_rows], masks[play_rows])
        return out

    # ------------------------------------------------------------------ decoding
    def _tiles(self, f):
        """Bitmasks of tile indicator arrays [..., 28] (as int64)."""
        return (f > 0).astype(np.int64) @ self._w28

    def _legal_words(self, masks, start, stop):
        return (masks[:, start:stop].astype(np.int64) @ (1 << np.arange(stop - start,
                                                                         dtype=np.int64))).tolist()

    # ------------------------------------------------------------------ hand evaluation
    def _evaluate_hand(self, hand: int, c: int) -> tuple[float, bool, int]:
        """(estimated points, lay-down, offs) of ``hand`` declaring contract ``c`` and leading.

        Bid backwards: start from 42 and take off the points each tile is likely to lose.
        """
        rank, above, follow = self._rank, self._above, self._follow
        trumps = hand & self._trumps[c]
        loss = self.HELD_LOSS * _popcount(trumps)
        # pull trumps from the top: each of ours draws two outstanding (the others follow
        # low); one that meets a higher outstanding trump is lost. The lay-down test assumes
        # the worst split: each lead draws one.
        left = 0
        laydown = True
        if trumps:
            r = rank[c][TRUMP_SUIT]
            order = [t for t in self._trump_order[c]]
            mine = [t for t in order if hand >> t & 1]
            for draw in (2, 1):
                out = [t for t in order if not hand >> t & 1]
                lost = 0
                for t in mine:
                    if not out:
                        break
                    if r[t] > r[out[0]]:
                        del out[-draw:]
                    else:  # the higher trump out takes it; the others follow low
                        out.pop(0)
                        if draw > 1:
                            del out[-(draw - 1):]
                        lost += 1
                if draw == 2:
                    left = len(out)
                    loss += self.TRUMP_LOSS * lost
                elif lost or out:
                    laydown = False
        elif c < FOLLOW_ME:
            left = _popcount(self._trumps[c])
            laydown = False
        offs = walkers = 0
        for t in _bits(hand & ~trumps):
            s = self._led[c][t]
            if above[c][s][t] & follow[c][s] & ~hand:
                offs += 1
                loss += self.OFF_LOSS
            else:
                walkers += 1
                loss += self.HELD_LOSS if IS_DOUBLE[t] else self.WALKER_LOSS
        if offs:
            laydown = False
        loss += self.RUFF_LOSS * min(left, walkers)
        return 42.0 - loss, laydown, offs

    def _best_trump(self, hand: int, contracts) -> tuple[int, float, bool]:
        best = None
        for c in contracts:
            est, lay, _ = self._evaluate(hand, c)
            if best is None or (lay, est) > (best[2], best[1]):
                best = (c, est, lay)
        return best

    def _nello_hand(self, hand: int) -> bool:
        """Every tile is beaten, in each suit it belongs to, by NELLO_MARGIN tiles of others."""
        c = NELLO
        for t in _bits(hand):
            suits = {self._led[c][t]}
            if not IS_DOUBLE[t]:
                suits.add(int(T.LO[t]))
            for s in suits:
                if _popcount(self._above[c][s][t] & self._follow[c][s] & ~hand) < self.NELLO_MARGIN:
                    return False
        return True

    # ------------------------------------------------------------------ bidding
    def _bid_batch(self, obs, masks) -> list[int]:
        hands = self._tiles(self.encoder.field(obs, "hand")).tolist()
        high = self.encoder.index(obs, "high_bidder").tolist()
        legal = self._legal_words(masks, 0, self.contract0)
        return [self._bid_one(h, lg, hb) for h, lg, hb in zip(hands, legal, high)]

    def _bid_one(self, hand: int, legal: int, high_bidder: int) -> int:
        def ok(a):
            return legal >> a & 1

        _, est, laydown = self._best_trump(hand, range(FOLLOW_ME + 1))
        doubles = _popcount(hand & T.DOUBLES_MASK)
        forced = not ok(PASS)
        partner_high = high_bidder == 2
        marks = [a for a in range(MARKS0, PLUNGE) if ok(a)]
        # a lay-down (or nearly one) bids the most marks the ladder allows (2m to open)
        if marks and (laydown or est >= self.MARKS_EST):
            return self._check(legal, max(marks))
        if partner_high and not forced:
            return PASS
        # plunge: the doubles walk, the partner's trumps do the rest; four marks either way
        if ok(PLUNGE) and doubles >= self.PLUNGE_DOUBLES:
            return PLUNGE
        if ok(SPLASH) and doubles >= self.SPLASH_DOUBLES:
            return SPLASH
        # nello: a very low hand, no trump worth a bid; the least mark bid
        if self.rules.nello and marks and est < 30 and self._nello_hand(hand) \
                and min(marks) - MARKS0 + 1 >= self.rules.nello_min_marks \
                and min(marks) - MARKS0 + 1 <= 2:
            return min(marks)
        points = min(int(np.floor(est - self.BID_MARGIN)), 41)
        if self.BID_LEAST:  # the least legal points bid up to the estimate
            for a in range(POINTS0, POINTS0 + points - 29):
                if ok(a):
                    return a
        elif points >= 30 and ok(POINTS0 + points - 30):  # the estimate itself
            return POINTS0 + points - 30
        if forced:
            return self._check(legal, POINTS0)
        return PASS

    def _check(self, legal: int, a: int) -> int:
        if legal >> a & 1:
            return a
        self.fallbacks += 1
        return (legal & -legal).bit_length() - 1

    # ------------------------------------------------------------------ declaring
    def _declare_batch(self, obs, masks) -> list[int]:
        hands = self._tiles(self.encoder.field(obs, "hand")).tolist()
        bidder = self.encoder.index(obs, "bidder").tolist()
        bids = self.encoder.index(obs, "bids", (self.encoder.S, self.encoder.bid_features)).tolist()
        legal = self._legal_words(masks, self.contract0, self.play0)
        return [self.contract0 + self._declare_one(h, lg, b, bd)
                for h, lg, b, bd in zip(hands, legal, bidder, bids)]

    def _declare_one(self, hand: int, legal: int, bidder: int, bids: list[int]) -> int:
        def ok(c):
            return legal >> c & 1

        bid = bids[bidder] if bidder >= 0 else -1
        allowed = [c for c in range(FOLLOW_ME + 1) if ok(c)]
        c, est, laydown = self._best_trump(hand, allowed)
        if bid in (PLUNGE, SPLASH):
            # the partner holds (at least six) doubles: in follow-me they all walk, unless my
            # own hand is a lay-down with a trump
            if not laydown and ok(FOLLOW_ME):
                return FOLLOW_ME
            return self._check(legal, c)
        if ok(NELLO) and not laydown and est < 30 and self._nello_hand(hand):
            return NELLO
        if ok(SEVENS) and bid >= MARKS0 and not laydown:
            near = sum(1 for t in _bits(hand) if self._sevens[t] >= 9)
            if near >= 6:
                return SEVENS
        return self._check(legal, c)

    # ------------------------------------------------------------------ play
    def _play_batch(self, obs, masks) -> list[int]:
        n = len(obs)
        S = self.encoder.S
        hands = self._tiles(self.encoder.field(obs, "hand")).tolist()
        played = self._tiles(self.encoder.field(obs, "played_by").reshape(n, T.N_TILES, S)
                             .transpose(0, 2, 1)).tolist()  # [n][seat]
        trick = self.encoder.index(obs, "current_trick", (S, T.N_TILES)).tolist()
        voids = ((self.encoder.field(obs, "voids").reshape(n, S, 9) > 0).astype(np.int64)
                 @ self._w9).tolist()
        contract = self.encoder.index(obs, "contract").tolist()
        led = self.encoder.index(obs, "led_suit").tolist()
        bidder = self.encoder.index(obs, "bidder").tolist()
        sit_out = self.encoder.index(obs, "sits_out").tolist()
        bids = self.encoder.index(obs, "bids", (S, self.encoder.bid_features)).tolist()
        legal = self._legal_words(masks, self.play0, self.play0 + T.N_TILES)
        res = []
        for i in range(n):
            b = bidder[i]
            bid = bids[i][b] if b >= 0 else -1
            t = self._play_one(hands[i], legal[i], contract[i], led[i], trick[i], played[i],
                               voids[i], b, sit_out[i], bid)
            res.append(self.play0 + self._check(legal[i], t))
        return res

    def _play_one(self, hand, legal, c, led, trick, played_by, voids, bidder, sit_out,
                  bid) -> int:
        played = 0
        for m in played_by:
            played |= m
        unknown = ALL_TILES & ~hand & ~played
        in_trick = [s for s in range(len(trick)) if trick[s] >= 0]
        if c == SEVENS:
            return self._play_sevens(legal, trick, in_trick)
        if c == NELLO:
            return self._play_nello(hand, legal, led, trick, in_trick, unknown, voids, bidder,
                                    sit_out)
        us_bid = bidder in (0, 2)
        every = bid >= MARKS0  # marks, plunge, splash: the bidders need every trick
        trumps = self._trumps[c]
        opp_trumps = bool(unknown & trumps) and not all(
            voids[s] >> TRUMP_SUIT & 1 for s in (1, 3))
        if not in_trick:
            return self._lead(hand, c, unknown, voids, us_bid, every, trumps, opp_trumps)
        return self._follow_play(hand, legal, c, led, trick, in_trick, unknown, voids, sit_out,
                                 us_bid, every, trumps, opp_trumps)

    # value of keeping a tile: trumps, then sure winners, then doubles, then high tiles
    def _keep(self, t, c, unknown, trumps) -> float:
        s = self._led[c][t]
        v = self._rank[c][s][t] / 10.0  # 1.1 .. 3.8 within a suit and the trumps
        if trumps >> t & 1:
            v += 20
        elif not self._above[c][s][t] & self._follow[c][s] & unknown:
            v += 10
        elif IS_DOUBLE[t]:
            v += 5
        return v

    def _is_sure(self, t, c, s, unknown, voids, seats, trumps) -> bool:
        """Tile ``t`` (winning a trick that called for ``s``) cannot be beaten by an opponent
        among ``seats`` still to play: none of the outstanding tiles above it can follow,
        and no opponent known void in ``s`` may still hold a trump."""
        above = self._above[c][s][t] & unknown
        if not above:
            return True
        fol = above & self._follow[c][s]
        ruff = above & ~self._follow[c][s] & trumps
        for o in seats:
            if o not in (1, 3):
                continue
            void_s = voids[o] >> s & 1
            if fol and not void_s:
                return False
            if ruff and void_s and not voids[o] >> TRUMP_SUIT & 1:
                return False
        return True

    def _lead(self, hand, c, unknown, voids, us_bid, every, trumps, opp_trumps) -> int:
        rank, led = self._rank, self._led
        my_trumps = hand & trumps
        if my_trumps and opp_trumps:
            top = max(_bits(my_trumps), key=lambda t: rank[c][TRUMP_SUIT][t])
            boss = not self._above[c][TRUMP_SUIT][top] & unknown
            # pull trumps: the double (the top trump out) first ...
            if boss and (us_bid or every):
                return top
            # ... without it, a low trump draws the top one out (the bidder's side)
            if us_bid and _popcount(my_trumps) >= 2:
                return min(_bits(my_trumps),
                           key=lambda t: (COUNT[t], rank[c][TRUMP_SUIT][t]))
        # walk the sure winners (doubles first, then the ones carrying count)
        sure = []
        for t in _bits(hand):
            s = led[c][t]
            if trumps >> t & 1 and opp_trumps:
                continue
            if self._above[c][s][t] & unknown & self._follow[c][s]:
                continue
            if opp_trumps and not trumps >> t & 1 and any(
                    voids[o] >> s & 1 and not voids[o] >> TRUMP_SUIT & 1 for o in (1, 3)):
                continue  # an opponent would ruff it
            sure.append(t)
        if sure:
            off = [t for t in sure if not trumps >> t & 1] or sure
            return max(off, key=lambda t: (IS_DOUBLE[t], COUNT[t], -rank[c][led[c][t]][t]))
        # else lead cheaply: the least valuable tile, count last
        return min(_bits(hand), key=lambda t: (COUNT[t], self._keep(t, c, unknown, trumps)))

    def _follow_play(self, hand, legal, c, led, trick, in_trick, unknown, voids, sit_out,
                     us_bid, every, trumps, opp_trumps) -> int:
        rank = self._rank[c][led]
        best_seat = max(in_trick, key=lambda s: rank[trick[s]])
        best_rank = rank[trick[best_seat]]
        trick_pts = sum(COUNT[trick[s]] for s in in_trick)
        after = [s for s in (1, 2, 3) if s != sit_out and trick[s] < 0]
        options = list(_bits(legal))

        def keep(t):
            return self._keep(t, c, unknown, trumps)

        def throw_low():
            return min(options, key=lambda t: (COUNT[t], keep(t)))

        if best_seat == 2:  # the partner is winning
            if self._is_sure(trick[2], c, led, unknown, voids, after, trumps):
                return max(options, key=lambda t: (COUNT[t], -keep(t)))
            # not safe: make it safe with a sure winner when the trick is worth it
            sure = [t for t in options if rank[t] > best_rank
                    and self._is_sure(t, c, led, unknown, voids, after, trumps)]
            if sure and (trick_pts or every):
                return min(sure, key=lambda t: (keep(t) - COUNT[t], t))
            return throw_low()
        winners = [t for t in options if rank[t] > best_rank]
        if not winners:
            return throw_low()
        safe = [t for t in winners if self._is_sure(t, c, led, unknown, voids, after, trumps)]
        defend_every = every and not us_bid  # one trick sets a mark bid
        attack_every = every and us_bid
        if safe:
            follow_led = [t for t in safe if not (trumps >> t & 1) or led == TRUMP_SUIT]
            if follow_led:  # win cheaply; a count tile that wins safely banks its count
                return min(follow_led, key=lambda t: (keep(t) - 2 * COUNT[t], t))
            # trump in when void: when the trick has count or every trick matters
            if trick_pts or every or _popcount(hand & trumps) > _popcount(unknown & trumps):
                return min(safe, key=lambda t: (keep(t) - 2 * COUNT[t], t))
            return throw_low()
        # winners that may be overtaken: worth trying when every trick counts or there is
        # count to save and the partner plays after us
        if attack_every or defend_every or (trick_pts >= 10 and 2 in after):
            non_count = [t for t in winners if not COUNT[t]] or winners
            return max(non_count, key=lambda t: rank[t])
        return throw_low()

    # ------------------------------------------------------------------ nello and sevens
    def _play_nello(self, hand, legal, led, trick, in_trick, unknown, voids, bidder, sit_out):
        c = NELLO
        rank_all, above, follow, ledt = self._rank[c], self._above[c], self._follow[c], self._led[c]
        options = list(_bits(legal))

        def outs_above(t):  # outstanding tiles that beat t when t is led
            s = ledt[t]
            return _popcount(above[s][t] & follow[s] & unknown)

        if bidder == 0:  # I must lose every trick
            if not in_trick:
                return max(options, key=lambda t: (outs_above(t), rank_all[ledt[t]][t]))
            rank = rank_all[led]
            best = max(rank[trick[s]] for s in in_trick)
            losing = [t for t in options if rank[t] < best]
            if losing:
                followers = [t for t in losing if rank[t] > 0]
                if followers:  # duck with the highest tile that still loses
                    return max(followers, key=lambda t: rank[t])
                return min(losing, key=lambda t: (outs_above(t), -rank_all[ledt[t]][t]))
            return min(options, key=lambda t: rank[t])
        # a defender: make the bidder take a trick
        if not in_trick:
            live = [t for t in options if not voids[bidder] >> ledt[t] & 1] or options
            return min(live, key=lambda t: (rank_all[ledt[t]][t], t))
        rank = rank_all[led]
        best_seat = max(in_trick, key=lambda s: rank[trick[s]])
        if trick[bidder] >= 0:
            if best_seat == bidder:  # stay under the bidder's tile
                under = [t for t in options if rank[t] < rank[trick[bidder]]]
                if under:
                    return max(under, key=lambda t: (rank[t], rank_all[ledt[t]][t]))
                return min(options, key=lambda t: rank[t])
            return max(options, key=lambda t: rank_all[ledt[t]][t])  # shed high tiles
        # the bidder plays after me: go low so the bidder's tile stands above it
        return min(options, key=lambda t: (rank[t], rank_all[ledt[t]][t]))

    def _play_sevens(self, legal, trick, in_trick):
        options = list(_bits(legal))
        sev = self._sevens
        if in_trick:
            best_seat = max(in_trick, key=lambda s: sev[trick[s]])  # ties: order unknown here
            mine = sev[options[0]]  # every legal tile is as close to 7
            if best_seat == 2 and sev[trick[2]] >= mine:
                return max(options, key=lambda t: COUNT[t])
            if mine > sev[trick[best_seat]]:
                return max(options, key=lambda t: COUNT[t])
        return min(options, key=lambda t: COUNT[t])
