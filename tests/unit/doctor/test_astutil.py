"""The cached walk the rules share (the same nodes, in the same order, as ``ast.walk``) and
the names a file resolves through its imports."""

from __future__ import annotations

import ast

from trainwell.doctor._astutil import walk

SOURCE = """\
def train(model, loader, opt):
    for x, y in loader:
        loss = model(x).sub(y).pow(2).mean()
        loss.backward()
        opt.step()
"""


def test_walk_yields_what_ast_walk_yields_in_its_order():
    tree = ast.parse(SOURCE)
    for node in [tree, tree.body[0], tree.body[0].body[0]]:
        assert [id(n) for n in walk(node)] == [id(n) for n in ast.walk(node)]


def test_walk_is_computed_once_per_node():
    tree = ast.parse(SOURCE)
    first = walk(tree)
    assert walk(tree) is first
    # a subtree keeps its own list, not a slice of the module's
    loop = tree.body[0].body[0]
    assert walk(loop) is walk(loop) and len(walk(loop)) < len(first)


def test_a_class_the_file_defines_shadows_a_conventional_alias():
    # JEM's ``class F(nn.Module)`` with no ``import torch.nn.functional as F``: F() builds it
    from trainwell.doctor._astutil import Imports

    defined = ast.parse("import torch.nn as nn\n\nclass F(nn.Module):\n    pass\n")
    plain = ast.parse("import torch\n")
    call = ast.parse("F.softmax", mode="eval").body
    assert Imports(list(ast.walk(defined))).resolve(call) == "F.softmax"
    assert Imports(list(ast.walk(plain))).resolve(call) == "torch.nn.functional.softmax"
