"""Observation encoders: what one seat may know, as a flat float32 vector, for B tables.

Everything is relative to the observing seat: seats are numbered 0 (me), 1 (my left),
2 (partner in the four-player game), ... clockwise; teams are "us" then "them". The layout
of the vector is ``encoder.fields``: (name, offset, size, meaning), printed as a table by
``encoder.describe()`` and in the README. ``ObservationEncoder`` shows only what the seat may
see; ``PerfectInformationEncoder`` adds every hand and the cat and exists for research
(oracles, critics): it is used only when asked for by name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import tiles as T
from .actions import PASS, SIX_LEVELS, SIX_TRUMPS
from .core import EXCHANGING, GAME_OVER, PLAYING, Game, State
from .rules import SEVENS, preset



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
        """Lookup tables from a few small integers to an offset in the vector, built once.

        A one that is not there (no bid yet, no such trick) goes to the first ``points``
        column, which ``encode`` overwrites after the scatter: every index array stays
        dense, with no masks to compact it.
        """
        S, Tn, C, o = self.S, self.Tn, self.C, self._off
        K, P, A = C * T.N_TILES, S * Tn, len(self._bid_cols) - 1
        self._trash = trash = o["points"]
        self._col, c = {}, 0  # each per-hand field's first column in ``State.columns``
        for name, width, _ in State.hand_arrays(S, Tn):
            self._col[name] = c
            c += width
        self._si = {n: i for i, n in enumerate(self._scalar_names)}
        self._rel_rows = np.array([self._si[n] for n in ("dealer", "high_bidder", "bidder",
                                                          "declarer", "sit_out")])
        # relative seat of absolute x (-1: nobody) seen from seat: rel[f, x + 1, seat]
        rel = np.full((5, S + 1, S), trash, np.int64)
        for f, name in enumerate(("dealer", "high_bidder", "bidder", "declarer", "sits_out")):
            for x in range(S):
                rel[f, x + 1] = o[name] + (x - np.arange(S)) % S
        self._rel_lut = rel.reshape(-1)
        self._rel_base = (np.arange(5) * (S + 1) + 1)[:, None] * S
        self._phase_lut = np.array([trash] + [o["phase"] + min(p, GAME_OVER - 1)
                                              for p in range(GAME_OVER + 1)])
        self._contract_lut = np.concatenate([[trash], o["contract"] + np.arange(
            self._named["contract"].size)])
        self._result_lut = np.array([trash, o["result"] + 1, o["result"]])  # made -1, 0, 1
        # the bid of slot i made by relative seat (d + i) % S, d: the first bidder's
        bids = np.full((self._bid_cols.shape[1], S, S, A + 1), trash, np.int64)
        for k in range(self._bid_cols.shape[1]):
            for d in range(S):
                for i in range(S):
                    col = self._bid_cols[:, k]
                    bids[k, d, i] = np.where(col >= 0, o["bids"] + (d + i) % S
                                             * self.bid_features + col, trash)
        self._bid_luts = bids.reshape(len(bids), -1)
        # w = seat played + S - observer (in 0..2S-1): relative seat w % S
        w = np.arange(2 * S)[:, None]
        key = np.arange(K)[None, :]
        self._played_by_lut = (o["played_by"] + key * S + w % S).reshape(-1)
        tile = np.arange(T.N_TILES)[None, :]
        self._current_lut = (o["current_trick"] + (w % S) * T.N_TILES + tile).reshape(-1)
        # play j of a trick of S plays (row 0) or of S - 1 (row 1) -> its trick
        j = np.arange(P)
        trick = np.concatenate([j // S, j // max(S - 1, 1)])[:, None]
        self._played_in_lut = (o["played_in"] + key * Tn + trick).reshape(-1)
        kk = np.arange(2 * Tn)[:, None]
        first = np.where(kk < Tn, o["trick_leaders"], o["trick_winners"])
        self._tricks_lut = (first + (kk % Tn) * S + w.T % S).reshape(-1)
        self._tricks_base = kk * 2 * S
        self._ar_2tn = kk
        self._tricks_k = kk % Tn
        # the voids of absolute seat a seen from seat: voids[seat * S + a]
        self._voids_lut = (o["voids"] + (np.arange(S)[None, :] - np.arange(S)[:, None]) % S
                           * 9).reshape(-1)
        self._ar_s = np.arange(S)[:, None]
        self._width = c
        self._ar = np.arange(0)
        self._rows_cache = (-1, None, None, None)

    def _items(self, counts: np.ndarray, offsets) -> tuple[np.ndarray, int]:
        """``offsets[r] + j`` for j < ``counts[r]`` of each row r, flattened, and their number."""
        ends = np.cumsum(counts)
        m = int(ends[-1])
        if len(self._ar) < m:
            self._ar = np.arange(max(m, 2 * len(self._ar)))
        items = np.repeat(offsets - (ends - counts), counts)
        items += self._ar[:m]
        return items, m

    def _rows(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(row * size, row * columns width)`` for rows 0..n-1, kept for the last n."""
        cached = self._rows_cache
        if cached[0] != n:
            ar = np.arange(n)
            cached = self._rows_cache = (n, ar * self.size, ar * self._width, ar)
        return cached[1], cached[2], cached[3]

    def encode(self, st: State, seats, idx=None, out: np.ndarray | None = None) -> np.ndarray:
        """Float32 [n, size]: the view of ``seats[i]`` at table ``idx[i]`` (default all).

        Every one-hot feature is a flat index, found through a lookup table built once;
        each group of them is set with one scatter.
        """
        g = self.game
        S, Tn, C, o = self.S, self.Tn, self.C, self._off
        if np.ndim(seats) and len(seats) == 1 and (idx is None and st.batch_size == 1
                                                     or idx is not None and len(idx) == 1):
            b = 0 if idx is None else int(np.asarray(idx)[0])
            if out is None:
                out = np.zeros((1, self.size), np.float32)
            else:
                out[:] = 0
            self._encode_one(st, b, int(np.asarray(seats)[0]), out[0])
            return out
        if idx is None:  # every table: rows are tables
            n = st.batch_size
        else:
            idx = np.asarray(idx, np.int64)
            n = len(idx)
        seats = np.broadcast_to(np.asarray(seats, np.int64), (n,))
        if n == 0:
            return np.zeros((0, self.size), np.float32) if out is None else out
        base, rowcol, rows = self._rows(n)
        tables = rows
        v = st.scalars
        if idx is not None:
            tables = idx
            rowcol = idx * self._width
            v = v[:, idx]
        si = self._si
        cols = st.columns.reshape(-1)
        trash = self._trash
        hand = self._tile_counts(st.hands[tables, seats], floats=False)
        ones = []  # flat indices of the ones, found before the vector is written to
        # one per table: dealer, phase, who bid high / won the bidding / named / sits out,
        # contract, led suit, result
        ones_ = np.empty((9, n), np.int64)
        np.take(self._rel_lut, v[self._rel_rows] * S + seats + self._rel_base, out=ones_[:5])
        phase, contract = v[si["phase"]], v[si["contract"]]
        np.take(self._phase_lut, phase + 1, out=ones_[5])
        np.take(self._contract_lut, contract + 1, out=ones_[6])
        n_in = v[si["n_in_trick"]]
        led = (n_in > 0) & (phase == PLAYING) & (contract != SEVENS)  # sevens calls no suit
        ones_[7] = np.where(led, o["led_suit"] + v[si["led"]], trash)
        np.take(self._result_lut, v[si["made"]] + 1, out=ones_[8])
        ones_ += base
        ones.append(ones_)
        # ragged per-table lists (bids, plays, tricks), flattened: item j of table r
        c = self._col
        behind = S - seats  # relative seat of absolute x: (x + behind) % S
        # bids: slot j made by relative seat (first bidder + j - seat) % S
        n_bids = v[si["n_bids"]]
        d = v[si["first_bidder"]] - seats
        d += S * (d < 0)
        slot, m = self._items(n_bids, d * S)
        if m:
            a = cols.take(self._items(n_bids, rowcol + c["bids"])[0])
            slot *= len(self._bid_cols)
            slot += a
            rep = np.repeat(base, n_bids)
            for lut in self._bid_luts:
                at = lut.take(slot)
                at += rep
                ones.append(at)
        # the plays made: tile (and copy) -> who played it and in which trick
        P = S * Tn
        n_plays = v[si["n_plays"]]
        src, m = self._items(n_plays, rowcol + c["plays"])
        if m:
            key = tile = cols.take(src)
            if C == 2:
                key = cols.take(src + (c["play_slots"] - c["plays"])) * T.N_TILES + tile
            src += P  # play_seats
            w = cols.take(src)
            w += np.repeat(behind, n_plays)
            w *= self.C * T.N_TILES
            w += key
            at = self._played_by_lut.take(w)
            rep = np.repeat(base, n_plays)
            at += rep
            ones.append(at)
            j = self._items(n_plays, P * (v[si["trick_size"]] != S))[0]  # j, + P: short tricks
            j *= self.C * T.N_TILES
            j += key
            at = self._played_in_lut.take(j)
            at += rep
            ones.append(at)
        # the trick in progress: its last n_in_trick plays
        src, m = self._items(n_in, rowcol + (c["plays"] + n_plays - n_in))
        if m:
            tile = cols.take(src)
            src += P
            w = cols.take(src)
            w += np.repeat(behind, n_in)
            w *= T.N_TILES
            w += tile
            at = self._current_lut.take(w)
            at += np.repeat(base, n_in)
            ones.append(at)
        # finished tricks: who led and who won each
        n_tricks = v[si["trick_no"]]
        src, m = self._items(n_tricks, rowcol + c["trick_leaders"])
        if m:
            k = self._items(n_tricks, 0)[0]
            k *= 2 * S
            rep = np.repeat(behind, n_tricks)
            brep = np.repeat(base, n_tricks)
            for first in (0, Tn):
                w = cols.take(src + first)
                w += rep
                w += k
                at = self._tricks_lut.take(w + first * 2 * S)
                at += brep
                ones.append(at)
        # voids (few): the set bits of each seat's mask
        voids = np.ascontiguousarray(st.voids if idx is None else st.voids[idx]).reshape(-1)
        q = np.flatnonzero(voids)
        if q.size:
            r = q // S
            cell = self._voids_lut.take(seats.take(r) * S + q - r * S) + base.take(r)
            bits = np.unpackbits((voids.take(q) & 511).astype("<u2").view(np.uint8).reshape(
                -1, 2), axis=1, bitorder="little").view(bool)
            f = np.flatnonzero(bits)
            at = cell.take(f >> 4)
            at += f & 15
            ones.append(at)
        # numbers, us / them
        us = seats & 1
        them = us ^ 1
        pts = rowcol + c["points"]
        tw = rowcol + c["tricks_won"]
        score = st.score.reshape(-1)
        numbers = ((o["points"], cols.take(pts + us) / g.total_points),
                   (o["points"] + 1, cols.take(pts + them) / g.total_points),
                   (o["tricks"], cols.take(tw + us) / Tn),
                   (o["tricks"] + 1, cols.take(tw + them) / Tn),
                   (o["score"], np.minimum(score.take(tables * 2 + us) / g.target, 1)),
                   (o["score"] + 1, np.minimum(score.take(tables * 2 + them) / g.target, 1)))
        if out is None:
            out = np.zeros((n, self.size), np.float32)
        else:
            out[:] = 0
        out[:, o["hand"]:o["hand"] + T.N_TILES] = hand
        flat = out.reshape(-1)
        for at in ones:
            flat[at] = 1
        for col, x in numbers:  # after the ones: they overwrite the spare column
            out[:, col] = x
        if g.six:
            self._encode_exchange(st, tables, seats, out, rows)
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

    def _tile_counts(self, masks: np.ndarray, floats: bool = True) -> np.ndarray:
        """[n, 28]: how many copies of each tile a bitmask holds / copies (float32, or the
        0/1 bits as uint8 when ``floats`` is false in the one-copy game)."""
        masks = np.ascontiguousarray(masks, "<u8")
        bits = np.unpackbits(masks.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        if self.C == 1:
            bits = bits[:, :T.N_TILES]
            return bits.astype(np.float32) if floats else bits
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
