"""The state of B tables: a struct of NumPy arrays with the batch on the first axis.

Every field is written out below with its meaning; ``Game.step`` mutates them in place. Per
table scalars are rows of one int64 block (``scalars``) and the per-hand 2-D fields are
column groups of another (``columns``), so dealing a new hand resets each block in one
operation; each field is a plain view into its block.
"""

from __future__ import annotations

import numpy as np

# phases
BIDDING, DECLARING, EXCHANGING, PLAYING, HAND_OVER, GAME_OVER = range(6)
PHASE_NAMES = ("bid", "declare", "exchange", "play", "over", "over")


class IllegalActionError(ValueError):
    """An action that is not legal at its table; the batch state was left unchanged."""

    def __init__(self, table: int, seat: int | None, action, reason: str, phase: str = ""):
        self.table, self.seat, self.action, self.reason, self.phase = table, seat, action, reason, phase
        super().__init__(
            f"illegal action at table {table}, seat {seat} (phase {phase}): {action!r}: {reason}")


class State:
    """B tables as a struct of arrays, mutated in place by ``Game.step``.

    Scalar fields per table (``phase``, ``to_move``, ``contract``...) are rows of one int64
    block and the per-hand 2-D fields (``bids``, ``plays``, tricks, points...) are column
    groups of another, so dealing a new hand resets each block in one operation. Every field
    is a plain NumPy view with the batch on its first axis.
    """

    # --- per game (int64 [B]) ---
    game_id: np.ndarray       # the game's id: with the seed and the hand number it fixes the deal
    hand_no: np.ndarray       # the hand's number within its game (0, 1, ...)
    dealer: np.ndarray        # the dealer's seat
    first_bidder: np.ndarray  # the seat that bids first
    winner: np.ndarray        # the team that won the game (-1 until it is over)
    # --- per hand (int64 [B]) ---
    to_move: np.ndarray       # the seat to act (-1 once the hand is over)
    phase: np.ndarray         # BIDDING .. GAME_OVER
    n_bids: np.ndarray        # bids made so far
    high_level: np.ndarray    # the high bid's level (0: none yet)
    high_bidder: np.ndarray   # who holds the high bid (-1: nobody)
    high_action: np.ndarray   # the high bid's action id
    bidder: np.ndarray        # who won the bidding (-1 until it ends; -1 if all passed)
    declarer: np.ndarray      # who named the contract
    bid_marks: np.ndarray     # marks the bid is worth (set when the bidding ends)
    bid_value: np.ndarray     # the bid's value in the six-player game
    need: np.ndarray          # points the bidding team needs (0: every trick / none, by contract)
    contract: np.ndarray      # 0..6 suits, doubles, follow-me, nello, sevens (-1: not named)
    sit_out: np.ndarray       # the nello bidder's partner, who sits out (-1: nobody)
    trick_size: np.ndarray    # plays in a trick (one fewer with a seat sitting out)
    trick_no: np.ndarray      # finished tricks
    n_in_trick: np.ndarray    # plays in the trick in progress
    leader: np.ndarray        # who led the trick in progress
    led: np.ndarray           # the suit it calls
    n_plays: np.ndarray       # plays this hand
    made: np.ndarray          # 1 made, 0 set, -1 undecided
    best_rank: np.ndarray     # rank of the best tile in the trick so far
    best_seat: np.ndarray     # who played it
    trick_pts: np.ndarray     # count in the trick so far (plus its one point)
    n_swaps: np.ndarray       # six-player exchange: tiles swapped with the cat
    ex_pending: np.ndarray    # six-player exchange: the tile taken awaiting its discard (-1)
    played_types: np.ndarray  # bitmask of the tile types played (two-copy game)
    # --- per hand, 2-D (int64 [B, k]) ---
    bids: np.ndarray           # [B, seats] the bids in order (-1: not yet)
    plays: np.ndarray          # [B, seats * tricks] the tiles (instances) in order of play
    play_seats: np.ndarray     # [B, seats * tricks] who played each
    trick_leaders: np.ndarray  # [B, tricks] who led each trick
    trick_winners: np.ndarray  # [B, tricks] who won it
    trick_points: np.ndarray   # [B, tricks] points it took
    points: np.ndarray         # [B, 2] points per team this hand
    tricks_won: np.ndarray     # [B, 2] tricks per team
    hand_marks: np.ndarray     # [B, 2] marks each team earned in the hand
    hand_score: np.ndarray     # [B, 2] what the hand adds to the game score
    ex_take: np.ndarray        # [B, 2] six-player exchange: tiles taken from the cat
    ex_discard: np.ndarray     # [B, 2] and discarded
    voids: np.ndarray          # [B, seats] suits each seat has shown it lacks (bitmask)
    play_slots: np.ndarray     # [B, seats * tricks] which copy each play was (two-copy game)
    # --- hands and game (own arrays) ---
    dealt: np.ndarray      # uint64 [B, seats] hands as dealt (bitmasks of tile instances)
    hands: np.ndarray      # uint64 [B, seats] tiles still held
    cat: np.ndarray        # uint64 [B] six-player: the cat now (it changes in the exchange)
    dealt_cat: np.ndarray  # uint64 [B] the cat as dealt
    score: np.ndarray      # int64 [B, 2] the game score, this hand's once decided
    legal: np.ndarray      # bool [B, n_actions] the legal actions of the seat to move

    GAME_FIELDS = ("game_id", "hand_no", "dealer", "first_bidder", "winner")
    # per-hand scalars and the value a new hand starts with (None: set when dealing)
    HAND_FIELDS = (
        ("to_move", None), ("phase", None), ("n_bids", 0), ("high_level", 0),
        ("high_bidder", -1), ("high_action", -1), ("bidder", -1), ("declarer", -1),
        ("bid_marks", 0), ("bid_value", 0), ("need", 0), ("contract", -1), ("sit_out", -1),
        ("trick_size", None), ("trick_no", 0), ("n_in_trick", 0), ("leader", -1), ("led", 0),
        ("n_plays", 0), ("made", -1), ("best_rank", -1), ("best_seat", -1), ("trick_pts", 0),
        ("n_swaps", 0), ("ex_pending", -1), ("played_types", 0),
    )

    @staticmethod
    def hand_arrays(S: int, Tn: int) -> tuple[tuple[str, int, int], ...]:
        """Per-hand 2-D fields: (name, width, start value)."""
        return (("bids", S, -1), ("plays", S * Tn, -1), ("play_seats", S * Tn, -1), ("trick_leaders", Tn, -1),
                ("trick_winners", Tn, -1), ("trick_points", Tn, 0), ("points", 2, 0),
                ("tricks_won", 2, 0), ("hand_marks", 2, 0), ("hand_score", 2, 0),
                ("ex_take", 2, -1), ("ex_discard", 2, -1), ("voids", S, 0),
                ("play_slots", S * Tn, 0))

    def __init__(self, batch: int, game, seed: int):
        S, Tn = game.n_seats, game.n_tricks
        self.seed = int(seed)
        self.n_seats, self.n_tricks = S, Tn
        names = self.GAME_FIELDS + tuple(n for n, _ in self.HAND_FIELDS)
        self.scalars = np.full((len(names), batch), -1, np.int64)
        arrays = self.hand_arrays(S, Tn)
        self.columns = np.zeros((batch, sum(w for _, w, _ in arrays)), np.int64)
        self.dealt = np.zeros((batch, S), np.uint64)  # hands as dealt (bitmasks)
        self.hands = np.zeros((batch, S), np.uint64)  # tiles still held
        self.cat = np.zeros(batch, np.uint64)  # six-player: the cat now (it changes in the exchange)
        self.dealt_cat = np.zeros(batch, np.uint64)
        self.score = np.zeros((batch, 2), np.int64)  # game score, this hand's once decided
        self.legal = np.zeros((batch, game.n_actions), bool)
        self._bind()
        self.phase[:] = HAND_OVER

    def _bind(self) -> None:
        names = self.GAME_FIELDS + tuple(n for n, _ in self.HAND_FIELDS)
        for i, name in enumerate(names):
            setattr(self, name, self.scalars[i])
        col = 0
        for name, width, _ in self.hand_arrays(self.n_seats, self.n_tricks):
            setattr(self, name, self.columns[:, col:col + width])
            col += width

    @property
    def batch_size(self) -> int:
        return self.scalars.shape[1]

    STORED = ("scalars", "columns", "dealt", "hands", "cat", "dealt_cat", "score", "legal")

    def _new(self, pick) -> "State":
        new = object.__new__(State)
        new.seed, new.n_seats, new.n_tricks = self.seed, self.n_seats, self.n_tricks
        for f in self.STORED:
            arr = getattr(self, f)
            setattr(new, f, pick(arr, f == "scalars"))
        new._bind()
        return new

    def copy(self) -> "State":
        return self._new(lambda arr, rows: arr.copy())

    def take(self, idx) -> "State":
        """A new state holding the tables ``idx`` (a copy)."""
        idx = np.atleast_1d(np.asarray(idx))
        return self._new(lambda arr, rows: arr[:, idx].copy() if rows else arr[idx].copy())

    def put(self, idx, other: "State") -> None:
        """Write the tables of ``other`` (as many as ``idx``) over tables ``idx``: what
        ``take(idx)`` copied out, stepped on its own, goes back."""
        idx = np.atleast_1d(np.asarray(idx))
        if other.batch_size != idx.size:
            raise ValueError(f"put: {other.batch_size} tables for {idx.size} places")
        for f in self.STORED:
            if f == "scalars":
                self.scalars[:, idx] = other.scalars
            else:
                getattr(self, f)[idx] = getattr(other, f)

    def restore(self, other: "State") -> None:
        for f in self.STORED:
            getattr(self, f)[...] = getattr(other, f)
