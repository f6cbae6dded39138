"""Property tests of the game core against the slow reference (``tests/reference.py``).

(a) cross-check: random rule configurations, random deals, random legal play on a batch of
    tables; at every step each table's legal actions, phase and seat to move are compared with
    the reference driven through the same actions, and at the end of each hand the whole result
    (points, made, marks, score, tricks);
(b) invariants of every hand played (tiles, tricks, points, made/set, scores, dealer, game end),
    and coverage: every option value and every special rule must have come up;
(c) records: ``record_from_state`` -> JSON -> ``parse_record`` -> ``replay`` gives what the core
    state says, for complete records and records cut at random points;
(d) deals: reproducible from (seed, game, hand), independent of batch size, table order and
    options; four disjoint hands of seven covering the 28 tiles.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as hs


from reference import NAMES, RefHand, count_of, replay_record  # noqa: E402

from texas42_env import tiles as T  # noqa: E402
from texas42_env.core import GAME_OVER, HAND_OVER, PHASE_NAMES, Game  # noqa: E402
from texas42_env.records import parse_record, record_from_state, replay, summary  # noqa: E402
from texas42_env.rules import CONTRACT_NAMES, DEFAULTS, OPTION_SPECS, RulesConfig  # noqa: E402
from texas42_env.sampling import uniform_legal  # noqa: E402

# ----------------------------------------------------------------------------- configs
STANDARD_OPTIONS = [n for n in DEFAULTS["standard"] if n != "target"]


def option_values(name: str) -> list:
    spec = OPTION_SPECS[name]
    if spec.int_range is not None:
        lo, hi = spec.int_range
        return list(range(lo, hi + 1))
    return list(spec.choices)


def balanced_configs(n: int, seed: int) -> list[RulesConfig]:
    """``n`` random configurations in which every value of every option appears (each option's
    values repeated to length ``n`` and shuffled independently), with random targets."""
    rng = np.random.default_rng(seed)
    columns = {}
    for name in STANDARD_OPTIONS:
        vals = option_values(name)
        if name in ("plunge", "splash", "nello", "sevens"):
            vals = [True, True, True, False]  # mostly on, so that their own options matter
        assert n >= len(vals)
        col = (vals * (n // len(vals) + 1))[:n]
        columns[name] = [col[i] for i in rng.permutation(n)]
    out = []
    for i in range(n):
        opts = {name: columns[name][i] for name in STANDARD_OPTIONS}
        if rng.random() < 0.5:  # small targets so that games end now and then
            opts["target"] = int(rng.integers(1, 4)) if opts["scoring"] == "marks" else \
                int(rng.integers(30, 120))
        out.append(RulesConfig.make(**opts))
    return out


def config_strategy():
    """A hypothesis strategy over all standard options."""
    parts = {name: hs.sampled_from(option_values(name)) for name in STANDARD_OPTIONS}
    return hs.fixed_dictionaries(parts).map(lambda o: RulesConfig.make(**o))


# ----------------------------------------------------------------------------- helpers
def dealt_hands(game: Game, st, b: int) -> list[list[int]]:
    return [sorted(game.hand_tiles(st, b, s, dealt=True)) for s in range(4)]


def repro(game: Game, st, b: int, ref: RefHand) -> str:
    """A minimal reproduction: options, dealer, hands and the actions so far."""
    return json.dumps({"options": game.rules.options(), "dealer": int(st.dealer[b]),
                       "hands": [[NAMES[t] for t in h] for h in ref.dealt],
                       "actions": ref.actions})


def core_legal(game: Game, st, b: int) -> set[str]:
    return {game.actions.name(a) for a in np.flatnonzero(st.legal[b])}


SPECIAL_NAMES = ("pass", "plunge", "splash", "doubles", "follow-me", "nello", "sevens")


def special_mask(game: Game) -> np.ndarray:
    return np.array([n in SPECIAL_NAMES for n in game.actions.names])


def choose_actions(st, rng, bias: float, game: Game) -> np.ndarray:
    """Uniform random legal actions; with probability ``bias`` a table picks uniformly among its
    legal passes and special actions instead (when it has any), so that the rare rules come up."""
    acts = uniform_legal(st.legal, rng)
    if bias > 0:
        special = uniform_legal(st.legal & special_mask(game)[None, :], rng)
        pick = (rng.random(len(acts)) < bias) & (special >= 0)
        acts = np.where(pick, special, acts)
    return acts


def check_step(game: Game, st, b: int, ref: RefHand) -> None:
    """Phase, seat to move, legal actions, and the running result (points, made, marks, score:
    final from the trick that decides the hand on, also while a played-out hand goes on)."""
    phase = PHASE_NAMES[int(st.phase[b])]
    to_move = int(st.to_move[b])
    want_legal = ref.legal()
    got_legal = core_legal(game, st, b)
    made = int(st.made[b])
    got_result = (st.points[b].tolist(), None if made < 0 else bool(made),
                  st.hand_marks[b].tolist(), st.hand_score[b].tolist(), int(st.trick_no[b]))
    want_result = (ref.points, ref.made, ref.marks, ref.score, len(ref.tricks))
    if got_result != want_result:
        raise AssertionError(
            f"running result differs at table {b} (points, made, marks, score, tricks done): "
            f"core {got_result}, reference {want_result}\nrepro: {repro(game, st, b, ref)}")
    if (phase, to_move, got_legal) != (ref.phase, -1 if ref.to_move is None else ref.to_move,
                                       want_legal):
        raise AssertionError(
            f"core and reference differ at table {b}: phase {phase} vs {ref.phase}, to_move "
            f"{to_move} vs {ref.to_move}; core-only legal {sorted(got_legal - want_legal)}, "
            f"reference-only legal {sorted(want_legal - got_legal)}\nrepro: {repro(game, st, b, ref)}")


def check_result(game: Game, st, b: int, ref: RefHand) -> None:
    got = summary(game, st, b)
    want = ref.summary()
    if got != want:
        diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
        raise AssertionError(f"hand result differs at table {b} (core, reference): {diff}\n"
                             f"repro: {repro(game, st, b, ref)}")
    # the raw state fields, not only their rendering
    assert int(st.made[b]) == (-1 if ref.made is None else int(ref.made))
    assert st.hand_marks[b].tolist() == ref.marks
    assert st.hand_score[b].tolist() == ref.score
    assert st.points[b].tolist() == ref.points
    assert st.tricks_won[b].tolist() == ref.tricks_won


class Coverage:
    """What came up during the random play (asserted at the end of the sweep)."""

    def __init__(self):
        self.seen = Counter()

    def add(self, key, n=1):
        self.seen[key] += n

    def hand(self, ref: RefHand) -> None:
        r = ref.rules
        for name in STANDARD_OPTIONS:
            self.add(("option", name, getattr(r, name)))
        bids = ref.bids
        if len(bids) == 4 and bids[:3] == ["pass"] * 3:
            self.add("all passed to the dealer: " + r.all_pass)
        if r.first_bidder == "holder_of_1_0" and ref.first_bidder != (ref.dealer + 1) % 4:
            self.add("holder of 1-0 is not left of the dealer")
        marks_seen = [b for b in bids if b.endswith("m")]
        if marks_seen and marks_seen[0] != "1m":
            self.add("opening mark bid above 1m")
        if len(marks_seen) >= 2 or ({"plunge", "splash"} & set(bids) and marks_seen):
            self.add("mark bids raised one at a time")
        for i, bid in enumerate(bids):  # boundaries of the integer options, seat by seat
            seat = (ref.first_bidder + i) % 4
            doubles = sum(1 for t in ref.dealt[seat] if T.IS_DOUBLE[t])
            if r.plunge and doubles == r.plunge_min_doubles:
                self.add(("plunge allowed at exactly plunge_min_doubles", r.plunge_min_doubles))
            if r.plunge and doubles == r.plunge_min_doubles - 1:
                self.add(("plunge refused one double short", r.plunge_min_doubles))
        if marks_seen and int(marks_seen[0][:-1]) == r.max_opening_marks:
            self.add(("opening mark bid at max_opening_marks", r.max_opening_marks))
        if ref.thrown_in:
            self.add("thrown in")
            return
        m = ref.bid_marks_for_options()
        for opt in ("nello", "sevens"):
            least = getattr(r, f"{opt}_min_marks")
            if getattr(r, opt) and not (opt == "nello" and ref.special):
                if m == least:
                    self.add((f"{opt} allowed at exactly {opt}_min_marks", least))
                if m == least - 1:
                    self.add((f"{opt} refused one mark short", least))
        if ref.bid in ("plunge", "splash"):
            self.add(f"{ref.bid} won at {ref.high_marks}m")
            if ref.bid == "plunge":
                self.add("plunge at plunge_marks" if ref.high_marks == r.plunge_marks
                         else "plunge above plunge_marks")
                if ref.high_marks == r.plunge_marks:
                    self.add(("plunge valued at plunge_marks", r.plunge_marks))
        self.add(("contract", ref.contract if ref.contract in ("doubles", "nello", "sevens",
                                                               "follow-me") else "trump"))
        if ref.contract == "nello":
            self.add(("nello_doubles played", r.nello_doubles))
            if ref.high_kind == "points":
                self.add(("nello on a points bid", r.scoring))
        if ref.contract == "follow-me":
            self.add(("follow_me_doubles played", r.follow_me_doubles))
        if ref.contract == "sevens":
            self.add(("sevens_tie played", r.sevens_tie))
            self.add(("sevens result", ref.made))
            if ref.special:
                self.add("sevens after plunge or splash")
            if ref.high_kind == "points":
                self.add(("sevens on a points bid", r.scoring))
        if ref.made is not None:
            kind = "nello" if ref.contract == "nello" else (
                "every trick" if ref.needs_every_trick() else "points")
            self.add(("result", kind, ref.made))
            self.add(("scoring", r.scoring, ref.high_kind))
        n = len(ref.tricks)
        if not r.play_out and n < 7 and ref.contract != "sevens":
            self.add("decided early, hand ended")
        if r.play_out and ref.ended_by_sevens and n < 7:
            self.add("sevens ended at the first lost trick under play_out")
        if r.play_out and n == 7 and ref.contract not in ("sevens",):
            self.add("played out")

    def trick_details(self, ref: RefHand) -> None:
        """Rare trick-level events that make the options matter."""
        if ref.contract == "sevens" and ref.rules.sevens_tie == "bidder":
            for tr in ref.tricks:
                tiles = [T.parse_tile(x) for x in tr["plays"]]
                d = [abs(int(T.PIPS[t]) - 7) for t in tiles]
                closest = [i for i in range(len(tiles)) if d[i] == min(d)]
                seats = [(tr["leader"] + i) % 4 for i in range(len(tiles))]
                if seats[closest[0]] != tr["winner"]:
                    self.add("sevens tie won by the bidding team, not the first played")
        if ref.contract in ("follow-me", "nello") and ref.rules_of_play.doubles_own:
            for tr in ref.tricks:
                if T.IS_DOUBLE[T.parse_tile(tr["plays"][0])]:
                    self.add("double led as its own suit")
        if ref.contract == "nello" and ref.rules.nello_doubles == "low":
            for tr in ref.tricks:
                tiles = [T.parse_tile(x) for x in tr["plays"]]
                lead = tiles[0]
                if T.IS_DOUBLE[lead] and len(tiles) > 1:
                    s = int(T.HI[lead])
                    if any(int(T.HI[t]) == s or int(T.LO[t]) == s for t in tiles[1:]):
                        self.add("low double led and followed in nello")


REQUIRED_EVENTS = [
    "all passed to the dealer: force_dealer", "all passed to the dealer: redeal", "thrown in",
    "holder of 1-0 is not left of the dealer", "opening mark bid above 1m",
    "mark bids raised one at a time", "plunge won at 4m", "plunge at plunge_marks",
    "plunge above plunge_marks", "splash won at 2m", "splash won at 3m",
    ("contract", "trump"), ("contract", "doubles"), ("contract", "follow-me"),
    ("contract", "nello"), ("contract", "sevens"),
    ("nello_doubles played", "high"), ("nello_doubles played", "low"),
    ("nello_doubles played", "own_suit"),
    ("follow_me_doubles played", "high"), ("follow_me_doubles played", "own_suit"),
    ("sevens_tie played", "first"), ("sevens_tie played", "bidder"),
    ("sevens result", False), "sevens after plunge or splash",
    ("nello on a points bid", "marks"), ("nello on a points bid", "points"),
    ("sevens on a points bid", "points"),
    ("result", "points", True), ("result", "points", False),
    ("result", "every trick", True), ("result", "every trick", False),
    ("result", "nello", True), ("result", "nello", False),
    ("scoring", "marks", "points"), ("scoring", "marks", "marks"),
    ("scoring", "points", "points"), ("scoring", "points", "marks"),
    "decided early, hand ended", "sevens ended at the first lost trick under play_out",
    "played out", "sevens tie won by the bidding team, not the first played",
    "double led as its own suit", "low double led and followed in nello",
    "game over", "score carried over hands",
]
# the integer options at their boundaries (one short of the least, exactly the least), as far
# as deals make them reachable (a fifth double in one hand is already rare)
REQUIRED_EVENTS += [(f"{o} allowed at exactly {o}_min_marks", v) for o in ("nello", "sevens")
                    for v in range(0, 8)]
REQUIRED_EVENTS += [(f"{o} refused one mark short", v) for o in ("nello", "sevens")
                    for v in range(1, 8)]
REQUIRED_EVENTS += [("plunge allowed at exactly plunge_min_doubles", v) for v in range(1, 5)]
REQUIRED_EVENTS += [("plunge refused one double short", v) for v in range(1, 6)]
REQUIRED_EVENTS += [("plunge valued at plunge_marks", v) for v in range(1, 8)]
REQUIRED_EVENTS += [("opening mark bid at max_opening_marks", v) for v in range(1, 8)]


# ----------------------------------------------------------------------------- invariants (b)
def check_invariants(game: Game, st, b: int) -> None:
    """Properties of one finished hand at table ``b`` that hold whatever the actions were."""
    r = game.rules
    dealt = dealt_hands(game, st, b)
    where = f"table {b}, options {r.options()}, dealer {int(st.dealer[b])}, hands " \
            f"{[[NAMES[t] for t in h] for h in dealt]}"
    assert st.phase[b] >= HAND_OVER, where
    n = int(st.n_plays[b])
    plays = st.plays[b, :n].tolist()
    seats = st.play_seats[b, :n].tolist()
    assert len(set(plays)) == n, f"a tile played twice: {where}"
    for t, s in zip(plays, seats):
        assert t in dealt[s], f"seat {s} played {NAMES[t]} it was not dealt: {where}"
    # what is still held is what was dealt less what was played
    for s in range(4):
        held = set(game.hand_tiles(st, b, s))
        assert held == set(dealt[s]) - {t for t, p in zip(plays, seats) if p == s}, where
    bidder = int(st.bidder[b])
    if bidder < 0:  # thrown in
        assert r.all_pass == "redeal" and int(st.n_bids[b]) == 4
        assert [game.actions.name(a) for a in st.bids[b, :4]] == ["pass"] * 4, where
        assert n == 0 and int(st.made[b]) == -1, where
        assert st.points[b].tolist() == [0, 0] and st.hand_score[b].tolist() == [0, 0], where
        assert st.hand_marks[b].tolist() == [0, 0], where
        return
    contract = CONTRACT_NAMES[int(st.contract[b])]
    nello = contract == "nello"
    sevens = contract == "sevens"
    size = 3 if nello else 4
    tricks = int(st.trick_no[b])
    assert int(st.n_in_trick[b]) == 0 and n == size * tricks, f"incomplete trick at end: {where}"
    for k in range(tricks):
        ts = seats[k * size:(k + 1) * size]
        assert len(set(ts)) == size, where
        assert ts[0] == int(st.trick_leaders[b, k]), where
        # clockwise from the leader, the sitting-out partner skipped
        order = [s for s in ((ts[0] + i) % 4 for i in range(4)) if not (nello and s == (bidder + 2) % 4)]
        assert ts == order, f"trick {k} not played clockwise: {ts}: {where}"
        if k + 1 < tricks:
            assert seats[(k + 1) * size] == int(st.trick_winners[b, k]), "winner must lead"
        assert int(st.trick_points[b, k]) == 1 + sum(count_of(t) for t in plays[k * size:(k + 1) * size])
    assert seats[0] == int(st.declarer[b]), f"declarer must lead the first trick: {where}"
    pts = st.points[b].tolist()
    assert sum(pts) == int(st.trick_points[b, :tricks].sum()), where
    won = st.tricks_won[b].tolist()
    assert sum(won) == tricks, where
    if nello:
        partner = (bidder + 2) % 4
        assert partner not in seats, f"the nello partner played: {where}"
        if tricks == 7:
            assert sum(pts) == 42 - sum(count_of(t) for t in dealt[partner]), where
            if any(count_of(t) for t in dealt[partner]):
                assert sum(pts) < 42, where
    elif tricks == 7:
        assert sum(pts) == 42, where
    if r.play_out and not nello and not (sevens and int(st.made[b]) == 0):
        assert tricks == 7 and sum(pts) == 42, f"a played-out hand holds 42 points: {where}"
    if r.play_out and nello:
        assert tricks == 7, where
    # made / set
    made = int(st.made[b])
    assert made in (0, 1), f"hand over but undecided: {where}"
    bt, ot = bidder & 1, (bidder & 1) ^ 1
    high = game.actions.name(int(st.high_action[b]))
    points_bid = high.isdigit()
    need = int(high) if points_bid else None
    if nello:
        assert made == (won[bt] == 0), where
        if made:
            assert tricks == 7
    elif sevens or not points_bid:
        if made:
            assert won[bt] == 7 and won[ot] == 0, where
        else:
            assert won[ot] >= 1, where
    else:
        if made:
            assert pts[bt] >= need, where
        else:
            assert pts[ot] > 42 - need, where
        if tricks == 7:
            assert made == (pts[bt] >= need), where
    win_team = bt if made else ot
    marks, score = st.hand_marks[b].tolist(), st.hand_score[b].tolist()
    assert marks[1 - win_team] == 0 and score[1 - win_team] == 0, where
    assert marks[win_team] >= 1, where
    if r.scoring == "marks":
        assert score == marks, where
    else:
        assert score[win_team] in range(30, 42) or score[win_team] % 42 == 0, where


# ----------------------------------------------------------------------------- the driver
def play_hands(game: Game, st, rng, *, hands: int, check_all: bool = True, bias: float = 0.25,
               coverage: Coverage | None = None, record_tables: int = 0,
               cut_prob: float = 0.1) -> dict:
    """Play ``hands`` hands at every table (starting new games where a game ends), checking each
    table against the reference at every step, the invariants after each hand, and (for
    ``record_tables`` tables per hand) the records at random cut points and at the end."""
    B = st.batch_size
    stats = Counter()
    for h in range(hands):
        refs = {b: RefHand(game.rules, int(st.dealer[b]), dealt_hands(game, st, b))
                for b in range(B)} if check_all else {}
        rec_tables = set(rng.choice(B, size=min(record_tables, B), replace=False).tolist())
        snaps: dict[int, list] = {b: [] for b in rec_tables}
        score_before = st.score.copy()
        dealer_before = st.dealer.copy()
        while (st.phase < HAND_OVER).any():
            for b, ref in refs.items():
                check_step(game, st, b, ref)
            for b in rec_tables:
                if st.phase[b] < HAND_OVER and rng.random() < cut_prob:
                    n_actions = len(refs[b].actions) if b in refs else None
                    at = summary(game, st, b)
                    # the summary is the core's state: seat to move, phase, legal actions
                    assert (at["to_move"], at["phase"], set(at["legal"])) == (
                        int(st.to_move[b]), PHASE_NAMES[int(st.phase[b])], core_legal(game, st, b))
                    snaps[b].append((record_from_state(game, st, b), at, n_actions))
            acts = choose_actions(st, rng, bias, game)
            game.step(st, acts)
            stats["steps"] += int((acts >= 0).sum())
            for b, ref in refs.items():
                if acts[b] >= 0:
                    ref.apply(game.actions.name(int(acts[b])))
        for b, ref in refs.items():
            check_step(game, st, b, ref)  # both over, nothing legal
            check_result(game, st, b, ref)
            if coverage is not None:
                coverage.hand(ref)
                coverage.trick_details(ref)
        for b in range(B):
            check_invariants(game, st, b)
            assert (st.score[b] - score_before[b]).tolist() == st.hand_score[b].tolist(), \
                "score must grow by the hand's score"
            over = st.phase[b] == GAME_OVER
            target = game.target
            assert over == (st.score[b].max() >= target)
            if over:
                assert int(st.winner[b]) == int(np.argmax(st.score[b])), "winner"
                if coverage is not None:
                    coverage.add("game over")
            elif coverage is not None and st.hand_no[b] > 0 and st.score[b].sum() > st.hand_score[b].sum():
                coverage.add("score carried over hands")
        for b in rec_tables:
            check_records(game, st, b, snaps[b], refs.get(b))
            stats["records"] += 1 + len(snaps[b])
        stats["hands"] += B
        # next hand: the deal passes left; games that ended start afresh
        if h + 1 < hands:
            ended = np.flatnonzero(st.phase == GAME_OVER)
            going = np.flatnonzero(st.phase == HAND_OVER)
            hand_no = st.hand_no.copy()
            game.next_hand(st, going)
            assert (st.dealer[going] == (dealer_before[going] + 1) % 4).all()
            assert (st.hand_no[going] == hand_no[going] + 1).all()
            if ended.size:
                new_ids = st.game_id[ended] + 10_000 * (h + 1)
                game.new_games(st, ended, new_ids)
                assert (st.score[ended] == 0).all() and (st.hand_no[ended] == 0).all()
                assert (st.dealer[ended] == game.first_dealer(st.seed, new_ids)).all()
    return stats


# ----------------------------------------------------------------------------- records (c)
def cut_record(rec: dict, k: int) -> dict:
    """The record ``rec`` stopped after its first ``k`` actions."""
    out = {key: v for key, v in rec.items() if key not in ("bids", "contract", "plays")}
    bids = rec.get("bids", [])
    out["bids"] = bids[:k]
    k -= len(out["bids"])
    if k > 0 and rec.get("contract") is not None:
        out["contract"] = rec["contract"]
        k -= 1
    out["plays"] = rec.get("plays", [])[:max(k, 0)]
    return out


def n_actions_of(rec: dict) -> int:
    return len(rec.get("bids", [])) + (rec.get("contract") is not None) + len(rec.get("plays", []))


def judge(rec: dict) -> dict:
    """Record -> JSON text -> parse_record -> replay, as a file would go."""
    return replay(parse_record(json.loads(json.dumps(rec))))


def check_records(game: Game, st, b: int, snaps: list, ref: RefHand | None) -> None:
    final = record_from_state(game, st, b)
    assert parse_record(json.loads(json.dumps(final))).rules.options() == game.rules.options()
    got = judge(final)
    want = summary(game, st, b)
    assert got == want, f"replay of the complete record differs: {final}"
    assert replay_record(final) == want, f"reference replay differs: {final}"
    # the core's fields behind the summary
    assert got["points"] == st.points[b].tolist() and got["score"] == st.hand_score[b].tolist()
    assert got["marks"] == st.hand_marks[b].tolist()
    assert got["made"] == (None if st.made[b] < 0 else bool(st.made[b]))
    assert len([t for t in got["tricks"] if "winner" in t]) == int(st.trick_no[b])
    total = n_actions_of(final)
    for rec, at_the_time, n_actions in snaps:
        k = n_actions_of(rec)
        if n_actions is not None:
            assert k == n_actions
        # written mid-hand, and cut from the final record: the same record, the same replay
        cut = cut_record(final, k)
        for f in ("bids", "contract", "plays"):
            assert cut.get(f) == rec.get(f), (f, cut, rec)
        assert judge(rec) == at_the_time, f"partial record replays wrongly: {rec}"
        assert judge(cut) == at_the_time
        assert replay_record(cut) == at_the_time, f"reference disagrees on {cut}"
        assert at_the_time["complete"] is False
        assert {"to_move", "phase", "legal"} <= set(at_the_time)
        # an action appended after the cut that is not legal there is reported at index k
        illegal = sorted(set(game.actions.names) - set(at_the_time["legal"])) + ["7-7", "42"]
        bad = illegal[k % len(illegal)]
        err = judge(extend(cut, at_the_time["phase"], bad))
        assert err["ok"] is False and err["error"]["index"] == k, (cut, bad, err)
        assert err["error"]["phase"] == at_the_time["phase"]
        assert err["error"]["seat"] == at_the_time["to_move"]
        assert err["error"]["reason"]
    # one action more than the hand holds is reported as "over"
    if total:
        extra = extend(final, "play" if final.get("contract") else "bid", "6-6")
        err = judge(extra)
        assert err["ok"] is False and err["error"]["index"] == total
        assert err["error"]["phase"] == "over" and err["error"]["seat"] is None


def extend(rec: dict, phase: str, action: str) -> dict:
    """``rec`` with ``action`` appended where the format puts an action of ``phase``."""
    out = dict(rec)
    if phase == "bid":
        out["bids"] = list(rec.get("bids", [])) + [action]
    elif phase == "declare":
        out["contract"] = action
    else:
        out["plays"] = list(rec.get("plays", [])) + [action]
    return out


# ============================================================================= tests
N_CONFIGS = 112  # a multiple of 7 and 8: every value of every integer option, 14 times or more
BATCH = 32
HANDS_PER_CONFIG = 3


def test_reference_matches_core_on_random_configs_and_deals():
    """(a) + (b) + (c): thousands of hands over configurations covering every option value."""
    cov = Coverage()
    total = Counter()
    for i, rules in enumerate(balanced_configs(N_CONFIGS, seed=4242)):
        game = Game(rules)
        st = game.reset(BATCH, seed=1000 + i)
        rng = np.random.default_rng(77 + i)
        total += play_hands(game, st, rng, hands=HANDS_PER_CONFIG, coverage=cov,
                            record_tables=3)
    assert total["hands"] >= 10_000
    missing = [e for e in REQUIRED_EVENTS if cov.seen[e] == 0]
    for name in STANDARD_OPTIONS:
        for v in option_values(name):
            if cov.seen[("option", name, v)] == 0:
                missing.append(("option", name, v))
    assert not missing, f"not exercised: {missing}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # failures print a repro
@given(rules=config_strategy(), seed=hs.integers(0, 2**32 - 1),
       bias=hs.sampled_from([0.0, 0.3, 0.8]))
def test_reference_matches_core_hypothesis(rules, seed, bias):
    """(a) again, configurations and seeds drawn by hypothesis (plain uniform play included)."""
    game = Game(rules)
    st = game.reset(24, seed=seed)
    play_hands(game, st, np.random.default_rng(seed), hands=2, bias=bias, record_tables=2)


@pytest.mark.slow
@pytest.mark.parametrize("block", range(4))
def test_reference_matches_core_many_more(block):
    """The sweep again, on more configurations and deals (slow: deselected by default,
    run with ``pytest -m slow``)."""
    for i, rules in enumerate(balanced_configs(N_CONFIGS, seed=9000 + block)):
        game = Game(rules)
        st = game.reset(64, seed=50_000 * block + i)
        play_hands(game, st, np.random.default_rng(block * 1000 + i), hands=4,
                   bias=0.3 if i % 2 else 0.0, record_tables=4)


def test_uniform_play_default_rules_many_tables():
    """(b) invariants under plain uniform play of the default rules and the play-out preset,
    on a big batch (every table also cross-checked against the reference)."""
    for opts in ({}, {"play_out": True}, {"scoring": "points", "splash": True, "sevens": True}):
        game = Game(RulesConfig.make(**opts))
        st = game.reset(200, seed=5)
        stats = play_hands(game, st, np.random.default_rng(5), hands=2, bias=0.0,
                           record_tables=2)
        assert stats["hands"] == 400


# ----------------------------------------------------------------------------- records (c)
@settings(max_examples=30, deadline=None)
@given(seed=hs.integers(0, 2**31), rules=config_strategy(), data=hs.data())
def test_records_cut_anywhere_replay_like_the_core(seed, rules, data):
    """(c) a hand played on the core, its record cut at every point: the replay of the cut
    record has the core's state at that point (to_move, phase, legal, tricks, points, ...)."""
    game = Game(rules)
    st = game.reset(4, seed=seed)
    rng = np.random.default_rng(seed)
    b = data.draw(hs.integers(0, 3))
    snapshots = []
    while st.phase[b] < HAND_OVER:
        snapshots.append(summary(game, st, b))
        game.step(st, choose_actions(st, rng, 0.3, game))
    final = record_from_state(game, st, b)
    n = n_actions_of(final)
    assert n == len(snapshots)
    for k in range(n):
        assert judge(cut_record(final, k)) == snapshots[k], (k, final)
    assert judge(final) == summary(game, st, b)
    assert judge(final)["complete"] is True


# ----------------------------------------------------------------------------- deals (d)
@pytest.mark.parametrize("seed", [0, 1, 7, 2**40 + 3, 2**63 - 1])
def test_deals_do_not_depend_on_batch_size_or_position(seed):
    game = Game()
    big = game.reset(64, seed=seed)
    ids = np.arange(64)
    rng = np.random.default_rng(seed % 1000)
    perm = rng.permutation(64)
    shuffled = game.reset(64, seed=seed, game_ids=ids[perm])
    assert (shuffled.dealt == big.dealt[perm]).all()
    assert (shuffled.dealer == big.dealer[perm]).all()
    for size in (1, 3, 17):
        pick = rng.choice(64, size=size, replace=False)
        small = game.reset(size, seed=seed, game_ids=pick)
        assert (small.dealt == big.dealt[pick]).all()
        assert (small.dealer == big.dealer[pick]).all()
    # later hands: (seed, game, hand) fixes the deal, also through next_hand
    h_ids = rng.integers(0, 1000, size=10)
    hands_direct, _ = game.deal(seed, ids, 3)
    st = game.reset(64, seed=seed)
    for _ in range(3):
        while (st.phase < HAND_OVER).any():
            game.step(st, uniform_legal(st.legal, rng))
        st.phase[:] = HAND_OVER  # go on with every game, even one that ended
        game.next_hand(st)
    assert (st.hand_no == 3).all()
    assert (st.dealt == hands_direct).all()
    assert (st.dealer == (big.dealer + 3) % 4).all()
    one_by_one = np.stack([game.deal(seed, [g], [h])[0][0] for g, h in zip(h_ids, range(10))])
    together, _ = game.deal(seed, h_ids, np.arange(10))
    assert (one_by_one == together).all()


@pytest.mark.parametrize("opts", [{"all_pass": "redeal"}, {"first_bidder": "holder_of_1_0"},
                                  {"scoring": "points", "play_out": True, "sevens": True}])
def test_deals_do_not_depend_on_options(opts):
    a = Game().reset(32, seed=11)
    b = Game(RulesConfig.make(**opts)).reset(32, seed=11)
    assert (a.dealt == b.dealt).all() and (a.dealer == b.dealer).all()


def test_deals_are_partitions_of_the_set():
    game = Game()
    n = 20_000
    hands, cat = game.deal(123, np.arange(n), np.arange(n) % 5)
    assert (cat == 0).all()
    full = np.uint64((1 << 28) - 1)
    assert (np.bitwise_or.reduce(hands, axis=1) == full).all()
    assert (np.bitwise_count(hands) == 7).all()
    # disjoint: 4 x 7 bits and the union has 28
    assert (np.bitwise_count(np.bitwise_or.reduce(hands, axis=1)) == 28).all()
    # roughly uniform: every tile lands in every seat about a quarter of the time, and no two
    # (game, hand) pairs repeat a deal
    seat_of = np.zeros((28, 4))
    for s in range(4):
        bits = (hands[:, s, None] >> np.arange(28, dtype=np.uint64)) & np.uint64(1)
        seat_of[:, s] = bits.sum(axis=0)
    frac = seat_of / n
    assert np.abs(frac - 0.25).max() < 0.02
    assert len({tuple(h) for h in hands.tolist()}) == n
    # the seed matters: another seed deals other hands
    other, _ = game.deal(124, np.arange(n), np.arange(n) % 5)
    assert (other != hands).any(axis=1).mean() > 0.999
    # first dealers are seats, roughly uniform
    d = game.first_dealer(123, np.arange(n))
    assert set(np.unique(d).tolist()) == {0, 1, 2, 3}
    assert np.abs(np.bincount(d, minlength=4) / n - 0.25).max() < 0.02


_GAME = Game()


@given(seed=hs.integers(0, 2**64 - 1), game_id=hs.integers(0, 2**40),
       hand=hs.integers(0, 500))
@settings(max_examples=200, deadline=None)
def test_each_deal_is_four_disjoint_hands_of_seven(seed, game_id, hand):
    game = _GAME
    hands, _ = game.deal(seed, [game_id], [hand])
    tiles = [T.tiles_of(int(m)) for m in hands[0]]
    assert [len(h) for h in tiles] == [7, 7, 7, 7]
    assert sorted(t for h in tiles for t in h) == list(range(28))
    again, _ = game.deal(seed, [5, game_id], [0, hand])
    assert (again[1] == hands[0]).all()


# ----------------------------------------------------------------------------- directed checks
def _drive(rules: RulesConfig, dealer: int, hands: list[list[str]], actions: list[str]):
    """Play ``actions`` on a one-table core and on the reference; return both at the end."""
    game = Game(rules)
    st = game.reset(1, seed=0)
    masks = np.array([[T.mask_of(T.parse_tile(x) for x in h) for h in hands]], np.uint64)
    game.set_hands(st, [0], masks, dealer)
    ref = RefHand(rules, dealer, [[T.parse_tile(x) for x in h] for h in hands])
    for a in actions:
        check_step(game, st, 0, ref)
        game.step(st, np.array([game.actions.id(a)]))
        ref.apply(a)
    check_step(game, st, 0, ref)
    return game, st, ref


HANDS = [["6-6", "5-5", "4-4", "3-3", "6-4", "5-0", "4-1"],
         ["6-5", "6-3", "6-2", "6-1", "6-0", "5-4", "5-3"],
         ["2-2", "1-1", "0-0", "5-2", "5-1", "4-3", "4-2"],
         ["4-0", "3-2", "3-1", "3-0", "2-1", "2-0", "1-0"]]


def test_reference_rules_by_hand():
    """The reference on situations worked out from rules.md by hand (so that the reference
    itself is checked, not only its agreement with the core), each also driven on the core."""
    R = RulesConfig.make
    ids = [[T.parse_tile(x) for x in h] for h in HANDS]
    # seat 0 holds four doubles (may plunge), seat 2 three, seats 1 and 3 none
    h = RefHand(R(), 3, ids)
    assert h.to_move == 0 and "plunge" in h.legal() and "2m" in h.legal() and "3m" not in h.legal()
    for a, legal_after in (("2m", {"pass", "3m"}), ("3m", {"pass", "4m"}),
                           ("pass", {"pass", "4m"})):
        h.apply(a)
        assert h.legal() == legal_after
    _drive(R(), 3, HANDS, ["2m", "3m", "pass", "4m"])
    # a plunge over 4m is 5m; the plunger's partner declares and leads
    h = RefHand(R(), 1, ids)  # seat 2 bids first
    for a in ("30", "1m", "plunge"):
        h.apply(a)
    assert h.high_marks == 4 and h.legal() == {"pass", "5m"}
    h.apply("pass")
    assert h.phase == "declare" and h.bidder == 0 and h.declarer == 2
    assert "nello" not in h.legal() and "6s" in h.legal()
    _drive(R(), 1, HANDS, ["30", "1m", "plunge", "pass", "follow-me", "2-2"])
    # plunge_marks 2 over 2m: max(2m, 3m) = 3m
    h = RefHand(R(plunge_marks=2), 2, ids)  # seat 3 bids first
    h.apply("2m")
    h.apply("plunge")
    assert h.high_marks == 3
    # splash: 3 doubles; max(2m, high + 1m), never above 3m
    h = RefHand(R(plunge_min_doubles=3, splash=True), 3, ids)
    h.apply("2m"), h.apply("pass")
    assert h.legal() == {"pass", "3m", "plunge", "splash"}
    h.apply("splash")
    assert h.high_marks == 3 and h.legal() == {"pass", "4m"}
    h.apply("pass")
    assert h.phase == "declare" and h.declarer == 0 and "nello" not in h.legal()
    h = RefHand(R(splash=True, max_opening_marks=3), 0, ids)  # seat 1 first
    h.apply("3m")
    assert h.to_move == 2 and "splash" not in h.legal()  # 4m would pass 3m
    h = RefHand(R(splash=True), 0, ids)
    h.apply("30")
    assert "splash" in h.legal()  # over a points bid a splash is 2m
    _drive(R(plunge_min_doubles=3, splash=True), 3, HANDS, ["2m", "pass", "splash", "pass"])
    # forced dealer, with the holder of 1-0 (seat 3) bidding first: seat 2 may not pass
    h = RefHand(R(first_bidder="holder_of_1_0"), 0, ids)
    assert h.to_move == 3
    for _ in range(3):
        h.apply("pass")
    assert h.to_move == 2 and "pass" not in h.legal() and {"30", "1m", "2m"} <= h.legal()
    _drive(R(first_bidder="holder_of_1_0"), 0, HANDS, ["pass", "pass", "pass", "30"])
    h = RefHand(R(all_pass="redeal"), 0, ids)
    for _ in range(4):
        h.apply("pass")
    assert h.phase == "over" and h.summary()["complete"] and h.made is None
    # nello with low doubles: seat 2 bids and leads 2-2 (calls 2s), seat 0 sits out
    rules = R(nello_doubles="low")
    h = RefHand(rules, 1, ids)
    for a in ("1m", "pass", "pass", "pass"):
        h.apply(a)
    assert h.bidder == 2 and "nello" in h.legal()
    h.apply("nello")
    h.apply("2-2")
    assert h.to_move == 3 and h.legal() == {"3-2", "2-1", "2-0"}
    h.apply("2-1")
    assert h.to_move == 1 and h.legal() == {"6-2"}  # seat 0 skipped
    h.apply("6-2")
    assert h.tricks[0] == {"leader": 2, "plays": ["2-2", "2-1", "6-2"], "winner": 1, "points": 1}
    assert h.made is None and h.phase == "play" and h.to_move == 1
    _drive(rules, 1, HANDS, ["1m", "pass", "pass", "pass", "nello", "2-2", "2-1", "6-2"])
    # ... with high doubles 2-2 wins: nello is set at once, the other team earns the mark
    rules = R(nello_doubles="high", scoring="points")
    seq = ["2m", "pass", "pass", "pass", "nello", "2-2", "2-1", "6-2"]
    h = RefHand(rules, 1, ids)
    for a in seq:
        h.apply(a)
    assert h.tricks[0]["winner"] == 2 and h.made is False and h.phase == "over"
    assert h.marks == [0, 2] and h.score == [0, 84]
    _drive(rules, 1, HANDS, seq)
    # own-suit doubles in nello: a led double calls doubles; seat 3 holds none, plays anything
    h = RefHand(R(nello_doubles="own_suit"), 1, ids)
    for a in ("1m", "pass", "pass", "pass", "nello", "2-2"):
        h.apply(a)
    assert h.legal() == {NAMES[t] for t in ids[3]}
    # trumps 6s: 4-4 led calls 4s; seat 1 follows with 5-4 only (6-4 would be a trump)
    h = RefHand(R(), 3, ids)
    for a in ("30", "pass", "pass", "pass", "6s", "4-4"):
        h.apply(a)
    assert h.legal() == {"5-4"}
    h.apply("5-4")
    assert h.legal() == {"4-3", "4-2"}
    # follow-me, own-suit doubles: 6-6 led calls doubles; seat 1 holds none
    h = RefHand(R(follow_me_doubles="own_suit"), 3, ids)
    for a in ("30", "pass", "pass", "pass", "follow-me", "6-6"):
        h.apply(a)
    assert h.legal() == {NAMES[t] for t in ids[1]}
    h.apply("6-5")
    assert h.legal() == {"2-2", "1-1", "0-0"}
    # sevens: closest to 7 must be played; a tie goes to the first played, or (bidder) to the
    # bidding team's tile
    for tie, winner, made in (("first", 1, False), ("bidder", 2, None)):
        rules = R(sevens=True, sevens_tie=tie)
        h = RefHand(rules, 3, ids)
        for a in ("1m", "pass", "pass", "pass", "sevens"):
            h.apply(a)
        assert h.legal() == {"4-4", "3-3"}  # distance 1
        h.apply("4-4")
        assert h.legal() == {"6-1"}  # distance 0
        h.apply("6-1")
        assert h.legal() == {"5-2", "4-3"}
        h.apply("5-2")
        assert h.legal() == {"3-2"}  # distance 2
        h.apply("3-2")
        assert h.tricks[0]["winner"] == winner and h.made is made
        assert h.phase == ("over" if made is False else "play")
        _drive(rules, 3, HANDS, ["1m", "pass", "pass", "pass", "sevens", "4-4", "6-1", "5-2", "3-2"])
    # a points bid is set once the other team holds more than 42 - bid; play_out goes on
    for play_out in (False, True):
        rules = R(play_out=play_out, scoring="points")
        seq = ["pass", "pass", "pass", "41", "follow-me", "5-1", "3-2", "5-0", "6-5"]
        h = RefHand(rules, 2, ids)  # seat 3 bids first, the dealer (seat 2) is forced
        for a in seq:
            h.apply(a)
        assert h.bidder == 2 and h.tricks[0]["winner"] == 1 and h.points == [0, 11]
        assert h.made is False and h.marks == [0, 1] and h.score == [0, 41]
        assert h.phase == ("play" if play_out else "over")
        assert h.to_move == (1 if play_out else None)
        _drive(rules, 2, HANDS, seq)


# ----------------------------------------------------------------------------- readings of rules.md
# Two places where rules.md leaves a choice; the core and the reference follow
# docs/rules-choices.md.

def test_sevens_after_a_splash_or_plunge_whatever_sevens_min_marks():
    """docs/rules-choices.md: after a plunge or splash "any contract but nello may be named"
    overrides ``sevens_min_marks`` (a 2m splash allows sevens even with sevens_min_marks 3)."""
    assert RefHand.SEVENS_MIN_MARKS_AFTER_SPECIAL is False
    rules = RulesConfig.make(sevens=True, sevens_min_marks=3, splash=True)
    game, st, ref = _drive(rules, 1, HANDS, ["splash", "pass", "pass", "pass"])
    assert ref.declarer == 0 and ref.high_marks == 2
    assert "sevens" in ref.legal() and "nello" not in ref.legal()
    # without the splash, a 2m bid does not reach sevens_min_marks 3
    game, st, ref = _drive(rules, 1, HANDS, ["2m", "pass", "pass", "pass"])
    assert ref.declarer == 2 and "sevens" not in ref.legal()


@pytest.mark.parametrize("contract,seq", [
    # nello named on a 30 bid (nello_min_marks 0): the bidder (seat 2) takes the first trick
    ("nello", ["30", "pass", "pass", "pass", "nello", "2-2", "2-1", "6-2"]),
    # sevens named on a 30 bid (sevens_min_marks 0): 5-2 and 6-1 are both 7, the first played
    # (the bidder's 5-2) wins; the hand is then played on (random legal tiles) to its result
    ("sevens", ["30", "pass", "pass", "pass", "sevens", "5-2", "3-2", "4-4", "6-1"]),
])
def test_points_scoring_nello_and_sevens_on_a_points_bid_worth_the_bid(contract, seq):
    """docs/rules-choices.md: under ``scoring: points`` a nello or sevens declared on a points
    bid is worth the points bid (here 30), one mark under ``scoring: marks``."""
    assert RefHand.NELLO_SEVENS_WORTH_42_A_MARK is False
    for scoring, value in (("points", 30), ("marks", 1)):
        rules = RulesConfig.make(scoring=scoring, nello_min_marks=0, sevens=True,
                                 sevens_min_marks=0)
        game, st, ref = _drive(rules, 1, HANDS, seq)
        rng = np.random.default_rng(3)
        while ref.phase != "over":
            a = sorted(ref.legal())[int(rng.integers(len(ref.legal())))]
            ref.apply(a)
            game.step(st, np.array([game.actions.id(a)]))
            check_step(game, st, 0, ref)
        want = [0, 0]
        want[0 if ref.made else 1] = value
        assert ref.contract == contract and ref.score == want
        assert ref.marks == [int(x > 0) for x in want]
        assert st.hand_score[0].tolist() == want
        check_result(game, st, 0, ref)
