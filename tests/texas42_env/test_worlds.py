"""World sampling (``texas42_env.worlds``): every world fits what the observer knows, and the
worlds are uniform over the deals that do.

(a) consistency, on positions cut at random from random play of the core (both rulesets, many
    options: nello, sevens, plunge and splash, follow-me and nello doubles as their own suit,
    holder of 1-0): the observer's hand is its real hand, no tile seen appears, hand sizes are
    right, each seat's voids (worked out here from the plays and the rules tables) and sevens
    distances hold, the worlds' states have legal moves and play out to the end, a world's
    deal replays through the records to the same position, and the real deal is admitted;
(b) uniformity, on late positions: every deal of the unseen tiles is judged by stepping its
    record through the core, all deals at once (the rules' own verdict; six-player, every
    exchange an unseen bidder could have made), the count is compared with ``count_worlds`` and
    the sampled frequencies with a chi-square test; random hands, and scripted ones where the
    bid facts bind (plunge, splash, a six-player suit bid, a bid suit discarded to the cat, a
    count tile left in the cat);
(c) bad input: seat, n, an illegal record, a position no deal fits.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from texas42_env import tiles as T
from texas42_env.core import EXCHANGING, HAND_OVER, PLAYING, Game, State
from texas42_env.records import (exchange_actions, game_for, instance_masks, parse_record,
                                 record_from_state)
from texas42_env.rules import SEVENS, RulesConfig
from texas42_env.sampling import uniform_legal
from texas42_env.worlds import Worlds, _Knowledge, count_worlds, replayed, sample_worlds, worlds_from_state
from agents.bench import bench_worlds

ALL28 = (1 << 28) - 1


# ----------------------------------------------------------------------------- helpers
def fold(x):
    """Tile types of instance masks (uint64 arrays or ints), as [..., 28] copy counts."""
    x = np.asarray(x, np.uint64)
    lo = (x[..., None] >> np.arange(28, dtype=np.uint64)) & np.uint64(1)
    hi = (x[..., None] >> np.arange(28, 56, dtype=np.uint64)) & np.uint64(1)
    return (lo + hi).astype(np.int64)


def special_actions(game: Game) -> np.ndarray:
    names = {"plunge", "splash", "nello", "sevens", "follow-me", "doubles", "pass"}
    return np.array([n in names for n in game.actions.names])


def iter_records(rules: RulesConfig, seed: int, bias: float = 0.3, batch: int = 16):
    """Records of finished hands of random legal play, without end (passes and special bids and
    contracts favoured with probability ``bias``, so that they come up)."""
    game = Game(rules)
    rng = np.random.default_rng(seed)
    st = game.reset(batch, seed=seed)
    special = special_actions(game)
    next_id = batch
    while True:
        acts = uniform_legal(st.legal, rng)
        sp = uniform_legal(st.legal & special[None, :], rng)
        pick = (rng.random(batch) < bias) & (sp >= 0)
        acts = np.where(pick, sp, acts)
        acts = np.where(st.phase >= HAND_OVER, -1, acts)
        game.step(st, acts)
        over = np.flatnonzero(st.phase >= HAND_OVER)
        if over.size:
            for b in over:
                yield record_from_state(game, st, int(b))
            game.new_games(st, over, np.arange(next_id, next_id + over.size))
            next_id += over.size


def random_records(rules: RulesConfig, hands: int, seed: int, bias: float = 0.3) -> list[dict]:
    return list(itertools.islice(iter_records(rules, seed, bias, batch=min(hands, 64)), hands))


def n_actions(rec: dict) -> int:
    return len(rec["bids"]) + ("contract" in rec) + ("exchange" in rec) + len(rec["plays"])


def cut(rec: dict, k: int) -> dict:
    """``rec`` stopped after its first ``k`` actions (bids, contract, exchange, plays)."""
    out = {key: v for key, v in rec.items() if key not in ("bids", "contract", "exchange",
                                                              "plays")}
    out["bids"] = rec["bids"][:k]
    k -= len(out["bids"])
    for key in ("contract", "exchange"):
        if k > 0 and key in rec:
            out[key] = rec[key]
            k -= 1
    out["plays"] = rec["plays"][:max(k, 0)]
    return out


def shown(game: Game, st) -> tuple[list[int], list[int]]:
    """Per seat, the tile types it cannot hold now: from voids worked out from the plays and
    the rules tables (not the core's ``voids``), and the sevens distances."""
    S = game.n_seats
    c = int(st.contract[0])
    bad = [0] * S
    plays = st.plays[0, :int(st.n_plays[0])].tolist()
    seats = st.play_seats[0, :int(st.n_plays[0])].tolist()
    size = int(st.trick_size[0])
    far = [0] * S
    tb = game.tables
    for i, (t, s) in enumerate(zip(plays, seats)):
        if c == SEVENS:
            far[s] = max(far[s], abs(int(T.PIPS[t]) - 7))
            continue
        lead = plays[i - i % size]
        if i % size:
            led = int(tb.led[c, lead])
            if not int(tb.follow[c, led]) >> t & 1:
                bad[s] |= int(tb.follow[c, led])
    for s in range(S):
        if far[s]:
            bad[s] |= T.mask_of(t for t in range(28) if abs(int(T.PIPS[t]) - 7) < far[s])
    return bad, far


def check_worlds(rec: dict, seat: int, ws: Worlds, replays: int = 1, playout: bool = True,
                 at=None):
    """Every fact of (a) for the worlds ``ws`` of ``seat`` at the end of ``rec`` (``at``: the
    game and one-table state there, when already replayed)."""
    game, st = at or replayed(rec)
    S, n, copies = game.n_seats, len(ws), game.rules.copies
    assert ws.hands.shape == (n, S) and ws.cat.shape == (n,)
    assert (ws.hands[:, seat] == st.hands[0, seat]).all()
    assert (np.bitwise_count(ws.hands) == np.bitwise_count(st.hands[0])[None, :]).all()
    assert (np.bitwise_count(ws.cat) == np.bitwise_count(st.cat[0])).all()
    # every tile once (twice six-player): held now, in the cat, or played
    played = np.bincount(st.plays[0, :int(st.n_plays[0])], minlength=28)
    held = fold(ws.hands).sum(1) + fold(ws.cat)
    assert (held + played[None, :] == copies).all()
    # no two places hold the same instance
    every = np.bitwise_or.reduce(ws.dealt, axis=1) | ws.dealt_cat
    assert (np.bitwise_count(ws.dealt).sum(1) + np.bitwise_count(ws.dealt_cat)
            == 28 * copies).all() and (np.bitwise_count(every) == 28 * copies).all()
    bad, _ = shown(game, st)
    for s in range(S):
        assert (fold(ws.hands[:, s]) * np.array([bad[s] >> t & 1 for t in range(28)])).sum() == 0
    if game.rules.first_bidder == "holder_of_1_0" and copies == 1:
        f = int(st.first_bidder[0])
        t10 = T.tile_id(1, 0)
        assert ((ws.dealt[:, f] >> np.uint64(t10)) & np.uint64(1) == 1).all()
    if game.six and int(st.bidder[0]) == seat and int(st.contract[0]) >= 0:
        assert (ws.cat == st.cat[0]).all()  # the bidder saw the cat
    # the real deal fits
    know = _Knowledge(game, st, seat)
    assert know.admits(st.hands, st.cat).all()
    assert know.admits(ws.hands, ws.cat).all()
    # the states: same position, legal moves for the seat to move, and they play out
    sts = ws.states()
    for f in ("phase", "to_move", "trick_no", "n_plays", "contract", "leader"):
        assert (getattr(sts, f) == getattr(st, f)[0]).all(), f
    if st.phase[0] < HAND_OVER:
        assert sts.legal.any(1).all()
    rng = np.random.default_rng(n)
    if playout:
        for _ in range(200):
            live = sts.phase < HAND_OVER
            if not live.any():
                break
            assert sts.legal[live].any(1).all()
            acts = np.where(live, uniform_legal(sts.legal, rng), -1)
            game.step(sts, acts)
        assert (sts.phase >= HAND_OVER).all()
    # a world's deal replays through the records to the same position
    for i in rng.choice(n, size=min(replays, n), replace=False):
        wrec = record_from_state(game, ws.states(), int(i))
        assert wrec["bids"] == rec["bids"] and wrec["plays"] == rec["plays"]
        g2, st2 = replayed(wrec)
        assert (fold(st2.hands[0]) == fold(ws.hands[i])).all()
        assert (fold(st2.cat[0]) == fold(ws.cat[i])).all()
        if int(st.phase[0]) < HAND_OVER:
            assert int(st2.to_move[0]) == int(st.to_move[0])


CONFIGS = [
    RulesConfig.make(),
    RulesConfig.make(play_out=True, nello_doubles="own_suit", follow_me_doubles="own_suit"),
    RulesConfig.make(sevens=True, splash=True, sevens_min_marks=0, nello_min_marks=0,
                     play_out=True),
    RulesConfig.make(plunge_min_doubles=2, splash=True, nello_doubles="low",
                     first_bidder="holder_of_1_0", all_pass="redeal"),
    RulesConfig.make("six-player", play_out=True),
    RulesConfig.make("six-player", follow_me_doubles="own_suit", all_pass="redeal"),
]


# ----------------------------------------------------------------------------- (a) consistency
@pytest.mark.parametrize("ci", range(len(CONFIGS)))
def test_worlds_fit_everything_the_seat_knows_on_random_positions(ci):
    rules = CONFIGS[ci]
    six = rules.ruleset == "six-player"
    recs = random_records(rules, 40 if six else 70, seed=100 + ci)
    rng = np.random.default_rng(ci)
    seen = Counter()
    for j, rec in enumerate(recs):
        for k in sorted(set(rng.integers(0, n_actions(rec) + 1, size=4).tolist())):
            part = cut(rec, k)
            game, st = replayed(part)
            for i, seat in enumerate(rng.choice(game.n_seats, size=2, replace=False).tolist()):
                # from the record, and (the same facts) from the replayed state
                ws = sample_worlds(part, seat, 12, rng) if i == 0 else \
                    worlds_from_state(game, st, 0, seat, 12, rng)
                check_worlds(part, seat, ws, replays=int((k + i) % 3 == 0),
                             playout=((k + i) % 3 == 1), at=(game, st))
                seen["positions"] += 1
                c = int(st.contract[0])
                seen[int(st.phase[0])] += 1
                seen["contract", c] += 1
                bids = set(rec["bids"])
                seen["plunge"] += "plunge" in bids and int(st.phase[0]) >= PLAYING
                seen["splash"] += "splash" in bids and int(st.phase[0]) >= PLAYING
                seen["voids"] += bool(st.voids[0].any())
                if six and c >= 0 and int(st.phase[0]) > EXCHANGING:
                    seen["six exchanged", int(st.bidder[0]) == seat] += 1
    assert seen["positions"] >= (250 if six else 450)
    assert seen[PLAYING] >= 100 and seen["voids"] >= 30
    if rules.sevens:
        assert seen["contract", SEVENS] >= 5
    if six:
        assert seen["six exchanged", True] >= 5 and seen["six exchanged", False] >= 30
    if rules.plunge_min_doubles == 2:
        assert seen["plunge"] >= 5 and seen["splash"] >= 5


def test_world_states_step_together_in_the_core():
    rec = random_records(RulesConfig.make(play_out=True), 1, seed=7, bias=0.0)[0]
    part = cut(rec, len(rec["bids"]) + 1 + 9)  # two tricks and a lead
    game, st = replayed(part)
    seat = int(st.to_move[0])
    ws = sample_worlds(part, seat, 500, np.random.default_rng(1))
    sts = ws.states(game)
    assert sts.batch_size == 500 and (sts.to_move == seat).all()
    # the seat to move is the observer: its legal moves are the real ones in every world
    assert (sts.legal == st.legal[0][None, :]).all()
    game.step(sts, np.full(500, np.flatnonzero(st.legal[0])[0]))
    assert (sts.n_plays == st.n_plays[0] + 1).all()
    with pytest.raises(ValueError):
        ws.states(Game(RulesConfig.make("six-player")))


def test_worlds_are_reproducible_from_the_generator():
    rec = random_records(RulesConfig.make(), 1, seed=3, bias=0.0)[0]
    part = cut(rec, len(rec["bids"]) + 1 + 6)
    a = sample_worlds(part, 0, 50, np.random.default_rng(5))
    b = sample_worlds(part, 0, 50, np.random.default_rng(5))
    c = sample_worlds(parse_record(part), 0, 50, 5)
    assert (a.hands == b.hands).all() and (a.hands == c.hands).all()


# ----------------------------------------------------------------------------- (b) uniformity
def chi2_pvalue(x: float, k: int) -> float:
    """Upper tail of a chi-square with ``k`` degrees of freedom (Wilson-Hilferty)."""
    if k <= 0:
        return 1.0
    z = ((x / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def with_hands(rec: dict, dealt: list[list[int]], cat: list[int] | None = None,
               exchange: dict | None = None) -> dict:
    out = dict(rec)
    out["hands"] = [[T.tile_name(t) for t in h] for h in dealt]
    if cat is not None:
        out["cat"] = [T.tile_name(t) for t in cat]
    if exchange is not None:
        out["exchange"] = exchange
    return out


def judge_batch(rec: dict, deals: list) -> np.ndarray:
    """For each deal ``(hands as dealt, cat, exchange or None for the record's)``, whether every
    action of ``rec`` is legal from it: the deals step together through the core, a table
    dropping out (going on with any legal action) at its first illegal one."""
    parsed = parse_record(rec)
    game = game_for(parsed.rules)
    B = len(deals)
    st = State(B, game, 0)
    masks, cats = zip(*(instance_masks(h, c) for h, c, _ in deals))
    game.set_hands(st, np.arange(B), np.array(masks), parsed.dealer, np.array(cats, np.uint64))
    steps = []
    for action in parsed.actions:
        if isinstance(action, dict):
            seqs = [exchange_actions(game, st, 0, ex or action) for _, _, ex in deals]
            width = max(len(x) for x in seqs if not isinstance(x, str))
            bad = np.array([isinstance(x, str) or len(x) != width for x in seqs])
            seqs = [[-1] * width if b else x for b, x in zip(bad, seqs)]
            steps += [np.where(bad, -1, col) for col in np.array(seqs).T]
        else:
            steps.append(np.full(B, game.actions.id(action)))
    ok = np.ones(B, bool)
    rng = np.random.default_rng(0)
    rows = np.arange(B)
    for acts in steps:
        ok &= (acts >= 0) & st.legal[rows, np.maximum(acts, 0)]
        game.step(st, np.where(ok, acts, uniform_legal(st.legal, rng)))
    return ok


def brute_force(rec: dict, seat: int) -> Counter:
    """Every deal of the tiles ``seat`` cannot see that the core accepts, as a Counter of type-
    level worlds (a tuple of the hidden hands' and the cat's tile-type lists) -> how many
    instance assignments give it. Six-player: when an unseen bidder exchanged, a world fits if
    some exchange (takes from what the bidder held after it, discards from the cat) replays."""
    game, st = replayed(rec)
    S, six = game.n_seats, game.six
    c = int(st.contract[0])
    bidder = int(st.bidder[0])
    cat_known = six and bidder == seat and c >= 0
    exchanged = six and c >= 0 and int(st.phase[0]) > EXCHANGING and not cat_known
    pseudo = [s for s in range(S) if s != seat] + ([-1] if six and not cat_known else [])
    caps = [int(st.cat[0] if s == -1 else st.hands[0, s]).bit_count() for s in pseudo]
    copies = game.rules.copies
    known = Counter(_types_list(int(st.hands[0, seat])))
    played = [[] for _ in range(S)]
    for t, s in zip(st.plays[0, :int(st.n_plays[0])].tolist(),
                    st.play_seats[0, :int(st.n_plays[0])].tolist()):
        played[s].append(t)
    gone = Counter(t for p in played for t in p) + known
    if cat_known:
        gone += Counter(_types_list(int(st.cat[0])))
    hidden = [t for t in range(28) for _ in range(copies - gone[t])]
    assert len(hidden) == sum(caps)
    mult: Counter = Counter()
    for split in assignments(list(range(len(hidden))), caps):
        mult[tuple(tuple(sorted(hidden[j] for j in part)) for part in split)] += 1
    keys = list(mult)
    own_dealt = _types_list(int(st.dealt[0, seat]))
    deals, owner = [], []
    for i, key in enumerate(keys):
        now = dict(zip(pseudo, key))
        for deal in _deals_of(st, seat, now, played, own_dealt, exchanged, S):
            deals.append(deal)
            owner.append(i)
    ok = judge_batch(rec, deals)
    fit = np.zeros(len(keys), bool)
    np.logical_or.at(fit, np.array(owner), ok)
    return Counter({k: mult[k] for k, f in zip(keys, fit) if f})


def _deals_of(st, seat, now, played, own_dealt, exchanged, S):
    """The deals (hands as dealt, cat, exchange) that lead to the world ``now`` (pseudo-seat ->
    tiles held now): one, or one for each exchange an unseen bidder could have made."""
    cat_now = list(now[-1]) if -1 in now else _types_list(int(st.cat[0]))
    dealt = [own_dealt if s == seat else list(now[s]) + played[s] for s in range(S)]
    if S == 4:
        return [(dealt, [], None)]
    if not exchanged:
        return [(dealt, cat_now if -1 in now else _types_list(int(st.dealt_cat[0])), None)]
    b, ns = int(st.bidder[0]), int(st.n_swaps[0])
    post = dealt[b]
    out = []
    for takes in sorted(set(itertools.combinations(sorted(post), ns))):
        for disc in sorted(set(itertools.combinations(sorted(cat_now), ns))):
            d, cat = list(post), list(cat_now)
            for t in takes:
                d.remove(t)
            for t in disc:
                cat.remove(t)
            hands = [list(h) for h in dealt]
            hands[b] = d + list(disc)
            out.append((hands, cat + list(takes),
                        {"take": [T.tile_name(t) for t in takes],
                         "discard": [T.tile_name(t) for t in disc]}))
    return out


def assignments(items: list[int], caps: list[int]):
    """Every way to split ``items`` into groups of sizes ``caps`` (in order)."""
    if not caps:
        yield ()
        return
    for comb in itertools.combinations(items, caps[0]):
        rest = [i for i in items if i not in comb]
        for tail in assignments(rest, caps[1:]):
            yield (comb,) + tail


def _types_list(mask: int) -> list[int]:
    return [t % 28 for t in T.tiles_of(mask)]


def world_key(ws: Worlds, i: int, seat: int) -> tuple:
    S = ws.hands.shape[1]
    parts = [tuple(sorted(_types_list(int(ws.hands[i, s])))) for s in range(S) if s != seat]
    return parts


def check_uniform(rec: dict, seat: int, samples_per_world: int = 60, bids: bool = True):
    game, st = replayed(rec)
    truth = brute_force(rec, seat)
    total = sum(truth.values())
    assert total > 0
    assert count_worlds(rec, seat, bids=bids) == total
    know = _Knowledge(game, st, seat)
    cat_hidden = game.six and len(know.pseudo) == game.n_seats
    n = samples_per_world * len(truth)
    ws = sample_worlds(rec, seat, n, np.random.default_rng(total))
    got = Counter()
    for i in range(n):
        key = world_key(ws, i, seat)
        if cat_hidden:
            key.append(tuple(sorted(_types_list(int(ws.cat[i])))))
        got[tuple(key)] += 1
    assert set(got) <= set(truth), "a sampled world the rules refuse"
    x = sum((got[k] - n * m / total) ** 2 / (n * m / total) for k, m in truth.items())
    p = chi2_pvalue(x, len(truth) - 1)
    assert p > 1e-4, (x, len(truth), p)
    return len(truth), total


def late_cuts(rec: dict, seat_of, max_assign: int):
    """The cuts of ``rec`` in its play phase, latest first, while the unseen tiles have at most
    ``max_assign`` deals, as ``(record, game, state, seat)`` (``seat_of(state)`` the observer,
    chosen at the latest cut)."""
    seat = None
    for k in range(n_actions(rec), 0, -1):
        part = cut(rec, k)
        game, st = replayed(part)
        if st.phase[0] > PLAYING:
            continue
        if st.phase[0] < PLAYING:
            return
        seat = seat_of(st) if seat is None else seat
        caps = _Knowledge(game, st, seat).caps.tolist()
        if math.factorial(sum(caps)) // math.prod(math.factorial(c) for c in caps) > max_assign:
            return
        yield part, game, st, seat


def late_positions(rules: RulesConfig, seed: int, want: int, max_assign: int = 400,
                   min_worlds: int = 4, pred=None, seat_of=None, hands: int = 300):
    """Positions (record, seat) cut late in random hands: for each hand, the earliest cut with
    at most ``max_assign`` deals of the unseen tiles (and at least ``min_worlds`` that fit)."""
    rng = np.random.default_rng(seed)
    seat_of = seat_of or (lambda st: int(rng.integers(st.n_seats)))
    out = []
    for rec in itertools.islice(iter_records(rules, seed), hands):
        if pred is not None and not pred(rec):
            continue
        best = None
        for part, game, st, seat in late_cuts(rec, seat_of, max_assign):
            if count_worlds(part, seat) >= min_worlds:
                best = (part, seat)
        if best is not None:
            out.append(best)
        if len(out) >= want:
            break
    assert len(out) == want
    return out


def test_count_and_frequencies_match_brute_force_standard():
    r = RulesConfig.make(play_out=True)
    plain = lambda rec: rec.get("contract") not in ("nello", None)  # noqa: E731
    for part, seat in late_positions(r, 11, 4, max_assign=1500, pred=plain):
        check_uniform(part, seat)


def test_count_and_frequencies_match_brute_force_nello_sevens_own_suit():
    r = RulesConfig.make(play_out=True, sevens=True, sevens_min_marks=0, nello_min_marks=0,
                         nello_doubles="own_suit", follow_me_doubles="own_suit")
    for want in ("nello", "sevens", "follow-me"):
        (part, seat), = late_positions(r, 12, 1, max_assign=1500,
                                       pred=lambda rec: rec.get("contract") == want)
        check_uniform(part, seat)


def test_count_and_frequencies_match_brute_force_holder_of_1_0():
    r = RulesConfig.make(play_out=True, first_bidder="holder_of_1_0")
    t10 = T.tile_id(1, 0)

    def kept_1_0(rec):  # 1-0 is not played until the last trick
        return "1-0" not in rec["plays"][:24]
    positions = late_positions(r, 13, 2, max_assign=1500, pred=kept_1_0,
                               seat_of=lambda st: (int(st.first_bidder[0]) + 1) % 4)
    for part, seat in positions:
        game, st = replayed(part)
        assert not (int(st.hands[0, seat]) >> t10 & 1) and t10 not in part["plays"]
        check_uniform(part, seat)
        ws = sample_worlds(part, seat, 100, 0)
        first = int(st.first_bidder[0])
        assert ((ws.hands[:, first] >> np.uint64(t10)) & np.uint64(1) == 1).all()


def scripted(rules: RulesConfig, hands: list[list[int]], bids: list[str], contract: str,
             n_plays: int, seed: int) -> dict:
    """A record of the deal ``hands`` with the given bids and contract, then random legal
    plays."""
    game = Game(rules)
    rec = {"ruleset": rules.ruleset, "options": rules.options(), "dealer": 3,
           "hands": [[T.tile_name(t) for t in h] for h in hands], "bids": bids,
           "contract": contract, "plays": []}
    rng = np.random.default_rng(seed)
    _, st = replayed(rec)
    while len(rec["plays"]) < n_plays and st.phase[0] == PLAYING:
        a = int(rng.choice(np.flatnonzero(st.legal[0])))
        game.step(st, np.array([a]))
        rec["plays"].append(game.actions.name(a))
    return rec


def plunge_deal(rng, seat: int, doubles: int) -> list[list[int]]:
    dbl = [t for t in range(28) if T.IS_DOUBLE[t]]
    rest = [t for t in range(28) if not T.IS_DOUBLE[t]]
    rng.shuffle(dbl)
    rng.shuffle(rest)
    mine = dbl[:doubles] + rest[:7 - doubles]
    others = dbl[doubles:] + rest[7 - doubles:]
    rng.shuffle(others)
    hands = [others[i * 7:(i + 1) * 7] for i in range(3)]
    hands.insert(seat, mine)
    return hands


def test_plunge_and_splash_doubles_are_counted_exactly():
    rng = np.random.default_rng(21)
    r = RulesConfig.make(play_out=True, splash=True)
    done = 0
    for trial in range(40):
        bid = ["plunge", "splash"][trial % 2]
        hands = plunge_deal(rng, 1, 4 if bid == "plunge" else 3)
        rec = scripted(r, hands, ["pass", bid, "pass", "pass"], "6s", 18 + trial % 3, trial)
        game, st = replayed(rec)
        if st.phase[0] != PLAYING:
            continue
        for seat in (0, 2):
            # bid facts change the count: without them it is larger (or equal)
            assert count_worlds(rec, seat) >= count_worlds(rec, seat, bids=True)
            nw, total = check_uniform(rec, seat)
            done += count_worlds(rec, seat) > total
        if done >= 3:
            break
    assert done >= 3


def test_plunge_early_in_the_hand_needs_no_rejection():
    rng = np.random.default_rng(4)
    r = RulesConfig.make()
    rec = scripted(r, plunge_deal(rng, 2, 4), ["pass", "pass", "plunge", "pass"], "doubles",
                   0, 1)
    ws = sample_worlds(rec, 1, 2000, rng)
    dbl = np.uint64(T.DOUBLES_MASK)
    assert (np.bitwise_count(ws.hands[:, 2] & dbl) >= 4).all()
    check_worlds(rec, 1, ws, replays=3, playout=False)
    # the plunging deals are a small share of all: rejection would have thrown most away
    assert 0 < count_worlds(rec, 1, bids=True) / count_worlds(rec, 1) < 0.2


def test_count_and_frequencies_match_brute_force_six_player():
    r = RulesConfig.make("six-player", play_out=True)
    bidder = lambda st: int(st.bidder[0])  # noqa: E731
    for part, seat in late_positions(r, 31, 1, max_assign=1000, seat_of=bidder):
        check_uniform(part, seat, samples_per_world=40)
    for part, seat in late_positions(r, 32, 2, max_assign=1000,
                                     seat_of=lambda st: (bidder(st) + 1) % 6,
                                     pred=lambda rec: not rec["exchange"]["take"]):
        check_uniform(part, seat, samples_per_world=40)


def test_count_and_frequencies_match_brute_force_after_an_unseen_exchange():
    r = RulesConfig.make("six-player", play_out=True)
    for swaps in (1, 2):
        def swapped(rec):
            return len(rec["exchange"]["take"]) == swaps
        for part, seat in late_positions(r, 33 + swaps, 1, max_assign=600, pred=swapped,
                                         min_worlds=30,
                                         seat_of=lambda st: (int(st.bidder[0]) + 3) % 6):
            check_uniform(part, seat, samples_per_world=40)


SIX = RulesConfig.make("six-player", play_out=True)
SUIT_TILES = {s: [t for t in range(28) if s in (T.HI[t], T.LO[t])] for s in range(7)}


def six_driven(rng, hands, cat, bids, contract, exchange=None, avoid=None) -> dict:
    """A six-player record of the deal ``hands`` + ``cat`` (tile ids), the bids and contract
    given, the exchange as action names (None: random legal), then random legal plays that
    hold back the tiles of ``avoid`` (seat -> tiles) while they can."""
    game = Game(SIX)
    rec = {"ruleset": "six-player", "options": SIX.options(), "dealer": 5,
           "hands": [[T.tile_name(t) for t in h] for h in hands],
           "cat": [T.tile_name(t) for t in cat], "bids": bids, "contract": contract,
           "plays": []}
    _, st = replayed(rec)
    if exchange is None:
        while st.phase[0] == EXCHANGING:
            game.step(st, np.array([rng.choice(np.flatnonzero(st.legal[0]))]))
    else:
        for name in exchange:
            game.step(st, np.array([game.actions.id(name)]))
    p0 = game.actions.play0
    while st.phase[0] == PLAYING:
        legal = np.flatnonzero(st.legal[0])
        held = (avoid or {}).get(int(st.to_move[0]), ())
        free = [a for a in legal if a - p0 not in held]
        game.step(st, np.array([rng.choice(free or legal)]))
    return record_from_state(game, st, 0)


def six_deal(rng, ok) -> tuple[list[list[int]], list[int]]:
    """A random six-player deal (hands, cat) for which ``ok(hands, cat)`` holds."""
    for _ in range(100_000):
        tiles = [t for t in range(28) for _ in range(2)]
        rng.shuffle(tiles)
        hands, cat = [tiles[i * 9:(i + 1) * 9] for i in range(6)], tiles[54:]
        if ok(hands, cat):
            return hands, cat
    raise AssertionError("no such deal")


def binding_cut(rec: dict, seat: int, max_assign: int = 200):
    """The earliest late cut of ``rec`` with few unseen deals where the bid facts rule out some
    deals the other facts allow (None if there is none)."""
    best = None
    for part, game, st, _ in late_cuts(rec, lambda st: seat, max_assign):
        know = _Knowledge(game, st, seat)
        all_ = know.dp((), exact=True)[0].total
        if know.quotas and know.dp(tuple(know.quotas), exact=True)[0].total < all_:
            best = part
    return best


def test_six_player_bid_suit_shows_a_tile_of_it():
    rng = np.random.default_rng(41)
    for trial in range(30):
        hands, cat = six_deal(rng, lambda h, c: len([t for t in h[1] if t in SUIT_TILES[6]]) == 1)
        rec = six_driven(rng, hands, cat, ["pass", "60:6s", "62:follow-me", "pass", "pass",
                                           "pass"], "follow-me",
                         avoid={s: SUIT_TILES[6] for s in range(6)})  # sixes fall late
        part = binding_cut(rec, 4)
        if part is not None:
            break
    assert part is not None
    nw, total = check_uniform(part, 4, samples_per_world=40)
    assert total < count_worlds(part, 4)
    check_worlds(part, 4, sample_worlds(part, 4, 200, rng), replays=3)


def test_six_player_bidder_may_have_discarded_the_suit_it_bid():
    rng = np.random.default_rng(42)
    noncount5 = [t for t in SUIT_TILES[5] if not T.COUNT[t]]

    def ok(h, c):
        fives = [t for t in h[2] if t in SUIT_TILES[5]]
        return (len(fives) == 1 and fives[0] in noncount5 and not T.COUNT[c[0]]
                and not T.COUNT[c[1]] and not set(c) & set(SUIT_TILES[5]))
    for trial in range(30):
        hands, cat = six_deal(rng, ok)
        five = next(t for t in hands[2] if t in SUIT_TILES[5])
        rec = six_driven(rng, hands, cat, ["pass", "pass", "60:5s", "pass", "pass", "pass"],
                         "5s", [f"take {T.tile_name(cat[0])}", f"discard {T.tile_name(five)}",
                                "keep"], avoid={s: SUIT_TILES[5] for s in range(6)})
        part = binding_cut(rec, 3)
        if part is not None:
            break
    assert part is not None
    _, st = replayed(part)
    assert int(st.n_swaps[0]) == 1 and not int(st.hands[0, 2]) & _inst5()
    nw, total = check_uniform(part, 3, samples_per_world=40)
    assert total < count_worlds(part, 3)


def _inst5() -> int:
    m = T.mask_of(SUIT_TILES[5])
    return m | m << 28


def test_six_player_count_tile_left_in_the_cat_when_the_bidder_holds_only_count():
    """The bidder was dealt nine count tiles: it has nothing to discard for the tenth, in the
    cat, so it keeps; the others must allow that count tile in the cat."""
    rng = np.random.default_rng(43)
    count = [t for t in range(28) if T.COUNT[t] for _ in range(2)]
    rest = [t for t in range(28) if not T.COUNT[t] for _ in range(2)]
    rng.shuffle(count)
    rng.shuffle(rest)
    hands = [rest[i * 9:(i + 1) * 9] for i in range(5)]
    hands.insert(1, count[:9])
    cat = [count[9], rest[45]]
    rec = six_driven(rng, hands, cat, ["pass", "60:5s", "pass", "pass", "pass", "pass"], "5s",
                     ["keep"])
    game, st = replayed(rec)
    for k in range(len(rec["bids"]) + 2, n_actions(rec), 7):
        part = cut(rec, k)
        ws = sample_worlds(part, 0, 200, rng)
        check_worlds(part, 0, ws, replays=1, playout=False)
    part = None
    for k in range(n_actions(rec), 0, -1):
        if math.comb(n_actions(rec) - k + 2, 2) > 10:  # few tiles unseen
            break
        part = cut(rec, k)
    _, st = replayed(part)
    if st.phase[0] == PLAYING:
        check_uniform(part, 0, samples_per_world=40)


# ----------------------------------------------------------------------------- (c) bad input
def test_bad_seat_and_bad_n_are_errors():
    rec = random_records(RulesConfig.make(), 1, seed=5, bias=0.0)[0]
    for seat in (-1, 4, "0", True, 1.0, None):
        with pytest.raises(ValueError, match="seat"):
            sample_worlds(rec, seat, 10)
        with pytest.raises(ValueError, match="seat"):
            count_worlds(rec, seat)
    for n in (0, -3, 2.5, "10", True, None):
        with pytest.raises(ValueError, match="n must be"):
            sample_worlds(rec, 0, n)
    six = random_records(RulesConfig.make("six-player"), 1, seed=5, bias=0.0)[0]
    assert len(sample_worlds(six, 5, 3, 0)) == 3


def test_an_illegal_record_is_an_error():
    rec = random_records(RulesConfig.make(), 1, seed=6, bias=0.0)[0]
    _, st = replayed(cut(rec, len(rec["bids"]) + 1))
    leader = int(st.to_move[0])
    bad = dict(rec, plays=[rec["hands"][(leader + 1) % 4][0]])  # not in the leader's hand
    with pytest.raises(ValueError, match="record action .* not in hand"):
        sample_worlds(bad, 0, 5)
    with pytest.raises(ValueError, match="record action"):
        count_worlds(bad, 0)
    at = len(rec["bids"]) + 1
    with pytest.raises(ValueError, match=f"record action {at}: 'pass' is not a play"):
        sample_worlds(dict(rec, plays=["pass"]), 0, 5)  # a bid where a play is due
    with pytest.raises(ValueError, match="hands"):
        sample_worlds({"dealer": 0, "hands": "nope"}, 0, 5)


def test_a_position_no_deal_fits_says_why():
    rec = random_records(RulesConfig.make(play_out=True), 1, seed=8, bias=0.0)[0]
    part = cut(rec, len(rec["bids"]) + 1 + 4)
    game, st = replayed(part)
    seat = int(st.to_move[0])
    other = (seat + 1) % 4
    st.voids[0, other] = (1 << 9) - 1  # doctored: void in every suit
    with pytest.raises(ValueError, match=f"seat {other}|no hidden hand"):
        worlds_from_state(game, st, 0, seat, 5)


def test_bench_reports_worlds_per_second():
    out = bench_worlds(seconds=0.2)
    assert out["kind"] == "worlds" and out["ruleset"] == "standard" and out["batch"] == 1000
    assert out["worlds_per_s"] > 0
