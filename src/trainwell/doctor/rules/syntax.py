"""Syntax: TW000, a file that does not parse.

The engine reports it when ``ast.parse`` fails (there is nothing to walk), so this family
has the rule and its examples but no check function.
"""

from __future__ import annotations

from ._registry import Example, Rule

TW000 = Rule(
    "TW000",
    "syntax-error",
    "error",
    "The file does not parse, so nothing else in it was checked.",
    "trainwell doctor reads the script's syntax tree without running it. A file that "
    "Python cannot parse would fail at once when started; it is reported so that a CI "
    "run does not pass silently over it.",
    "for epoch in range(10)\n    train()\n",
    "for epoch in range(10):\n    train()\n",
    examples=(
        Example(
            "syntax_error",
            "for x in y\n    pass\n",
            [(1, "TW000")],
        ),
        Example(
            "syntax_ok",
            "for x in y:\n    pass\n",
            [],
        ),
    ),
)
