"""texas42 replay never crashes: odd input is a result or exit 2 naming line and field."""

import json

from agents.cli import main
from texas42_env.records import parse_record, replay

from helpers import record


def test_actions_are_judged_by_the_field_they_come_from():
    moved = replay(parse_record(record(plays=["30", "pass", "pass", "pass", "6s", "6-6"])))
    assert moved["ok"] is False
    assert {k: moved["error"][k] for k in ("index", "phase", "seat", "action")} == \
        {"index": 0, "phase": "bid", "seat": 0, "action": "30"}
    bid_as_contract = replay(parse_record(record(bids=["pass", "pass", "pass"], contract="30")))
    assert bid_as_contract["ok"] is False and bid_as_contract["error"]["index"] == 3
    contract_as_bid = replay(parse_record(record(bids=["30", "pass", "pass", "pass", "6s"])))
    assert contract_as_bid["ok"] is False and contract_as_bid["error"]["index"] == 4
    assert contract_as_bid["error"]["phase"] == "declare"


def test_replay_survives_huge_numbers_bad_utf8_and_a_closed_pipe(tmp_path, capsys):
    good = json.dumps(record())
    path = tmp_path / "odd.jsonl"
    path.write_bytes((good[:-1] + ', "seed": ' + "9" * 5000 + "}\n").encode()
                     + b'{"dealer": "\xff"}\n')
    assert main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1 and json.loads(out)["ok"]
    assert "line 2" in err and "UTF-8" in err


def test_a_huge_dealer_is_a_field_error(tmp_path, capsys):
    path = tmp_path / "dealer.jsonl"
    path.write_text(json.dumps(record())[:-1].replace('"dealer": 3', '"dealer": ' + "7" * 5000)
                    + "}\n")
    assert main(["replay", str(path)]) == 2
    assert "field 'dealer'" in capsys.readouterr().err


def test_legal_mask_is_read_only():
    import numpy as np
    import pytest

    from texas42_env.core import Game

    game = Game()
    st = game.reset(1, seed=0)
    mask = game.legal_mask(st)
    with pytest.raises(ValueError):
        mask[0, 40] = True
    assert not np.asarray(st.legal)[0, 40]
