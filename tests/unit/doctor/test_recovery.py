"""Issue 29: one unparseable line must not blind the doctor to the rest of the file."""

from __future__ import annotations

from trainwell.doctor import check_source

LOAD = "state = torch.load('a.pt', weights_only=False)\n"


def codes(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in check_source(text, "s.py", target_torch="2.5")]


def test_magic_lines_reported_and_rest_checked() -> None:
    text = "%matplotlib inline\n!pip install x\nimport torch\n" + LOAD
    assert codes(text) == [(1, "TW000"), (2, "TW000"), (4, "TW015")]


def test_python2_print_and_async_keyword_keep_line_numbers() -> None:
    text = "import torch\nprint 'start'\nx = x.cuda(async=True)\n\n" + LOAD
    found = check_source(text, "s.py", target_torch="2.5")
    assert [(f.line, f.code) for f in found] == [(2, "TW000"), (3, "TW000"), (5, "TW015")]
    assert "print" in found[0].message


def test_block_header_without_colon_keeps_its_body_checked() -> None:
    text = "import torch\nfor path in paths\n    " + LOAD
    assert codes(text) == [(2, "TW000"), (3, "TW015")]
    # an unclosed bracket cannot be mended line by line: one finding, as before
    assert codes("x = f(1,\nimport torch\n" + LOAD) == [(1, "TW000")]


def test_a_python2_print_continued_with_a_backslash_goes_as_one_statement() -> None:
    # print "...", \ + a bracket over two more lines: the whole statement is one TW000, and
    # the lines after it are still checked
    text = (
        "import torch\n"
        "for epoch in range(3):\n"
        "    print 'epoch: %d, err: %f' \\\n"
        "          % (epoch,\n"
        "             err)\n"
        "print 'done'\n" + LOAD
    )
    assert codes(text) == [(3, "TW000"), (6, "TW000"), (7, "TW015")]


def test_a_python2_print_whose_call_spans_lines_goes_as_one_statement() -> None:
    # print f(\n a,\n b): the call's bracket closes two lines later; blanking only the
    # first line would leave an indented fragment, and the file went unchecked
    text = (
        "import torch\n"
        "def report(a, b):\n"
        "    print evaluate(\n"
        "        a,\n"
        "        b)\n"
        "report(1, 2)\n" + LOAD
    )
    assert codes(text) == [(3, "TW000"), (7, "TW015")]
