"""Duplicate matches (``duplicate``), tournaments (``tournament``), ratings (``ratings``),
bootstrap statistics (``stats``) and bidder evaluation (``bidders``)."""
