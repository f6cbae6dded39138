"""``agents.ui.web.view`` called directly, at every point of real heuristic games of both
rulesets and on the spec's worked records: a seat's view lists its own tiles and only counts
the others' until the hand is over, and nothing it may not know (another seat's tile, the
cat, another seat's exchange) appears anywhere in its JSON; ``reveal`` shows every hand;
the view is plain JSON; its tricks, points and auction are the state's; ``tile_names``
reads trumps first."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest

from texas42_env import tiles as T
from texas42_env.core import EXCHANGING, HAND_OVER, Game
from texas42_env.narrator import Narrator
from texas42_env.observation import make_encoder
from texas42_env.records import parse_record, record_from_state, replay_steps, tricks_of
from texas42_env.rules import CONTRACT_NAMES, RulesConfig

from agents import make_agent
from agents.driver import act_rows
from agents.ui.web.view import PHASES, table_view, tile_names, tricks

from helpers import DATA

TILE = re.compile(r"\b[0-6]-[0-6]\b")
TABLES, HANDS = 3, 2


def tile(name: str) -> int:
    return T.parse_tile(name)


def names_of(tiles) -> list[str]:
    return [T.TILE_NAMES[int(t) % T.N_TILES] for t in tiles]


@pytest.fixture(scope="module", params=["standard", "six-player"])
def played(request):
    """The game and every one-table state its tables pass through in ``HANDS`` hands of
    heuristic play (the deal, each action, the hand over), in order per table."""
    game = Game(RulesConfig.make(request.param))
    agent = make_agent("heuristic").setup(game)
    enc = make_encoder(game)
    st = game.reset(TABLES, seed=17)
    seen: list = [st.take([b]) for b in range(TABLES)]
    for hand in range(HANDS):
        while (st.phase < HAND_OVER).any():
            rows = np.flatnonzero(st.phase < HAND_OVER)
            a = act_rows(game, st, agent, rows, enc)
            sub = st.take(rows)
            game.step(sub, a)
            st.put(rows, sub)
            seen += [st.take([b]) for b in rows]
        if hand + 1 < HANDS:
            game.next_hand(st)
            seen += [st.take([b]) for b in range(TABLES)]
    return game, seen


def playing(states):
    return [s for s in states if int(s.phase[0]) < HAND_OVER]


def finished(states):
    return [s for s in states if int(s.phase[0]) >= HAND_OVER]


def known_tiles(game, st, seat) -> Counter:
    """The tiles ``seat`` (None: an onlooker) may know of before the hand is over, as a
    multiset of names: its own, the ones played and, to the declarer of the six-player game,
    its exchange so far and what is left of the cat while it exchanges."""
    out = Counter(names_of(st.plays[0, :int(st.n_plays[0])]))
    if seat is None:
        return out
    out.update(names_of(game.hand_tiles(st, 0, seat)))
    if game.six and int(st.contract[0]) >= 0 and seat == int(st.declarer[0]):
        n = int(st.n_swaps[0])
        out.update(names_of(st.ex_take[0, :n]))
        out.update(names_of(st.ex_discard[0, :n]))
        if int(st.ex_pending[0]) >= 0:
            out.update(names_of([st.ex_pending[0]]))
        if int(st.phase[0]) == EXCHANGING:
            out.update(names_of(T.tiles_of(int(st.cat[0]) & int(st.dealt_cat[0]))))
    return out


# ----------------------------------------------------------------------------- what a seat sees
def test_a_seat_sees_its_own_tiles_and_only_the_count_of_the_others(played):
    game, states = played
    assert len(playing(states)) > 50
    for st in playing(states):
        for seat in range(game.n_seats):
            view = table_view(game, st, seat=seat)
            for s, entry in enumerate(view["seats"]):
                held = game.hand_tiles(st, 0, s)
                assert entry["seat"] == s and entry["team"] == s % 2
                assert entry["held"] == len(held) == bin(int(st.hands[0, s])).count("1")
                if int(st.ex_pending[0]) < 0:  # a tile taken from the cat not yet matched
                    n_played = int((st.play_seats[0, :int(st.n_plays[0])] == s).sum())
                    assert entry["held"] + n_played == game.hand_size
                assert "dealt" not in entry
                if s == seat:
                    assert sorted(entry["tiles"]) == sorted(names_of(held))
                else:
                    assert entry["tiles"] is None


def test_nothing_a_seat_may_not_know_appears_anywhere_in_its_json(played):
    game, states = played
    for st in playing(states):
        for seat in [*range(game.n_seats), None]:
            text = json.dumps(table_view(game, st, seat=seat))
            known = known_tiles(game, st, seat)
            # every tile named in the JSON, as often as it is named, is one the seat knows of
            assert Counter(TILE.findall(text)) == known, (seat, text)
            others = {n for s in range(game.n_seats) if s != seat
                      for n in names_of(game.hand_tiles(st, 0, s))}
            if game.six:
                others |= set(names_of(T.tiles_of(int(st.cat[0]))))
            for name in others - set(known):
                assert name not in text, (seat, name)


def test_the_cat_is_hidden_from_all_but_the_declarer_exchanging(played):
    game, states = played
    if not game.six:
        view = table_view(game, states[-1], seat=0)
        assert "cat" not in view and "exchange" not in view
        return
    exchanging = [s for s in states if int(s.phase[0]) == EXCHANGING]
    assert exchanging and any(int(s.n_swaps[0]) > 0 or int(s.ex_pending[0]) >= 0
                              for s in exchanging)
    for st in playing(states):
        declarer = int(st.declarer[0]) if int(st.contract[0]) >= 0 else None
        for seat in [*range(game.n_seats), None]:
            view = table_view(game, st, seat=seat)
            cat, ex = view["cat"], view["exchange"]
            if seat == declarer and int(st.phase[0]) == EXCHANGING:
                left = int(st.cat[0]) & int(st.dealt_cat[0])
                assert set(cat) == {"size", "left"} and cat["size"] == 2
                assert sorted(cat["left"]) == sorted(names_of(T.tiles_of(left)))
            else:
                assert cat == {"size": 2}
            if declarer is None:
                assert ex is None
                continue
            n = int(st.n_swaps[0])
            assert ex["seat"] == declarer and ex["swapped"] == n
            assert ex["done"] == (int(st.phase[0]) > EXCHANGING)
            if seat == declarer:
                assert ex["take"] == names_of(st.ex_take[0, :n])
                assert ex["discard"] == names_of(st.ex_discard[0, :n])
            else:
                assert set(ex) == {"seat", "swapped", "done"}


def test_a_seat_sees_every_hand_as_dealt_once_the_hand_is_over(played):
    game, states = played
    over = finished(states)
    assert len(over) == TABLES * HANDS
    for st in over:
        record = record_from_state(game, st, 0)
        shown = table_view(game, st, reveal=True)
        for seat in range(game.n_seats):
            assert table_view(game, st, seat=seat) == shown  # nothing held back any more
        assert shown["phase"] in ("hand_over", "game_over") and shown["to_move"] is None
        for s, entry in enumerate(shown["seats"]):
            assert sorted(entry["dealt"]) == sorted(record["hands"][s])
            assert sorted(entry["tiles"]) == sorted(names_of(game.hand_tiles(st, 0, s)))
        if game.six:
            assert sorted(shown["cat"]["dealt"]) == sorted(record["cat"])
            assert shown["exchange"]["take"] == record["exchange"]["take"]
            assert shown["exchange"]["discard"] == record["exchange"]["discard"]


def test_reveal_shows_every_hand_the_cat_and_the_exchange_at_every_point(played):
    game, states = played
    for st in states:
        view = table_view(game, st, reveal=True)
        for s, entry in enumerate(view["seats"]):
            assert sorted(entry["tiles"]) == sorted(names_of(game.hand_tiles(st, 0, s)))
            assert sorted(entry["dealt"]) == sorted(names_of(game.hand_tiles(st, 0, s,
                                                                             dealt=True)))
            assert len(entry["dealt"]) == game.hand_size
        if game.six:
            assert sorted(view["cat"]["dealt"]) == sorted(names_of(T.tiles_of(
                int(st.dealt_cat[0]))))
            assert ("left" in view["cat"]) == (int(st.phase[0]) == EXCHANGING)
            if int(st.contract[0]) >= 0:
                assert {"take", "discard", "pending"} <= set(view["exchange"])


def test_a_view_is_plain_json(played):
    game, states = played
    names = [f"agent {s}" for s in range(game.n_seats)]
    narrator = Narrator(game)
    for st in states[::3] + finished(states):
        for kw in ({"seat": 1}, {"seat": None}, {"reveal": True}):
            view = table_view(game, st, names=names, narrator=narrator, **kw)
            assert json.loads(json.dumps(view, allow_nan=False)) == view
            assert [e["agent"] for e in view["seats"]] == names
            over = int(st.phase[0]) >= HAND_OVER
            assert ("result" in view) == over
            if over:
                assert view["result"] == narrator.result(st) and view["result"]


# ----------------------------------------------------------------------------- the state's facts
def test_tricks_are_the_states_with_the_one_in_progress_last(played):
    game, states = played
    for st in states:
        got, ref = tricks(st), tricks_of(game, st, 0)
        assert len(got) == len(ref)
        assert sum(len(t["plays"]) for t in got) == int(st.n_plays[0])
        for k, (g, r) in enumerate(zip(got, ref)):
            assert g["leader"] == r["leader"] == g["plays"][0]["seat"]
            assert [p["tile"] for p in g["plays"]] == r["plays"]
            assert g["winner"] == r.get("winner") and g["points"] == r.get("points")
            seats = [p["seat"] for p in g["plays"]]
            assert len(set(seats)) == len(seats)
            for a, b in zip(seats, seats[1:]):  # around the table from the leader
                assert b == next(s for s in range(a + 1, a + game.n_seats)
                                 if s % game.n_seats != int(st.sit_out[0])) % game.n_seats
        for before, after in zip(got, got[1:]):
            assert after["leader"] == before["winner"]
        if got and int(st.n_in_trick[0]):
            assert got[-1]["winner"] is None and got[-1]["points"] is None
            assert len(got[-1]["plays"]) == int(st.n_in_trick[0])


def test_the_points_and_tricks_won_are_the_tricks_taken(played):
    game, states = played
    for st in states:
        view = table_view(game, st, seat=0)
        done = [t for t in view["tricks"] if t["winner"] is not None]
        assert view["points"] == [sum(t["points"] for t in done if t["winner"] % 2 == team)
                                  for team in (0, 1)]
        assert view["tricks_won"] == [sum(t["winner"] % 2 == team for t in done)
                                      for team in (0, 1)]
        assert view["hand_score"] == st.hand_score[0].tolist()
        assert view["score"] == st.score[0].tolist()


def test_the_auction_and_the_phase_are_the_states(played):
    game, states = played
    for st in states:
        view = table_view(game, st, seat=2)
        record = record_from_state(game, st, 0)
        phase = int(st.phase[0])
        assert view["phase"] == PHASES[phase] and view["n_seats"] == game.n_seats
        assert view["to_move"] == (int(st.to_move[0]) if phase < HAND_OVER else None)
        assert view["hand"] == int(st.hand_no[0]) and view["dealer"] == int(st.dealer[0])
        assert [b["bid"] for b in view["bids"]] == record["bids"]
        first = (int(st.dealer[0]) + 1) % game.n_seats
        assert [b["seat"] for b in view["bids"]] == [(first + i) % game.n_seats
                                                     for i in range(len(record["bids"]))]
        assert view["contract"] == record.get("contract")
        assert [p["tile"] for t in view["tricks"] for p in t["plays"]] == record["plays"]
        if record.get("contract") is not None:
            high = next(b for b in reversed(view["bids"]) if b["bid"] != "pass")
            assert view["high_bid"] == high and view["bid"] == high["bid"]
            assert view["bidder"] == high["seat"] == view["declarer"]
        elif phase == 0:
            assert view["bidder"] is None and view["contract"] is None
    hands = {(int(s.game_id[0]), int(s.hand_no[0])) for s in states}
    assert {h for _, h in hands} == set(range(HANDS))


# ----------------------------------------------------------------------------- spec records
def spec_examples():
    return [json.loads(line) for line in (DATA / "spec_examples.jsonl").read_text().splitlines()
            if line.strip()]


def test_the_view_of_each_worked_record_is_the_specs_replay():
    checked = 0
    for ex in spec_examples():
        if not ex["replay"]["ok"]:
            continue
        game, st, error = replay_steps(parse_record(ex["record"]))
        assert error is None
        want, view = ex["replay"], table_view(game, st, reveal=True)
        for key in ("bidder", "bid", "contract", "points", "made"):
            assert view[key] == want[key], (ex["title"], key)
        assert view["hand_score"] == want["score"]
        assert [{"leader": t["leader"], "plays": [p["tile"] for p in t["plays"]],
                 **({"winner": t["winner"], "points": t["points"]}
                    if t["winner"] is not None else {})} for t in view["tricks"]] == \
            want["tricks"], ex["title"]
        assert view["to_move"] == want.get("to_move")
        checked += 1
    assert checked == 9


def test_a_nello_partner_sits_out_and_keeps_its_tiles():
    ex = next(e for e in spec_examples() if e["title"].startswith("nello"))
    game, st, _ = replay_steps(parse_record(ex["record"]))
    view = table_view(game, st, seat=0)
    out = view["sit_out"]
    assert out == (view["declarer"] + 2) % 4
    assert view["seats"][out]["held"] == 7
    assert all(len(t["plays"]) == 3 and out not in {p["seat"] for p in t["plays"]}
               for t in view["tricks"])


def test_a_thrown_in_hand_shows_no_bidder_and_every_hand():
    ex = next(e for e in spec_examples() if "thrown in" in e["title"])
    game, st, _ = replay_steps(parse_record(ex["record"]))
    view = table_view(game, st, seat=1)
    assert view["phase"] == "hand_over" and view["bidder"] is None and view["bid"] is None
    assert view["contract"] is None and view["made"] is None and view["tricks"] == []
    assert view["high_bid"] is None and view["sit_out"] is None
    assert [e["dealt"] for e in view["seats"]] == [tile_names(game, [tile(x) for x in h])
                                                   for h in ex["record"]["hands"]]


def test_the_six_player_declarer_alone_sees_the_cat_left_while_exchanging():
    ex = next(e for e in spec_examples() if "then the exchange" in e["title"])
    game, st, _ = replay_steps(parse_record(ex["record"]))
    assert int(st.phase[0]) == EXCHANGING
    declarer = int(st.declarer[0])
    cat = ex["record"]["cat"]
    mine = table_view(game, st, seat=declarer)
    assert sorted(mine["cat"]["left"]) == sorted(cat) and mine["exchange"]["take"] == []
    for seat in set(range(6)) - {declarer}:
        text = json.dumps(table_view(game, st, seat=seat))
        held = set(table_view(game, st, seat=seat)["seats"][seat]["tiles"])
        assert all(name not in text for name in set(cat) - held)


# ----------------------------------------------------------------------------- tile names
def test_tile_names_read_trumps_best_first_then_high_end_first():
    game = Game()
    hand = [tile("0-0"), tile("6-1"), tile("5-5"), tile("1-1"), tile("6-6"), tile("4-2")]
    assert tile_names(game, hand) == ["6-6", "6-1", "5-5", "4-2", "1-1", "0-0"]
    ones, doubles = CONTRACT_NAMES.index("1s"), CONTRACT_NAMES.index("doubles")
    assert tile_names(game, hand, ones) == ["1-1", "6-1", "6-6", "5-5", "4-2", "0-0"]
    assert tile_names(game, hand, doubles) == ["6-6", "5-5", "1-1", "0-0", "6-1", "4-2"]


def test_tile_names_name_a_second_copy_as_its_tile():
    game = Game(RulesConfig.make("six-player"))
    assert tile_names(game, [tile("3-2") + T.N_TILES, tile("3-2"), tile("6-0") + T.N_TILES]) \
        == ["6-0", "3-2", "3-2"]
