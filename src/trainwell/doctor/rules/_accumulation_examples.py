"""TW017 examples: accumulation gates, scaled and unscaled losses."""

from __future__ import annotations

from ._registry import Example

_VIRTUAL_BATCH = """\
def train(net, loss_function, data, optimizer, virtual_batch_size, epochs):
    for epoch in range(epochs):
        optimizer.zero_grad()
        for a in range(virtual_batch_size):
            loss = loss_function(net(data.sample())){scaled}
            loss.backward()
        optimizer.step()
"""

EXAMPLES = (
    Example(
        "accumulation_unscaled",
        """\
        def fit(model, loader, optimizer, criterion, k):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [(4, "TW017")],
    ),
    Example(
        "accumulation_scaled",
        """\
        def fit(model, loader, optimizer, criterion, k):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                (loss / k).backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        "the_models_own_loss_method_unscaled",
        """\
        def fit(model, loader, optimizer, k):
            model.train()
            for i, (x, y) in enumerate(loader):
                loss = model.loss(model(x), y)
                loss.backward()
                if not (i % k):
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [(5, "TW017")],
    ),
    Example(
        # torch.mean() of the model's per-GPU losses is still the model's own loss
        "the_mean_of_the_models_losses_unscaled",
        """\
        def fit(model, loader, optimizer, k):
            for i, (x, y) in enumerate(loader):
                loss, parts = model(x, y)
                loss = torch.mean(loss)
                loss.backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [(5, "TW017")],
    ),
    Example(
        # the adversarial loss's backward sits in an if of its own, beside the gated step
        "an_extra_backward_in_an_if_beside_the_gated_step",
        """\
        def fit(model, loader, optimizer, k, adversarial):
            for i, batch in enumerate(loader):
                loss = model(**batch)[0] / k
                loss.backward()
                if adversarial:
                    loss_adv = model(**perturbed(batch))[0]
                    loss_adv.backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [(7, "TW017")],
    ),
    Example(
        # an auxiliary head's loss added with a literal weight: still no division by k
        "an_auxiliary_loss_weighted_into_the_unscaled_loss",
        """\
        def fit(model, loader, optimizer, criterion, k):
            for i, (x, y) in enumerate(loader):
                logits, aux_logits = model(x)
                loss = criterion(logits, y)
                if aux_logits is not None:
                    loss = loss + 0.4 * criterion(aux_logits, y)
                loss.backward()
                if k is None:
                    optimizer.step()
                    optimizer.zero_grad()
                elif (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [(7, "TW017")],
    ),
    Example(
        "a_weighted_sum_divided_by_k",
        """\
        def fit(model, loader, optimizer, criterion, k):
            for i, (x, y) in enumerate(loader):
                logits, aux_logits = model(x)
                loss = (criterion(logits, y) + 0.4 * criterion(aux_logits, y)) / k
                loss.backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # the gradients are averaged by hand before the step
        "gradients_divided_by_hand_before_the_step",
        """\
        def fit(model, loader, optimizer, criterion, k):
            for i, (x, y) in enumerate(loader):
                criterion(model(x), y).backward()
                if (i + 1) % k == 0:
                    for p in model.parameters():
                        if p.grad is not None:
                            p.grad /= k
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        "backward_and_step_in_two_arms_of_one_if",
        """\
        def fit(model, loader, optimizer, k):
            for i, (x, y) in enumerate(loader):
                loss = model(x, y)[0]
                if i % k:
                    loss.backward()
                else:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # a counter of the loop, set back to zero at each step, is the accumulation gate
        "a_counter_gate_unscaled",
        """\
        def fit(model, loader, optimizer, criterion, accum_steps):
            count = 0
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                count += 1
                if count >= accum_steps:
                    count = 0
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [(5, "TW017")],
    ),
    Example(
        "a_counter_gate_scaled",
        """\
        def fit(model, loader, optimizer, criterion, accum_steps):
            count = 0
            for x, y in loader:
                loss = criterion(model(x), y) / accum_steps
                loss.backward()
                count += 1
                if count >= accum_steps:
                    count = 0
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # the backward() runs in a method the epoch loop calls, the step in the loop
        "a_helper_of_the_file_backpropagates_each_batch",
        """\
        class Trainer:
            def train_batch(self, x, y):
                loss = F.cross_entropy(self.model(x), y)
                loss.backward()
                return loss.item()

            def train_epoch(self, loader):
                for i, (x, y) in enumerate(loader):
                    self.train_batch(x, y)
                    if (i + 1) % self.iter_size == 0:
                        self.optimizer.step()
                        self.optimizer.zero_grad()
        """,
        [(4, "TW017")],
    ),
    Example(
        # a loss of unseen origin, and k divides nothing in the file
        "k_divides_nothing_in_the_file",
        """\
        def fit(model, loader, optimizer, args):
            steps_per_epoch = len(loader) / args.accumulation_steps
            for step, batch in enumerate(loader):
                results = model.train_step(batch)
                loss = results["loss"]
                loss.backward()
                if (step + 1) % args.accumulation_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [(6, "TW017")],
    ),
    Example(
        "k_divides_the_loss_through_another_name",
        """\
        def fit(model, loader, optimizer, args):
            ga = args.accumulation_steps
            for step, batch in enumerate(loader):
                loss = model.train_step(batch)["loss"]
                (loss / ga).backward()
                if (step + 1) % args.accumulation_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # compute_loss is handed k: it may divide by it
        "k_handed_to_the_function_that_makes_the_loss",
        """\
        def fit(model, loader, optimizer, args):
            for step, batch in enumerate(loader):
                loss = compute_loss(model, batch, args.accumulation_steps)
                loss.backward()
                if (step + 1) % args.accumulation_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # % 1 holds on every iteration: a step per batch
        "a_gate_of_one_is_no_accumulation",
        """\
        def fit(model, loader, optimizer, criterion):
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y)
                loss.backward()
                if (i + 1) % 1 == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # the dict's losses divided by k in a loop over its items
        "losses_of_a_dict_divided_over_its_items",
        """\
        def fit(model, loader, optimizer, args):
            for step, batch in enumerate(loader):
                loss = model(batch)
                for key, value in loss.items():
                    loss[key] = value / args.accumulation_steps
                loss["lm"].backward()
                if (step + 1) % args.accumulation_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # the critics clear their gradients every update; the actor steps every d updates
        "a_delayed_update_whose_other_losses_are_cleared_each_iteration",
        """\
        def update(agent, batches, d):
            for i, batch in enumerate(batches):
                for opt in agent.q_optimizers:
                    opt.zero_grad()
                q_loss = agent.q_loss(batch)
                q_loss.backward()
                if (i + 1) % d == 0:
                    agent.policy_optimizer.zero_grad()
                    agent.policy_loss(batch).backward()
                for opt in agent.q_optimizers:
                    opt.step()
                if (i + 1) % d == 0:
                    agent.policy_optimizer.step()
        """,
        [],
    ),
    Example(
        # loss.div(k) is loss / k
        "a_loss_divided_by_the_method_div",
        """\
        micro_steps = 4
        for step, (x, y) in enumerate(loader):
            loss = F.cross_entropy(model(x), y)
            loss.div(micro_steps).backward()
            if (step + 1) % micro_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # with k > 1 the loss is divided (and never backpropagated: another bug); the
        # backward() runs only when k is 1: one backward per step
        "backward_only_in_the_arm_without_accumulation",
        """\
        for step, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps
            else:
                loss.backward()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # the gate is a flag the loop sets from the modulo test
        "a_step_gated_by_a_flag_set_from_the_modulo",
        """\
        for step_i, batch in enumerate(loader):
            loss = model.train_step(batch)["loss"]
            loss.backward()
            update = True
            if args.accum > 1:
                if step_i % args.accum == 0:
                    update = True
                else:
                    update = False
            if update:
                optimizer.step()
                optimizer.zero_grad()
        """,
        [(3, "TW017")],
    ),
    Example(
        "a_flag_gate_with_the_loss_divided",
        """\
        for step_i, batch in enumerate(loader):
            loss = model.train_step(batch)["loss"] / args.accum
            loss.backward()
            update = (step_i + 1) % args.accum == 0
            if update:
                optimizer.step()
                optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # the zero_grad() under a gate of its own opens each window: it clears nothing
        # in between, so the k backward() calls still add up
        "zero_grad_at_the_start_of_each_window",
        """\
        def train(model, loader, opt, batch_multiplier):
            for i, (x, y) in enumerate(loader):
                if i % batch_multiplier == 0:
                    opt.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                if i % batch_multiplier == 0 or i == len(loader) - 1:
                    opt.step()
        """,
        [(6, "TW017")],
    ),
    Example(
        # the other optimizer steps in the other arm of `if accumulate:`, never in the
        # same iteration as the gated step
        "another_optimizer_stepped_only_in_the_arm_without_accumulation",
        """\
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            loss.backward()
            if accumulate:
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            else:
                optimizer.step()
                embedding_optimizer.step()
                optimizer.zero_grad()
        """,
        [(3, "TW017")],
    ),
    Example(
        # a function called once per batch, stepping when the index it is given says so
        "a_batch_function_stepping_every_k_calls",
        """\
        class Learning:
            def batch_train(self, model, x, y, batch_idx):
                loss = self.loss_fn(model(x), y)
                loss.backward()
                if batch_idx % self.grad_accum == self.grad_accum - 1:
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                return loss.item()
        """,
        [(4, "TW017")],
    ),
    Example(
        "a_batch_function_with_the_loss_divided",
        """\
        class Learning:
            def batch_train(self, model, x, y, batch_idx):
                loss = self.loss_fn(model(x), y) / self.grad_accum
                loss.backward()
                if batch_idx % self.grad_accum == self.grad_accum - 1:
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                return loss.item()
        """,
        [],
    ),
    Example(
        # k divides only logged numbers (sums of .item()) and counts, and a multiple of k
        # goes to a function of another kind: none of it scales the loss
        "k_divides_only_a_logged_average",
        """\
        train_loss = 0.0
        total = int(n_gpu * batch_size * k)
        for step, batch in enumerate(loader):
            loss = model(batch).mean()
            loss.backward()
            train_loss += loss.item()
            if step % k == 0:
                optimizer.step()
                optimizer.zero_grad()
                denominator = print_every * k
                print(train_loss / denominator, get_lr(step, total))
        """,
        [(5, "TW017")],
    ),
    Example(
        # divided by a multiple of k (the effective batch): scaled, no report
        "the_loss_divided_by_a_multiple_of_k",
        """\
        effective = k * micro_batch
        for step, batch in enumerate(loader):
            loss = model(batch).sum() / effective
            loss.backward()
            if step % k == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # k goes to a function of this file that divides by it under another name
        "k_divided_inside_a_helper_of_the_file",
        """\
        def compute_loss(model, batch, steps):
            return model(batch).sum() / steps

        for step, batch in enumerate(loader):
            loss = compute_loss(model, batch, k)
            loss.backward()
            if step % k == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # a loss whose name holds a count word is still the loss
        "total_loss_divided_in_place",
        """\
        for step, batch in enumerate(loader):
            total_loss = model(batch).sum()
            total_loss /= args.accum
            total_loss.backward()
            if (step + 1) % args.accum == 0:
                optimizer.step()
                optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # the window's length: k, or what is left of the epoch
        "divided_by_k_or_the_residue",
        """\
        for n, batch in enumerate(loader, 1):
            iter_len = self.k if n <= total - residue else residue
            loss = self.batch_loss(batch) / iter_len
            loss.backward()
            if n % self.k == 0 or n == total:
                self.optimizer.step()
                self.optimizer.zero_grad()
        """,
        [],
    ),
    Example(
        # USE_AMP is False in both arms of the try: its arm never runs, the other does
        "an_arm_the_file_switches_off_for_good",
        """\
        try:
            from apex import amp
            USE_AMP = False
        except ImportError:
            USE_AMP = False

        class Engine:
            def backpass(self, loss):
                if USE_AMP:
                    with amp.scale_loss(loss, self.optimizer) as scaled_loss:
                        scaled_loss.backward()
                else:
                    loss.backward()

            def train_step(self, engine, x, y):
                loss = self.loss_fn(self.model(x), y)
                self.backpass(loss)
                if engine.iteration % self.accumulation_steps == 0:
                    self.optimizer.step()
                    self.optimizer.zero_grad()
        """,
        [(13, "TW017")],
    ),
    Example(
        # a virtual batch: several backward() calls per step, the loss of an unknown
        # function, and nothing divided by the loop's count
        "virtual_batch_loop_undivided",
        _VIRTUAL_BATCH.format(scaled=""),
        [(6, "TW017")],
    ),
    Example(
        "virtual_batch_loop_divided",
        _VIRTUAL_BATCH.format(scaled=" / virtual_batch_size"),
        [],
    ),
    Example(
        # the step comes every BATCH_SIZE pairs; that the validation loop draws its
        # records BATCH_SIZE at a time does not scale the training loss by it
        "a_batch_size_given_to_a_loops_iterator_divides_nothing",
        """\
        BATCH_SIZE = 16

        def train_iteration(model, optimizer, pairs):
            total = 0
            for record in iter_train_pairs(pairs, 2):
                loss = torch.mean(1.0 - model(record).softmax(dim=1)[:, 0])
                loss.backward()
                total += len(record)
                if total % BATCH_SIZE == 0:
                    optimizer.step()
                    optimizer.zero_grad()

        def validate(model, records):
            with torch.no_grad():
                return [model(r) for r in iter_valid_records(records, BATCH_SIZE)]
        """,
        [(7, "TW017")],
    ),
    Example(
        # the same k handed to a helper that builds the loss: it may divide by it
        "a_batch_size_given_to_a_loss_helper_may_divide",
        """\
        BATCH_SIZE = 16

        def train_iteration(model, optimizer, pairs):
            total = 0
            for record in iter_train_pairs(pairs, 2):
                loss = pairwise_loss(model(record), BATCH_SIZE)
                loss.backward()
                total += len(record)
                if total % BATCH_SIZE == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        [],
    ),
)
