"""Bad config values are refused one way: a ``ConfigError`` naming the key, the value and what
is allowed, and in the scripts one line on stderr, a non-zero exit and no traceback, before
anything is trained, played or written."""

import pickle
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agents.arena.tournament import TournamentConfig, TournamentError
from agents.bidding.dataset import DataConfig, DatasetError
from agents.nets.policy import ModelConfig
from agents.training.ppo_run import EvalConfig, TrainConfig, WarmStartConfig
from agents.training.bidnet_training import FinetuneConfig, TrainBidConfig
from agents.training.ppo import OpponentsConfig, PPOConfig
from agents.hydra_apps import _opened
from texas42_env.config import Rule, check, check_rules, number, one_of, whole
from texas42_env.rules import ConfigError, RulesConfig

ROOT = Path(__file__).resolve().parents[1]
TWO = {"random": {"name": "random"}, "passive": {"name": "passive"}}


# ---------------------------------------------------------------------- the error and the checker
def test_a_config_error_carries_the_key_the_value_and_what_is_allowed():
    e = ConfigError(key="algorithm.tables", value=0, allowed="positive")
    assert str(e) == "algorithm.tables must be positive, got 0"
    assert (e.key, e.value, e.allowed) == ("algorithm.tables", 0, "positive")
    assert isinstance(e, ValueError)
    e = ConfigError.unknown("mode", "sets", ["hands", "games"])
    assert str(e) == "mode: unknown mode 'sets'; allowed: hands, games"
    assert e.allowed == ("hands", "games")
    e = ConfigError.unknown_key("algorithm.tablez", ["lr", "tables"])
    assert str(e) == "unknown key 'algorithm.tablez'; allowed: lr, tables"
    e = ConfigError.at("agents.x", ValueError("x.pt: no checkpoint there"), value="neural")
    assert str(e) == "agents.x: x.pt: no checkpoint there" and e.value == "neural"
    again = pickle.loads(pickle.dumps(TournamentError(key="deals", value=0, allowed="positive")))
    assert type(again) is TournamentError and again.key == "deals" and "deals" in str(again)


def test_the_rules_options_keep_their_messages():
    with pytest.raises(ConfigError) as e:
        RulesConfig.make(target=0)
    assert str(e.value) == "option 'target': bad value 0; allowed: an integer 1..100000"
    assert e.value.key is None
    with pytest.raises(ConfigError) as e:
        check_rules({"target": 0})
    assert str(e.value) == "rules.target must be an integer 1..100000, got 0"
    with pytest.raises(ConfigError, match="rules: unknown option 'trumps'"):
        check_rules({"trumps": 5})
    assert check_rules({"nello": False}) == RulesConfig.make(nello=False)


def test_the_checker_says_what_failed():
    assert whole(1).fault(3) is None and whole(1).fault(0) == "positive"
    assert whole(1).fault("abc") == whole(1).fault(True) == "a positive whole number"
    assert whole(1).fault(2.0) == "a positive whole number"
    assert number(above=0).fault(0) == "positive" and number(above=0).fault(1) is None
    assert number(0, 1).fault(1.5) == "in [0, 1]"
    assert number(0, 1).describe() == "a number in [0, 1]"
    assert number(above=0, below=1).fault(1) == "in (0, 1)"
    assert whole(0).fault(-1) == ">= 0" and whole(1, optional=True).fault(None) is None
    four = whole(1, test=lambda v: v % 4 == 0, says="a multiple of 4")
    assert four.fault(6) == "a multiple of 4"
    assert four.describe() == "a positive whole number, a multiple of 4"
    assert Rule(test=lambda v: int(v) > 0, says="a count").fault("x") == "a count"  # raised
    assert one_of("a", "b").fault("a") is None and one_of(1, 2).fault(True) is not None
    assert Rule("list", says="a list of names").describe() == "a list of names"
    with pytest.raises(ConfigError, match=r"^x: unknown x 'c'; allowed: a, b$"):
        check("x", "c", one_of("a", "b"))


@pytest.mark.parametrize("make, key, value", [
    (lambda: PPOConfig(tables="abc"), "algorithm.tables", "abc"),
    (lambda: PPOConfig(lr="fast"), "algorithm.lr", "fast"),
    (lambda: PPOConfig(reward="game"), "algorithm.reward", "game"),
    (lambda: PPOConfig(target_kl="x"), "algorithm.target_kl", "x"),
    (lambda: PPOConfig(staleness=2), "algorithm.staleness", 2),
    (lambda: OpponentsConfig(pool=-1), "opponents.pool", -1),
    (lambda: OpponentsConfig(snapshot_every=0), "opponents.snapshot_every", 0),
    (lambda: ModelConfig(hidden="abc"), "model.hidden", "abc"),
    (lambda: ModelConfig(critic="oracle"), "model.critic", "oracle"),
    (lambda: EvalConfig(pairs=0), "eval.pairs", 0),
    (lambda: EvalConfig(against="random"), "eval.against", "random"),
    (lambda: WarmStartConfig(epochs=0), "warm_start.epochs", 0),
    (lambda: TrainConfig(seed=-1), "seed", -1),
    (lambda: TrainConfig(threads="two"), "threads", "two"),
    (lambda: TrainConfig(precision="half"), "precision", "half"),
    (lambda: TrainConfig(rules=[1]), "rules", [1]),
    (lambda: TrainConfig.from_dict({"nope": 1}), "nope", None),
    (lambda: TrainConfig.from_dict({"algorithm": {"tablez": 1}}).parts(), "algorithm.tablez", None),
    (lambda: TrainConfig.from_dict({"rules": {"target": 0}}).parts(), "rules.target", 0),
    (lambda: TrainConfig.from_dict({"eval": {"against": ["nobody"]}}).parts(), "eval.against",
     "nobody"),
    (lambda: TournamentConfig(agents=TWO, deals="abc").check(), "deals", "abc"),
    (lambda: TournamentConfig(agents=TWO, n_boot=0).check(), "n_boot", 0),
    (lambda: TournamentConfig(agents={**TWO, "x": "nosuchagent"}).check(), "agents.x",
     "nosuchagent"),
    (lambda: TournamentConfig(agents=TWO, rules={"target": 0}).check(), "rules.target", 0),
    (lambda: TournamentConfig.from_dict({"agents": TWO, "nope": 1}), "nope", None),
    (lambda: DataConfig(chunk=6, hands=12), "chunk", 6),
    (lambda: DataConfig(worlds="abc"), "worlds", "abc"),
    (lambda: DataConfig(hands=12, chunk=8), "hands", 12),
    (lambda: TrainBidConfig(val_share=1.5), "val_share", 1.5),
    (lambda: TrainBidConfig(max_hands=0), "max_hands", 0),
    (lambda: TrainBidConfig(device="gpu"), "device", "gpu"),
    (lambda: FinetuneConfig(explore=2), "finetune.explore", 2),
    (lambda: FinetuneConfig(device="cuda:x"), "finetune.device", "cuda:x"),
    (lambda: FinetuneConfig(opponents="random"), "finetune.opponents", "random"),
])
def test_every_config_class_names_the_key_the_value_and_what_is_allowed(make, key, value):
    with pytest.raises(ConfigError) as e:
        make()
    err = e.value
    assert err.key == key and key in str(err)
    if value is not None:
        assert err.value == value and repr(value) in str(err)
    assert err.allowed and "\n" not in str(err)


def test_the_errors_of_a_family_stay_what_they_were():
    with pytest.raises(TournamentError):
        TournamentConfig(agents={"random": "random"}).check()
    with pytest.raises(DatasetError):  # a DatasetError still, and a ConfigError
        DataConfig(evaluate="guess")


def test_valid_values_are_taken_as_before():
    for cls in (PPOConfig, OpponentsConfig, ModelConfig, EvalConfig, WarmStartConfig,
                TrainConfig, DataConfig, TrainBidConfig, FinetuneConfig):
        cls()
    assert PPOConfig(gamma=0, gae_lambda=1, lr=1, target_kl=0.02).lr == 1
    assert OpponentsConfig(pool=[0.5, 0], heuristic=0, random=1).pool == [0.5, 0]
    assert DataConfig(contracts=("6", 7.0)).contracts == [6, 7]  # converted, as before
    assert TrainBidConfig(max_hands=None).max_hands is None
    assert FinetuneConfig(anchor=0, explore=0).anchor == 0
    assert TrainConfig(rules=None).parts()[0] == RulesConfig.make()
    assert TournamentConfig(agents=TWO, rules={"nello": False}).check() is None


def test_open_mappings_are_updated_with_keys_of_their_own():
    assert _opened("rules={target: 0}", ["rules"]) == ["~rules", "+rules={target: 0}"]
    assert _opened("rules.nello=false", ["rules"]) == ["++rules.nello=false"]
    for same in ("rules={}", "+rules.nello=false", "rulesx=1", "hydra.run.dir=x", "long",
                 "--config-name=long"):
        assert _opened(same, ["rules"]) == [same]


# ---------------------------------------------------------------------- the scripts
# (script, overrides, what the one line holds: the key, the value, what is allowed)
CASES = {
    "train-tables": ("train.py", ["algorithm.tables=abc"],
                     ["algorithm.tables", "'abc'", "a positive whole number"]),
    "train-lr": ("train.py", ["algorithm.lr=fast"],
                 ["algorithm.lr", "'fast'", "a positive number"]),
    "train-seed": ("train.py", ["seed=-1"], ["seed", "-1", ">= 0"]),
    "train-hidden": ("train.py", ["model.hidden=abc"],
                     ["model.hidden", "'abc'", "a positive whole number"]),
    "train-unknown": ("train.py", ["nope=1"],
                      ["unknown key 'nope'", "allowed: actors, algorithm, backend, checkpoint_every, device"]),
    "train-added": ("train.py", ["+nope=1"], ["'nope'", "allowed: actors, algorithm, backend, checkpoint_every, device"]),
    "train-group": ("train.py", ["model=huge"], ["model", "'huge'", "allowed: large, small"]),
    "train-rules": ("train.py", ["rules={target: 0}"],
                    ["rules.target", "0", "an integer 1..100000"]),
    "train-long": ("train.py", ["--config-name", "long", "algorithm.epochs=0"],
                   ["algorithm.epochs", "0", "positive"]),
    "train-ppo_bidder": ("train.py", ["--config-name", "ppo_bidder", "warm_start.agent=bidnot"],
                     ["warm_start.agent", "'bidnot'", "allowed: "]),
    "tournament-deals": ("tournament.py", ["deals=abc"],
                         ["deals", "'abc'", "a positive whole number"]),
    "tournament-chunk": ("tournament.py", ["chunk=0"], ["chunk", "0", "positive"]),
    "tournament-n_boot": ("tournament.py", ["n_boot=0"], ["n_boot", "0", "positive"]),
    "tournament-agent": ("tournament.py", ["+agents.x=nosuchagent"],
                         ["agents.x", "'nosuchagent'", "registered: "]),
    "tournament-options": ("tournament.py", ["+agents.x={name: heuristic, foo: 1}"],
                           ["agents.x", "'foo'", "its options: seed"]),
    "tournament-checkpoint": ("tournament.py",
                              ["+agents.x={name: neural, path: /no/such/file.pt}"],
                              ["agents.x", "/no/such/file.pt: no such file or folder"]),
    "tournament-rules": ("tournament.py", ["rules={target: 0}"],
                         ["rules.target", "0", "an integer 1..100000"]),
    "tournament-unknown": ("tournament.py", ["nope=1"],
                           ["unknown key 'nope'", "allowed: agents, anchor"]),
    "tournament-mode": ("tournament.py", ["mode=sets"],
                        ["mode", "'sets'", "allowed: hands, games"]),
    "bid_data-worlds": ("bid_data.py", ["worlds=abc"],
                        ["worlds", "'abc'", "a positive whole number"]),
    "bid_data-chunk": ("bid_data.py", ["chunk=6", "hands=12"], ["chunk", "6", "a multiple of 4"]),
    "bid_data-unknown": ("bid_data.py", ["nope=1"], ["unknown key 'nope'", "allowed: backend, chunk"]),
    "train_bidnet-epochs": ("train_bidnet.py", ["epochs=abc"],
                            ["epochs", "'abc'", "a positive whole number"]),
    "train_bidnet-val_share": ("train_bidnet.py", ["val_share=1.5"],
                               ["val_share", "1.5", "in (0, 1)"]),
    "train_bidnet-finetune": ("train_bidnet.py", ["finetune.opponents=random"],
                              ["finetune.opponents", "'random'", "allowed: self, heuristic"]),
}


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    """Every case run as a new user would, a few at a time: {case: (process, run folder)}."""
    root = tmp_path_factory.mktemp("refused")

    def run(name):
        script, overrides, _ = CASES[name]
        run_dir = root / name
        extra = [f"out={run_dir / 'data'}"] if script == "bid_data.py" else []
        p = subprocess.run([sys.executable, str(ROOT / "scripts" / script), *overrides, *extra,
                            "progress=false", f"hydra.run.dir={run_dir}"], cwd=root,
                           capture_output=True, text=True, timeout=120)
        return name, (p, run_dir)

    with ThreadPoolExecutor(4) as pool:
        return dict(pool.map(run, CASES))


@pytest.mark.parametrize("case", list(CASES))
def test_a_script_refuses_a_bad_config_in_one_line(refused, case):
    script, _, named = CASES[case]
    p, run_dir = refused[case]
    assert p.returncode != 0
    assert "Traceback" not in p.stderr + p.stdout
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    prog = script[:-3]
    assert lines[0].startswith(f"{prog}: "), lines[0]
    for part in named:
        assert part in lines[0], (part, lines[0])
    made = {"checkpoints", "results.jsonl", "bidnet.pt", "metrics.json", "config.json", "tb"}
    assert not made & {x.name for x in run_dir.rglob("*")}, sorted(run_dir.rglob("*"))


def test_open_mappings_take_new_keys_from_the_command_line(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "tournament.py"),
                        "rules={nello: false}", "agents.y=random", "deals=2", "n_boot=5",
                        "workers=1", "records=false", "progress=false",
                        f"hydra.run.dir={tmp_path}"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    report = (tmp_path / "report.md").read_text()
    assert "'nello': False" in report and "| y |" in report


@pytest.mark.parametrize("script", ["train.py", "tournament.py"])
def test_a_run_folder_that_cannot_be_made_is_one_line(tmp_path, script):
    (tmp_path / "README.md").write_text("a file, not a folder\n")
    for run_dir, why in (("README.md", "File exists"), ("README.md/x", "Not a directory")):
        p = subprocess.run([sys.executable, str(ROOT / "scripts" / script), "progress=false",
                            f"hydra.run.dir={run_dir}"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 1
        assert p.stderr.strip() == (f"{script[:-3]}: the run folder (hydra.run.dir) cannot be "
                                    f"made or written: {run_dir}: {why}"), p.stderr
    assert (tmp_path / "README.md").read_text() == "a file, not a folder\n"
