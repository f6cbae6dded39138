"""The docs match the code."""

import re

from texas42_env.observation import observation_docs

from helpers import ROOT


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


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_python_example_of_the_readme_and_the_docs_runs():
    ran = 0
    for page in PAGES:
        for k, code in enumerate(_python_blocks(page.read_text())):
            exec(compile(code, f"{page.relative_to(ROOT)} python block {k + 1}", "exec"), {})
            ran += 1
    assert ran >= 2


def test_the_readme_is_short_and_every_link_of_it_and_the_docs_leads_to_a_file():
    """The README says what, how to start, how strong the agents are and where to go next;
    the reference is in docs/, and no relative link of either is broken."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 120
    for title in ("## Quick start", "## The agents and how strong they are",
                  "## Where to go next"):
        assert title in readme
    broken = []
    for page in PAGES + sorted(ROOT.glob("*/README.md")):
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if re.match(r"^[a-z]+:", target):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
