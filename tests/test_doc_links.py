"""Issue 42: docs/app.md pointed outside the repository (`../shared/tools/...`). Every link and path the docs
give resolves inside the repository, so a reader of a clone can follow it."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / "benchmarks" / "README.md",
               ROOT / "packaging" / "README.md"])
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def test_links_resolve_inside_the_repository():
    bad = []
    for doc in DOCS:
        if not doc.exists():
            continue
        for target in LINK.findall(doc.read_text()):
            if re.match(r"[a-z]+:", target):      # http:, https:, mailto:
                continue
            path = (doc.parent / target).resolve()
            if not path.is_relative_to(ROOT) or not path.exists():
                bad.append(f"{doc.relative_to(ROOT)}: {target}")
    assert bad == []


def test_no_path_climbs_out_of_the_repository():
    """A file named with `../` (`../shared/tools/gui-on-gpu.md`) must be one of the repository's; `../x` as an
    example of a refused name is no file."""
    bad = []
    for doc in DOCS:
        if not doc.exists():
            continue
        for span in re.findall(r"`[^`\n]+`", re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)):
            for path in re.findall(r"(?:^|\s|`)(\.\./[\w./-]+\.\w+)", span):
                if not _inside(doc.parent / path) and not _inside(ROOT / path):
                    bad.append(f"{doc.relative_to(ROOT)}: {path}")
    assert bad == []


def _inside(path: Path) -> bool:
    p = path.resolve()
    return p.is_relative_to(ROOT) and p.exists()


def test_the_readme_and_ci_run_the_same_suite():
    """The README's test command and .ci/run run the same thing (tests/suite.sh: the long tests beside the rest)."""
    readme = next(ln for ln in (ROOT / "README.md").read_text().splitlines() if ln.rstrip().endswith("# the tests"))
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]

    def last_step(line: str) -> str:
        return line.split("#")[0].split("&&")[-1].strip()
    assert last_step(readme) == last_step(ci) == "QT_QPA_PLATFORM=offscreen bash tests/suite.sh"
