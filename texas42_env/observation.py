"""Observation encoders: what one seat may know, as a flat float32 vector, for B tables.

Everything is relative to the observing seat: seats are numbered 0 (me), 1 (my left),
2 (partner in the four-player game), ... clockwise; teams are "us" then "them". The layout
of the vector is ``encoder.fields``: (name, offset, size, meaning), printed as a table by
``encoder.describe()`` and in docs/observations.md. ``ObservationEncoder`` shows only what the
seat may see; ``PerfectInformationEncoder`` adds every hand and the cat and exists for research
(oracles, critics): it is used only when asked for by name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import tiles as T
from .actions import PASS, SIX_LEVELS, SIX_TRUMPS
from .core import EXCHANGING, GAME_OVER, PLAYING, Game, State
from .rules import SEVENS, preset

# the layout ``observation_kernel.encode_rows`` reads, in the order it unpacks it: the game's
# sizes, the fields' offsets in the vector, rows of ``State.scalars``, first columns of
# ``State.columns``
KERNEL_LAYOUT = (
    ("seats", "tricks", "copies", "bid_features", "total_points", "target"),
    ("hand", "dealer", "phase", "bids", "high_bidder", "bidder", "declarer", "contract",
     "sits_out", "played_by", "played_in", "trick_leaders", "trick_winners", "current_trick",
     "led_suit", "points", "tricks", "result", "score", "voids"),
    ("dealer", "high_bidder", "bidder", "declarer", "sit_out", "phase", "contract", "n_in_trick",
     "led", "made", "n_bids", "first_bidder", "n_plays", "trick_size", "trick_no"),
    ("bids", "plays", "play_seats", "play_slots", "trick_leaders", "trick_winners", "points",
     "tricks_won", "voids"),
)


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    size: int
    meaning: str


class ObservationEncoder:
    """The imperfect-information view of one seat: its hand and the public history."""

    name = "imperfect"

    def __init__(self, game: Game):
        self.game = game
        r = game.rules
        S, Tn, C = game.n_seats, game.n_tricks, r.copies
        self.S, self.Tn, self.C = S, Tn, C
        sp = game.actions
        # a bid as features: standard one-hot of the 25 bid actions; six-player
        # pass + level (18) + trump (9)
        if game.six:
            self.bid_features = 1 + len(SIX_LEVELS) + SIX_TRUMPS
            feat = np.zeros((sp.contract0, self.bid_features), np.float32)
            feat[PASS, 0] = 1
            a = np.arange(1, sp.contract0)
            feat[a, 1 + (a - 1) // SIX_TRUMPS] = 1
            feat[a, 1 + len(SIX_LEVELS) + (a - 1) % SIX_TRUMPS] = 1
        else:
            self.bid_features = sp.contract0
            feat = np.eye(sp.contract0, dtype=np.float32)
        # bid action (or -1: none) -> its feature columns (-1: none)
        cols = np.full((sp.contract0 + 1, 2 if game.six else 1), -1, np.int64)
        for a in range(sp.contract0):
            nz = np.flatnonzero(feat[a])
            cols[a, :len(nz)] = nz
        self._bid_cols = cols
        self._bid_cols_l = [[c for c in row if c >= 0] for row in cols.tolist()]
        self._scalar_names = State.GAME_FIELDS + tuple(n for n, _ in State.HAND_FIELDS)
        bid_names = "pass, 30..41, 1m..10m, plunge, splash" if not game.six else \
            "pass, level 60..88/176/264/352, trump 0s..6s/doubles/follow-me"
        spec = [
            ("hand", T.N_TILES, "my tiles, by tile id (count / copies)"),
            ("dealer", S, "the dealer, by relative seat"),
            ("phase", 5, "bid, declare, exchange, play, over"),
            ("bids", S * self.bid_features,
             f"each relative seat's bid ({bid_names}); all zero: not bid yet"),
            ("high_bidder", S, "who holds the high bid now"),
            ("bidder", S, "who won the bidding"),
            ("declarer", S, "who named the contract"),
            ("contract", sp.n_contracts, ", ".join(CONTRACT_LIST[:sp.n_contracts])),
            ("sits_out", S, "the nello bidder's partner, who takes no part"),
            ("played_by", C * T.N_TILES * S,
             "tile (copy: first/second played) -> relative seat that played it"),
            ("played_in", C * T.N_TILES * Tn, "tile (copy) -> trick it was played in"),
            ("trick_leaders", Tn * S, "finished trick -> relative seat that led it (the "
             "current trick's leader won the last one)"),
            ("trick_winners", Tn * S, "trick -> relative seat that won it"),
            ("current_trick", S * T.N_TILES, "relative seat -> tile it played to this trick"),
            ("led_suit", 9, "suit called by this trick's lead: 0s..6s, trumps, doubles "
             "(none in sevens)"),
            ("points", 2, "points taken this hand, us/them, / total points of a hand"),
            ("tricks", 2, "tricks taken this hand, us/them, / tricks in a hand"),
            ("result", 2, "the bid is made / set (both zero: undecided)"),
            ("score", 2, "game score us/them / target (capped at 1)"),
            ("voids", S * 9, "relative seat -> suits it has shown it lacks"),
        ]
        if game.six:
            spec += [
                ("swaps", 1, "tiles the bidder exchanged with the cat / 2"),
                ("cat_seen", T.N_TILES, "the cat as dealt (only the bidder sees it)"),
                ("took", T.N_TILES, "tiles I took from the cat"),
                ("discarded", T.N_TILES, "tiles I put in the cat"),
            ]
        spec += self._extra_fields()
        self.fields: tuple[Field, ...] = ()
        off = 0
        fields = []
        for name, size, meaning in spec:
            fields.append(Field(name, off, size, meaning))
            off += size
        self.fields = tuple(fields)
        self.size = off
        self._off = {f.name: f.offset for f in self.fields}
        self._named = {f.name: f for f in self.fields}
        self._build_tables()

    def _extra_fields(self) -> list[tuple[str, int, str]]:
        return []

    def field(self, obs: np.ndarray, name: str) -> np.ndarray:
        """Field ``name`` of observations ``obs`` [n, size] (a view, [n, field size])."""
        f = self._named[name]
        return obs[:, f.offset:f.offset + f.size]

    def index(self, obs: np.ndarray, name: str, shape: tuple[int, ...] | None = None
              ) -> np.ndarray:
        """The index of the set entry of one-hot field ``name`` (its last axis after
        reshaping to ``shape``), -1 where none is set."""
        f = self.field(obs, name)
        if shape is not None:
            f = f.reshape((len(obs),) + shape)
        return np.where(f.any(axis=-1), f.argmax(axis=-1), -1)

    def describe(self) -> str:
        """The layout as a Markdown table."""
        rows = ["| field | offset | size | meaning |", "|---|---|---|---|"]
        rows += [f"| `{f.name}` | {f.offset} | {f.size} | {f.meaning} |" for f in self.fields]
        return "\n".join(rows)

    # ------------------------------------------------------------------ encoding
    def _build_tables(self) -> None:
        """The layout ``observation_kernel.encode_rows`` reads, built once: the game's sizes,
        the fields' offsets, rows of ``State.scalars`` and first columns of ``State.columns``."""
        g = self.game
        si = {n: i for i, n in enumerate(self._scalar_names)}
        col, c = {}, 0  # each per-hand field's first column in ``State.columns``
        for name, width, _ in State.hand_arrays(self.S, self.Tn):
            col[name] = c
            c += width
        sizes = {"seats": self.S, "tricks": self.Tn, "copies": self.C,
                 "bid_features": self.bid_features, "total_points": g.total_points,
                 "target": g.target}
        self._layout = tuple(tuple(int(d[n]) for n in names)
                             for d, names in zip((sizes, self._off, si, col), KERNEL_LAYOUT))

    def encode(self, st: State, seats, idx=None, out: np.ndarray | None = None) -> np.ndarray:
        """Float32 [n, size]: the view of ``seats[i]`` at table ``idx[i]`` (default all).

        Many tables: one compiled pass over the rows (``observation_kernel``); one table:
        ``_encode_one``. ``out``, when given, is float32 [n, size] in C order.
        """
        if np.ndim(seats) and len(seats) == 1 and (idx is None and st.batch_size == 1
                                                     or idx is not None and len(idx) == 1):
            b = 0 if idx is None else int(np.asarray(idx)[0])
            if out is None:
                out = np.zeros((1, self.size), np.float32)
            else:
                out[:] = 0
            self._encode_one(st, b, int(np.asarray(seats)[0]), out[0])
            return out
        tables = np.arange(st.batch_size)
        if idx is not None:
            tables = tables[np.asarray(idx, np.int64)]
        n = len(tables)
        seats = np.ascontiguousarray(np.broadcast_to(np.asarray(seats, np.int64), (n,)))
        if out is None:
            out = np.empty((n, self.size), np.float32)
        elif out.shape != (n, self.size) or out.dtype != np.float32 or \
                not out.flags.c_contiguous:
            raise ValueError(f"encode: out must be float32 {(n, self.size)} in C order, not "
                             f"{out.dtype} {out.shape}")
        if n == 0:
            return out
        if seats.min() < 0 or seats.max() >= self.S:
            bad = seats[(seats < 0) | (seats >= self.S)][0]
            raise ValueError(f"encode: seat {bad} is not a seat of the {self.S}-seat game")
        from .observation_kernel import encode_rows  # numba: compiled or loaded when first used
        encode_rows(out, tables, seats, np.ascontiguousarray(st.scalars),
                    np.ascontiguousarray(st.columns),
                    np.ascontiguousarray(st.hands).view(np.int64),
                    np.ascontiguousarray(st.score), self._bid_cols, *self._layout)
        if self.game.six:
            self._encode_exchange(st, tables, seats, out, np.arange(n))
        self._encode_extra(st, slice(None) if idx is None else idx, seats, out)
        return out

    def _encode_one(self, st: State, b: int, seat: int, out: np.ndarray) -> None:
        """``encode`` for one table, on Python ints (search and people use single tables)."""
        g, o = self.game, self._off
        S, Tn, C = self.S, self.Tn, self.C
        v = dict(zip(self._scalar_names, st.scalars[:, b].tolist()))
        ones = []
        hand = int(st.hands[b, seat])
        step = 1.0 / C
        while hand:
            low = hand & -hand
            out[o["hand"] + (low.bit_length() - 1) % T.N_TILES] += step
            hand ^= low
        ones.append(o["dealer"] + (v["dealer"] - seat) % S)
        phase = v["phase"]
        ones.append(o["phase"] + min(phase, GAME_OVER - 1))
        first, F = v["first_bidder"], self.bid_features
        for i, a in enumerate(st.bids[b, :v["n_bids"]].tolist()):
            who = (first + i - seat) % S
            ones += [o["bids"] + who * F + col for col in self._bid_cols_l[a]]
        for name, field in (("high_bidder", "high_bidder"), ("bidder", "bidder"),
                            ("declarer", "declarer"), ("sits_out", "sit_out")):
            if v[field] >= 0:
                ones.append(o[name] + (v[field] - seat) % S)
        if v["contract"] >= 0:
            ones.append(o["contract"] + v["contract"])
        n_plays, size = v["n_plays"], v["trick_size"]
        current = n_plays - v["n_in_trick"]
        slots = st.play_slots[b, :n_plays].tolist() if C == 2 else [0] * n_plays
        pb, pi, ct = o["played_by"], o["played_in"], o["current_trick"]
        for j, (t, ps, slot) in enumerate(zip(st.plays[b, :n_plays].tolist(),
                                              st.play_seats[b, :n_plays].tolist(), slots)):
            who, key = (ps - seat) % S, slot * T.N_TILES + t
            ones.append(pb + key * S + who)
            ones.append(pi + key * Tn + j // size)
            if j >= current:
                ones.append(ct + who * T.N_TILES + t)
        tn = v["trick_no"]
        for k, (lead, win) in enumerate(zip(st.trick_leaders[b, :tn].tolist(),
                                            st.trick_winners[b, :tn].tolist())):
            ones.append(o["trick_leaders"] + k * S + (lead - seat) % S)
            ones.append(o["trick_winners"] + k * S + (win - seat) % S)
        if v["n_in_trick"] > 0 and phase == PLAYING and v["contract"] != SEVENS:
            ones.append(o["led_suit"] + v["led"])
        if v["made"] >= 0:
            ones.append(o["result"] + (0 if v["made"] == 1 else 1))
        voids = st.voids[b].tolist()
        for r in range(S):
            bits = voids[(seat + r) % S]
            ones += [o["voids"] + r * 9 + bit for bit in range(9) if bits >> bit & 1]
        out[ones] = 1
        us, them = seat & 1, (seat & 1) ^ 1
        pts, tw, sc = st.points[b].tolist(), st.tricks_won[b].tolist(), st.score[b].tolist()
        out[o["points"]:o["points"] + 2] = (pts[us] / g.total_points, pts[them] / g.total_points)
        out[o["tricks"]:o["tricks"] + 2] = (tw[us] / Tn, tw[them] / Tn)
        out[o["score"]:o["score"] + 2] = (min(sc[us] / g.target, 1), min(sc[them] / g.target, 1))
        if g.six or type(self)._encode_extra is not ObservationEncoder._encode_extra:
            rows = out[None, :]
            if g.six:
                self._encode_exchange(st, np.array([b]), np.array([seat]), rows, np.zeros(1, int))
            self._encode_extra(st, np.array([b]), np.array([seat]), rows)

    def _encode_exchange(self, st, idx, seats, out, rows) -> None:
        o = self._off
        swapped = st.phase[idx] > EXCHANGING
        out[:, o["swaps"]] = np.where(swapped, st.n_swaps[idx] / 2, 0)
        mine = (st.bidder[idx] == seats) & (st.phase[idx] >= EXCHANGING)
        if mine.any():
            m = rows[mine]
            b = idx[mine]
            out[m, o["cat_seen"]:o["cat_seen"] + T.N_TILES] = self._tile_counts(st.dealt_cat[b])
            for name, col in (("took", st.ex_take), ("discarded", st.ex_discard)):
                vals = col[b]
                for k in range(2):
                    v = vals[:, k]
                    ok = v >= 0
                    np.add.at(out, (m[ok], o[name] + v[ok]), 0.5)

    def _encode_extra(self, st, idx, seats, out) -> None:
        pass

    def _tile_counts(self, masks: np.ndarray) -> np.ndarray:
        """Float32 [n, 28]: how many copies of each tile a bitmask holds / copies."""
        masks = np.ascontiguousarray(masks, "<u8")
        bits = np.unpackbits(masks.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        if self.C == 1:
            return bits[:, :T.N_TILES].astype(np.float32)
        return (bits[:, :T.N_TILES] + bits[:, T.N_TILES:2 * T.N_TILES]) * np.float32(0.5)


class PerfectInformationEncoder(ObservationEncoder):
    """The imperfect view plus every seat's hand and the cat: for research only."""

    name = "perfect"

    def _extra_fields(self):
        fields = [("all_hands", self.S * T.N_TILES,
                   "every relative seat's tiles (count / copies): hidden information")]
        if self.game.six:
            fields.append(("cat", T.N_TILES, "the cat now: hidden information"))
        return fields

    def _encode_extra(self, st, idx, seats, out) -> None:
        idx = np.arange(st.batch_size)[idx]
        o = self._off["all_hands"]
        for s in range(self.S):
            counts = self._tile_counts(st.hands[idx, s])
            r = (s - seats) % self.S
            cols = o + r[:, None] * T.N_TILES + np.arange(T.N_TILES)[None, :]
            out[np.arange(len(idx))[:, None], cols] = counts
        if self.game.six:
            c = self._off["cat"]
            out[:, c:c + T.N_TILES] = self._tile_counts(st.cat[idx])


CONTRACT_LIST = ("0s", "1s", "2s", "3s", "4s", "5s", "6s", "doubles", "follow-me", "nello",
                 "sevens")
ENCODERS = {"imperfect": ObservationEncoder, "perfect": PerfectInformationEncoder}


def make_encoder(game: Game, name: str = "imperfect") -> ObservationEncoder:
    """The encoder called ``name``: ``imperfect`` (default) or ``perfect``."""
    if name not in ENCODERS:
        raise ValueError(f"unknown observation encoder {name!r}; allowed: {', '.join(ENCODERS)}")
    return ENCODERS[name](game)


def observation_docs() -> str:
    """The Markdown of docs/observations.md: every encoder's field table."""
    parts = ["# Observations", "",
             'What a seat sees, as `{"observation": float32 vector, "action_mask": int8 vector}`.',
             "Seats are relative to the observer: 0 is me, 1 my left, then clockwise (in the "
             "four-player",
             'game 2 is my partner); teams are "us" then "them". Tiles are indexed by tile id',
             "(`texas42_env.tiles`: `0-0` is 0, `1-0` 1, `1-1` 2, ..., `6-6` 27). This file is "
             "generated",
             "from `ObservationEncoder.describe()` (`python -m texas42_env.observation`); a test "
             "keeps it",
             "equal to the code.", ""]
    for ruleset in ("standard", "six-player"):
        for name in ENCODERS:
            enc = make_encoder(Game(preset(ruleset)), name)
            parts += [f"## {ruleset}, `{name}` ({enc.size} floats)", "", enc.describe(), ""]
    return "\n".join(parts)


if __name__ == "__main__":
    print(observation_docs(), end="")
