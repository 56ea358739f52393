"""Syntax: TW000, a line (or a file) that does not parse.

The engine reports it when ``ast.parse`` fails: each offending line (a ``%magic``, a
Python 2 ``print "x"``, ``.cuda(async=True)``) is reported and blanked and the rest of the
file is still checked (``recovery.py``); a file that blanking single lines cannot mend is
one finding. This family has the rule and its examples but no check function.
"""

from __future__ import annotations

from ._registry import Example, Rule

TW000 = Rule(
    "TW000",
    "syntax-error",
    "error",
    "A line does not parse; it was skipped and the rest of the file checked (a file "
    "that skipping single lines cannot mend, an unclosed bracket, is not checked further).",
    "trainwell doctor reads the script's syntax tree without running it. A line that "
    "Python cannot parse would fail at once when started; it is reported so that a CI "
    "run does not pass silently over it. Notebook magics pasted into a .py file "
    '(%matplotlib inline, !pip install) and Python 2 syntax (print "x", '
    ".cuda(async=True)) are reported line by line and the other lines are still checked.",
    "for epoch in range(10)\n    train()\n",
    "for epoch in range(10):\n    train()\n",
    examples=(
        Example(
            "syntax_error",
            "for x in y\n    pass\n",
            [(1, "TW000")],
        ),
        Example(
            "unparseable_lines_do_not_blind_the_file",
            "%matplotlib inline\n"
            "import torch\n"
            "print 'loading'\n"
            "x = batch.cuda(async=True)\n"
            "state = torch.load('a.pt', weights_only=False)\n",
            [(1, "TW000"), (3, "TW000"), (4, "TW000"), (5, "TW015")],
        ),
        Example(
            "unclosed_bracket_is_one_finding",
            "x = f(1,\nimport torch\nstate = torch.load('a.pt', weights_only=False)\n",
            [(1, "TW000")],
        ),
        Example(
            "syntax_ok",
            "for x in y:\n    pass\n",
            [],
        ),
    ),
)
