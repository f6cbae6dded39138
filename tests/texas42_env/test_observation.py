"""Observation encoders against their field table, and what a seat may not see.

(a) ``reference_encode``: a slow, plain-Python encoder written from the meanings of
    ``encoder.fields`` (per table, over the state's history: the deal, the bids, the plays in
    order), compared field by field with ``ObservationEncoder.encode`` on thousands of random
    positions of both rulesets (nello, sevens, plunges, the six-player exchange included);
(b) no leaks: a position whose hidden tiles (the other seats' hands; six-player: the cat, unless
    the observer is the bidder who has seen it) are dealt again among their holders gives the
    observer a byte-identical observation, while ``PerfectInformationEncoder`` tells the two
    apart; the perfect encoder is used only when asked for by name;
(c) every value lies in [0, 1] and inside the environments' observation space;
(d) seats are relative: the same deal and actions one seat round the table give the rotated
    observer the same observation.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest


import reference as ref4  # noqa: E402
import reference_six as ref6  # noqa: E402

from texas42_env import tiles as T  # noqa: E402
from texas42_env.actions import PASS, PLUNGE, SIX_LEVELS, SIX_TRUMPS, SPLASH  # noqa: E402
from texas42_env.core import (BIDDING, EXCHANGING, GAME_OVER, HAND_OVER, PLAYING,  # noqa: E402
                              Game)
from texas42_env.observation import (ObservationEncoder, PerfectInformationEncoder,  # noqa: E402
                                     make_encoder)
from texas42_env.rules import CONTRACT_NAMES, RulesConfig  # noqa: E402
from texas42_env.sampling import uniform_legal  # noqa: E402

# rule configurations the random positions are drawn under
STANDARD_CONFIGS = [
    RulesConfig.make(),
    RulesConfig.make(splash=True, sevens=True, sevens_min_marks=0, nello_min_marks=0,
                     nello_doubles="own_suit", follow_me_doubles="own_suit", play_out=True),
    RulesConfig.make(sevens=True, sevens_tie="bidder", nello_doubles="low", all_pass="redeal",
                     first_bidder="holder_of_1_0", scoring="points", target=120),
    RulesConfig.make(plunge_min_doubles=2, splash=True, play_out=True, target=3),
]
SIX_CONFIGS = [
    RulesConfig.make("six-player"),
    RulesConfig.make("six-player", scoring="marks", target=3, play_out=True,
                     follow_me_doubles="own_suit", all_pass="redeal"),
]
SUIT_INDEX = {**{str(s): s for s in range(7)}, "trump": 7, "doubles": 8}


# ----------------------------------------------------------------------------- positions
def random_positions(rules: RulesConfig, tables: int, steps: int, seed: int):
    """Random legal play at ``tables`` tables for ``steps`` steps, games going on hand after
    hand; yields ``(game, state, actions)`` before each step, ``actions[b]`` the action ids of
    table b's hand so far (the state is live: copy what is kept)."""
    game = Game(rules)
    rng = np.random.default_rng(seed)
    st = game.reset(tables, seed=seed)
    history = [[] for _ in range(tables)]
    next_game = tables
    for _ in range(steps):
        yield game, st, history
        acts = uniform_legal(game.legal_mask(st), rng)
        game.step(st, acts)
        for b in range(tables):
            if acts[b] >= 0:
                history[b].append(int(acts[b]))
        over = np.flatnonzero(st.phase >= HAND_OVER)
        if over.size and rng.random() < 0.3:  # let finished hands show for a while
            done = over[st.phase[over] == GAME_OVER]
            more = over[st.phase[over] == HAND_OVER]
            game.next_hand(st, more)
            game.new_games(st, done, np.arange(next_game, next_game + done.size))
            next_game += done.size
            for b in over:
                history[b] = []


# ----------------------------------------------------------------------------- (a) reference
def _contract_rules(game: Game, name: str):
    if game.six:
        return ref6.Contract(name, game.rules)
    return ref4.Contract(name, game.rules)


def _trick_winner(game: Game, contract: str, bidder: int, tiles: list[int], seats: list[int]):
    """Index (in play order) of the tile that wins a complete trick."""
    if contract == "sevens":
        dist = [ref4.sevens_distance(t) for t in tiles]
        close = [i for i, d in enumerate(dist) if d == min(dist)]
        if game.rules.sevens_tie == "bidder":
            ours = [i for i in close if seats[i] % 2 == bidder % 2]
            if ours:
                return ours[0]
        return close[0]
    return _contract_rules(game, contract).trick_winner_index(tiles)


def _counts(mask: int, copies: int) -> np.ndarray:
    """Tile counts of an instance bitmask, / copies."""
    v = np.zeros(T.N_TILES, np.float32)
    for i in range(T.N_TILES * copies):
        if mask >> i & 1:
            v[i % T.N_TILES] += 1 / copies
    return v


def reference_encode(encoder: ObservationEncoder, st, b: int, me: int) -> dict[str, np.ndarray]:
    """Each field of ``encoder.fields`` for seat ``me`` at table ``b``, from its meaning."""
    game = encoder.game
    r = game.rules
    S, Tn, C, six = game.n_seats, game.n_tricks, r.copies, game.six
    out = {f.name: np.zeros(f.size, np.float32) for f in encoder.fields}

    def rel(seat: int) -> int:
        return (seat - me) % S

    phase = int(st.phase[b])
    out["hand"][:] = _counts(int(st.hands[b, me]), C)
    out["dealer"][rel(int(st.dealer[b]))] = 1
    out["phase"][min(phase, 4)] = 1  # bid, declare, exchange, play, over (game over too)

    # the bidding: one bid a seat, clockwise from the first bidder
    first, nb = int(st.first_bidder[b]), int(st.n_bids[b])
    F = encoder.bid_features
    high = None
    for i, a in enumerate(int(x) for x in st.bids[b, :nb]):
        seat = (first + i) % S
        row = out["bids"][rel(seat) * F:(rel(seat) + 1) * F]
        if not six:
            row[a] = 1  # pass, 30..41, 1m..10m, plunge, splash: the action id
        elif a == PASS:
            row[0] = 1
        else:
            row[1 + (a - 1) // SIX_TRUMPS] = 1  # level 60..352
            row[1 + len(SIX_LEVELS) + (a - 1) % SIX_TRUMPS] = 1  # trump
        if a != PASS:
            high = (seat, a)  # each bid is higher than the last: the last bid is the high one
    if high is not None:
        out["high_bidder"][rel(high[0])] = 1
    bidder = declarer = None
    if phase != BIDDING and high is not None:
        bidder = high[0]
        special = not six and high[1] in (PLUNGE, SPLASH)
        declarer = (bidder + 2) % S if special else bidder
        out["bidder"][rel(bidder)] = 1
        out["declarer"][rel(declarer)] = 1
    c = int(st.contract[b])
    contract = CONTRACT_NAMES[c] if c >= 0 else None
    sit_out = None
    if contract is not None:
        out["contract"][c] = 1
        if contract == "nello":
            sit_out = (bidder + 2) % S
            out["sits_out"][rel(sit_out)] = 1

    # the plays, trick by trick: who played what, who led and won, what is known void
    n = int(st.n_plays[b])
    plays = [int(t) for t in st.plays[b, :n]]
    size = S - 1 if sit_out is not None else S
    seen = Counter()
    taken = [0, 0]
    points = [0, 0]
    leader = declarer
    rules_of = _contract_rules(game, contract) if contract not in (None, "sevens") else None
    for k, start in enumerate(range(0, n, size)):
        tiles = plays[start:start + size]
        seats, s = [], leader
        for _ in tiles:
            seats.append(s)
            s = (s + 1) % S
            if s == sit_out:
                s = (s + 1) % S
        assert seats == st.play_seats[b, start:start + len(tiles)].tolist()
        led = rules_of.led_suit(tiles[0]) if rules_of else None
        for t, seat in zip(tiles, seats):
            copy = seen[t]
            seen[t] += 1
            key = copy * T.N_TILES + t
            out["played_by"][key * S + rel(seat)] = 1
            out["played_in"][key * Tn + k] = 1
            if rules_of and seat != seats[0] and led not in rules_of.suits(t):
                out["voids"][rel(seat) * 9 + SUIT_INDEX[led]] = 1
        if len(tiles) == size:
            w = seats[_trick_winner(game, contract, bidder, tiles, seats)]
            out["trick_leaders"][k * S + rel(seats[0])] = 1
            out["trick_winners"][k * S + rel(w)] = 1
            taken[w % 2] += 1
            points[w % 2] += sum(ref4.count_of(t) for t in tiles) + r.points_per_trick
            leader = w
        else:  # the trick in progress
            for t, seat in zip(tiles, seats):
                out["current_trick"][rel(seat) * T.N_TILES + t] = 1
            if phase == PLAYING and led is not None:  # sevens calls for no suit
                out["led_suit"][SUIT_INDEX[led]] = 1
    us, them = me % 2, 1 - me % 2
    out["points"][:] = points[us] / r.total_points, points[them] / r.total_points
    out["tricks"][:] = taken[us] / Tn, taken[them] / Tn
    made = int(st.made[b])
    if made >= 0:
        out["result"][0 if made else 1] = 1
    score = st.score[b]
    target = r.resolved_target
    out["score"][:] = min(score[us] / target, 1), min(score[them] / target, 1)

    if six:  # the exchange: how many tiles, in public once it is over; the tiles, to the bidder
        swaps = sum(1 for d in st.ex_discard[b] if d >= 0)
        out["swaps"][0] = swaps / 2 if phase > EXCHANGING else 0
        if bidder == me and phase >= EXCHANGING:
            out["cat_seen"][:] = _counts(int(st.dealt_cat[b]), C)
            for name, col in (("took", st.ex_take), ("discarded", st.ex_discard)):
                for t in col[b]:
                    if t >= 0:
                        out[name][t] += 1 / C
    if isinstance(encoder, PerfectInformationEncoder):
        for s in range(S):
            out["all_hands"][rel(s) * T.N_TILES:(rel(s) + 1) * T.N_TILES] = \
                _counts(int(st.hands[b, s]), C)
        if six:
            out["cat"][:] = _counts(int(st.cat[b]), C)
    return out


def _assert_fields_equal(encoder, fast: np.ndarray, slow: dict, where: str,
                         skip: tuple[str, ...] = ()) -> None:
    want_all = np.concatenate([slow[f.name] for f in encoder.fields])
    keep = np.ones(encoder.size, bool)
    for f in encoder.fields:
        if f.name in skip:
            keep[f.offset:f.offset + f.size] = False
    if np.abs(fast - want_all)[keep].max(initial=0) <= 1e-6:
        return
    for f in encoder.fields:
        if f.name in skip:
            continue
        got = fast[f.offset:f.offset + f.size]
        want = slow[f.name]
        if not np.allclose(got, want, atol=1e-6):
            bad = np.flatnonzero(~np.isclose(got, want, atol=1e-6))
            raise AssertionError(
                f"{where}: field {f.name!r} ({f.meaning}) differs at {bad[:8].tolist()}: "
                f"encoder {got[bad[:8]].tolist()}, reference {want[bad[:8]].tolist()}")


def _known_bugs(st, b: int) -> tuple[str, ...]:
    """Fields left out of the comparison at a position because of a known encoder bug, each
    pinned by a strict xfail test below (remove the entry when that test starts passing)."""
    return ()


def _check_reference(configs, tables, steps, perfect_every=7):
    coverage = Counter()
    positions = 0
    rng = np.random.default_rng(1)
    for i, rules in enumerate(configs):
        game = Game(rules)
        enc, perf = ObservationEncoder(game), PerfectInformationEncoder(game)
        for step, (game, st, _) in enumerate(random_positions(rules, tables, steps, seed=i)):
            seats = rng.integers(0, game.n_seats, tables)
            fast = enc.encode(st, seats)  # the batch path
            for b in range(tables):
                where = f"{rules.ruleset} config {i}, step {step}, table {b}, seat {seats[b]}"
                slow = reference_encode(enc, st, b, int(seats[b]))
                _assert_fields_equal(enc, fast[b], slow, where, _known_bugs(st, b))
                if (b + step) % 2 == 0:  # the one-table path
                    one = enc.encode(st, [int(seats[b])], [b])[0]
                    _assert_fields_equal(enc, one, slow, where + " (one table)", _known_bugs(st, b))
                c, phase = int(st.contract[b]), int(st.phase[b])
                coverage[("phase", min(phase, 4))] += 1
                if c >= 0:
                    coverage[CONTRACT_NAMES[c]] += 1
                if int(st.high_action[b]) in (PLUNGE, SPLASH) and not game.six:
                    coverage["plunge/splash"] += 1
                if int(st.made[b]) >= 0:
                    coverage["decided"] += 1
                if int(st.bidder[b]) == seats[b]:
                    coverage["observer is bidder"] += 1
            positions += tables
            if step % perfect_every == 0:  # the perfect encoder on a sample
                pf = perf.encode(st, seats)
                for b in range(tables):
                    slow = reference_encode(perf, st, b, int(seats[b]))
                    where = f"perfect, config {i}, step {step}, table {b}"
                    _assert_fields_equal(perf, pf[b], slow, where, _known_bugs(st, b))
                    one = perf.encode(st, [int(seats[b])], [b])[0]
                    _assert_fields_equal(perf, one, slow, where + " (one table)",
                                         _known_bugs(st, b))
    return positions, coverage


def test_standard_encoder_matches_the_reference_field_by_field():
    positions, coverage = _check_reference(STANDARD_CONFIGS, tables=32, steps=50)
    assert positions >= 6000
    for what in ("nello", "sevens", "doubles", "follow-me", "plunge/splash", "decided",
                 "observer is bidder", ("phase", 0), ("phase", 1), ("phase", 3), ("phase", 4)):
        assert coverage[what] > 0, f"no random position covered {what!r}: {dict(coverage)}"


def test_six_player_encoder_matches_the_reference_field_by_field():
    positions, coverage = _check_reference(SIX_CONFIGS, tables=32, steps=50)
    assert positions >= 3000
    for what in (("phase", 1), ("phase", 2), ("phase", 3), ("phase", 4), "doubles", "follow-me",
                 "observer is bidder", "decided"):
        assert coverage[what] > 0, f"no random position covered {what!r}: {dict(coverage)}"


def test_reference_encoder_knows_the_led_suit_of_a_hand_worked_trick():
    """A check of the reference itself: 5s trump, 6-4 led calls sixes; 4-4 does not follow."""
    game = Game(RulesConfig.make())
    enc = ObservationEncoder(game)
    hands = [["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
             ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"],
             ["4-3", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1"],
             ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"]]
    st = game.reset(1)
    game.set_hands(st, [0], np.array([[T.mask_of(T.parse_tile(x) for x in h) for h in hands]],
                                     np.uint64), 3)
    sp = game.actions
    for name in ("30", "pass", "pass", "pass", "5s", "6-4", "4-4"):
        game.step(st, np.array([sp.id(name)]))
    slow = reference_encode(enc, st, 0, 2)
    assert slow["led_suit"].tolist() == [0, 0, 0, 0, 0, 0, 1, 0, 0]
    assert slow["voids"][(1 - 2) % 4 * 9 + 6] == 1  # seat 1, relative 3, is void in sixes
    _assert_fields_equal(enc, enc.encode(st, [2])[0], slow, "worked trick")


def test_sevens_trick_calls_for_no_suit():
    game = Game(RulesConfig.make(sevens=True))
    enc = ObservationEncoder(game)
    sp = game.actions
    st = game.reset(1, seed=0)
    for name in ("1m", "pass", "pass", "pass", "sevens"):
        game.step(st, np.array([sp.id(name)]))
    game.step(st, np.array([np.flatnonzero(st.legal[0])[0]]))  # a tile closest to 7 is led
    led = next(f for f in enc.fields if f.name == "led_suit")
    for x in (enc.encode(st, [0])[0], enc.encode(st, [0, 0], [0, 0])[0]):  # both paths
        assert x[led.offset:led.offset + led.size].tolist() == [0] * 9


# ----------------------------------------------------------------------------- (b) no leaks
def _differing(encoder, x: np.ndarray, y: np.ndarray) -> list[str]:
    return [f.name for f in encoder.fields
            if not np.array_equal(x[..., f.offset:f.offset + f.size],
                                  y[..., f.offset:f.offset + f.size])]


def _hidden_from(game: Game, st, me: int) -> tuple[list[int], bool]:
    """The seats whose hands ``me`` cannot see, and whether the cat is hidden from ``me``."""
    seats = [s for s in range(game.n_seats) if s != me]
    cat_seen = game.six and int(st.bidder[0]) == me and int(st.phase[0]) >= EXCHANGING
    return seats, game.six and not cat_seen


def deal_hidden_again(game: Game, st, me: int, rng: np.random.Generator):
    """A copy of the one-table state ``st`` in which the tiles ``me`` cannot see are dealt
    again among their holders (hand sizes kept): the tile instances held by the other seats
    (and the cat, when hidden) are relabelled by one random permutation, applied consistently
    to the hands now, the hands as dealt, the cat and the exchange."""
    seats, cat_hidden = _hidden_from(game, st, me)
    pool = 0
    for s in seats:
        pool |= int(st.hands[0, s])
    if cat_hidden:
        pool |= int(st.cat[0])
    inst = T.tiles_of(pool)
    perm = dict(zip(inst, rng.permutation(inst).tolist()))

    def relabel(mask: int) -> int:
        out = 0
        for i in T.tiles_of(mask):
            out |= 1 << perm.get(i, i)
        return out

    new = st.copy()
    for s in range(game.n_seats):
        new.hands[0, s] = relabel(int(st.hands[0, s]))
        new.dealt[0, s] = relabel(int(st.dealt[0, s]))
    new.cat[0] = relabel(int(st.cat[0]))
    new.dealt_cat[0] = relabel(int(st.dealt_cat[0]))
    bidder = int(st.bidder[0])
    if game.six and cat_hidden and bidder >= 0:
        # the exchange names tile types: follow the instance each swap moved
        taken = int(st.dealt_cat[0]) & ~int(st.cat[0])  # left the cat: into the bidder's hand
        given = int(st.dealt[0, bidder]) & int(st.cat[0])  # left the hand: into the cat
        for col, moved in ((new.ex_take, taken), (new.ex_discard, given)):
            left = T.tiles_of(moved)
            for k in range(2):
                t = int(col[0, k])
                if t >= 0:
                    i = next(x for x in left if x % T.N_TILES == t)
                    left.remove(i)
                    col[0, k] = perm.get(i, i) % T.N_TILES
        if int(st.ex_pending[0]) >= 0:
            new.ex_pending[0] = new.ex_take[0, int(st.n_swaps[0])]
    game.refresh_legal(new, [0])  # the mover's legal actions follow its new hand
    changed = any(
        not np.array_equal(_counts(int(st.hands[0, s]), 2), _counts(int(new.hands[0, s]), 2))
        for s in seats) or (cat_hidden and not np.array_equal(
            _counts(int(st.cat[0]), 2), _counts(int(new.cat[0]), 2)))
    return new, changed


@pytest.mark.parametrize("configs", [STANDARD_CONFIGS, SIX_CONFIGS], ids=["standard", "six"])
def test_no_leaks_tiles_a_seat_cannot_see_do_not_change_its_observation(configs):
    rng = np.random.default_rng(7)
    checked = differed = 0
    kinds = Counter()
    for i, rules in enumerate(configs):
        game = Game(rules)
        enc, perf = make_encoder(game), make_encoder(game, "perfect")
        for step, (game, st, _) in enumerate(random_positions(rules, 12, 45, seed=100 + i)):
            if step % 3:
                continue
            for b in range(st.batch_size):
                one = st.take([b])
                me = int(rng.integers(game.n_seats))
                other, changed = deal_hidden_again(game, one, me, rng)
                # the one-table path, and the batch path (the table twice)
                a = np.concatenate([enc.encode(one, [me]), enc.encode(one, [me, me], [0, 0])])
                a2 = np.concatenate([enc.encode(other, [me]),
                                     enc.encode(other, [me, me], [0, 0])])
                assert a.tobytes() == a2.tobytes(), (
                    f"{rules.ruleset} config {i} step {step} table {b}: seat {me}'s view "
                    f"changed with tiles it cannot see (fields {_differing(enc, a, a2)})")
                checked += 1
                kinds[(int(one.phase[0]), int(one.to_move[0]) == me)] += 1
                if game.six and int(one.bidder[0]) >= 0 and int(one.phase[0]) >= EXCHANGING:
                    kinds["six: bidder" if int(one.bidder[0]) == me else "six: not bidder"] += 1
                if changed:  # the test can fail: the perfect view does tell them apart
                    assert not np.array_equal(perf.encode(one, [me]), perf.encode(other, [me]))
                    assert not np.array_equal(perf.encode(one, [me, me], [0, 0]),
                                              perf.encode(other, [me, me], [0, 0]))
                    differed += 1
    assert checked >= 300 and differed >= checked // 2, (checked, differed)
    assert kinds[(PLAYING, True)] and kinds[(PLAYING, False)] and kinds[(BIDDING, False)], kinds
    if configs is SIX_CONFIGS:
        assert kinds["six: bidder"] and kinds["six: not bidder"], kinds


def test_the_leak_check_can_fail():
    """An encoder that shows the next seat's hand is caught by the same construction."""
    game = Game(RulesConfig.make())

    class Leaky(ObservationEncoder):
        def _encode_extra(self, st, idx, seats, out):
            idx = np.arange(st.batch_size)[idx]
            out[:, :T.N_TILES] = self._tile_counts(st.hands[idx, (seats + 1) % 4])

    leaky = Leaky(game)
    rng = np.random.default_rng(0)
    st = game.reset(1, seed=3)
    other, changed = deal_hidden_again(game, st, 0, rng)
    assert changed
    assert leaky.encode(st, [0]).tobytes() != leaky.encode(other, [0]).tobytes()
    assert leaky.encode(st, [0, 0], [0, 0]).tobytes() != \
        leaky.encode(other, [0, 0], [0, 0]).tobytes()


def test_perfect_information_only_when_asked_for_by_name():
    import gymnasium

    from texas42_env.env import Texas42Env
    from texas42_env.pettingzoo_env import raw_env
    from texas42_env.vector_env import Texas42VectorEnv

    for ruleset in ("standard", "six-player"):
        game = Game(RulesConfig.make(ruleset))
        assert type(make_encoder(game)) is ObservationEncoder
        assert type(make_encoder(game, "imperfect")) is ObservationEncoder
        assert type(make_encoder(game, "perfect")) is PerfectInformationEncoder
        assert make_encoder(game, "perfect").size > make_encoder(game).size
        assert type(Texas42Env(ruleset=ruleset).encoder) is ObservationEncoder
        assert type(Texas42VectorEnv(2, ruleset=ruleset).encoder) is ObservationEncoder
        assert type(raw_env(ruleset=ruleset).encoder) is ObservationEncoder
        assert type(Texas42Env(ruleset=ruleset, observation="perfect").encoder) is \
            PerfectInformationEncoder
    for env_id in ("Texas42-v0", "Texas88-v0"):
        env = gymnasium.make(env_id)
        assert type(env.unwrapped.encoder) is ObservationEncoder
        assert "all_hands" not in {f.name for f in env.unwrapped.encoder.fields}
        env.close()
    with pytest.raises(ValueError, match="unknown observation encoder"):
        make_encoder(Game(), "oracle")


# ----------------------------------------------------------------------------- (c) ranges
@pytest.mark.parametrize("ruleset,configs", [("standard", STANDARD_CONFIGS),
                                             ("six-player", SIX_CONFIGS)])
def test_every_value_in_0_1_and_inside_the_observation_space(ruleset, configs):
    from texas42_env.env import Texas42Env

    space = Texas42Env(ruleset=ruleset).observation_space
    for i, rules in enumerate(configs):
        game = Game(rules)
        for enc in (make_encoder(game), make_encoder(game, "perfect")):
            for step, (game, st, _) in enumerate(random_positions(rules, 32, 60, seed=200 + i)):
                for me in range(game.n_seats):
                    x = enc.encode(st, np.full(st.batch_size, me))
                    assert x.dtype == np.float32 and x.shape == (st.batch_size, enc.size)
                    assert np.isfinite(x).all() and x.min() >= 0 and x.max() <= 1, (step, me)
                    if enc.name == "imperfect" and rules == configs[0]:
                        masks = st.legal.astype(np.int8)
                        for b in range(0, st.batch_size, 8):
                            assert space.contains({"observation": x[b],
                                                   "action_mask": masks[b]})


# ----------------------------------------------------------------------------- (d) rotation
def _rotated(game: Game, st, b: int, actions: list[int]):
    """Table ``b``'s hand one seat to the left: seat s's tiles go to seat s + 1, the dealer
    too, the same actions in the same order (so every seat's part moves with it), the game
    score seen from the other team."""
    S = game.n_seats
    rot = game.reset(1)
    score_before = st.score[b] - st.hand_score[b]
    rot.score[0] = score_before[::-1]
    game.set_hands(rot, [0], np.roll(st.dealt[b], 1)[None, :], (int(st.dealer[b]) + 1) % S,
                   st.dealt_cat[b:b + 1])
    for a in actions:
        game.step(rot, np.array([a]))
    return rot


@pytest.mark.parametrize("configs", [STANDARD_CONFIGS, SIX_CONFIGS], ids=["standard", "six"])
def test_rotating_the_table_rotates_the_observer(configs):
    checked = Counter()
    for i, rules in enumerate(configs):
        game = Game(rules)
        encoders = (make_encoder(game), make_encoder(game, "perfect"))
        for step, (game, st, history) in enumerate(random_positions(rules, 8, 45, seed=300 + i)):
            if step % 4 != 1:
                continue
            for b in range(st.batch_size):
                rot = _rotated(game, st, b, history[b])
                S = game.n_seats
                assert int(rot.phase[0]) == int(st.phase[b])
                assert int(rot.to_move[0]) == (-1 if st.to_move[b] < 0
                                               else (int(st.to_move[b]) + 1) % S)
                for enc in encoders:
                    x = enc.encode(st, np.arange(S), idx=np.full(S, b))
                    y = enc.encode(rot, (np.arange(S) + 1) % S, idx=np.zeros(S, np.int64))
                    for s in range(S):  # the one-table path agrees with the batch path
                        assert np.array_equal(enc.encode(st, [s], [b])[0], x[s])
                        assert np.array_equal(enc.encode(rot, [(s + 1) % S])[0], y[s])
                    for s in range(S):
                        if not np.array_equal(x[s], y[s]):
                            raise AssertionError(f"{rules.ruleset} config {i} step {step} "
                                                 f"table {b} seat {s}: {enc.name} fields "
                                                 f"{_differing(enc, x[s], y[s])}")
                checked[min(int(st.phase[b]), 4)] += 1
    assert checked[BIDDING] and checked[PLAYING] and checked[4], checked
