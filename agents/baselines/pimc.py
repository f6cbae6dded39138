"""PIMC: perfect-information Monte Carlo search over sampled worlds.

Play: for each decision the agent samples ``n_worlds`` complete deals consistent with what
its seat knows (``texas42_env.worlds``: exact, uniform), solves each with the exact solver
(``agents.search.solver``: every hand visible, perfect play by both sides) and plays the
move with the best average for its side: the bidding team's points in a suit, doubles or
follow-me hand; in nello the share of worlds where the bidder takes no trick (the bidder
most, the opponents fewest; ties to the fewest tricks for the bidder), since a nello is set
by any trick the bidder takes, however many follow (the trick count alone lost 0.08 marks a
nello hand to the heuristic, experiments/nello_sevens); in sevens the bidding team's tricks
(it most, the others fewest).

Bidding and declaring simulate the hand: ``bid_worlds`` worlds are sampled for the seat's
hand and, for each candidate contract (its longest suits, doubles, follow-me), played from
its opening lead with this seat declaring. ``bid_eval="playout"`` (default) plays them out
with the heuristic at every seat, each seeing only its own view; ``bid_eval="solve"`` solves
them double-dummy instead, which overrates the declarer (in the arena the bids it judged
70% safe were made ~55% of the time; ``margin`` adds points to the need to offset it). The
chance of making a level is the share of worlds where the declaring team takes its points;
the agent bids the least legal level it makes with chance >= ``make_prob`` (more only
preempts: every points bid is worth one mark), bids marks when it takes all 42 with chance
>= ``marks_prob`` (the most the ladder allows at >= 0.9), does not overcall its partner on
points, and declares the contract likeliest to make the bid. Bidding and declaring nello and
sevens, plunge and splash are left to the heuristic (their play is searched as above). The
figures for a hand are cached, so bidding and declaring reuse them.

The six-player game: a full solve from the first trick is too slow for search (about 65 ms a
solve with 6 tricks left, far more with 9; see ``agents.search.six``), so while more than
``exact_tricks`` tricks are left (default 5; in the standard game the whole hand is solved),
each legal play is valued in each world by playing it, rolling the world out with the
heuristic at every seat (each seeing only its own view in that world) until ``exact_tricks``
tricks are left, and solving from there exactly; from then on every world is solved. Its bidding, declaring and the exchange are the
six-player heuristic's.

Worlds that fit the auction (``bid_model``, e.g. ``"heuristic"``): the uniform worlds ignore
what bids and passes say about hands; with a bid model, ``oversample`` times ``n_worlds``
candidates are drawn, each weighed by how well the model explains the other seats' bids and
declaration in it (1 per agreeing decision, ``bid_floor`` per disagreeing one, so no world is
ruled out; ``agents.baselines.auction``), and ``n_worlds`` of them drawn in proportion to
their weights are searched (each distinct one once, counted by multiplicity).
``fit_stats`` sums, over the decisions, the candidates' effective number (Kish) and the
distinct worlds searched.

``objective="make"``: in suit, doubles and follow-me hands a play is chosen by the share of
worlds where the bid is made (the bidding team most, the others fewest), its points only
breaking ties: the hand's marks turn on making the bid, not on its points (the default,
``"points"``, plays for the most points on average).

Honest continuations (``exact_tricks=0``): each play is valued by the heuristic playing each
world out after it, every seat seeing only its own view, instead of double-dummy perfect
play (any ``exact_tricks`` below the hand's tricks rolls out until that many are left and
solves the rest). ``rollout`` names the agent that plays them (an agent that plays from its
observations, e.g. ``neural:path=...``; the heuristic by default).

A prior (``prior``: a net's agent, ``neural:path=...``): each legal play's score gains
``prior_weight`` times the net's log-probability of it, in the unit that decides the play:
worlds where the bid goes the mover's way (``objective="make"``, and nello's clean worlds),
else points (sevens: tricks) summed over the worlds; so where the worlds barely separate two
plays the net's choice decides.

Its draws are keyed (``texas42_env.sampling``): a play decision's worlds come from a
generator seeded by the decision's key, a hand's bidding worlds from one seeded by what the
figures are cached under, so a seed and the deals fix its actions whatever the batch layout.

Evidence (experiments/baselines): full PIMC beats the heuristic in duplicate matches.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from texas42_env import tiles as T
from texas42_env.actions import MARKS0, PASS, PLUNGE, POINTS0, SPLASH
from texas42_env.core import BIDDING, DECLARING, PLAYING, Game, State
from texas42_env.observation import make_encoder
from texas42_env.rules import DOUBLES, FOLLOW_ME, NELLO, SEVENS
from texas42_env.config import check, number, whole
from texas42_env.sampling import decision_keys, hash_key, keyed_generator
from texas42_env.worlds import worlds_from_state

from agents.base import Agent, make_agent, register
from agents.baselines.auction import AuctionFit
from agents.baselines.heuristic import HeuristicAgent
from agents.driver import play_out

SIX_EXACT_TRICKS = 5  # six-player: solved from 5 tricks left (1.6 ms median), rolled out before
PLAY_WORLDS, BID_WORLDS = 3, 4  # the salts of its keyed draws (with its seed)


def _model(spec, key: str = "bid_model") -> Agent:
    """The agent of ``key`` (``bid_model``, ``rollout``, ``prior``): an agent, or its spec
    (a name, ``NAME:KEY=VALUE`` or a dict)."""
    if isinstance(spec, Agent):
        return spec
    try:
        return make_agent(spec)
    except (ValueError, TypeError, OSError) as e:
        raise ValueError(f"pimc {key}: {e}") from None


@register("pimc")
class PimcAgent(Agent):
    needs_state = True
    needs_observation = True  # for the fallback agent
    rulesets = ("standard", "six-player")

    def __init__(self, n_worlds: int = 16, bid_worlds: int = 16, make_prob: float = 0.6,
                 marks_prob: float = 0.8, margin: int = 0, contracts: int = 3,
                 bidding: str = "simulate", bid_eval: str = "playout",
                 exact_tricks: int | None = None, bid_model=None, bid_floor: float = 0.05,
                 oversample: int = 4, objective: str = "points", rollout="heuristic",
                 prior=None, prior_weight: float = 1.0, seed: int = 0):
        for key, value, rule in (("n_worlds", n_worlds, whole(1)), ("bid_worlds", bid_worlds, whole(1)),
                                 ("make_prob", make_prob, number(0, 1)),
                                 ("marks_prob", marks_prob, number(0, 1)),
                                 ("margin", margin, whole(-42, 42)),
                                 ("contracts", contracts, whole(1, 7)), ("seed", seed, whole(0)),
                                 ("bid_floor", bid_floor, number(0, 1)),
                                 ("oversample", oversample, whole(1))):
            check(key, value, rule)
        if exact_tricks is not None:
            check("exact_tricks", exact_tricks, whole(0, 9))
        if bid_floor <= 0:
            raise ValueError(f"bid_floor: {bid_floor!r}; allowed: a number in (0, 1]")
        if bidding not in ("simulate", "heuristic"):
            raise ValueError(f"bidding: {bidding!r}; allowed: simulate, heuristic")
        if objective not in ("points", "make"):
            raise ValueError(f"objective: {objective!r}; allowed: points, make")
        self.objective = objective
        if bid_eval not in ("solve", "playout"):
            raise ValueError(f"bid_eval: {bid_eval!r}; allowed: solve, playout")
        self.bid_eval = bid_eval
        self.n_worlds, self.bid_worlds = n_worlds, bid_worlds
        self.make_prob, self.marks_prob, self.n_contracts = make_prob, marks_prob, contracts
        self.margin = margin
        self.exact_tricks = exact_tricks
        self._cache: dict[tuple, dict[int, np.ndarray]] = {}
        self.bidding = bidding
        self.seed = seed
        self.bid_model, self.bid_floor, self.oversample = bid_model, bid_floor, oversample
        self.model = None if bid_model is None else _model(bid_model)
        self.rollout = rollout
        self.roller = None if rollout == "heuristic" else _model(rollout, "rollout")
        if self.roller is not None and self.roller.needs_state:
            raise ValueError(f"pimc rollout: {rollout!r} searches; the roll-outs need an agent "
                             "that plays from its observations (heuristic, neural:path=...)")
        check("prior_weight", prior_weight, number(0, 1000))
        self.prior_weight = prior_weight
        self.prior = None if prior is None else _model(prior, "prior")
        if self.prior is not None and not hasattr(self.prior, "policy"):
            raise ValueError(f"pimc prior: {prior!r} has no policy to weigh the moves by "
                             "(neural:path=...)")
        self.auction = None
        self.fit_stats = {"decisions": 0, "effective": 0.0, "distinct": 0}

    def setup(self, game):
        super().setup(game)
        if self.model is not None:
            self.auction = AuctionFit(game, self.model.setup(game), self.bid_floor)
        if self.prior is not None:
            self.prior.setup(game)
        # bidding with bidding="heuristic", and nello, sevens, plunge and splash bids, go to
        # the heuristic
        self.fallback = HeuristicAgent().setup(game)
        return self

    def act(self, observations, masks, context=None):
        if context is None:
            raise ValueError("PimcAgent needs the table's context (it searches)")
        out = self.fallback.act(observations, masks)
        six = context.game.six
        prior = None
        if self.prior is not None:  # the prior's log-probabilities at the play decisions
            play = np.flatnonzero(context.state.phase[context.tables] == PLAYING)
            prior = np.zeros(masks.shape, np.float32)
            if play.size:
                prior[play] = self.prior.policy.log_probs(observations[play], masks[play])
        for i, (t, s) in enumerate(zip(context.tables, context.seats)):
            phase = int(context.state.phase[t])
            if phase == PLAYING:
                out[i] = self._play(context, int(t), int(s), masks[i],
                                    None if prior is None else prior[i])
            elif six:  # bidding, declaring and the exchange: the six-player heuristic's
                continue
            elif phase == BIDDING and self.bidding == "simulate":
                out[i] = self._bid(context, int(t), int(s), masks[i], int(out[i]))
            elif phase == DECLARING and self.bidding == "simulate":
                out[i] = self._declare(context, int(t), int(s), masks[i], int(out[i]))
        return out

    # ------------------------------------------------------------------ play
    def _play(self, ctx, t, s, mask, prior: np.ndarray | None = None) -> int:
        game, st = ctx.game, ctx.state
        p0 = game.actions.play0
        only = np.flatnonzero(mask[p0:])
        if only.size == 1:  # a forced play (a third of them): nothing to search
            return p0 + int(only[0])
        legal, values, mult = self.move_values(game, st, t, s, mask)
        total = mult @ values
        bidder = int(st.bidder[t])
        if int(st.contract[t]) == NELLO:  # values are the bidder's tricks: made only if none
            # the share of worlds where the bidder takes no trick decides, not the count of
            # tricks it takes once set; fewer tricks only breaks ties
            clean = mult @ (values == 0)
            sign = -1 if s == bidder else 1
            scores = -sign * clean * 1000 + sign * total
        else:  # the bidding team's points (sevens: tricks): it wants most
            mine = (s & 1) == (bidder & 1)
            scores = total if mine else -total
            c = int(st.contract[t])
            if self.objective == "make" and c != SEVENS:
                # the share of worlds where the bid is made decides; points break ties
                made = mult @ bid_made(values, c, int(st.need[t]), game)
                scores = scores + (1000 if mine else -1000) * made
        if prior is not None:  # prior_weight worlds (or points) a nat of the prior
            unit = 1000 if int(st.contract[t]) == NELLO or (
                self.objective == "make" and int(st.contract[t]) != SEVENS) else 1
            scores = scores + self.prior_weight * unit * prior[p0 + legal]
        return p0 + int(legal[np.argmax(scores)])

    def move_values(self, game, st: State, t: int, s: int, mask: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the search knows of seat ``s``'s play decision at table ``t``: the legal
        tiles (ids), each one's value in each searched world (``[worlds, tiles]``; the
        solver's measure: the bidding team's points, in nello the bidder's tricks, in
        sevens the bidding team's tricks) and how often each world counts."""
        rng = keyed_generator(decision_keys(st, [t], [s], (self.seed, PLAY_WORLDS)))
        worlds, mult = self._worlds(game, st, t, s, rng)
        legal = np.flatnonzero(mask[game.actions.play0:])
        if game.n_tricks - int(st.trick_no[t]) > self._exact(game):
            return legal, self._rolled_values(game, worlds, legal), mult
        from agents.search.solver import _solver  # numba: compiled when first used

        solver = _solver()
        values = np.zeros((worlds.batch_size, legal.size))
        for k in range(worlds.batch_size):
            moves = solver.position(game, worlds, k)[1]  # tile ids
            values[k] = [moves[tile] for tile in legal]
        return legal, values, mult

    def _worlds(self, game, st, t, s, rng) -> tuple[State, np.ndarray]:
        """The worlds to search at table ``t`` for seat ``s`` and how often each counts:
        ``n_worlds`` uniform ones, or with a ``bid_model`` that many drawn in proportion to
        their auction weights from ``oversample`` times more (``agents.baselines.auction``;
        each distinct world once, counted by its multiplicity; the effective number of the
        candidates kept in ``fit_stats``)."""
        if self.auction is None:
            worlds = worlds_from_state(game, st, t, s, self.n_worlds, rng)
            return worlds.states(game), np.ones(self.n_worlds)
        worlds = worlds_from_state(game, st, t, s, self.n_worlds * self.oversample, rng)
        w = self.auction.weights(worlds)
        keep, mult = self.auction.resample(w, self.n_worlds, rng)
        stats = self.fit_stats
        stats["decisions"] += 1
        stats["effective"] += self.auction.effective(w)
        stats["distinct"] += keep.size
        return worlds.states(game).take(keep), mult.astype(float)

    def _rolled_values(self, game, worlds: State, legal: np.ndarray) -> np.ndarray:
        """Each legal play's value in each world (``[worlds, plays]``) when it is made, the
        ``rollout`` agent (the heuristic) plays every seat (each seeing only its own view in
        that world) until
        ``exact_tricks`` tricks are left, and perfect play follows (all tricks played): the
        bidding team's points, in nello and sevens its tricks, as the solver counts."""
        from agents.search.solver import _solver  # numba: compiled when first used

        pgame, encoder = self._playout(game)
        n, m = worlds.batch_size, legal.size
        batch = worlds.take(np.repeat(np.arange(n), m))
        pgame.step(batch, np.tile(legal + game.actions.play0, n))
        play_out(pgame, batch, self._roller or self.fallback, encoder,
                 until_trick=game.n_tricks - self._exact(game))
        solver = _solver()
        team = batch.bidder & 1
        tally = batch.tricks_won if int(batch.contract[0]) in (NELLO, SEVENS) else batch.points
        values = np.array([solver.value(pgame, batch, r) if batch.phase[r] == PLAYING else
                           int(tally[r, team[r]]) for r in range(n * m)])
        return values.reshape(n, m)

    def _exact(self, game) -> int:
        """The tricks left from which every world is solved: ``exact_tricks``, by default
        the whole hand in the standard game and 5 six-player."""
        if self.exact_tricks is not None:
            return self.exact_tricks
        return SIX_EXACT_TRICKS if game.six else game.n_tricks

    def _playout(self, game):
        """The game with every trick played (``play_out``) and its encoder, made once."""
        if getattr(self, "_playout_game", None) is None:
            self._playout_game = Game(replace(game.rules, play_out=True))
            self._playout_encoder = make_encoder(self._playout_game)
            self._roller = None if self.roller is None else \
                self.roller.setup(self._playout_game)
        return self._playout_game, self._playout_encoder

    # ------------------------------------------------------------------ bidding
    def _hand_values(self, ctx, t, s) -> dict[int, np.ndarray]:
        """Points this seat's team takes with perfect play in each of ``bid_worlds`` sampled
        worlds, per candidate contract (the longest suits, doubles, follow-me), this seat
        declaring and leading. Bidding history does not enter the worlds (but for who made a
        plunge or splash, and the first bidder, who may hold 1-0), so the figures are kept for
        the hand (bidding and declaring reuse them), drawn from a generator seeded by that
        key: the same whichever decision meets them first."""
        game, st = ctx.game, ctx.state
        hand = int(st.hands[t, s])
        special = int(st.high_action[t]) in (PLUNGE, SPLASH)
        key = (hand, s, int(st.dealer[t]), int(st.first_bidder[t]),
               int(st.high_bidder[t]) if special else -1)
        if key in self._cache:
            return self._cache[key]
        rng = keyed_generator(hash_key(self.seed, BID_WORLDS, key))
        worlds = worlds_from_state(game, st, t, s, self.bid_worlds, rng)
        counts = [bin(hand & T.mask_of(T.suit_tiles(c))).count("1") for c in range(7)]
        suits = sorted(range(7), key=lambda c: -counts[c])[:self.n_contracts]
        values = {}
        for c in suits + [DOUBLES, FOLLOW_ME]:
            base = worlds.states(game)
            if self.bid_eval == "playout":
                values[c] = self._play_out(game, base, s, c)
            else:
                from agents.search.solver import solve_value  # numba: compiled when first used

                game.open_play(base, s, c)
                values[c] = np.array([solve_value(game, base, k)
                                      for k in range(self.bid_worlds)])
        if len(self._cache) >= 1024:
            self._cache.clear()
        self._cache[key] = values
        return values

    def _play_out(self, game, st: State, seat: int, contract: int) -> np.ndarray:
        """The points ``seat``'s team takes in each world of ``st`` when it declares
        ``contract``, leads, and every seat then plays as the fallback agent (the heuristic)
        does, seeing only its own view, with all tricks played."""
        pgame, encoder = self._playout(game)
        pgame.open_play(st, seat, contract)
        play_out(pgame, st, self.fallback, encoder)
        return st.points[:, seat % 2].copy()

    @staticmethod
    def make_probability(values: dict[int, np.ndarray], need: int) -> tuple[float, int]:
        """The best chance, over the candidate contracts, of taking ``need`` points, and the
        contract that gives it (ties to the higher average)."""
        c = max(values, key=lambda c: ((values[c] >= need).mean(), values[c].mean()))
        return float((values[c] >= need).mean()), c

    def _bid(self, ctx, t, s, mask, fallback: int) -> int:
        if fallback in (PLUNGE, SPLASH):
            return fallback  # the heuristic's special bids (six doubles)
        values = self._hand_values(ctx, t, s)
        p30, _ = self.make_probability(values, 30 + self.margin)
        if fallback >= MARKS0 and p30 < 0.5:
            return fallback  # a mark bid for nello: no trump contract is worth a bid
        forced = not mask[PASS]
        partner_high = int(ctx.state.high_bidder[t]) == (s + 2) % 4
        p42, _ = self.make_probability(values, 42)
        marks = [a for a in range(MARKS0, PLUNGE) if mask[a]]
        if marks and p42 >= self.marks_prob:
            # all seven tricks nearly sure: the most marks the ladder allows (2m to open)
            # when it is surer still, else the least mark bid
            return max(marks) if p42 >= 0.9 else min(marks)
        points = [a for a in range(POINTS0, MARKS0) if mask[a]]
        if points and not partner_high:
            least = points[0]
            if self.make_probability(values, 29 + least + self.margin)[0] >= self.make_prob:
                return least  # the least bid that takes the auction; more only preempts
        if forced:
            return points[0] if points else int(np.flatnonzero(mask)[0])
        return PASS

    def _declare(self, ctx, t, s, mask, fallback: int) -> int:
        st = ctx.state
        c0 = ctx.game.actions.contract0
        bid = int(st.high_action[t])
        if fallback - c0 in (NELLO, SEVENS) or bid in (PLUNGE, SPLASH):
            return fallback  # nello or sevens hands, and after the partner's plunge/splash
        values = self._hand_values(ctx, t, s)
        need = 42 if bid >= MARKS0 else 29 + bid
        legal = {c: v for c, v in values.items() if mask[c0 + c]}
        if not legal:
            return fallback
        return c0 + self.make_probability(legal, need)[1]


def mover_utility(values: np.ndarray, contract: int, seat: int, bidder: int,
                  n_tricks: int, total: int = 42) -> np.ndarray:
    """``move_values``' values as what each is worth to the seat to move, on one scale for
    every contract (points of ``total``, the game's points: 42, or 88 six-player): in a
    points contract its team's points; in sevens its team's tricks scaled to ``total``; in
    nello ``total`` for the side the outcome favours (the bidder taking no trick: the
    bidder's; any trick: the opponents')."""
    mine = (seat & 1) == (bidder & 1)
    if contract == NELLO:
        clean = (values == 0) * float(total)
        return clean if mine else total - clean
    if contract == SEVENS:
        values = values * (total / n_tricks)
    return values if mine else total - values


def bid_made(values, contract: int, need: int, game):
    """Whether the bid is made where the solver's measure (``move_values``' values, or a
    ``Solver.value``) is ``values``: nello, the bidder takes no trick; sevens, the bidding
    team every trick; a points bid, its points; a marks bid, all the game's points."""
    values = np.asarray(values)
    if contract == NELLO:
        return values == 0
    if contract == SEVENS:
        return values == game.n_tricks
    return values >= (need if need >= 0 else game.total_points)


def good_at(contract: int, need: int, mine: bool, total: int = 42) -> int:
    """The ``mover_utility`` from which the hand goes the mover's way: its team makes the
    bid (the bidding team) or sets it (the others)."""
    if contract in (NELLO, SEVENS) or need < 0:  # every trick (or none): all or nothing
        return total if mine else 1
    return need if mine else total + 1 - need


__all__ = ["PimcAgent", "bid_made", "good_at", "mover_utility"]
