"""Duplicate matches and tournaments: fair seating, resumable runs, outputs that check out."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.arena.duplicate import pair_scores, play_duplicate, summarize
from agents.arena.tournament import (TournamentConfig, TournamentError, read_results,
                                     run_tournament, team)
from texas42_env.records import parse_record, replay
from texas42_env.rules import RulesConfig

from helpers import ROOT

RULES = RulesConfig.make()


def test_both_orientations_play_the_same_deals_with_seats_swapped():
    recs = []
    play_duplicate(RULES, "random", "passive", deals=20, seed=3, on_records=recs.extend)
    assert len(recs) == 40
    by_deal = {}
    for r in recs:
        by_deal.setdefault(r["game"], []).append(r)
    for game, (r0, r1) in sorted(by_deal.items()):
        assert r0["hands"] == r1["hands"] and r0["dealer"] == r1["dealer"]
        assert {r0["orientation"], r1["orientation"]} == {0, 1}
        o0 = r0 if r0["orientation"] == 0 else r1
        o1 = r1 if o0 is r0 else r0
        assert o0["agents"][0::2] == [n for n in o1["agents"][1::2]]  # A moved to seats 1, 3
        assert o0["agents"][0] != o0["agents"][1]


def test_chosen_deal_numbers_play_as_those_deals_do_in_a_range():
    whole = play_duplicate(RULES, "heuristic", "random", deals=12, seed=5, chunk=5)
    picked = play_duplicate(RULES, "heuristic", "random", deals=[9, 2, 7], seed=5, chunk=2)
    for field in whole.FIELDS:
        assert getattr(picked, field).tolist() == getattr(whole, field)[[9, 2, 7]].tolist()
    recs = []
    play_duplicate(RULES, "random", "passive", deals=[4], seed=5, on_records=recs.extend)
    assert [r["game"] for r in recs] == [4, 4]
    for bad in ([-1], [], [1.5], True):
        with pytest.raises(ValueError, match="deal numbers"):
            play_duplicate(RULES, "random", "passive", deals=bad, seed=5)


def test_a_side_against_itself_is_even_and_marks_cancel():
    stats = play_duplicate(RULES, "random", "random", deals=400, seed=1)
    s = summarize(stats, n_boot=200)
    est, lo, hi = s["marks_per_hand"]
    assert lo <= 0 <= hi
    assert stats.hands.sum() == 800


def test_passive_beats_random_with_a_ci_above_zero():
    stats = play_duplicate(RULES, "passive", "random", deals=300, seed=2)
    est, lo, hi = summarize(stats, n_boot=200)["marks_per_hand"]
    assert lo > 0.5
    assert pair_scores(stats).mean() > 0.8


def test_games_mode_counts_game_wins():
    stats = play_duplicate(RULES, "passive", "random", deals=30, mode="games", seed=4)
    assert stats.a_wins.max() <= 2 and stats.a_wins.sum() > 40
    assert (stats.hands >= 2).all()
    s = summarize(stats, "games", n_boot=100)
    assert 0.6 < s["a_win_rate"][0] <= 1


def test_an_illegal_action_names_the_agent():
    class Bad(type(make_agent("random"))):
        def act(self, obs, masks, context=None):
            return np.argmin(masks, axis=1)  # an illegal action where one exists

    bad = Bad()
    bad.name = "bad"
    with pytest.raises(ValueError, match="agent 'bad'"):
        play_duplicate(RULES, bad, "random", deals=2)


def _cfg(**kw):
    base = dict(agents={"random": {"name": "random"}, "passive": {"name": "passive"},
                        "mixed": {"partners": ["random", "passive"]}},
                deals=40, workers=1, n_boot=50, progress=False)
    base.update(kw)
    return TournamentConfig(**base)


def test_tournament_writes_ratings_report_plot_and_replayable_records(tmp_path):
    out = run_tournament(_cfg(), tmp_path)
    assert set(out["ratings"]) == {"random", "passive", "mixed"}
    assert out["ratings"]["random"][0] == 0
    assert out["ratings"]["passive"][0] > out["ratings"]["random"][0]
    for name in ("results.jsonl", "ratings.csv", "report.md", "ratings.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert "Head to head" in (tmp_path / "report.md").read_text()
    rows = read_results(tmp_path / "results.jsonl")
    assert len(rows) == 3
    for row in rows:
        lines = (tmp_path / row["records"]).read_text().splitlines()
        assert len(lines) == 80
        for line in lines[:10]:
            result = replay(parse_record(json.loads(line)))
            assert result["ok"] and result["complete"]


def test_a_rerun_skips_finished_matches_and_a_torn_last_line_is_replayed(tmp_path, capsys):
    run_tournament(_cfg(), tmp_path)
    results = tmp_path / "results.jsonl"
    lines = results.read_text().splitlines()
    before = {json.loads(l)["key"]["b"] + json.loads(l)["key"]["a"] for l in lines}
    # an interrupted write leaves half a line: it is reported and its match played again
    results.write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])
    run_tournament(_cfg(), tmp_path)
    assert "line 3 is incomplete" in capsys.readouterr().err
    rows = read_results(results)
    assert {r["key"]["b"] + r["key"]["a"] for r in rows} == before
    again = results.read_text()
    run_tournament(_cfg(), tmp_path)  # nothing left to play: the file is untouched
    assert results.read_text() == again


def test_a_corrupt_line_before_the_last_is_an_error_not_a_silent_drop(tmp_path):
    run_tournament(_cfg(), tmp_path)
    results = tmp_path / "results.jsonl"
    lines = results.read_text().splitlines()
    lines[0] = "{oops"
    results.write_text("\n".join(lines) + "\n")
    with pytest.raises(TournamentError, match="line 1"):
        run_tournament(_cfg(), tmp_path)


def test_parallel_workers_give_the_same_results(tmp_path):
    one = run_tournament(_cfg(workers=1), tmp_path / "one")
    two = run_tournament(_cfg(workers=2), tmp_path / "two")
    assert one["ratings"] == two["ratings"]


@pytest.mark.parametrize("bad,match", [
    ({"mode": "sets"}, "mode"), ({"format": "swiss"}, "format"),
    ({"agents": {"random": {"name": "random"}}}, "at least two"),
    ({"agents": {"a": {"name": "nope"}, "b": {"name": "random"}}}, "unknown agent 'nope'"),
    ({"format": "gauntlet", "gauntlet": "zzz"}, "gauntlet"),
    ({"rules": {"trumps": 5}}, "trumps"),
])
def test_bad_configs_name_the_problem(tmp_path, bad, match):
    with pytest.raises(ValueError, match=match):
        run_tournament(_cfg(**bad), tmp_path)


def test_the_hydra_app_runs_and_resumes(tmp_path):
    cmd = [sys.executable, str(ROOT / "scripts" / "tournament.py"), "deals=30", "n_boot=20",
           "progress=false", "workers=1", f"hydra.run.dir={tmp_path}"]
    first = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    assert "ratings (Elo" in first.stdout and (tmp_path / "report.md").exists()
    n = len((tmp_path / "results.jsonl").read_text().splitlines())
    second = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert second.returncode == 0
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == n
    bad = subprocess.run(cmd[:2] + ["mode=sets", f"hydra.run.dir={tmp_path / 'b'}"],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode != 0 and "mode" in bad.stderr


def test_the_default_lineup_plays_either_game_and_a_lineup_given_needs_no_anchor(tmp_path):
    """The config's defaults fit the ruleset (its mixed team is three partners in six-player)
    and the agents given (the anchor, auto, is random where it plays, else the first listed)."""
    assert team("standard", "heuristic", "random") == ["heuristic", "random"]
    assert team("six-player", "heuristic", "random") == ["heuristic", "random", "random"]
    base = [sys.executable, str(ROOT / "scripts" / "tournament.py"), "deals=2", "n_boot=5",
            "progress=false", "workers=1", "records=false"]
    six = subprocess.run(base + ["ruleset=six-player", f"hydra.run.dir={tmp_path / 'six'}"],
                         capture_output=True, text=True, cwd=ROOT)
    assert six.returncode == 0, six.stderr
    assert "ratings (Elo, random = 0" in six.stdout
    names = {json.loads(x)["key"]["b"] for x in (tmp_path / "six" / "results.jsonl").open()}
    assert "mixed" in names
    given = subprocess.run(base + ["agents={heuristic: {name: heuristic}, passive: {name: "
                                   "passive}}", f"hydra.run.dir={tmp_path / 'given'}"],
                           capture_output=True, text=True, cwd=ROOT)
    assert given.returncode == 0, given.stderr
    assert "ratings (Elo, heuristic = 0" in given.stdout
    for agents, zero in (({"b": "passive", "random": "random"}, "random"),
                         ({"b": "passive", "a": "heuristic"}, "b")):
        cfg = TournamentConfig(agents=agents)
        cfg.check()  # resolves auto
        assert cfg.anchor == zero


def _interrupt_once(cmd, ready, timeout=120):
    """Start ``cmd`` in a process group of its own, send Ctrl-C (SIGINT) to the whole group
    once ``ready()`` holds, and return (exit status, stderr) once it ends; every process of
    the group (the driver and its workers) must be gone by then."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    t0 = time.monotonic()
    while not ready() and proc.poll() is None and time.monotonic() - t0 < timeout:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()[1]
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 15:  # no worker left playing (the group is gone)
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return proc.returncode, err
        time.sleep(0.2)
    raise AssertionError(f"processes of the interrupted run still alive; stderr: {err}")


def test_ctrl_c_stops_the_workers_keeps_the_blocks_and_a_rerun_goes_on(tmp_path):
    run = tmp_path / "run"
    cmd = [sys.executable, str(ROOT / "scripts" / "tournament.py"), "deals=400", "block=10",
           "workers=2", "progress=false", "records=false", f"hydra.run.dir={run}",
           "agents={heuristic: {name: heuristic}, pimc: {name: pimc, n_worlds: 2}}"]
    blocks = run / "blocks.jsonl"

    def kept() -> int:
        return len(blocks.read_text().splitlines()) if blocks.exists() else 0

    code, err = _interrupt_once(cmd, lambda: kept() >= 1)
    assert code == 130, err
    n = kept()
    assert 1 <= n < 40
    assert err.strip().splitlines()[-1] == (
        f"tournament: stopped (Ctrl-C): 0 finished matches in {run / 'results.jsonl'} and "
        f"{n} finished blocks of unfinished ones in blocks.jsonl; the blocks in progress are "
        "lost; run the same command to resume")

    def resumed() -> bool:  # the rerun has said what it keeps and played a block more
        return kept() > n

    code, err = _interrupt_once(cmd, resumed)
    assert code == 130, err
    assert f"tournament: resuming {run}: kept {n} finished blocks of 1 unfinished matches " \
        f"(blocks.jsonl); {40 - n} blocks to play" in err


def test_an_anchor_that_is_not_an_agent_is_refused_before_any_match(tmp_path):
    with pytest.raises(TournamentError, match="anchor must be the agent rated 0: one of random, "
                                              "passive, mixed, auto.*got 'bogus'"):
        run_tournament(_cfg(anchor="bogus"), tmp_path)
    assert not (tmp_path / "results.jsonl").exists()
    out = run_tournament(_cfg(anchor=None, deals=8), tmp_path)  # null: centred on the mean
    assert abs(sum(r for r, _, _ in out["ratings"].values())) < 1e-6
    assert "centred on the mean" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize("change, says", [
    (lambda row: row["stats"].pop("a_marks"), "field 'stats.a_marks': a list of whole numbers"),
    (lambda row: row["stats"]["hands"].append(1), "field 'stats.hands': 9 values for 8 deal"),
    (lambda row: row.update(key="x"), "field 'key': a mapping naming the agents"),
])
def test_a_results_line_with_a_bad_field_is_named_with_its_line(tmp_path, change, says):
    run_tournament(_cfg(deals=8), tmp_path)
    path = tmp_path / "results.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    change(rows[0])
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(TournamentError, match=f"line 1 is not a match result \\({says}"):
        read_results(path)


def test_a_rerun_says_which_matches_it_keeps(tmp_path, capsys):
    run_tournament(_cfg(deals=8), tmp_path)
    capsys.readouterr()
    run_tournament(_cfg(deals=8, agents={"random": {"name": "random"},
                                         "passive": {"name": "passive"},
                                         "heuristic": {"name": "heuristic"}}), tmp_path)
    assert "1 of 3 matches already played" in capsys.readouterr().err


def test_an_agent_read_from_a_link_is_keyed_by_the_file_it_points_to(tmp_path, monkeypatch):
    from agents.arena.tournament import match_key

    nets = ROOT / "experiments" / "bidding" / "nets"
    link = tmp_path / "latest.pt"
    link.symlink_to(nets / "supervised.pt")
    cfg = _cfg(agents={"learned": {"name": "bidnet", "path": str(link)},
                       "random": {"name": "random"}})
    first = match_key(cfg, "learned", "random")
    # relative to the working folder where the file lies under it: no machine's folders
    assert first["a_files"] == [os.path.relpath((nets / "supervised.pt").resolve(),
                                                os.path.realpath(os.getcwd()))]
    assert "b_files" not in first  # an agent with no file keeps the key it had
    outside = tmp_path / "elsewhere.pt"
    outside.write_bytes((nets / "supervised.pt").read_bytes())
    other = _cfg(agents={"learned": {"name": "bidnet", "path": str(outside)},
                         "random": {"name": "random"}})
    monkeypatch.chdir(ROOT)
    assert match_key(cfg, "learned", "random")["a_files"] == [
        "experiments/bidding/nets/supervised.pt"]
    assert match_key(other, "learned", "random")["a_files"] == [str(outside.resolve())]
    link.unlink()
    link.symlink_to(nets / "finetuned-self-play.pt")
    assert match_key(cfg, "learned", "random") != first


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_tournament_leaves_no_workers_running(tmp_path):
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "tournament.py"), "deals=100000", "workers=2",
         "records=false", "progress=false", f"hydra.run.dir={tmp_path}"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: list[int] = []
        for _ in range(120):  # the pool starts once the config is checked
            time.sleep(0.5)
            workers = [c for c in _children(proc.pid) if _alive(c)]
            if len(workers) >= 2:
                break
        assert len(workers) >= 2, "the tournament's workers never started"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for _ in range(20):
            if not any(_alive(w) for w in workers):
                break
            time.sleep(0.5)
        assert not any(_alive(w) for w in workers)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_whole_agents_mapping_replaces_the_configs_and_one_entry_adds_to_it(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "tournament.py"),
         "agents={a: {name: random}, b: {name: passive}}", "agents.c={name: passive, seed: 1}",
         "anchor=a", "deals=3", "workers=1", "progress=false", "records=false",
         "rules={nello: false}", "rules.target=3", f"hydra.run.dir={tmp_path}"],
        capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    names = {r.split(",")[0] for r in (tmp_path / "ratings.csv").read_text().splitlines()[1:]}
    assert names == {"a", "b", "c"}
    assert "rules {'nello': False, 'target': 3}" in (tmp_path / "report.md").read_text()


def _run_files(run: Path) -> dict:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*"))
            if p.is_file() and p.suffix != ".png"}


def _blocked(**over) -> TournamentConfig:
    base = dict(agents={"random": {"name": "random", "seed": 0}, "passive": "passive",
                        "heuristic": "heuristic"}, deals=24, block=8, seed=3, workers=1,
                progress=False, n_boot=50)
    return TournamentConfig.from_dict({**base, **over})


def test_a_run_killed_before_a_match_row_resumes_from_its_blocks(tmp_path, monkeypatch):
    """Killed after every block of the first match was kept but before its results row:
    the rerun plays no block again and writes what an unbroken run writes."""
    import agents.arena.tournament as t

    run_tournament(_blocked(), tmp_path / "whole")
    real = t.append_line

    def killed(path, row):
        if "match" not in row["key"]:  # a match's results row: the kill
            raise KeyboardInterrupt
        real(path, row)

    monkeypatch.setattr(t, "append_line", killed)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(_blocked(), tmp_path / "broken")
    monkeypatch.setattr(t, "append_line", real)
    assert len((tmp_path / "broken" / "blocks.jsonl").read_text().splitlines()) == 3
    run_tournament(_blocked(), tmp_path / "broken")
    assert _run_files(tmp_path / "broken") == _run_files(tmp_path / "whole")
    assert len((tmp_path / "broken" / "blocks.jsonl").read_text().splitlines()) == 9


def test_blocks_of_another_size_or_without_their_records_are_played_again(tmp_path):
    run = tmp_path / "run"
    run_tournament(_blocked(agents={"random": "random", "passive": "passive"}), run)
    (run / "results.jsonl").unlink()  # as if killed before the match row
    run_tournament(_blocked(agents={"random": "random", "passive": "passive"}, block=12), run)
    rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 1 and len(rows[0]["stats"]["hands"]) == 24
    whole = tmp_path / "whole"
    run_tournament(_blocked(agents={"random": "random", "passive": "passive"}, block=12), whole)
    assert (run / "results.jsonl").read_bytes() == (whole / "results.jsonl").read_bytes()
