"""Interfaces for people: the terminal game (``play``), records told in words (``show``) and
the random-play demo (``demo``)."""
