"""The bidding lab: hand values by simulation (``values``), the bid rule (``rule``), the
bidders that bid by it (``bidders``: ``simbid``; ``bidnet``: the learned bidder) and the
resumable hand-value dataset (``dataset``). Training the bid net lives in
``agents.training.bidnet_training``, evaluating bidders in ``agents.arena.bidder_matches``."""

from agents.bidding.bidders import SimBidder, ValueBidder
from agents.bidding.bidnet import LearnedBidder
from agents.bidding.rule import BidRule
from agents.bidding.values import CONTRACTS, NEEDS, HandValuer

__all__ = ["BidRule", "CONTRACTS", "HandValuer", "LearnedBidder", "NEEDS", "SimBidder",
           "ValueBidder"]
