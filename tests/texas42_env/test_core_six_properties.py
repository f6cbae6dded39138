"""Property tests of the six-player game ("Texas 88") in the core, against the slow reference
``tests/reference_six.py`` (written from rules.md alone).

(a) cross-check: random six-player configurations (every option value), random deals and
    hand-made count-heavy deals, random legal play on batches of tables; at every step each
    table's phase, seat to move, legal actions and running result are compared with the
    reference driven through the same actions (the core's take/discard/keep steps are given to
    the reference as one whole exchange, and at sampled exchanges the set of whole exchanges of
    ``records.legal_exchanges`` is compared with the reference's); at sampled steps
    ``game.reason(st, b, a) is None`` exactly when ``st.legal[b, a]``, for every action;
(b) invariants: each of the 56 tile instances is played at most once and the cat never, tricks
    of 6, 88 points in a played-out hand (less the count left in the cat when the winner could
    not take it), scores add up over a game, the deal passes left;
(c) records: ``record_from_state`` -> JSON -> ``parse_record`` -> ``replay`` gives the core's
    result and the reference's, for finished hands and for hands cut at random points;
(d) deals: six hands of nine and a cat of two holding every tile exactly twice, reproducible from
    (seed, game, hand) whatever the batch size, the table order or the options.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs


from reference_six import (NAMES, RefSixHand, canonical, count_of,  # noqa: E402
                           exchange_key, replay_record)

from texas42_env import tiles as T  # noqa: E402
from texas42_env.actions import BID, EXCHANGE, PLAY  # noqa: E402
from texas42_env.core import (EXCHANGING, GAME_OVER, HAND_OVER, PHASE_NAMES,  # noqa: E402
                              Game)
from texas42_env.records import (instance_masks, legal_exchanges, parse_record,  # noqa: E402
                                 record_from_state, replay, summary)
from texas42_env.rules import DEFAULTS, OPTION_SPECS, RulesConfig  # noqa: E402
from texas42_env.sampling import uniform_legal  # noqa: E402

SIX_OPTIONS = [n for n in DEFAULTS["six-player"] if n != "target"]
ALL56 = (1 << 56) - 1
COUNT_TILES = [t for t in range(28) if count_of(t)]
NONCOUNT_TILES = [t for t in range(28) if not count_of(t)]


def option_values(name: str) -> list:
    return list(OPTION_SPECS[name].choices)


def six_configs(n: int, seed: int) -> list[RulesConfig]:
    """``n`` configurations in which every value of every six-player option appears (each
    option's values repeated and shuffled independently), some with small targets."""
    rng = np.random.default_rng(seed)
    cols = {}
    for name in SIX_OPTIONS:
        vals = option_values(name)
        col = (vals * (n // len(vals) + 1))[:n]
        cols[name] = [col[i] for i in rng.permutation(n)]
    out = []
    for i in range(n):
        opts = {name: cols[name][i] for name in SIX_OPTIONS}
        if i % 3 == 1:  # small targets, so that games end now and then
            opts["target"] = int(rng.integers(1, 3)) if opts["scoring"] == "marks" else \
                int(rng.integers(60, 200))
        out.append(RulesConfig.make("six-player", **opts))
    return out


# ----------------------------------------------------------------------------- choosing actions
def bid_levels(game: Game) -> np.ndarray:
    lv = np.full(game.n_actions, 99, np.int64)
    lv[1:game.actions.contract0] = (np.arange(1, game.actions.contract0) - 1) // 9
    return lv


def choose(game: Game, st, rng, heavy: np.ndarray) -> np.ndarray:
    """Random legal actions. In the bidding most tables pass or bid one of the lowest few
    levels (uniform bids would nearly always be 176 and more); a table with a count-heavy deal
    (``heavy[b]`` = that seat, else -1) has every other seat pass."""
    acts = uniform_legal(st.legal, rng)
    bidding = np.flatnonzero(st.phase == 0)
    if bidding.size:
        lv = bid_levels(game)
        legal = st.legal[bidding]
        is_bid = legal & (lv < 99)[None, :]
        low = np.where(is_bid, lv[None, :], 99).min(axis=1)
        reach = np.where(rng.random(bidding.size) < 0.12, 99, rng.integers(0, 3, bidding.size))
        mask = is_bid & (lv[None, :] <= (low + reach)[:, None])
        want_pass = (rng.random(bidding.size) < 0.55) & legal[:, 0]
        hv = heavy[bidding]
        want_pass = np.where(hv >= 0, st.to_move[bidding] != hv, want_pass) & legal[:, 0]
        mask[want_pass] = False
        mask[want_pass, 0] = True
        empty = ~mask.any(axis=1)  # nothing to bid (352 is bid): pass
        mask[empty] = legal[empty]
        acts[bidding] = uniform_legal(mask, rng)
    return acts


# ----------------------------------------------------------------------------- deals
def heavy_deal(rng) -> tuple[list[list[int]], list[int], int]:
    """A deal where one seat holds 9, 8 or 7 count tiles and the cat holds count tiles, so that
    the exchange meets "as many as it can"; returns (hands, cat, heavy seat)."""
    counts = [t for t in COUNT_TILES for _ in range(2)]
    others = [t for t in NONCOUNT_TILES for _ in range(2)]
    rng.shuffle(counts)
    rng.shuffle(others)
    k = int(rng.choice([9, 8, 7]))
    heavy = counts[:k] + others[:9 - k]
    rest_counts = counts[k:]
    rest = others[9 - k:]
    if k == 9:
        cat = [rest_counts[0], rest.pop()]
        pool = rest_counts[1:] + rest
    else:
        cat = rest_counts[:2]
        pool = rest_counts[2:] + rest
    pool = list(pool)
    rng.shuffle(pool)
    seat = int(rng.integers(6))
    hands, j = [], 0
    for s in range(6):
        if s == seat:
            hands.append(sorted(heavy))
        else:
            hands.append(sorted(pool[j:j + 9]))
            j += 9
    return hands, cat, seat


def dealt_of(game: Game, st, b: int) -> tuple[list[list[int]], list[int]]:
    hands = [sorted(game.hand_tiles(st, b, s, dealt=True)) for s in range(6)]
    cat = sorted(t % 28 for t in T.tiles_of(int(st.dealt_cat[b])))
    return hands, cat


# ----------------------------------------------------------------------------- checks
def core_legal(game: Game, st, b: int) -> set[str]:
    return {game.actions.name(a) for a in np.flatnonzero(st.legal[b])}


def repro(game: Game, st, b: int, ref: RefSixHand) -> str:
    return json.dumps({"ruleset": "six-player", "options": game.rules.options(),
                       "dealer": ref.dealer, "hands": [[NAMES[t] for t in h] for h in ref.dealt],
                       "cat": [NAMES[t] for t in ref.dealt_cat], "actions": ref.actions})


def running(st, b: int):
    made = int(st.made[b])
    return (st.points[b].tolist(), None if made < 0 else bool(made), st.hand_marks[b].tolist(),
            st.hand_score[b].tolist(), int(st.trick_no[b]))


def check_step(game: Game, st, b: int, ref: RefSixHand, mid_exchange: bool) -> None:
    want = (ref.points, ref.made, ref.marks, ref.score, len(ref.tricks))
    got = running(st, b)
    assert got == want, (f"running result (points, made, marks, score, tricks) differs at "
                         f"table {b}: core {got}, reference {want}\n"
                         f"repro: {repro(game, st, b, ref)}")
    phase = PHASE_NAMES[int(st.phase[b])]
    to_move = int(st.to_move[b])
    want_move = -1 if ref.to_move is None else ref.to_move
    assert (phase, to_move) == (ref.phase, want_move), (
        f"table {b}: core phase/seat {(phase, to_move)}, reference {(ref.phase, want_move)}\n"
        f"repro: {repro(game, st, b, ref)}")
    if phase in ("bid", "declare", "play"):
        got_legal, want_legal = core_legal(game, st, b), ref.legal()
        assert got_legal == want_legal, (
            f"table {b} ({phase}): core-only legal {sorted(got_legal - want_legal)}, "
            f"reference-only {sorted(want_legal - got_legal)}\nrepro: {repro(game, st, b, ref)}")
    elif phase == "exchange" and not mid_exchange:
        # the exchange is one or more take/discard steps: the core's legal first steps must be
        # exactly the first steps of the reference's whole exchanges
        keys = ref.legal()
        first = set()
        for take, discard in keys:
            if not take:
                first.add("keep")
            for t in take:
                first.add(f"take {t}")
        got_first = core_legal(game, st, b)
        assert got_first == first, (f"table {b}: exchange first steps core {sorted(got_first)}, "
                                    f"reference {sorted(first)}\nrepro: {repro(game, st, b, ref)}")


def check_whole_exchanges(game: Game, st, b: int, ref: RefSixHand) -> None:
    got = {exchange_key(x["take"], x["discard"]) for x in legal_exchanges(game, st, b)}
    want = ref.legal()
    assert got == want, (f"table {b}: whole exchanges core-only {sorted(got - want)}, "
                         f"reference-only {sorted(want - got)}\nrepro: {repro(game, st, b, ref)}")


def check_reasons(game: Game, st, b: int) -> None:
    for a in range(game.n_actions):
        r = game.reason(st, b, a)
        assert (r is None) == bool(st.legal[b, a]), (
            f"table {b}, phase {PHASE_NAMES[int(st.phase[b])]}: action "
            f"{game.actions.name(a)!r} legal={bool(st.legal[b, a])} but reason={r!r}")


def check_record(game: Game, st, b: int, ref: RefSixHand | None) -> None:
    rec = json.loads(json.dumps(record_from_state(game, st, b)))
    got = replay(parse_record(rec))
    assert canonical(got) == canonical(summary(game, st, b)), f"record does not replay: {rec}"
    if ref is not None:
        assert canonical(got) == canonical(replay_record(rec)), f"reference differs: {rec}"


# ----------------------------------------------------------------------------- the sweep
class Table:
    """What the test follows at one table during a hand."""

    def __init__(self, game: Game, st, b: int, heavy: int):
        hands, cat = dealt_of(game, st, b)
        self.ref = RefSixHand(game.rules, int(st.dealer[b]), hands, cat)
        self.heavy = heavy
        self.played = 0  # instance bits played
        self.mid_exchange = False
        self.cut_at = None


def sweep(configs, batch: int, hands_per_config: int, seed: int, cov: Counter,
          reason_p: float, exchange_p: float, cut_p: float, heavy_p: float) -> int:
    done = 0
    for ci, rules in enumerate(configs):
        game = Game(rules)
        rng = np.random.default_rng(seed * 1000 + ci)
        st = game.reset(batch, seed=seed * 1000 + ci)
        heavy = np.full(batch, -1, np.int64)

        def start(b: int) -> Table:
            if rng.random() < heavy_p:
                hands, cat, seat = heavy_deal(rng)
                masks, catm = instance_masks(hands, cat)
                game.set_hands(st, [b], masks[None, :], (seat - 1) % 6, catm)
                heavy[b] = seat
            else:
                heavy[b] = -1
            return Table(game, st, b, int(heavy[b]))

        tables = [start(b) for b in range(batch)]
        game_score = st.score.copy()
        finished = 0
        while finished < hands_per_config:
            live = st.phase < HAND_OVER
            for b in np.flatnonzero(live):
                tb = tables[b]
                check_step(game, st, b, tb.ref, tb.mid_exchange)
                if st.phase[b] == EXCHANGING and not tb.mid_exchange and rng.random() < exchange_p:
                    check_whole_exchanges(game, st, b, tb.ref)
                    cov["whole exchanges compared"] += 1
                if rng.random() < reason_p:
                    check_reasons(game, st, b)
                    cov["reason scans"] += 1
                if not tb.mid_exchange and rng.random() < cut_p:
                    check_record(game, st, b, tb.ref)
                    cov["cut records"] += 1
            acts = choose(game, st, rng, heavy)
            before = st.hands.copy()
            cat_before = st.cat.copy()
            movers = st.to_move.copy()
            game.step(st, np.where(live, acts, -1))
            for b in np.flatnonzero(live):
                tb, a, ref = tables[b], int(acts[b]), tables[b].ref
                kind = int(game.actions.kind[a])
                seat = int(movers[b])
                lost = int(before[b, seat]) & ~int(st.hands[b, seat])
                gained = int(st.hands[b, seat]) & ~int(before[b, seat])
                if kind == PLAY:
                    tile = a - game.actions.play0
                    assert gained == 0 and lost.bit_count() == 1, "a play moves one instance"
                    assert lost in (1 << tile, 1 << (tile + 28)), "the instance is the tile's"
                    assert not tb.played & lost, "an instance played twice"
                    assert not lost & int(st.cat[b]), "a cat tile was played"
                    tb.played |= lost
                    ref.apply(NAMES[tile])
                elif kind == EXCHANGE:
                    name = game.actions.name(a)
                    if name.startswith("take"):
                        assert lost == 0 and gained.bit_count() == 1
                        assert gained & int(cat_before[b]) & int(st.dealt_cat[b])
                        tb.mid_exchange = True
                    elif name.startswith("discard"):
                        assert gained == 0 and lost.bit_count() == 1
                        assert lost & int(st.dealt[b, seat])
                        assert not count_of(a - game.actions.discard0), "a count tile discarded"
                        assert lost & int(st.cat[b])
                    if st.phase[b] != EXCHANGING:
                        n = int(st.n_swaps[b])
                        ex = {"take": [NAMES[t] for t in st.ex_take[b, :n]],
                              "discard": [NAMES[t] for t in st.ex_discard[b, :n]]}
                        assert ref.is_legal(ex), (
                            f"core made an exchange the reference refuses: {ex}\n"
                            f"repro: {repro(game, st, b, ref)}")
                        ref.apply(ex)
                        tb.mid_exchange = False
                        cov[("exchange swaps", n)] += 1
                else:
                    ref.apply(game.actions.name(a))
                    if kind == BID and len(ref.bids) == 6 and ref.bids[:5] == ["pass"] * 5:
                        cov[("all passed to the dealer", rules.all_pass)] += 1
            for b in np.flatnonzero(live & (st.phase >= HAND_OVER)):
                finish_hand(game, st, b, tables[b], cov)
                game_score[b] += st.hand_score[b]
                assert st.score[b].tolist() == game_score[b].tolist(), "game score = sum of hands"
                if st.phase[b] == GAME_OVER:
                    w = int(st.winner[b])
                    assert st.score[b, w] >= game.target and st.score[b, w] >= st.score[b, 1 - w]
                    cov[("game over", rules.scoring)] += 1
                finished += 1
                done += 1
            over = np.flatnonzero(st.phase >= HAND_OVER)
            if over.size:
                ended = over[st.phase[over] == GAME_OVER]
                cont = over[st.phase[over] == HAND_OVER]
                dealers = st.dealer[cont].copy()
                game.next_hand(st, cont)
                assert (st.dealer[cont] == (dealers + 1) % 6).all(), "the deal passes left"
                if ended.size:
                    game.new_games(st, ended, st.game_id[ended] + batch)
                    game_score[ended] = 0
                for b in over:
                    tables[b] = start(int(b))
        for name in SIX_OPTIONS:
            cov[("option", name, getattr(rules, name))] += 1
        cov[("target", rules.target is None)] += 1
    return done


def finish_hand(game: Game, st, b: int, tb: Table, cov: Counter) -> None:
    ref = tb.ref
    got, want = canonical(summary(game, st, b)), canonical(ref.summary())
    if got != want:
        diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want)
                if got.get(k) != want.get(k)}
        raise AssertionError(f"hand result differs at table {b} (core, reference): {diff}\n"
                             f"repro: {repro(game, st, b, ref)}")
    check_record(game, st, b, ref)
    n_tricks = int(st.trick_no[b])
    assert all(len(t["plays"]) == 6 for t in got["tricks"]), "tricks of 6"
    plays = int(st.n_plays[b])
    assert plays == 6 * n_tricks and tb.played.bit_count() == plays
    # the tiles: hands + played + cat = every instance once
    held = 0
    for s in range(6):
        h = int(st.hands[b, s])
        assert not held & h
        held |= h
    cat = int(st.cat[b])
    assert cat.bit_count() == 2 and not cat & (held | tb.played) and not held & tb.played
    assert held | cat | tb.played == ALL56
    if ref.thrown_in:
        cov["thrown in"] += 1
        assert plays == 0
        return
    cov[("bid kind", "every trick" if ref.needs_every_trick() else "points", ref.made)] += 1
    cov[("contract", ref.contract if ref.contract in ("doubles", "follow-me") else "suit")] += 1
    if ref.contract == "follow-me":
        cov[("follow-me", game.rules.follow_me_doubles)] += 1
    cat_count = sum(count_of(t % 28) for t in T.tiles_of(cat))
    dealt = ref.dealt[ref.bidder]
    cc = sum(1 for t in ref.dealt_cat if count_of(t))
    nc = sum(1 for t in dealt if not count_of(t))
    assert (cat_count > 0) == (cc > nc), "count stays in the cat only when it cannot be taken"
    if cat_count:
        cov["count left in the cat"] += 1
        if ref.made is False and ref.points[1 - ref.bid_team] <= 88 - ref.high_points:
            cov["bid out of reach, set after the last trick"] += 1
    if game.rules.play_out or n_tricks == 9:
        assert n_tricks == 9
        assert sum(got["points"]) == 88 - cat_count, "a played-out hand holds 88 less the cat"
        cov[("played out", cat_count > 0)] += 1
    else:
        assert got["made"] is not None, "a hand ends early only when decided"
        cov["decided early"] += 1
    for t in got["tricks"]:
        if len(t["plays"]) == 6:
            win = t["plays"][(t["winner"] - t["leader"]) % 6]
            if t["plays"].count(win) == 2:  # the winning tile's twin fell in the same trick
                cov["both copies of the winning tile in one trick"] += 1


def test_six_core_matches_reference_on_random_configs_and_deals():
    cov = Counter()
    configs = six_configs(12, seed=1)
    n = sweep(configs, batch=48, hands_per_config=150, seed=1, cov=cov, reason_p=0.0015,
              exchange_p=0.25, cut_p=0.0015, heavy_p=0.12)
    assert n >= 1800
    for name in SIX_OPTIONS:
        for v in option_values(name):
            assert cov[("option", name, v)], f"option {name}={v!r} never exercised"
    assert cov[("target", True)] and cov[("target", False)]
    required = [
        ("all passed to the dealer", "force_dealer"), ("all passed to the dealer", "redeal"),
        "thrown in", ("bid kind", "points", True), ("bid kind", "points", False),
        ("bid kind", "every trick", False), ("contract", "doubles"), ("contract", "follow-me"),
        ("contract", "suit"), ("follow-me", "high"), ("follow-me", "own_suit"),
        ("exchange swaps", 0), ("exchange swaps", 1), ("exchange swaps", 2),
        "count left in the cat", ("played out", True), ("played out", False), "decided early",
        "both copies of the winning tile in one trick",
        ("game over", "marks"), ("game over", "points"),
        "bid out of reach, set after the last trick",
    ]
    missing = [k for k in required if not cov[k]]
    assert not missing, f"never came up: {missing}"
    assert cov["whole exchanges compared"] >= 100
    assert cov["reason scans"] >= 100 and cov["cut records"] >= 50


# ----------------------------------------------------------------------------- deals
def check_deal(hands: np.ndarray, cat: int) -> None:
    hands = [int(h) for h in hands]
    assert len(hands) == 6 and all(h.bit_count() == 9 for h in hands)
    assert int(cat).bit_count() == 2
    union = int(cat)
    for h in hands:
        assert not union & h
        union |= h
    assert union == ALL56
    tiles = Counter(t % 28 for h in hands + [int(cat)] for t in T.tiles_of(h))
    assert all(tiles[t] == 2 for t in range(28))


def test_six_deals_hold_every_tile_twice():
    game = Game(RulesConfig.make("six-player"))
    hands, cat = game.deal(9, np.arange(500), 0)
    for i in range(500):
        check_deal(hands[i], int(cat[i]))
    # each instance lands in the cat and in each seat now and then: the deal is not fixed
    in_cat = np.bitwise_or.reduce(cat)
    assert int(in_cat) == ALL56
    assert len({tuple(h.tolist()) for h in hands}) == 500


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**63 - 1),
       ids=hs.lists(hs.integers(0, 10**6), min_size=1, max_size=12, unique=True),
       hand_no=hs.integers(0, 50))
def test_six_deal_reproducible_by_seed_game_hand(seed, ids, hand_no):
    game = Game(RulesConfig.make("six-player"))
    other = Game(RulesConfig.make("six-player", all_pass="redeal", play_out=True,
                                  scoring="marks", follow_me_doubles="own_suit"))
    hands, cat = game.deal(seed, ids, hand_no)
    for i, g in enumerate(ids):
        h1, c1 = game.deal(seed, [g], [hand_no])
        assert (h1[0] == hands[i]).all() and c1[0] == cat[i]
        check_deal(hands[i], int(cat[i]))
    h2, c2 = other.deal(seed, ids[::-1], hand_no)
    assert (h2[::-1] == hands).all() and (c2[::-1] == cat).all()
    # a batch of any size, in any order, deals each game the same first hand and dealer
    st = game.reset(len(ids), seed=seed, game_ids=ids[::-1])
    h0, c0 = game.deal(seed, ids, 0)
    assert (st.dealt[::-1] == h0).all() and (st.dealt_cat[::-1] == c0).all()
    assert (st.dealer[::-1] == game.first_dealer(seed, ids)).all()
    st1 = game.reset(1, seed=seed, game_ids=[ids[-1]])
    assert (st1.dealt[0] == h0[-1]).all() and st1.dealer[0] == st.dealer[0]


def test_six_next_hand_deals_by_hand_number_whatever_the_batch():
    game = Game(RulesConfig.make("six-player", all_pass="redeal"))
    big = game.reset(32, seed=4)
    small = game.reset(2, seed=4, game_ids=[7, 3])
    for k in range(1, 4):
        for st in (big, small):
            while (st.phase < HAND_OVER).any():  # everyone passes: thrown in
                game.step(st, np.where(st.phase < HAND_OVER, 0, -1))
            game.next_hand(st)
            assert (st.hand_no == k).all()
        h, c = game.deal(4, [7, 3], k)
        assert (small.dealt == h).all() and (small.dealt_cat == c).all()
        assert (big.dealt[[7, 3]] == small.dealt).all()
        assert (big.dealer[[7, 3]] == small.dealer).all()
        hb, cb = game.deal(4, np.arange(32), k)
        assert (big.dealt == hb).all() and (big.dealt_cat == cb).all()
    assert (big.dealer == (game.first_dealer(4, np.arange(32)) + 3) % 6).all()
    assert set(game.first_dealer(4, np.arange(200)).tolist()) == set(range(6))


def test_six_reason_matches_legal_in_every_phase_at_one_table_and_batches():
    """``reason`` against the legal rows, every action, along whole random hands (batch of 1
    and a batch of 16: the one-table and the batch paths of ``step``)."""
    rng = np.random.default_rng(5)
    phases = Counter()
    for batch, rules in ((1, RulesConfig.make("six-player")),
                         (16, RulesConfig.make("six-player", follow_me_doubles="own_suit",
                                               all_pass="redeal"))):
        game = Game(rules)
        heavy = np.full(batch, -1)
        for hand in range(6 if batch == 1 else 1):
            st = game.reset(batch, seed=100 + hand)
            step = 0
            while (st.phase < HAND_OVER).any():
                for b in range(batch):
                    if st.phase[b] < HAND_OVER and (step % 7 == 0 or st.phase[b] in (1, 2)):
                        check_reasons(game, st, b)
                        phases[int(st.phase[b])] += 1
                acts = choose(game, st, rng, heavy)
                game.step(st, np.where(st.phase < HAND_OVER, acts, -1))
                step += 1
            for b in range(batch):
                assert all(game.reason(st, b, a) is not None for a in (0, 5, 230))
    assert all(phases[p] for p in range(4)), phases
