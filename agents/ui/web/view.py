"""A one-table state as JSON, as one seat may see it or as an onlooker with every hand shown.

``table_view`` is the one picture of a table the web app sends: the play page draws it for
the person's seat (their own tiles, every other seat's only counted until the hand ends), the
viewer draws it for an onlooker of a record (every hand). What a seat may not know is left
out of the JSON itself, not hidden by the page: the other seats' tiles, the cat, and another
seat's exchange with the cat.
"""

from __future__ import annotations

from typing import Any, Sequence

from texas42_env import tiles as T
from texas42_env.core import EXCHANGING, HAND_OVER, Game, State
from texas42_env.narrator import Narrator, sort_tiles
from texas42_env.rules import CONTRACT_NAMES

PHASES = ("bid", "declare", "exchange", "play", "hand_over", "game_over")


def tile_names(game: Game, tiles: Sequence[int], contract: int = -1) -> list[str]:
    """Tile ids (or instances) as names in reading order (trumps first)."""
    return [T.TILE_NAMES[t] for t in sort_tiles(game, [t % T.N_TILES for t in tiles], contract)]


def _name(game: Game, action: int) -> str | None:
    return game.actions.name(action) if action >= 0 else None


def tricks(st: State) -> list[dict]:
    """Table 0's tricks so far, the one in progress last (its ``winner`` None): who led,
    each play with its seat, who won and the points it took."""
    size, n_plays = int(st.trick_size[0]), int(st.n_plays[0])
    out = []
    for k in range(-(-n_plays // size) if size else 0):
        lo, hi = k * size, min((k + 1) * size, n_plays)
        done = k < int(st.trick_no[0])
        out.append({"leader": int(st.play_seats[0, lo]),
                    "plays": [{"seat": int(st.play_seats[0, i]),
                               "tile": T.TILE_NAMES[int(st.plays[0, i]) % T.N_TILES]}
                              for i in range(lo, hi)],
                    "winner": int(st.trick_winners[0, k]) if done else None,
                    "points": int(st.trick_points[0, k]) if done else None})
    return out


def table_view(game: Game, st: State, seat: int | None = None, reveal: bool = False,
               names: Sequence[str] | None = None,
               narrator: Narrator | None = None) -> dict[str, Any]:
    """Table 0 of ``st`` as JSON for ``seat`` (None: an onlooker). ``reveal`` shows every
    hand (a record being watched); otherwise the other seats' tiles, the cat and another
    seat's exchange are shown once the hand is over and only counted before. ``names`` are
    the seats' agents; ``narrator`` words the result of a finished hand."""
    phase = int(st.phase[0])
    over = phase >= HAND_OVER
    contract = int(st.contract[0])
    bidding_over = phase > 0 and int(st.bidder[0]) >= 0
    open_hands = reveal or over

    def sees(s: int) -> bool:
        return open_hands or s == seat

    seats = []
    for s in range(game.n_seats):
        held = game.hand_tiles(st, 0, s)
        entry: dict[str, Any] = {"seat": s, "team": s & 1, "held": len(held),
                                 "agent": names[s] if names else None,
                                 "tiles": tile_names(game, held, contract) if sees(s) else None}
        if open_hands:
            entry["dealt"] = tile_names(game, game.hand_tiles(st, 0, s, dealt=True), contract)
        seats.append(entry)
    first = int(st.first_bidder[0])
    bids = [{"seat": (first + i) % game.n_seats, "bid": game.actions.name(int(a))}
            for i, a in enumerate(st.bids[0, :int(st.n_bids[0])])]
    high = int(st.high_bidder[0])
    view: dict[str, Any] = {
        "ruleset": game.rules.ruleset, "options": game.rules.options(),
        "n_seats": game.n_seats, "target": game.target,
        "unit": "marks" if game.rules.scoring == "marks" else "points",
        "seed": st.seed, "game": int(st.game_id[0]), "hand": int(st.hand_no[0]),
        "phase": PHASES[phase], "to_move": None if over else int(st.to_move[0]),
        "dealer": int(st.dealer[0]), "seats": seats, "bids": bids,
        "high_bid": {"seat": high, "bid": _name(game, int(st.high_action[0]))}
        if high >= 0 else None,
        "bidder": int(st.bidder[0]) if bidding_over else None,
        "bid": _name(game, int(st.high_action[0])) if bidding_over else None,
        "declarer": int(st.declarer[0]) if contract >= 0 else None,
        "contract": CONTRACT_NAMES[contract] if contract >= 0 else None,
        "need": int(st.need[0]) if contract >= 0 else None,
        "sit_out": int(st.sit_out[0]) if int(st.sit_out[0]) >= 0 else None,
        "tricks": tricks(st),
        "points": st.points[0].tolist(), "tricks_won": st.tricks_won[0].tolist(),
        "made": None if int(st.made[0]) < 0 else bool(int(st.made[0])),
        "hand_score": st.hand_score[0].tolist(), "score": st.score[0].tolist(),
        "winner": int(st.winner[0]) if int(st.winner[0]) >= 0 else None,
    }
    if game.rules.copies == 2:
        view["cat"] = _cat(game, st, seat, open_hands, contract)
        view["exchange"] = _exchange(st, seat, open_hands) if contract >= 0 else None
    if over and narrator is not None:
        view["result"] = narrator.result(st)
    return view


def _cat(game: Game, st: State, seat: int | None, open_hands: bool, contract: int) -> dict:
    """The cat: as dealt once the hand is over (or shown), what is left of it to the seat
    exchanging, otherwise only its size."""
    phase, declarer = int(st.phase[0]), int(st.declarer[0])
    out: dict[str, Any] = {"size": len(T.tiles_of(int(st.dealt_cat[0])))}
    if open_hands:
        out["dealt"] = tile_names(game, T.tiles_of(int(st.dealt_cat[0])))
    if phase == EXCHANGING and (open_hands or seat == declarer):
        left = int(st.cat[0]) & int(st.dealt_cat[0])
        out["left"] = tile_names(game, T.tiles_of(left), contract)
    return out


def _exchange(st: State, seat: int | None, open_hands: bool) -> dict:
    """The declarer's exchange so far: its tiles to the declarer (and once shown), a count
    to everyone else."""
    n = int(st.n_swaps[0])
    out: dict[str, Any] = {"seat": int(st.declarer[0]), "swapped": n,
                           "done": int(st.phase[0]) > EXCHANGING}
    if open_hands or seat == int(st.declarer[0]):
        out["take"] = [T.TILE_NAMES[t] for t in st.ex_take[0, :n]]
        out["discard"] = [T.TILE_NAMES[t] for t in st.ex_discard[0, :n]]
        pending = int(st.ex_pending[0])
        out["pending"] = T.TILE_NAMES[pending % T.N_TILES] if pending >= 0 else None
    return out
