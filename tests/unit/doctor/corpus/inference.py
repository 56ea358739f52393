# ruff: noqa
"""Inference and evaluation scripts."""

import torch
import torchvision


@torch.no_grad()
def predict(model, loader):
    model.eval()
    return torch.cat([model(x).argmax(1) for (x,) in loader])


def predict_inference_mode(model, loader):
    model.eval()
    outputs = []
    with torch.inference_mode():
        for (x,) in loader:
            outputs.append(model(x))
    return torch.cat(outputs)


def fgsm(model, x, y, eps, criterion):
    # Adversarial examples need input gradients in eval mode.
    model.eval()
    x = x.clone().requires_grad_(True)
    loss = criterion(model(x), y)
    loss.backward()
    return (x + eps * x.grad.sign()).detach()


def evaluate_caller_wraps(model, loader):
    model.eval()
    return [model(x) for x in loader]


def predict_without_guard(model, loader):
    model.eval()
    results = []
    for x in loader:
        results.append(model(x).argmax(1).tolist())  # expect: TW012
    return results


def library_style(model, x):
    # Never called in this file: the caller may wrap it in no_grad, so stay silent.
    model.eval()
    return model(x)


with torch.no_grad():
    evaluate_caller_wraps(torchvision.models.resnet18(), [])

net = torchvision.models.resnet18(weights="DEFAULT")
net.eval()
images = torch.randn(8, 3, 224, 224)
logits = net(images)  # expect: TW012
print(predict_without_guard(net, [images]))
