"""Bidding from hand values: simulate a hand under each contract, then bid by expected game
value.

Hand values. A hand's value under a contract is the distribution of the points its team
takes when its seat declares that contract and leads: ``worlds`` deals of the other 21
tiles are sampled uniformly (what a seat knows before any bid) and each is either played
out by a play agent at every seat, each seeing only its own view (``evaluate="playout"``,
the heuristic by default; all tricks played), or solved exactly with both sides seeing
everything (``evaluate="solve"``: double dummy, which overrates the declarer). ``HandValuer``
does this for many hands at once (one vectorized play-out for all of them), and
``make_curves`` turns the points into the chance of making each need 30..42.

The bid rule (``BidRule``) takes those chances, the game score and the auction so far. Each
legal bid is worth ``p * U(+m for us) + (1 - p) * U(+m for them)``, where ``p`` is the best
chance over the contracts of taking the bid's points (42 for marks bids), ``m`` its marks and
``U`` the marks difference plus ``game_weight * target`` times the chance of winning the game
from the score that results (marks to the target, each later hand a coin flip;
``game_weight=0``: marks only, a large one: the game only). Passing is
worth the same with the chance that our team takes the hand's marks anyway: ``q_partner``
when the partner holds the bid, ``1 - q_opp`` when an opponent does, ``q_open`` when no one
has bid. The seat takes the best. Nello, plunge and splash come from the heuristic (the
solver covers neither nello nor sevens).

``ValueBidder`` is the agent shell: bids and declares by the rule from estimates a subclass
gives (``SimBidder``, registered ``simbid``: hand values simulated on the spot;
``agents.bidnet.LearnedBidder``: a network's estimates), and plays with a separate play
agent (``play=``, the heuristic by default) so bidders can be compared under identical play.
Each bid it makes is logged with its predicted chance of making (``predictions``) for
calibration.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from texas42_env import tiles as T
from texas42_env.actions import MARKS0, MAX_MARKS, NO_ACTION, PASS, PLUNGE, POINTS0, SPLASH
from texas42_env.core import BIDDING, DECLARING, PLAYING, Game, State
from texas42_env.observation import make_encoder
from texas42_env.rules import DOUBLES, FOLLOW_ME, NELLO, SEVENS

from .base import Agent, Context, make_agent, register

CONTRACTS = tuple(range(7)) + (DOUBLES, FOLLOW_ME)  # 0s..6s, doubles, follow-me
NEEDS = np.arange(30, 43)  # the points a bid needs: 30..41 and 42 (all, for marks bids)
EVALUATIONS = ("playout", "solve")


# ---------------------------------------------------------------------- hand values
def deal_around(hands: np.ndarray, seat: int, n_worlds: int,
                rng: np.random.Generator) -> np.ndarray:
    """``n_worlds`` uniform deals of the other 21 tiles around each hand: uint64
    [n, n_worlds, 4] with ``hands`` at ``seat``."""
    hands = np.asarray(hands, np.uint64)
    n = hands.size
    bits = (hands[:, None] >> np.arange(T.N_TILES, dtype=np.uint64)) & np.uint64(1)
    others = np.argsort(bits, axis=1, kind="stable")[:, :T.N_TILES - 7]  # [n, 21] tile ids
    order = np.argsort(rng.random((n, n_worlds, T.N_TILES - 7)), axis=2)
    tiles = np.take_along_axis(np.broadcast_to(others[:, None, :], order.shape), order, 2)
    one = np.uint64(1) << tiles.astype(np.uint64)
    parts = one.reshape(n, n_worlds, 3, 7).sum(axis=3, dtype=np.uint64)
    dealt = np.empty((n, n_worlds, 4), np.uint64)
    dealt[:, :, seat] = hands[:, None]
    rest = [x for x in range(4) if x != seat]
    dealt[:, :, rest] = parts
    return dealt


def open_tables(game: Game, st: State, seat: int, contract) -> None:
    """Every table of ``st`` at its opening lead from its dealt hands: ``seat`` has won the
    bid at 30, declared ``contract`` (one, or one per table) and leads."""
    st.phase[:] = PLAYING
    st.bidder[:] = st.declarer[:] = st.leader[:] = st.to_move[:] = seat
    st.high_bidder[:] = seat
    st.high_action[:] = POINTS0
    st.contract[:] = contract
    st.need[:] = 30
    st.hands[:] = st.dealt
    game._update_legal(st, np.arange(st.batch_size))


def play_out(game: Game, st: State, agent: Agent, encoder=None) -> None:
    """Play every table of ``st`` to the end of its hand, ``agent`` at every seat."""
    encoder = encoder if encoder is not None else make_encoder(game)
    n = st.batch_size
    while True:
        active = np.flatnonzero(st.phase == PLAYING)
        if active.size == 0:
            return
        a = np.full(n, NO_ACTION, np.int64)
        seats = st.to_move[active]
        obs = encoder.encode(st, seats, idx=active) if agent.needs_observation else None
        ctx = Context(game, st, active, seats) if agent.needs_state else None
        a[active] = agent.act(obs, st.legal[active], ctx)
        game.step(st, a)


class HandValuer:
    """Points a hand's team takes under each contract of ``contracts`` in ``worlds`` sampled
    deals, its seat declaring and leading (see the module's docstring).

    ``evaluate``: ``"playout"`` (``play`` agent at every seat, all tricks played) or
    ``"solve"`` (exact, double dummy). ``batch``: tables played out at once.
    """

    def __init__(self, rules=None, evaluate: str = "playout", play: str | Agent = "heuristic",
                 worlds: int = 16, contracts=CONTRACTS, batch: int = 8192):
        from texas42_env.rules import RulesConfig

        if evaluate not in EVALUATIONS:
            raise ValueError(f"evaluate: {evaluate!r}; allowed: {', '.join(EVALUATIONS)}")
        if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or worlds < 1:
            raise ValueError(f"worlds must be a positive integer, got {worlds!r}")
        rules = rules or RulesConfig.make()
        if rules.ruleset != "standard":
            raise ValueError("hand values are simulated for the standard ruleset only")
        bad = [c for c in contracts if c not in CONTRACTS]
        if bad or not contracts:
            raise ValueError(f"contracts must be among {CONTRACTS} (suits, doubles, "
                             f"follow-me), got {tuple(contracts)}")
        self.evaluate, self.worlds = evaluate, int(worlds)
        self.contracts = tuple(int(c) for c in contracts)
        self.batch = max(int(batch), len(self.contracts) * self.worlds)
        self.game = Game(replace(rules, play_out=True))  # all tricks: the points are the value
        self.encoder = make_encoder(self.game)
        self.player = (play if isinstance(play, Agent) else make_agent(play)).setup(self.game) \
            if evaluate == "playout" else None

    def values(self, hands: np.ndarray, rng: np.random.Generator, seat: int = 0,
               contracts: np.ndarray | None = None, worlds: np.ndarray | None = None
               ) -> np.ndarray:
        """uint8 [n, k, worlds]: the points ``hands`` (uint64 [n]) take under ``contracts``
        (int [n, k], each hand its own; default: ``self.contracts`` for every hand), in
        ``worlds`` (uint64 [n, worlds, 4] deals; default: sampled by ``deal_around``)."""
        hands = np.atleast_1d(np.asarray(hands, np.uint64))
        if contracts is None:
            contracts = np.broadcast_to(np.array(self.contracts), (hands.size, len(self.contracts)))
        contracts = np.asarray(contracts, np.int64)
        C, W = contracts.shape[1], self.worlds
        out = np.zeros((hands.size, C, W), np.uint8)
        per = max(1, self.batch // (C * W))
        for lo in range(0, hands.size, per):
            h = hands[lo:lo + per]
            dealt = deal_around(h, seat, W, rng) if worlds is None else \
                np.asarray(worlds[lo:lo + per], np.uint64)  # [m, W, 4]
            m = h.size
            st = self.game.reset(m * C * W, seed=0)
            st.dealt[:] = np.repeat(dealt[:, None], C, axis=1).reshape(-1, 4)
            open_tables(self.game, st, seat, np.repeat(contracts[lo:lo + m], W, axis=1).ravel())
            if self.evaluate == "playout":
                play_out(self.game, st, self.player, self.encoder)
                pts = st.points[:, seat % 2]
            else:
                from .solver import solve_value

                pts = np.array([solve_value(self.game, st, k) for k in range(st.batch_size)])
            out[lo:lo + m] = pts.reshape(m, C, W)
        return out


def auction_worlds(game: Game, st: State, t: int, seat: int, n_worlds: int, candidates: int,
                   model: Agent, encoder, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """``n_worlds`` deals around ``seat``'s hand at table ``t`` that fit the bids before its
    own, as far as ``model`` (the heuristic) would have made them: ``candidates`` deals are
    drawn uniformly, the auction so far is replayed in each with ``model`` bidding for the
    other seats, and the deals where it bids every bid as it was bid come first (the rest,
    in random order, fill up when too few fit). Returns (uint64 [n_worlds, 4], how many fit).
    A seat about to make the first bid has nothing to fit: uniform deals."""
    hand = np.array([st.hands[t, seat]], np.uint64)
    k = bids_before(st, t, seat)
    if k == 0:
        return deal_around(hand, seat, n_worlds, rng)[0], n_worlds
    dealt = deal_around(hand, seat, candidates, rng)[0]  # [M, 4]
    M = len(dealt)
    sim = game.reset(M, seed=0)
    game.set_hands(sim, np.arange(M), dealt, np.full(M, int(st.dealer[t])))
    fits = np.ones(M, bool)
    for j in range(k):
        seats = sim.to_move.copy()
        guess = model.act(encoder.encode(sim, seats), sim.legal, None)
        bid = int(st.bids[t, j])
        ok = sim.legal[:, bid]
        fits &= ok & (guess == bid)
        game.step(sim, np.where(ok, bid, guess))
    order = np.lexsort((rng.random(M), ~fits))  # fitting deals first, each group shuffled
    return dealt[order[:n_worlds]], int(min(fits.sum(), n_worlds))


def longest_suits(hands: np.ndarray, k: int) -> np.ndarray:
    """int [n, k + 2]: each hand's ``k`` longest suits (ties to the lower suit), doubles and
    follow-me: the contracts worth valuing."""
    hands = np.atleast_1d(np.asarray(hands, np.uint64))
    suit_masks = np.array([T.mask_of(T.suit_tiles(c)) for c in range(7)], np.uint64)
    held = (hands[:, None] & suit_masks[None, :])
    counts = np.array([[bin(int(x)).count("1") for x in row] for row in held])
    top = np.argsort(-counts, axis=1, kind="stable")[:, :k]
    extra = np.broadcast_to(np.array([DOUBLES, FOLLOW_ME]), (hands.size, 2))
    return np.concatenate([top, extra], axis=1)


def make_curves(points: np.ndarray) -> np.ndarray:
    """float [..., contracts, 13]: the share of worlds (last axis of ``points``) taking at
    least each need of ``NEEDS``."""
    p = np.asarray(points)
    return (p[..., None] >= NEEDS).mean(axis=-2)


# ---------------------------------------------------------------------- the bid rule
@lru_cache(maxsize=None)
def win_table(target: int) -> np.ndarray:
    """W[a, b]: the chance of winning a game to ``target`` marks from ``a`` marks against
    ``b`` when each later hand's mark is a coin flip; indices run past the target by more
    than the largest bid (scores at or past the target are won or lost)."""
    size = 2 * target + MAX_MARKS + 8  # room for any score plus any bid
    w = np.zeros((size, size))
    for a in range(size - 1, -1, -1):
        for b in range(size - 1, -1, -1):
            if a >= target:
                w[a, b] = 1.0
            elif b >= target:
                w[a, b] = 0.0
            else:
                w[a, b] = 0.5 * w[a + 1, b] + 0.5 * w[a, b + 1]
    w.setflags(write=False)
    return w


def _outcome_value(target, scoring, game_weight, us, them, du, dt) -> float:
    """An outcome's worth: its marks difference plus ``game_weight * target`` times the
    chance of winning the game from the score it leaves (marks scoring only)."""
    value = float(du - dt)
    if game_weight > 0 and scoring == "marks":
        us, them = min(us, target), min(them, target)
        value += game_weight * target * win_table(target)[us + du, them + dt]
    return value


@lru_cache(maxsize=4096)
def _outcomes(target, scoring, game_weight, us, them) -> tuple[list[float], list[float]]:
    """([U(m, 0)], [U(0, m)]) for m = 0..MAX_MARKS at one score: the lotteries' prizes."""
    marks = range(MAX_MARKS + 1)
    return ([_outcome_value(target, scoring, game_weight, us, them, m, 0) for m in marks],
            [_outcome_value(target, scoring, game_weight, us, them, 0, m) for m in marks])


def high_marks(st: State, t: int) -> int:
    """The marks the high bid at table ``t`` is worth during the auction (standard: 1 for
    points, m for an m-mark bid, a plunge's or splash's value); ``bid_marks`` of the state
    is only set once the bidding ends."""
    return min(max(int(st.high_level[t]) - 12, 1), MAX_MARKS)


def bids_before(st: State, t: int, seat: int) -> int:
    """How many bids came before ``seat``'s own at table ``t``: all so far while it is to
    bid, else its place in the bidding order."""
    if int(st.phase[t]) == BIDDING:
        return int(st.n_bids[t])
    return (seat - int(st.first_bidder[t])) % st.n_seats


def bid_marks(action: int) -> int:
    """Marks a standard bid action is worth: 1 for a points bid, m for an m-mark bid."""
    return action - MARKS0 + 1 if action >= MARKS0 else 1


def bid_need(action: int) -> int:
    """Points a standard bid needs: 30..41, or 42 for a marks bid."""
    return 42 if action >= MARKS0 else 29 + action


@dataclass(frozen=True)
class BidRule:
    """Pick the bid (or pass) with the best expected game value; see the module docstring.

    ``q_open``/``q_partner``/``q_opp``: the chance our team takes the hand's marks when the
    seat passes with no bid yet / the partner holding the bid / an opponent holding it (the
    opponents' make rate). ``game_weight``: how much the chance of winning the game (marks
    scoring) counts beside the marks difference: an outcome is worth its marks difference
    plus ``game_weight * target`` times that chance (0: the score does not matter).
    """

    q_open: float = 0.5
    q_partner: float = 0.7
    q_opp: float = 0.7
    game_weight: float = 1.0  # marks + the game: as many marks a game as 0, more games won

    def __post_init__(self):
        if isinstance(self.game_weight, bool) or not isinstance(self.game_weight, (int, float)) \
                or not self.game_weight >= 0:
            raise ValueError(f"game_weight must be a number >= 0, got {self.game_weight!r}")
        for f in ("q_open", "q_partner", "q_opp"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise ValueError(f"{f} must be a probability in [0, 1], got {v!r}")

    def _outcomes(self, game, score, team) -> tuple[list[float], list[float]]:
        """([U(m, 0)], [U(0, m)]) for m = 0..MAX_MARKS."""
        return _outcomes(game.target, game.rules.scoring, self.game_weight,
                         int(score[team]), int(score[team ^ 1]))

    def choose(self, curves: np.ndarray, mask: np.ndarray, st: State, t: int, s: int,
               game: Game) -> tuple[int, float]:
        """(bid action, predicted chance of making it; nan for a pass) at table ``t``, seat
        ``s``; ``curves``: [contracts, 13] chances of taking each need; ``mask``: the legal
        actions (bools, an array or a list)."""
        best = curves.max(axis=0).tolist()  # the best contract's chance per need
        team = s & 1
        up, down = self._outcomes(game, st.score[t], team)
        legal = mask.tolist() if isinstance(mask, np.ndarray) else mask
        choices = []  # (value, action, chance), pass first, then bids upwards
        if legal[PASS]:
            hb = int(st.high_bidder[t])
            if hb < 0:
                m, q = 1, self.q_open
            else:
                m = high_marks(st, t)
                q = self.q_partner if (hb & 1) == team else 1.0 - self.q_opp
            choices.append((q * up[m] + (1.0 - q) * down[m], PASS, np.nan))
        a = next((a for a in range(POINTS0, MARKS0) if legal[a]), None)
        if a is not None:  # every points bid is one mark: the least has the best chance
            p = best[bid_need(a) - 30]
            choices.append((p * up[1] + (1.0 - p) * down[1], a, p))
        p = best[-1]
        for a in range(MARKS0, PLUNGE):
            if legal[a]:
                m = a - MARKS0 + 1
                choices.append((p * up[m] + (1.0 - p) * down[m], a, p))
        if not choices:  # only plunge/splash left: the least of them
            return legal.index(True), np.nan
        # the best value; ties to the earliest (pass, then the least bid)
        top = max(c[0] for c in choices)
        v, a, p = next(c for c in choices if c[0] == top)
        return int(a), float(p)


# ---------------------------------------------------------------------- the agents
class ValueBidder(Agent):
    """Bids and declares by ``BidRule`` from ``estimates``; plays as ``play``. Subclasses
    give ``estimates(hands, where) -> [n, contracts, 13]`` (chances per need, contracts in
    ``CONTRACTS`` order). ``explore``: the chance of bidding the least points bid where the
    rule passes (for self-play data; 0 in play)."""

    rulesets = ("standard",)

    def __init__(self, play: str = "heuristic", q_open: float = 0.5, q_partner: float = 0.7,
                 q_opp: float = 0.7, game_weight: float = 1.0, explore: float = 0.0,
                 seed: int = 0):
        self.rule = BidRule(q_open, q_partner, q_opp, game_weight)
        if not 0.0 <= explore <= 1.0:
            raise ValueError(f"explore must be a probability in [0, 1], got {explore!r}")
        self.explore = float(explore)
        self.explore_rng = np.random.default_rng(seed)
        self.play_spec = play
        self.predictions: dict[tuple[int, int, int], tuple[int, float]] = {}
        self._nello: set[tuple[int, int, int]] = set()  # (game, hand, seat) that bid nello

    needs_state = True  # bidding reads the score and the auction

    def setup(self, game: Game):
        from .heuristic import HeuristicAgent

        super().setup(game)
        self.fallback = HeuristicAgent().setup(game)  # nello, plunge, splash, sevens
        self.player = self.fallback if self.play_spec == "heuristic" else \
            make_agent(self.play_spec).setup(game)
        return self

    def estimates(self, hands: np.ndarray, where=None) -> np.ndarray:
        """float [n, contracts, 13]: each hand's chance of taking each need per contract;
        ``where``: (state, tables, seats) of the decisions, for estimators that read the
        auction."""
        raise NotImplementedError

    def act(self, observations, masks, context=None):
        if context is None:
            raise ValueError(f"{self.name!r} needs the table's context (score and auction)")
        st, game = context.state, context.game
        phase = st.phase[context.tables]
        if (phase == BIDDING).all():  # the common call in an auction: bids only
            tabs, seats = context.tables, context.seats
            curves = self.estimates(st.hands[tabs, seats], (st, tabs, seats))
            return np.array([self._bid(game, st, t, s, m, c) for t, s, m, c in
                             zip(tabs.tolist(), seats.tolist(), masks, curves)], np.int64)
        out = np.full(len(masks), NO_ACTION, np.int64)
        play = np.flatnonzero(phase == PLAYING)
        if play.size:
            sub = Context(game, st, context.tables[play], context.seats[play])
            obs = observations[play] if observations is not None else None
            out[play] = self.player.act(obs, masks[play],
                                        sub if self.player.needs_state else None)
        rows = np.flatnonzero(phase != PLAYING)
        if rows.size == 0:
            return out
        tabs, seats = context.tables[rows], context.seats[rows]
        curves = self.estimates(st.hands[tabs, seats], (st, tabs, seats))
        declaring = np.flatnonzero(phase[rows] == DECLARING)
        fb = np.zeros(len(rows), np.int64)
        if declaring.size:  # nello and sevens contracts come from the heuristic
            fb[declaring] = self.fallback.act(observations[rows[declaring]],
                                              masks[rows[declaring]])
        for k, i in enumerate(rows.tolist()):
            t, s = int(tabs[k]), int(seats[k])
            if phase[i] == BIDDING:
                out[i] = self._bid(game, st, t, s, masks[i], curves[k])
            else:
                out[i] = self._declare(game, st, masks[i], int(fb[k]), curves[k], t)
        return out

    def _special(self, game, st, t, s, mask, curves) -> int | None:
        """Plunge, splash and nello bids by the heuristic's rules of thumb: six doubles
        plunge (or splash); a hand no trump contract would make at 30 (chance < 0.5) whose
        every tile is well beaten bids the least marks for nello. Not over the partner."""
        h = self.fallback
        if mask[PASS] and int(st.high_bidder[t]) == (s + 2) % 4:
            return None
        hand = int(st.hands[t, s])
        if mask[PLUNGE] or mask[SPLASH]:  # legal only with enough doubles
            doubles = bin(hand & T.DOUBLES_MASK).count("1")
            if mask[PLUNGE] and doubles >= h.PLUNGE_DOUBLES:
                return PLUNGE
            if mask[SPLASH] and doubles >= h.SPLASH_DOUBLES:
                return SPLASH
        rules = game.rules
        if rules.nello:
            least = next((a for a in range(MARKS0, PLUNGE) if mask[a]), None)
            if least is not None and rules.nello_min_marks <= least - MARKS0 + 1 <= 2 \
                    and curves[:, 0].max() < 0.5 and h._nello_hand(hand):  # the 30 column
                self._nello.add((int(st.game_id[t]), int(st.hand_no[t]), s))
                return least
        return None

    def _bid(self, game, st, t, s, mask, curves) -> int:
        mask = mask.tolist()  # a list indexes faster, and is read many times
        special = self._special(game, st, t, s, mask, curves)
        if special is not None:
            return special
        a, p = self.rule.choose(curves, mask, st, t, s, game)
        if a == PASS and self.explore and self.explore_rng.random() < self.explore:
            least = next((b for b in range(POINTS0, MARKS0) if mask[b]), None)
            if least is not None:  # exploring (self-play data): the least points bid instead
                a, p = least, float(curves[:, bid_need(least) - 30].max())
        if a != PASS:
            self.predictions[(int(st.game_id[t]), int(st.hand_no[t]), s)] = (a, p)
        return a

    def _declare(self, game, st, mask, fallback, curves, t) -> int:
        c0 = game.actions.contract0
        bid = int(st.high_action[t])
        key = (int(st.game_id[t]), int(st.hand_no[t]), int(st.to_move[t]))
        if key in self._nello:  # the seat bid for nello: it declares nello
            self._nello.discard(key)
            if mask[c0 + NELLO]:
                return c0 + NELLO
        if fallback - c0 in (NELLO, SEVENS) or bid in (PLUNGE, SPLASH):
            return fallback  # nello or sevens hands, and after the partner's plunge/splash
        i = bid_need(bid) - 30
        legal = [k for k, c in enumerate(CONTRACTS) if mask[c0 + c]]
        if not legal:
            return fallback
        # the likeliest to make the bid; ties to the better chance of every higher need
        k = max(legal, key=lambda k: (curves[k, i], curves[k].sum()))
        return c0 + CONTRACTS[k]


@register("simbid")
class SimBidder(ValueBidder):
    """Bids from hand values simulated on the spot (``HandValuer``): ``worlds`` deals for
    each of the hand's ``suits`` longest suits, doubles and follow-me (the other contracts
    count as never making), played out by ``evaluate_with`` (``evaluate="playout"``) or solved
    (``"solve"``). With ``infer`` the deals are drawn to fit the auction so far
    (``auction_worlds``: the bids before the seat's as the heuristic would make them, from
    ``candidates`` times as many uniform deals); without it they are uniform, so only the
    hand counts. Plays as ``play``. The pass chances were set on seed-0 games against the
    heuristic (``q_opp``, ``q_partner`` with the learned bidder, which is fast enough for
    1000-pair runs; ``q_open`` 0.6 rather than its 0.5 because these estimates, from 16
    worlds and the best of five contracts, run about 0.1 above the make rate)."""

    def __init__(self, worlds: int = 16, suits: int = 3, evaluate: str = "playout",
                 evaluate_with: str = "heuristic", play: str = "heuristic",
                 q_open: float = 0.6, q_partner: float = 0.7, q_opp: float = 0.7,
                 game_weight: float = 1.0, infer: bool = True, candidates: int = 8,
                 seed: int = 0):
        super().__init__(play, q_open, q_partner, q_opp, game_weight, seed=seed)
        if evaluate not in EVALUATIONS:
            raise ValueError(f"evaluate: {evaluate!r}; allowed: {', '.join(EVALUATIONS)}")
        if isinstance(suits, bool) or not isinstance(suits, int) or not 1 <= suits <= 7:
            raise ValueError(f"suits: the longest suits to value, 1..7, got {suits!r}")
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"worlds must be a positive integer, got {worlds!r}")
        if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
            raise ValueError(f"candidates must be a positive integer, got {candidates!r}")
        self.worlds, self.evaluate, self.evaluate_with = int(worlds), evaluate, evaluate_with
        self.suits, self.infer, self.candidates = suits, bool(infer), candidates
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._cache: dict[tuple, np.ndarray] = {}
        self.fitted: list[int] = []  # per inferred estimate: how many of its worlds fit

    def setup(self, game: Game):
        super().setup(game)
        if self.infer and game.rules.first_bidder != "left_of_dealer":
            raise ValueError("simbid: infer replays the auction from the seat left of the "
                             f"dealer; with first_bidder={game.rules.first_bidder!r} set "
                             "infer=false")
        self.valuer = HandValuer(game.rules, self.evaluate, self.evaluate_with, self.worlds)
        self._encoder = make_encoder(game)
        return self

    def _key(self, hand: int, where, i: int) -> tuple:
        if where is None or not self.infer:
            return (hand,)
        st, tabs, seats = where
        t, s = int(tabs[i]), int(seats[i])
        k = bids_before(st, t, s)
        if k == 0:
            return (hand,)
        return (hand, s, int(st.dealer[t]), tuple(st.bids[t, :k].tolist()))

    def estimates(self, hands: np.ndarray, where=None) -> np.ndarray:
        hands = np.asarray(hands, np.uint64)
        keys = [self._key(int(h), where, i) for i, h in enumerate(hands)]
        if len(self._cache) + len(keys) > 200_000:
            self._cache.clear()
        todo = {}
        for i, k in enumerate(keys):
            if k not in self._cache and k not in todo:
                todo[k] = i
        if todo:
            rows = np.array(list(todo.values()))
            h = hands[rows]
            worlds = None
            if any(len(k) > 1 for k in todo):
                st, tabs, seats = where
                worlds = np.empty((rows.size, self.worlds, 4), np.uint64)
                for j, (k, i) in enumerate(todo.items()):
                    if len(k) > 1:
                        worlds[j], fit = auction_worlds(
                            self.game, st, int(tabs[i]), int(seats[i]), self.worlds,
                            self.candidates * self.worlds, self.fallback, self._encoder,
                            self.rng)
                        self.fitted.append(fit)
                    else:
                        worlds[j] = deal_around(h[j:j + 1], int(seats[i]), self.worlds,
                                                self.rng)[0]
            which = longest_suits(h, self.suits)
            curves = np.zeros((rows.size, len(CONTRACTS), len(NEEDS)))
            if worlds is None:  # uniform worlds: the seat does not matter
                pts = self.valuer.values(h, self.rng, contracts=which)
            else:  # each row's worlds have its hand at its own seat: value them seat by seat
                pts = np.zeros((rows.size, which.shape[1], self.worlds), np.uint8)
                for s in range(4):
                    sel = np.flatnonzero(seats[rows] == s)
                    if sel.size:
                        pts[sel] = self.valuer.values(h[sel], self.rng, seat=s,
                                                      contracts=which[sel], worlds=worlds[sel])
            np.put_along_axis(curves, which[:, :, None], make_curves(pts), axis=1)
            for k, c in zip(todo, curves):
                self._cache[k] = c
        return np.stack([self._cache[k] for k in keys])


__all__ = ["BidRule", "CONTRACTS", "HandValuer", "NEEDS", "SimBidder", "ValueBidder",
           "auction_worlds", "bid_marks", "bid_need", "bids_before", "deal_around", "high_marks",
           "longest_suits", "make_curves", "open_tables", "play_out", "win_table"]
