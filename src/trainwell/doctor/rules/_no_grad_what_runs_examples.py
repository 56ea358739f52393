"""More examples of TW012 (inference without no_grad), on what runs a network and what
does not: a project's plain ``Loss`` class, a tokenizer's decode() on an LLM wrapper, a
signal transform, and a gradient-penalty scope whose other forwards are still judged.
Run as tests beside the rule."""

from __future__ import annotations

from ._registry import Example

WHAT_RUNS_EXAMPLES = (
    Example(
        # the project's loss class is named plain Loss: a criterion, not a second model
        # run outside no_grad on the validation batch
        "a_project_loss_class_named_loss",
        """\
        class Loss(nn.Module):
            def forward(self, pred, target):
                return F.mse_loss(pred, target, reduction="sum")

        criterion = Loss()
        model = torch.nn.Linear(4, 2)
        model.eval()
        for x, y in val_loader:
            with torch.no_grad():
                preds = model(x)
            val_loss += criterion(preds, y).item()
        """,
        [],
    ),
    Example(
        # an LLM wrapper's decode() with a tokenizer's keywords turns ids into text; the
        # autoencoder's decode(z) is a forward
        "a_wrappers_tokenizer_decode_is_no_forward",
        """\
        model = torch.nn.Linear(4, 2)
        model.eval()
        for batch in loader:
            text = model.decode(batch["ids"], skip_special_tokens=True)
            images = model.decode(batch["z"])
            print(text, images.mean().item())
        """,
        [(5, "TW012")],
    ),
    Example(
        # a speech model's _forward_transform(stft) is a signal transform of its input;
        # its predict() after eval() is inference
        "a_forward_transform_is_no_forward",
        """\
        model = load_model(args.ckpt)
        model.eval()
        for y in noisy:
            Y = model._forward_transform(model._stft(y))
            X = model.predict_clean(Y)
            save(X.cpu().numpy())
        """,
        [(5, "TW012")],
    ),
    Example(
        # a WGAN-GP's penalty wants the gradient at its interpolates: that forward is used;
        # the critic's dev pass on real images later in the scope is inference all the same
        "a_gradient_penalty_scope_still_has_an_inference_pass",
        """\
        netD = torch.nn.Linear(4, 1)
        optD = torch.optim.Adam(netD.parameters())
        for it, (real, fake) in enumerate(loader):
            alpha = torch.rand(real.size(0), 1)
            interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
            grads = torch.autograd.grad(netD(interp).sum(), interp, create_graph=True)[0]
            optD.zero_grad()
            (netD(fake).mean() - netD(real).mean() + grads.norm(2, dim=1).mean()).backward()
            optD.step()
            if it % 100 == 0:
                for x in dev_images:
                    print(-netD(x).mean().item())
        """,
        [(12, "TW012")],
    ),
    Example(
        # the attack's delta wants gradients in the training loop; the test loop binds
        # delta anew and detaches it: its robust forward there is inference
        "a_detached_attack_input_wants_no_gradient",
        """\
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for X, y in train_loader:
            delta = torch.zeros_like(X)
            delta.requires_grad = True
            F.cross_entropy(model(X + delta), y).backward()
            delta = (delta + 0.01 * delta.grad.sign()).detach()
            opt.zero_grad()
            F.cross_entropy(model(X + delta), y).backward()
            opt.step()
        model.eval()
        for X, y in test_loader:
            delta = attack_pgd(model, X, y)
            delta = delta.detach()
            robust = model(X + delta)
            print((robust.argmax(1) == y).sum().item())
        """,
        [(15, "TW012")],
    ),
    Example(
        # the model's own method runs the forward; a helper of the file turns it into a number
        "a_model_method_read_by_an_accuracy_helper",
        """\
        def accuracy(output, labels):
            return output.argmax(1).eq(labels).sum().item()

        def evaluate(model, idx, labels):
            model.eval()
            out = model.model_forward(idx)
            acc = accuracy(out, labels[idx])
            return acc

        print(evaluate(torch.nn.Linear(4, 2), val_idx, labels))
        """,
        [(6, "TW012")],
    ),
    Example(
        # the helper hands the graph back and the caller trains on it
        "a_model_method_read_by_a_helper_that_returns_its_graph",
        """\
        def scores(output, labels):
            return output.log_softmax(1).gather(1, labels[:, None])

        def step(model, idx, labels, opt):
            out = model.model_forward(idx)
            loss = -scores(out, labels).mean()
            loss.backward()
            opt.step()

        model = torch.nn.Linear(4, 2)
        step(model, idx, labels, torch.optim.SGD(model.parameters(), lr=0.1))
        """,
        [],
    ),
)
