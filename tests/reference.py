"""A slow, plain-Python reference for ONE standard (four-player) hand of Texas 42.

Written from ``shared/spec/rules.md`` alone, to check the fast core against. It deliberately
shares nothing with ``texas42_env.core`` or ``texas42_env.rules.Tables``: it knows tiles as
(high end, low end) pairs, suits as plain strings, and decides everything with small, readable
functions. Only the option values come from ``RulesConfig`` (a plain dataclass).

Usage::

    hand = RefHand(rules, dealer, [[tile ids of seat 0], ..., [tile ids of seat 3]])
    while hand.phase != "over":
        hand.apply(random.choice(sorted(hand.legal())))
    hand.summary()   # exactly what `texas42 replay` prints for the hand (game-record.md)

Actions are strings in the notation of rules.md: ``pass``, ``30``..``41``, ``1m``, ``2m``, ...,
``plunge``, ``splash``, ``0s``..``6s``, ``doubles``, ``follow-me``, ``nello``, ``sevens`` and
tiles written high end first (``6-4``; ``4-6`` is accepted too).

Where rules.md leaves a choice, the reference follows docs/rules-choices.md ("Where the rules
leave a choice"); each choice is a class attribute of ``RefHand`` so the
other reading is one switch away:

- ``SEVENS_MIN_MARKS_AFTER_SPECIAL = False``: after a plunge or splash "any contract but nello
  may be named", sevens included whatever ``sevens_min_marks`` says (True: the minimum still
  applies, the plunge or splash counting as a bid of its value in marks).
- ``NELLO_SEVENS_WORTH_42_A_MARK = False``: under ``scoring: points`` a nello or sevens named on
  a points bid (possible with ``nello_min_marks``/``sevens_min_marks`` 0) is worth the points
  bid (True: 42, one mark, reading "42 for each mark (marks bids, plunge, splash, nello,
  sevens)" as covering every nello and sevens hand).
"""

from __future__ import annotations

from texas42_env.rules import RulesConfig
from texas42_env.tiles import TILE_NAMES

# ----------------------------------------------------------------------------- tiles
# Tile ids as texas42_env.tiles numbers them: (hi, lo), hi >= lo, in order of hi then lo.
TILES: list[tuple[int, int]] = [(h, lo) for h in range(7) for lo in range(h + 1)]
NAMES: list[str] = [f"{h}-{lo}" for h, lo in TILES]
assert tuple(NAMES) == TILE_NAMES, "tile numbering differs from texas42_env.tiles"
ID_OF: dict[str, int] = {}
for _i, (_h, _l) in enumerate(TILES):
    ID_OF[f"{_h}-{_l}"] = _i
    ID_OF[f"{_l}-{_h}"] = _i

COUNT_POINTS = {(5, 0): 5, (4, 1): 5, (3, 2): 5, (6, 4): 10, (5, 5): 10}

CONTRACTS = [f"{s}s" for s in range(7)] + ["doubles", "follow-me", "nello", "sevens"]
SEATS = 4
TRICKS = 7
TOTAL = 42


def count_of(t: int) -> int:
    return COUNT_POINTS.get(TILES[t], 0)


def is_double(t: int) -> bool:
    return TILES[t][0] == TILES[t][1]


def team_of(seat: int) -> int:
    return seat % 2


def partner_of(seat: int) -> int:
    return (seat + 2) % 4


# ----------------------------------------------------------------------------- suits
# A suit is the string "trump", "doubles" (doubles as a suit of their own) or "0".."6".

def trump_number(contract: str) -> int | None:
    """The trump number of a contract naming a suit, else None."""
    if contract.endswith("s") and contract[:-1].isdigit():
        return int(contract[:-1])
    return None


class Contract:
    """Suit membership, leading and ranking under one contract (not for sevens)."""

    def __init__(self, name: str, rules: RulesConfig):
        self.name = name
        self.trump = trump_number(name)
        self.doubles_trump = name == "doubles"
        self.doubles_own = (name == "follow-me" and rules.follow_me_doubles == "own_suit") or (
            name == "nello" and rules.nello_doubles == "own_suit")
        self.doubles_low = name == "nello" and rules.nello_doubles == "low"

    def is_trump(self, t: int) -> bool:
        hi, lo = TILES[t]
        if self.trump is not None:
            return hi == self.trump or lo == self.trump
        if self.doubles_trump:
            return hi == lo
        return False

    def suits(self, t: int) -> set[str]:
        """The suits tile t belongs to (may follow)."""
        hi, lo = TILES[t]
        if self.is_trump(t):
            return {"trump"}
        if hi == lo and self.doubles_own:
            return {"doubles"}
        return {str(hi), str(lo)}

    def led_suit(self, t: int) -> str:
        """The suit tile t calls for when it leads a trick."""
        hi, lo = TILES[t]
        if self.is_trump(t):
            return "trump"
        if hi == lo and self.doubles_own:
            return "doubles"
        return str(hi)  # the higher end; a double calls its own number

    def trump_key(self, t: int) -> tuple:
        """Order among trumps (larger wins)."""
        hi, lo = TILES[t]
        if self.doubles_trump:
            return (hi,)
        if hi == lo:  # the double of the trump number tops the suit
            return (1, 99)
        other = lo if hi == self.trump else hi
        return (0, other)

    def suit_key(self, t: int, suit: str) -> tuple:
        """Order within a non-trump suit the tile belongs to (larger wins)."""
        hi, lo = TILES[t]
        if suit == "doubles":
            return (hi,)
        s = int(suit)
        if hi == lo:
            return (-1, 0) if self.doubles_low else (1, 0)
        other = lo if hi == s else hi
        return (0, other)

    def trick_winner_index(self, tiles: list[int]) -> int:
        """Index into ``tiles`` (in play order) of the winning tile."""
        trumps = [i for i, t in enumerate(tiles) if self.is_trump(t)]
        if trumps:
            return max(trumps, key=lambda i: self.trump_key(tiles[i]))
        led = self.led_suit(tiles[0])
        of_suit = [i for i, t in enumerate(tiles) if led in self.suits(t)]
        return max(of_suit, key=lambda i: self.suit_key(tiles[i], led))


def sevens_distance(t: int) -> int:
    hi, lo = TILES[t]
    return abs(hi + lo - 7)


# ----------------------------------------------------------------------------- bids
def parse_bid(name: str):
    """('pass', None) | ('points', p) | ('marks', m) | ('plunge', None) | ('splash', None),
    or None when ``name`` is not a bid."""
    if name == "pass":
        return ("pass", None)
    if name in ("plunge", "splash"):
        return (name, None)
    if isinstance(name, str) and name.isdigit() and 30 <= int(name) <= 41 and str(int(name)) == name:
        return ("points", int(name))
    if isinstance(name, str) and name.endswith("m") and name[:-1].isdigit():
        m = int(name[:-1])
        if m >= 1 and str(m) + "m" == name:
            return ("marks", m)
    return None


class RefHand:
    """One four-player hand, from the deal to its end. Plain Python, slow, readable."""

    # The two choices where rules.md leaves room (see the module docstring); False is the
    # reading docs/rules-choices.md documents.
    SEVENS_MIN_MARKS_AFTER_SPECIAL = False
    NELLO_SEVENS_WORTH_42_A_MARK = False

    def __init__(self, rules: RulesConfig, dealer: int, hands: list[list[int]]):
        if rules.ruleset != "standard":
            raise ValueError("the reference plays the standard four-player game only")
        assert len(hands) == 4 and all(len(h) == 7 for h in hands)
        assert sorted(t for h in hands for t in h) == list(range(28))
        self.rules = rules
        self.dealer = dealer
        self.dealt = [sorted(h) for h in hands]
        self.held = [set(h) for h in hands]
        if rules.first_bidder == "holder_of_1_0":
            first = next(s for s in range(4) if ID_OF["1-0"] in self.held[s])
        else:
            first = (dealer + 1) % 4
        self.first_bidder = first
        self.phase = "bid"
        self.to_move: int | None = first
        self.actions: list[str] = []  # every action applied, as names
        self.bids: list[str] = []
        # the high bid
        self.high_seat: int | None = None
        self.high_name: str | None = None
        self.high_kind: str | None = None  # 'points' or 'marks'
        self.high_points = 0  # for a points bid
        self.high_marks = 0  # marks of the high bid (a points bid: 0)
        self.any_mark_bid = False
        # after the bidding
        self.bidder: int | None = None
        self.bid: str | None = None
        self.declarer: int | None = None
        self.special = False
        self.contract: str | None = None
        self.rules_of_play: Contract | None = None
        self.sit_out: int | None = None
        # play
        self.trick: list[tuple[int, int]] = []  # (seat, tile) of the trick under way
        self.trick_leader: int | None = None
        self.tricks: list[dict] = []  # complete tricks
        self.tricks_won = [0, 0]
        self.points = [0, 0]
        self.plays: list[int] = []
        self.made: bool | None = None
        self.marks = [0, 0]
        self.score = [0, 0]
        self.thrown_in = False
        self.ended_by_sevens = False

    # ------------------------------------------------------------------ helpers
    def doubles_held(self, seat: int) -> int:
        return sum(1 for t in self.held[seat] if is_double(t))

    @property
    def bid_team(self) -> int | None:
        return None if self.bidder is None else team_of(self.bidder)

    def bid_marks_for_options(self) -> int:
        """Marks of the winning bid for the 'at least N marks' options (points bid: 0)."""
        return self.high_marks if self.high_kind == "marks" else 0

    def marks_worth(self) -> int:
        """Marks the hand is worth: a points bid 1, a marks bid (plunge, splash) its marks."""
        return self.high_marks if self.high_kind == "marks" else 1

    def value_worth(self) -> int:
        """What the hand is worth under the scoring mode."""
        if self.rules.scoring == "marks":
            return self.marks_worth()
        if self.high_kind == "points" and (self.contract not in ("nello", "sevens")
                                           or not self.NELLO_SEVENS_WORTH_42_A_MARK):
            return self.high_points
        return 42 * self.marks_worth()

    def needs_every_trick(self) -> bool:
        return self.high_kind == "marks" or self.contract == "sevens"

    def trick_size(self) -> int:
        return 3 if self.contract == "nello" else 4

    def next_seat(self, seat: int) -> int:
        nxt = (seat + 1) % 4
        if nxt == self.sit_out:
            nxt = (nxt + 1) % 4
        return nxt

    # ------------------------------------------------------------------ legality
    def bid_allowed(self, name: str) -> bool:
        seat = self.to_move
        parsed = parse_bid(name)
        if parsed is None:
            return False
        kind, n = parsed
        r = self.rules
        if kind == "pass":
            forced = (r.all_pass == "force_dealer" and len(self.bids) == 3
                      and self.high_seat is None)
            return not forced
        if kind == "points":
            if self.high_seat is None:
                return True
            return self.high_kind == "points" and n > self.high_points
        if kind == "marks":
            if not self.any_mark_bid:
                return 1 <= n <= r.max_opening_marks
            return n == self.high_marks + 1
        if kind == "plunge":
            return r.plunge and self.doubles_held(seat) >= r.plunge_min_doubles
        if kind == "splash":
            value = max(2, self.high_marks + 1)
            return r.splash and self.doubles_held(seat) >= 3 and value <= 3
        return False

    def contract_allowed(self, name: str) -> bool:
        r = self.rules
        if name not in CONTRACTS:
            return False
        if name == "nello":
            return (r.nello and not self.special
                    and self.bid_marks_for_options() >= r.nello_min_marks)
        if name == "sevens":
            if self.special and not self.SEVENS_MIN_MARKS_AFTER_SPECIAL:
                return r.sevens
            return r.sevens and self.bid_marks_for_options() >= r.sevens_min_marks
        return True

    def plays_allowed(self) -> set[int]:
        seat = self.to_move
        hand = self.held[seat]
        if self.contract == "sevens":
            best = min(sevens_distance(t) for t in hand)
            return {t for t in hand if sevens_distance(t) == best}
        if not self.trick:
            return set(hand)
        c = self.rules_of_play
        led = c.led_suit(self.trick[0][1])
        follow = {t for t in hand if led in c.suits(t)}
        return follow if follow else set(hand)

    def legal(self) -> set[str]:
        """Every legal action of the player to move, as names (empty when the hand is over)."""
        if self.phase == "bid":
            top = max(self.rules.max_opening_marks, self.high_marks + 1)
            cands = ["pass"] + [str(p) for p in range(30, 42)]
            cands += [f"{m}m" for m in range(1, top + 1)] + ["plunge", "splash"]
            return {a for a in cands if self.bid_allowed(a)}
        if self.phase == "declare":
            return {c for c in CONTRACTS if self.contract_allowed(c)}
        if self.phase == "play":
            return {NAMES[t] for t in self.plays_allowed()}
        return set()

    def is_legal(self, action: str) -> bool:
        if self.phase == "bid":
            return self.bid_allowed(action)
        if self.phase == "declare":
            return self.contract_allowed(action)
        if self.phase == "play":
            return action in ID_OF and ID_OF[action] in self.plays_allowed()
        return False

    # ------------------------------------------------------------------ acting
    def apply(self, action: str) -> None:
        if not self.is_legal(action):
            raise ValueError(f"illegal action {action!r} in phase {self.phase} "
                             f"(seat {self.to_move}); legal: {sorted(self.legal())}")
        self.actions.append(NAMES[ID_OF[action]] if self.phase == "play" else action)
        if self.phase == "bid":
            self._bid(action)
        elif self.phase == "declare":
            self._declare(action)
        else:
            self._play(ID_OF[action])

    def _bid(self, name: str) -> None:
        seat = self.to_move
        self.bids.append(name)
        kind, n = parse_bid(name)
        if kind != "pass":
            if kind == "points":
                self.high_kind, self.high_points, self.high_marks = "points", n, 0
            else:
                if kind == "marks":
                    value = n
                elif kind == "plunge":
                    value = max(self.rules.plunge_marks, self.high_marks + 1)
                else:
                    value = max(2, self.high_marks + 1)
                self.high_kind, self.high_marks, self.high_points = "marks", value, 0
                self.any_mark_bid = True
            self.high_seat, self.high_name = seat, name
        self.to_move = (seat + 1) % 4
        if len(self.bids) == 4:
            self._end_bidding()

    def _end_bidding(self) -> None:
        if self.high_seat is None:  # everyone passed (only possible under redeal)
            self.phase, self.to_move, self.thrown_in = "over", None, True
            return
        self.bidder = self.high_seat
        self.bid = self.high_name
        self.special = self.high_name in ("plunge", "splash")
        self.declarer = partner_of(self.bidder) if self.special else self.bidder
        self.phase = "declare"
        self.to_move = self.declarer

    def _declare(self, name: str) -> None:
        self.contract = name
        self.rules_of_play = Contract(name, self.rules) if name != "sevens" else None
        if name == "nello":
            self.sit_out = partner_of(self.bidder)
        self.phase = "play"
        self.to_move = self.declarer
        self.trick_leader = self.declarer

    def _play(self, t: int) -> None:
        seat = self.to_move
        self.held[seat].discard(t)
        if not self.trick:
            self.trick_leader = seat
        self.trick.append((seat, t))
        self.plays.append(t)
        self.to_move = self.next_seat(seat)
        if len(self.trick) == self.trick_size():
            self._finish_trick()

    def _sevens_winner(self) -> int:
        tiles = [t for _, t in self.trick]
        best = min(sevens_distance(t) for t in tiles)
        closest = [i for i, t in enumerate(tiles) if sevens_distance(t) == best]
        if self.rules.sevens_tie == "bidder":
            ours = [i for i in closest if team_of(self.trick[i][0]) == self.bid_team]
            if ours:
                return ours[0]
        return closest[0]

    def _finish_trick(self) -> None:
        tiles = [t for _, t in self.trick]
        if self.contract == "sevens":
            wi = self._sevens_winner()
        else:
            wi = self.rules_of_play.trick_winner_index(tiles)
        winner = self.trick[wi][0]
        pts = 1 + sum(count_of(t) for t in tiles)
        team = team_of(winner)
        self.points[team] += pts
        self.tricks_won[team] += 1
        self.tricks.append({"leader": self.trick_leader, "plays": [NAMES[t] for t in tiles],
                            "winner": winner, "points": pts})
        self.trick = []
        self.trick_leader = winner
        self.to_move = winner
        self._judge(team)

    def _judge(self, trick_team: int) -> None:
        """After each trick: decided yet? over yet? (from what has been taken only)."""
        last = len(self.tricks) == TRICKS
        bt = self.bid_team
        ot = 1 - bt
        result = None
        set_now = False
        if self.contract == "nello":
            if trick_team == bt:
                set_now = True
            elif last:
                result = True
        elif self.needs_every_trick():
            if trick_team == ot:
                set_now = True
            elif last:
                result = True
        else:
            need = self.high_points
            if self.points[bt] >= need:
                result = True
            elif self.points[ot] > TOTAL - need:
                set_now = True
        if set_now:
            result = False
        if self.made is None and result is not None:
            self.made = result
            win = bt if result else ot
            self.marks[win] = self.marks_worth()
            self.score[win] = self.value_worth()
        over = last
        if self.contract == "sevens" and set_now:
            over = True
            self.ended_by_sevens = True
        if not self.rules.play_out and self.made is not None:
            over = True
        if over:
            self.phase, self.to_move = "over", None

    # ------------------------------------------------------------------ reporting
    def all_tricks(self) -> list[dict]:
        """Complete tricks, then the trick under way (leader and plays only), if any."""
        out = [dict(t) for t in self.tricks]
        if self.trick:
            out.append({"leader": self.trick_leader, "plays": [NAMES[t] for t in
                                                               (x for _, x in self.trick)]})
        return out

    def summary(self) -> dict:
        """What `texas42 replay` prints for the hand as it stands (game-record.md)."""
        over = self.phase == "over"
        out = {
            "ok": True,
            "complete": over,
            "bidder": self.bidder,
            "bid": self.bid,
            "declarer": self.declarer,
            "contract": self.contract,
            "tricks": self.all_tricks(),
            "points": list(self.points),
            "made": self.made,
            "marks": list(self.marks),
            "score": list(self.score),
        }
        if not over:
            out["to_move"] = self.to_move
            out["phase"] = self.phase
            out["legal"] = sorted(self.legal())
        return out


def replay_record(record: dict) -> dict:
    """The reference's `texas42 replay` output for one standard record (a dict), with the
    error object for the first illegal action (the ``reason`` is only indicative)."""
    rules = RulesConfig.from_options(record.get("ruleset", "standard"), record.get("options"))
    hands = [[ID_OF[x] for x in h] for h in record["hands"]]
    hand = RefHand(rules, record["dealer"], hands)
    actions = list(record.get("bids") or [])
    if record.get("contract") is not None:
        actions.append(record["contract"])
    actions += list(record.get("plays") or [])
    for i, a in enumerate(actions):
        if hand.phase == "over":
            return {"ok": False, "error": {"index": i, "phase": "over", "seat": None,
                                           "action": NAMES[ID_OF[a]] if a in ID_OF else a,
                                           "reason": "hand is over"}}
        if not hand.is_legal(a):
            return {"ok": False, "error": {"index": i, "phase": hand.phase, "seat": hand.to_move,
                                           "action": NAMES[ID_OF[a]] if a in ID_OF else a,
                                           "reason": "not legal"}}
        hand.apply(a)
    return hand.summary()
