"""The README's Python example runs (on a test run instead of runs/quick)."""

import contextlib
import io
import re

from conftest import REPO


def test_readme_example(paco_run):
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 11
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace('"runs/quick"', repr(str(paco_run))), "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "W/D/L" in lines[0] and lines[1].startswith("[")
