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


def test_a_python2_print_ending_in_a_comma_is_one_whole_statement() -> None:
    # print "...", x,   (Python 2: no newline): the trailing comma keeps no bracket open, so
    # the line goes alone and the rest of the file is still checked (BRITS, heldout77)
    text = (
        "import torch\n"
        "for idx in range(3):\n"
        "    print '\\r progress {}'.format(idx, (idx + 1) * 1.0 / 3),\n"
        "print 'AUC', 0.5\n" + LOAD
    )
    assert codes(text) == [(3, "TW000"), (4, "TW000"), (5, "TW015")]


def test_a_python2_script_with_many_print_statements_is_read_past_all_of_them() -> None:
    # a Python 2 script has dozens of print statements: each is one TW000 and the code
    # between them is still checked (the bound on blanked lines is for other errors)
    prints = "".join(f"print 'step {i}'\n" for i in range(15))
    assert codes("import torch\n" + prints + LOAD) == [
        *[(2 + i, "TW000") for i in range(15)],
        (17, "TW015"),
    ]


def test_other_errors_beyond_the_bound_still_give_one_finding() -> None:
    broken = "".join(f"conda install -c conda-forge package{i}\n" for i in range(12))
    assert codes("import torch\n" + broken + LOAD) == [(2, "TW000")]


def test_an_exported_notebook_with_many_shell_lines_is_read_past_them() -> None:
    # a Colab export has a !pip / %magic line per cell: each is its own TW000, each says
    # what it is, and the rest of the file is still checked
    cells = "".join(f"!pip install package{i}\n%matplotlib inline\n" for i in range(15))
    found = check_source("import torch\n" + cells + LOAD, "nb.py", target_torch="2.5")
    assert [(f.line, f.code) for f in found] == [
        *((line, "TW000") for line in range(2, 32)),
        (32, "TW015"),
    ]
    assert "notebook shell command (!pip)" in found[0].message
    assert "notebook magic (%matplotlib)" in found[1].message


def test_a_tab_indented_python2_print_in_a_space_indented_block() -> None:
    # Python 2 read the tab as 8 columns: the line stands in at that depth and the block
    # after it is still read
    text = "import torch\nfor i in range(3):\n    if i == 0:\n\tprint i\n    " + LOAD
    assert codes(text) == [(4, "TW000"), (5, "TW015")]


def test_a_broken_expression_over_several_lines_goes_as_one_statement() -> None:
    # print(... (time.time() - \n\n )/60.0)): the error is reported on the line Python
    # stops at, and the whole statement (its first line to its closing bracket) is blanked
    text = (
        "import torch\n"
        "def log(epoch, start):\n"
        "    print('epoch {} took {}m'.format(epoch, (time.time() -\n"
        "\n"
        "                                              )/60.0))\n"
        "    " + LOAD
    )
    assert codes(text) == [(5, "TW000"), (6, "TW015")]


def test_lines_dedented_to_no_outer_level_are_each_reported_and_the_rest_checked() -> None:
    # three lines at 5 spaces after a block at 4/8 (heldout101's Balanced-Contrastive-
    # Learning): each is reported, and the torch.load before them is still read
    text = (
        "import torch\n" + LOAD + "def train(loader, writer):\n"
        "    for x in loader:\n"
        "        print(x)\n"
        "     writer.add_scalar('a', 1)\n"
        "     writer.add_scalar('b', 2)\n"
        "\n"
        "def validate():\n"
        "    " + LOAD
    )
    assert codes(text) == [(2, "TW015"), (6, "TW000"), (7, "TW000"), (10, "TW015")]


def test_stray_closing_brackets_are_each_reported_and_the_rest_checked() -> None:
    # path = r'...\train.npy') three times (heldout140's chrvt benchmarks): each line closes
    # a bracket nothing opened, so each is blanked alone and the file after them is read
    text = (
        "import torch\n"
        "train_path = r'...\\train.npy')\n"
        "test_path = r'...\\test.npy')\n"
        "latent_path = r'...\\latent.npy')\n" + LOAD
    )
    assert codes(text) == [(2, "TW000"), (3, "TW000"), (4, "TW000"), (5, "TW015")]
    # a closing line of a bracket opened above is no stray closer: one finding, as before
    assert codes("x = f(1,\n  2 3)\nimport torch\n" + LOAD)[0] == (2, "TW000")
