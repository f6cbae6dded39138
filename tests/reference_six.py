"""A slow, plain-Python reference for ONE six-player hand ("Texas 88", ruleset ``six-player``).

Written from ``shared/spec/rules.md`` ("The six-player game", and the four-player rules it
refers to for following and winning) and ``shared/spec/game-record.md`` (the replay output), to
check the fast core against. It shares nothing with ``texas42_env.core``,
``texas42_env.records`` or the lookup tables of ``texas42_env.rules.Tables``: tiles are
(high end, low end) pairs, hands are plain lists of tile ids (a tile may be held twice), suits
are strings, and every rule is a small readable function. Only the option values come from
``RulesConfig`` (a plain dataclass) and the tile numbering is checked against
``texas42_env.tiles``.

Usage::

    hand = RefSixHand(rules, dealer, [[9 tile ids] * 6], cat=[2 tile ids])
    while hand.phase != "over":
        hand.apply(random.choice(hand.legal_list()))
    hand.summary()   # what `texas42 replay` prints for the hand (game-record.md)

Actions: bids ``pass``, ``60:5s`` ... ``352:follow-me``; contracts ``0s``..``6s``, ``doubles``,
``follow-me``; the exchange as ONE action, a dict ``{"take": [...], "discard": [...]}`` (both
lists empty to keep the hand); plays are tiles (``6-4``; ``4-6`` is accepted too).

Readings of rules.md this reference takes where the text leaves room:

- The exchange is a whole: ``take`` is a sub-multiset of the cat, ``discard`` a sub-multiset of
  the non-count tiles of the hand as dealt, of the same size (0, 1 or 2). A tile of the hand as
  dealt may be discarded even when its twin was just taken from the cat (the discard comes "from
  the hand as it was before the exchange"). "A count tile in the cat must be taken (when the
  hand has too few non-count tiles, as many as it can)": the exchange must take
  ``min(count tiles in the cat, non-count tiles in the hand as dealt)`` count tiles.
- "Decided" for a points bid B: made once the bidding team has at least B, set once the other
  team has more than 88 - B. When a count tile stays in the cat (the winner could not take it),
  the hand holds fewer than 88 points and neither may happen by the last trick; the hand is then
  decided after its last trick by "a points bid is made with at least the bid's points": the
  bid is set.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from texas42_env.rules import RulesConfig
from texas42_env.tiles import TILE_NAMES

# ----------------------------------------------------------------------------- tiles
TILES: list[tuple[int, int]] = [(h, lo) for h in range(7) for lo in range(h + 1)]
NAMES: list[str] = [f"{h}-{lo}" for h, lo in TILES]
assert tuple(NAMES) == TILE_NAMES, "tile numbering differs from texas42_env.tiles"
ID_OF: dict[str, int] = {}
for _i, (_h, _l) in enumerate(TILES):
    ID_OF[f"{_h}-{_l}"] = _i
    ID_OF[f"{_l}-{_h}"] = _i

COUNT_POINTS = {(5, 0): 5, (4, 1): 5, (3, 2): 5, (6, 4): 10, (5, 5): 10}

SEATS = 6
HAND = 9
TRICKS = 9
TOTAL = 88
POINTS_PER_TRICK = 2
LEVELS = list(range(60, 89, 2)) + [176, 264, 352]
TRUMPS = [f"{s}s" for s in range(7)] + ["doubles", "follow-me"]
BID_NAMES = [f"{lv}:{tr}" for lv in LEVELS for tr in TRUMPS]


def count_of(t: int) -> int:
    return COUNT_POINTS.get(TILES[t], 0)


def is_double(t: int) -> bool:
    return TILES[t][0] == TILES[t][1]


def team_of(seat: int) -> int:
    return seat % 2  # team 0 = seats 0, 2, 4


def name_of(t: int) -> str:
    return NAMES[t]


# ----------------------------------------------------------------------------- contracts
class Contract:
    """Suit membership, leading and ranking under one six-player contract."""

    def __init__(self, name: str, rules: RulesConfig):
        assert name in TRUMPS, name
        self.name = name
        self.trump = int(name[0]) if name[0].isdigit() else None
        self.doubles_trump = name == "doubles"
        self.doubles_own = name == "follow-me" and rules.follow_me_doubles == "own_suit"

    def is_trump(self, t: int) -> bool:
        hi, lo = TILES[t]
        if self.trump is not None:
            return self.trump in (hi, lo)
        return self.doubles_trump and hi == lo

    def suits(self, t: int) -> set[str]:
        """The suits tile t belongs to (may follow)."""
        hi, lo = TILES[t]
        if self.is_trump(t):
            return {"trump"}
        if hi == lo and self.doubles_own:
            return {"doubles"}
        return {str(hi), str(lo)}

    def led_suit(self, t: int) -> str:
        hi, lo = TILES[t]
        if self.is_trump(t):
            return "trump"
        if hi == lo and self.doubles_own:
            return "doubles"
        return str(hi)

    def trump_key(self, t: int) -> tuple:
        hi, lo = TILES[t]
        if self.doubles_trump:
            return (hi,)
        if hi == lo:
            return (1, 0)
        return (0, lo if hi == self.trump else hi)

    def suit_key(self, t: int, suit: str) -> tuple:
        hi, lo = TILES[t]
        if suit == "doubles":
            return (hi,)
        if hi == lo:
            return (1, 0)
        s = int(suit)
        return (0, lo if hi == s else hi)

    def trick_winner_index(self, tiles: list[int]) -> int:
        """Index (in play order) of the winning tile; of identical tiles the first wins."""
        trumps = [i for i, t in enumerate(tiles) if self.is_trump(t)]
        if trumps:
            best = trumps[0]
            for i in trumps[1:]:
                if self.trump_key(tiles[i]) > self.trump_key(tiles[best]):
                    best = i
            return best
        led = self.led_suit(tiles[0])
        best = 0
        for i in range(1, len(tiles)):
            if led in self.suits(tiles[i]) and \
                    self.suit_key(tiles[i], led) > self.suit_key(tiles[best], led):
                best = i
        return best


# ----------------------------------------------------------------------------- bids
def parse_bid(name) -> tuple[int, str] | str | None:
    """'pass', (points, trump), or None when ``name`` is not a six-player bid."""
    if name == "pass":
        return "pass"
    if not isinstance(name, str) or name not in BID_NAMES:
        return None
    pts, trump = name.split(":")
    return int(pts), trump


def holds_suit(hand: list[int], trump: str) -> bool:
    if trump == "follow-me":
        return True
    if trump == "doubles":
        return any(is_double(t) for t in hand)
    s = int(trump[0])
    return any(s in TILES[t] for t in hand)


def bid_marks(points: int) -> int:
    """Marks a bid is worth: a points bid (60..88) one, ``k x 88`` k."""
    return points // 88 if points > 88 else 1


# ----------------------------------------------------------------------------- exchanges
def exchange_key(take, discard) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A whole exchange as (sorted take names, sorted discard names)."""
    return (tuple(sorted(NAMES[ID_OF[x]] if isinstance(x, str) else NAMES[x] for x in take)),
            tuple(sorted(NAMES[ID_OF[x]] if isinstance(x, str) else NAMES[x] for x in discard)))


def sub_multisets(items: list[int], k: int) -> set[tuple[int, ...]]:
    return {tuple(sorted(c)) for c in combinations(sorted(items), k)}


def legal_exchange_keys(dealt: list[int], cat: list[int]) -> set:
    """Every legal whole exchange for a winner holding ``dealt`` with the cat ``cat``."""
    noncount = [t for t in dealt if count_of(t) == 0]
    cat_count = sum(1 for t in cat if count_of(t))
    must_take = min(cat_count, len(noncount))
    out = set()
    for k in range(0, min(2, len(cat), len(noncount)) + 1):
        for take in sub_multisets(cat, k):
            if sum(1 for t in take if count_of(t)) < must_take:
                continue
            for discard in sub_multisets(noncount, k):
                out.add(exchange_key(take, discard))
    return out


# ----------------------------------------------------------------------------- the hand
class RefSixHand:
    """One six-player hand, from the deal to its end. Plain Python, slow, readable."""

    def __init__(self, rules: RulesConfig, dealer: int, hands: list[list[int]],
                 cat: list[int] | None = None):
        if rules.ruleset != "six-player":
            raise ValueError("this reference plays the six-player game only")
        assert len(hands) == SEATS and all(len(h) == HAND for h in hands)
        if cat is None:
            have = Counter(t for h in hands for t in h)
            cat = [t for t in range(28) for _ in range(2 - have[t])]
        all_tiles = Counter(t for h in hands for t in h) + Counter(cat)
        assert all(all_tiles[t] == 2 for t in range(28)) and len(cat) == 2
        self.rules = rules
        self.dealer = dealer
        self.dealt = [sorted(h) for h in hands]
        self.held = [sorted(h) for h in hands]
        self.dealt_cat = sorted(cat)
        self.cat = sorted(cat)  # the cat now (after the exchange: what was put in it)
        self.first_bidder = (dealer + 1) % SEATS
        self.phase = "bid"
        self.to_move: int | None = self.first_bidder
        self.actions: list = []
        self.bids: list[str] = []
        self.high_seat: int | None = None
        self.high_name: str | None = None
        self.high_points = 0
        self.high_trump: str | None = None
        self.bidder: int | None = None
        self.bid: str | None = None
        self.declarer: int | None = None
        self.contract: str | None = None
        self.exchange: dict | None = None
        self.rules_of_play: Contract | None = None
        self.trick: list[tuple[int, int]] = []
        self.trick_leader: int | None = None
        self.tricks: list[dict] = []
        self.tricks_won = [0, 0]
        self.points = [0, 0]
        self.plays: list[int] = []
        self.made: bool | None = None
        self.marks = [0, 0]
        self.score = [0, 0]
        self.thrown_in = False

    # ------------------------------------------------------------------ facts
    @property
    def bid_team(self) -> int | None:
        return None if self.bidder is None else team_of(self.bidder)

    def needs_every_trick(self) -> bool:
        return self.high_points > 88

    def value(self) -> int:
        if self.rules.scoring == "marks":
            return bid_marks(self.high_points)
        return self.high_points

    def forced(self) -> bool:
        return (self.rules.all_pass == "force_dealer" and len(self.bids) == SEATS - 1
                and self.high_seat is None)

    # ------------------------------------------------------------------ legality
    def bid_allowed(self, name) -> bool:
        parsed = parse_bid(name)
        if parsed is None:
            return False
        if parsed == "pass":
            return not self.forced()
        points, trump = parsed
        return points > self.high_points and holds_suit(self.held[self.to_move], trump)

    def contract_allowed(self, name) -> bool:
        return name == self.high_trump

    def exchange_keys(self) -> set:
        return legal_exchange_keys(self.dealt[self.bidder], self.dealt_cat)

    def exchange_allowed(self, ex) -> bool:
        if not isinstance(ex, dict) or set(ex) != {"take", "discard"}:
            return False
        take, discard = ex["take"], ex["discard"]
        if not isinstance(take, list) or not isinstance(discard, list):
            return False
        if not all(isinstance(x, str) and x in ID_OF for x in take + discard):
            return False
        return exchange_key(take, discard) in self.exchange_keys()

    def plays_allowed(self) -> set[int]:
        hand = set(self.held[self.to_move])
        if not self.trick:
            return hand
        c = self.rules_of_play
        led = c.led_suit(self.trick[0][1])
        follow = {t for t in hand if led in c.suits(t)}
        return follow or hand

    def legal(self) -> set:
        """Every legal action of the player to move: names, or (in the exchange) exchange keys
        ``(sorted take names, sorted discard names)``; empty when the hand is over."""
        if self.phase == "bid":
            return {a for a in ["pass"] + BID_NAMES if self.bid_allowed(a)}
        if self.phase == "declare":
            return {self.high_trump}
        if self.phase == "exchange":
            return self.exchange_keys()
        if self.phase == "play":
            return {NAMES[t] for t in self.plays_allowed()}
        return set()

    def legal_list(self) -> list:
        """``legal()`` as actions that ``apply`` takes (exchanges as dicts), sorted."""
        if self.phase == "exchange":
            return [{"take": list(t), "discard": list(d)} for t, d in sorted(self.legal())]
        return sorted(self.legal())

    def is_legal(self, action) -> bool:
        if self.phase == "bid":
            return self.bid_allowed(action)
        if self.phase == "declare":
            return self.contract_allowed(action)
        if self.phase == "exchange":
            return self.exchange_allowed(action)
        if self.phase == "play":
            return isinstance(action, str) and action in ID_OF and \
                ID_OF[action] in self.plays_allowed()
        return False

    # ------------------------------------------------------------------ acting
    def apply(self, action) -> None:
        if not self.is_legal(action):
            raise ValueError(f"illegal action {action!r} in phase {self.phase} "
                             f"(seat {self.to_move})")
        if self.phase == "bid":
            self.actions.append(action)
            self._bid(action)
        elif self.phase == "declare":
            self.actions.append(action)
            self._declare(action)
        elif self.phase == "exchange":
            take, discard = exchange_key(action["take"], action["discard"])
            self.actions.append({"take": list(take), "discard": list(discard)})
            self._exchange([ID_OF[x] for x in take], [ID_OF[x] for x in discard])
        else:
            self.actions.append(NAMES[ID_OF[action]])
            self._play(ID_OF[action])

    def _bid(self, name: str) -> None:
        seat = self.to_move
        self.bids.append(name)
        parsed = parse_bid(name)
        if parsed != "pass":
            self.high_points, self.high_trump = parsed
            self.high_seat, self.high_name = seat, name
        self.to_move = (seat + 1) % SEATS
        if len(self.bids) == SEATS:
            if self.high_seat is None:
                self.phase, self.to_move, self.thrown_in = "over", None, True
                return
            self.bidder = self.declarer = self.high_seat
            self.bid = self.high_name
            self.phase, self.to_move = "declare", self.bidder

    def _declare(self, name: str) -> None:
        self.contract = name
        self.rules_of_play = Contract(name, self.rules)
        self.phase = "exchange"

    def _exchange(self, take: list[int], discard: list[int]) -> None:
        hand = self.held[self.bidder]
        for t in discard:
            hand.remove(t)
            self.cat.append(t)
        for t in take:
            self.cat.remove(t)
            hand.append(t)
        hand.sort()
        self.cat.sort()
        self.exchange = {"take": [NAMES[t] for t in take], "discard": [NAMES[t] for t in discard]}
        self.phase = "play"
        self.to_move = self.trick_leader = self.bidder

    def _play(self, t: int) -> None:
        seat = self.to_move
        self.held[seat].remove(t)
        if not self.trick:
            self.trick_leader = seat
        self.trick.append((seat, t))
        self.plays.append(t)
        self.to_move = (seat + 1) % SEATS
        if len(self.trick) == SEATS:
            self._finish_trick()

    def _finish_trick(self) -> None:
        tiles = [t for _, t in self.trick]
        winner = self.trick[self.rules_of_play.trick_winner_index(tiles)][0]
        pts = POINTS_PER_TRICK + sum(count_of(t) for t in tiles)
        team = team_of(winner)
        self.points[team] += pts
        self.tricks_won[team] += 1
        self.tricks.append({"leader": self.trick_leader, "plays": [NAMES[t] for t in tiles],
                            "winner": winner, "points": pts})
        self.trick = []
        self.trick_leader = self.to_move = winner
        self._judge(team)

    def _judge(self, trick_team: int) -> None:
        last = len(self.tricks) == TRICKS
        bt = self.bid_team
        ot = 1 - bt
        result = None
        if self.needs_every_trick():
            if trick_team == ot:
                result = False
            elif last:
                result = True
        else:
            need = self.high_points
            if self.points[bt] >= need:
                result = True
            elif self.points[ot] > TOTAL - need:
                result = False
            elif last:  # count left in the cat: the bid was not reached
                result = False
        if self.made is None and result is not None:
            self.made = result
            win = bt if result else ot
            self.marks[win] = bid_marks(self.high_points)
            self.score[win] = self.value()
        if last or (not self.rules.play_out and self.made is not None):
            self.phase, self.to_move = "over", None

    # ------------------------------------------------------------------ reporting
    def all_tricks(self) -> list[dict]:
        out = [dict(t) for t in self.tricks]
        if self.trick:
            out.append({"leader": self.trick_leader, "plays": [NAMES[t] for _, t in self.trick]})
        return out

    def summary(self) -> dict:
        """What `texas42 replay` prints for the hand as it stands (game-record.md); the
        exchange choices sorted by (take, discard)."""
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
            out["legal"] = self.legal_list()
        return out


def canonical(result: dict) -> dict:
    """A replay result with the exchange choices sorted (they may come in any order)."""
    if result.get("phase") == "exchange":
        result = dict(result, legal=sorted(result["legal"],
                                           key=lambda x: (sorted(x["take"]), sorted(x["discard"]))))
        result["legal"] = [{"take": sorted(x["take"]), "discard": sorted(x["discard"])}
                           for x in result["legal"]]
    return result


def replay_record(record: dict) -> dict:
    """The reference's `texas42 replay` output for one six-player record (a dict), with the
    error object for the first illegal action (its ``reason`` is only indicative)."""
    rules = RulesConfig.from_options(record.get("ruleset", "standard"), record.get("options"))
    hands = [[ID_OF[x] for x in h] for h in record["hands"]]
    cat = [ID_OF[x] for x in record["cat"]] if record.get("cat") is not None else None
    hand = RefSixHand(rules, record["dealer"], hands, cat)
    actions: list = list(record.get("bids") or [])
    if record.get("contract") is not None:
        actions.append(record["contract"])
    if record.get("exchange") is not None:
        actions.append(record["exchange"])
    actions += list(record.get("plays") or [])
    for i, a in enumerate(actions):
        shown = NAMES[ID_OF[a]] if isinstance(a, str) and a in ID_OF else a
        if hand.phase == "over":
            return {"ok": False, "error": {"index": i, "phase": "over", "seat": None,
                                           "action": shown, "reason": "hand is over"}}
        if not hand.is_legal(a):
            return {"ok": False, "error": {"index": i, "phase": hand.phase, "seat": hand.to_move,
                                           "action": shown, "reason": "not legal"}}
        hand.apply(a)
    return hand.summary()
