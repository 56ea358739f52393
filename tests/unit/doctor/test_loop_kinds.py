"""Issue 29 item 5: a while loop is an epoch loop only when it runs training steps each pass."""

from __future__ import annotations

from trainwell.doctor import check_source

MENU = """\
import torch

def main(model, loader, val_loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    cmd = ""
    while cmd != "Exit":
        cmd = input("train / test / Exit: ")
        if cmd == "train":
            for x, y in loader:
                optimizer.zero_grad()
                criterion(model(x), y).backward()
                optimizer.step()
        elif cmd == "test":
            model.eval()
            with torch.no_grad():
                print([model(x) for x, _ in val_loader])
"""


def test_interactive_menu_loop_is_not_an_epoch_loop() -> None:
    assert [f.code for f in check_source(MENU, "menu.py")] == []
    # the same loop counting epochs is an epoch loop: its leak is still reported
    source = MENU.replace('cmd = ""\n', "epoch = 0\n").replace(
        'while cmd != "Exit":\n        cmd = input("train / test / Exit: ")\n',
        "while epoch < 10:\n        epoch += 1\n",
    )
    assert [(f.line, f.code) for f in check_source(source, "loop.py")] == [(14, "TW010")]
