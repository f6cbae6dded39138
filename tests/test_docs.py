"""The docs match the code."""

from pathlib import Path

from texas42_env.observation import observation_docs

ROOT = Path(__file__).resolve().parents[1]


def test_observation_docs_are_generated_from_the_encoders():
    assert (ROOT / "docs" / "observations.md").read_text() == observation_docs()


def test_readme_quick_start_has_exactly_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.strip().splitlines() if line.strip()]
    assert len(commands) == 2
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


def _python_blocks(text: str) -> list[str]:
    return [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]


def test_every_python_example_of_the_readme_runs():
    blocks = _python_blocks((ROOT / "README.md").read_text())
    assert len(blocks) >= 2
    for k, code in enumerate(blocks):
        exec(compile(code, f"README.md python block {k + 1}", "exec"), {})
