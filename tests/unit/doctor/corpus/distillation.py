# ruff: noqa
"""Knowledge distillation: the teacher is put in eval mode inside the loop, the student
trains. Correct (a tricky negative for the eval-mode rule)."""

import torch
import torch.nn.functional as F


def distill(student, teacher, loader, epochs=3, T=4.0, alpha=0.7):
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(epochs):
        student.train()
        teacher.eval()
        for x, y in loader:
            with torch.no_grad():
                teacher_logits = teacher(x)
            student_logits = student(x)
            soft = F.kl_div(
                F.log_softmax(student_logits / T, dim=1),
                F.softmax(teacher_logits / T, dim=1),
                reduction="batchmean",
            ) * (T * T)
            hard = F.cross_entropy(student_logits, y)
            loss = alpha * soft + (1 - alpha) * hard
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def distill_teacher_eval_every_batch(student, teacher, loader, optimizer):
    student.train()
    for x, y in loader:
        teacher.eval()
        with torch.no_grad():
            target = teacher(x).softmax(dim=-1)
        loss = F.cross_entropy(student(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
