"""One checker for every configuration: a rule on each field, ``ConfigError`` for a bad value.

A config dataclass declares a checked field with ``setting(default, rule)`` and calls
``validate(self, "prefix.")`` in its ``__post_init__``: every field with a rule is checked and
the first bad one raises ``ConfigError`` (or the subclass given as ``error``) naming the key as
a command line writes it, the value and what is allowed, e.g. ``algorithm.tables must be a
positive whole number, got 'abc'``. The rules:

- ``whole(low, high)``: an ``int`` (never a bool), within the bounds;
- ``number(low, high, above=, below=)``: an ``int`` or ``float`` (never a bool);
- ``one_of(*names)``: one of the names;
- ``Rule(kind=..., test=..., says=...)``: anything else (``kind`` ``"text"``, ``"mapping"``,
  ``"list"`` or None, ``test`` a further condition described by ``says``).

``check(key, value, rule)`` checks one value (conditions across fields, names known only at
run time), ``build(cls, mapping, prefix)`` refuses unknown and missing keys before it builds a
dataclass, and ``check_rules(options)`` checks a ``rules`` mapping (the rule ``RULES``), naming
``rules.OPTION``.

The Hydra apps of ``scripts/`` turn what Hydra itself refuses into the same one line
(``agents.hydra_apps``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, dataclass
from typing import Any, Callable, Iterable, Mapping

from .rules import OPTION_SPECS, ConfigError, RulesConfig

_KIND_NAMES = {"whole": "whole number", "number": "number", "text": "string",
               "mapping": "mapping", "list": "list"}


def _is_kind(value: Any, kind: str | None) -> bool:
    if kind is None:
        return True
    if kind == "whole":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "text":
        return isinstance(value, str)
    if kind == "mapping":
        return isinstance(value, Mapping)
    if kind == "list":
        return isinstance(value, (list, tuple))
    raise ValueError(f"unknown kind {kind!r}")


@dataclass(frozen=True)
class Rule:
    """What a config value may be. ``low``/``high``: inclusive bounds, ``above``/``below``:
    exclusive ones; ``choices``: the names allowed (``noun`` names what they are in the
    message); ``optional``: None (``null``) is allowed too; ``test``: a further condition,
    ``says`` what it asks in words (for a ``"text"``, ``"mapping"`` or ``"list"``: what the
    value is, e.g. "a list of agent names")."""

    kind: str | None = None
    low: float | None = None
    high: float | None = None
    above: float | None = None
    below: float | None = None
    choices: tuple | None = None
    noun: str | None = None
    optional: bool = False
    test: Callable[[Any], bool] | None = None
    says: str = ""

    def bounds(self) -> str:
        """The bounds in words ("" when there are none)."""
        if self.low is not None and self.high is not None:
            return f"in [{self.low}, {self.high}]"
        if self.above is not None and self.below is not None:
            return f"in ({self.above}, {self.below})"
        if self.kind == "whole" and self.low == 1 and self.high is None \
                and self.above is None and self.below is None:
            return "positive"
        if self.kind != "whole" and self.above == 0 and self.below is None \
                and self.low is None and self.high is None:
            return "positive"
        parts = [f"{op} {v}" for op, v in ((">=", self.low), ("<=", self.high),
                                            (">", self.above), ("<", self.below))
                 if v is not None]
        return " and ".join(parts)

    def describe(self) -> str:
        """All that is allowed, in words."""
        if self.choices is not None:
            text = "one of " + ", ".join(str(c) for c in self.choices)
        else:
            bounds = self.bounds()
            if self.kind is None:
                text = bounds
            elif bounds == "positive":
                text = f"a positive {_KIND_NAMES[self.kind]}"
            else:
                text = f"a {_KIND_NAMES[self.kind]}" + (f" {bounds}" if bounds else "")
            if self.says:  # what a test asks; for a string, mapping or list, all it is
                text = f"{text}, {self.says}" if text and self.kind in (None, "whole", "number") \
                    else self.says
        if self.optional:
            text += " or null"
        return text

    def fault(self, value: Any) -> str | None:
        """None if ``value`` is allowed, else what it breaks, in words: all the rule if it is
        of the wrong kind, else only the bounds or the test it fails."""
        if value is None and self.optional:
            return None
        if value is None or not _is_kind(value, self.kind):
            return self.describe()
        if self.choices is not None:
            return None if any(_same(value, c) for c in self.choices) else self.describe()
        try:
            inside = ((self.low is None or value >= self.low)
                      and (self.high is None or value <= self.high)
                      and (self.above is None or value > self.above)
                      and (self.below is None or value < self.below))
        except TypeError:  # not comparable with numbers
            return self.describe()
        if not inside:
            return self.bounds()
        if self.test is not None:
            try:
                passed = bool(self.test(value))
            except (TypeError, ValueError, OverflowError):
                passed = False
            if not passed:
                return self.says or self.describe()
        return None


def _same(value: Any, choice: Any) -> bool:
    """``value`` is ``choice`` (True is not 1, 1.0 is not 1 where the choices are names)."""
    return value is choice or (type(value) is type(choice) and value == choice)


def whole(low: int | None = None, high: int | None = None, **kw: Any) -> Rule:
    """An ``int`` (not a bool) in ``[low, high]``; ``whole(1)`` is a positive one."""
    return Rule("whole", low, high, **kw)


def number(low: float | None = None, high: float | None = None, **kw: Any) -> Rule:
    """An ``int`` or ``float`` (not a bool) in ``[low, high]``; ``above=``/``below=``
    exclusive bounds (``number(above=0)`` is a positive one)."""
    return Rule("number", low, high, **kw)


def one_of(*choices: Any, noun: str | None = None, says: str = "", **kw: Any) -> Rule:
    """One of ``choices``; the message names it ``noun`` (default: the key's last part)."""
    return Rule(choices=tuple(choices), noun=noun, says=says, **kw)


def setting(default: Any = MISSING, rule: Rule | None = None, *,
            default_factory: Any = MISSING) -> Any:
    """A dataclass field checked by ``rule`` (``validate``); otherwise a plain ``field``."""
    return dataclasses.field(default=default, default_factory=default_factory,
                             metadata={"check": rule} if rule is not None else {})


def check(key: str, value: Any, rule: Rule, error: type[ConfigError] = ConfigError) -> Any:
    """``value`` if ``rule`` allows it; else ``error`` naming ``key``, the value and what
    is allowed."""
    fault = rule.fault(value)
    if fault is None:
        return value
    if rule.choices is not None and value is not None:
        raise error.unknown(key, value, rule.choices, noun=rule.noun, note=rule.says)
    raise error(f"{key} must be {fault}, got {value!r}", key=key, value=value,
                allowed=rule.describe())


def validate(obj: Any, prefix: str = "", error: type[ConfigError] = ConfigError) -> None:
    """Check every field of the dataclass ``obj`` that has a rule (``setting``); keys are
    ``prefix + name`` (``prefix`` like ``"algorithm."``)."""
    for f in dataclasses.fields(obj):
        rule = f.metadata.get("check")
        if rule is not None:
            check(prefix + f.name, getattr(obj, f.name), rule, error)


def check_keys(given: Mapping, allowed: Iterable[str], prefix: str = "", what: str = "key",
               error: type[ConfigError] = ConfigError) -> None:
    """Refuse the keys of ``given`` that are not ``allowed``, naming them (dotted) and those
    allowed."""
    allowed = list(allowed)
    unknown = sorted(str(k) for k in given if k not in allowed)
    if unknown:
        raise error.unknown_key([prefix + k for k in unknown], sorted(allowed), what)


def build(cls: type, values: Any, prefix: str = "", *, what: str = "key",
          error: type[ConfigError] = ConfigError, **fixed: Any) -> Any:
    """``cls(**values, **fixed)`` once ``values`` is known to be a mapping of ``cls``'s keys
    with none of its required keys missing (``fixed``: keys the caller sets itself)."""
    where = prefix.rstrip(".")
    if not isinstance(values, Mapping):
        raise error(key=where or "config", value=values,
                    allowed=f"a mapping of {', '.join(f.name for f in dataclasses.fields(cls))}")
    names = [f.name for f in dataclasses.fields(cls) if f.init and f.name not in fixed]
    check_keys(values, names, prefix, what, error)
    for f in dataclasses.fields(cls):
        if (f.init and f.name not in values and f.name not in fixed
                and f.default is MISSING and f.default_factory is MISSING):
            raise error(f"{prefix}{f.name} must be given", key=prefix + f.name)
    return cls(**values, **fixed)


RULES = Rule("mapping", says="a mapping of rules.md options (e.g. {nello: false})", optional=True)


def _option_text(spec: Any) -> str:
    if spec.int_range is not None:
        return f"an integer {spec.int_range[0]}..{spec.int_range[1]}"
    return "one of " + ", ".join(repr(c) for c in spec.choices)


def check_rules(options: Any, ruleset: str = "standard", *, key: str = "rules",
                error: type[ConfigError] = ConfigError) -> RulesConfig:
    """The ``RulesConfig`` of ``ruleset`` with ``options`` (the ``rules`` mapping of a config),
    its faults named ``rules.OPTION`` (``rules.target must be an integer 1..100000, got 0``)."""
    check(key, options, RULES, error)
    for name, value in (options or {}).items():
        spec = OPTION_SPECS.get(name)
        if spec is None:
            continue  # an unknown option: RulesConfig names it and those allowed
        try:
            spec.check(value)
        except ConfigError:
            raise error(key=f"{key}.{name}", value=value, allowed=_option_text(spec)) from None
    try:
        return RulesConfig.from_options(ruleset, options)
    except ConfigError as e:
        raise error.at(key, e, value=options) from None


__all__ = ["RULES", "ConfigError", "Rule", "build", "check", "check_keys", "check_rules",
           "number", "one_of", "setting", "validate", "whole"]
