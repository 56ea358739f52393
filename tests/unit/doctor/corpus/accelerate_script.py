# ruff: noqa
"""Accelerate-style loop (like the nlp_example), correct apart from one eval leak."""

import evaluate
import torch
from accelerate import Accelerator
from torch.optim import AdamW
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup


def training_function(config, train_dataloader, eval_dataloader):
    accelerator = Accelerator(gradient_accumulation_steps=config["grad_accum"])
    metric = evaluate.load("glue", "mrpc")
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased")
    optimizer = AdamW(params=model.parameters(), lr=config["lr"])
    lr_scheduler = get_linear_schedule_with_warmup(
        optimizer=optimizer,
        num_warmup_steps=100,
        num_training_steps=len(train_dataloader) * config["num_epochs"],
    )
    model, optimizer, train_dataloader, eval_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, eval_dataloader, lr_scheduler
    )
    for epoch in range(config["num_epochs"]):
        model.train()
        for step, batch in enumerate(train_dataloader):
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        model.eval()
        for step, batch in enumerate(eval_dataloader):
            with torch.no_grad():
                outputs = model(**batch)
            predictions = outputs.logits.argmax(dim=-1)
            predictions, references = accelerator.gather_for_metrics((predictions, batch["labels"]))
            metric.add_batch(predictions=predictions, references=references)
        eval_metric = metric.compute()
        accelerator.print(f"epoch {epoch}:", eval_metric)


def training_function_leaky(config, train_dataloader, eval_dataloader):
    accelerator = Accelerator()
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased")
    optimizer = AdamW(params=model.parameters(), lr=config["lr"])
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    model.train()
    for epoch in range(config["num_epochs"]):
        for batch in train_dataloader:
            outputs = model(**batch)
            accelerator.backward(outputs.loss)
            optimizer.step()
            optimizer.zero_grad()
        model.eval()  # expect: TW010
        with torch.no_grad():
            for batch in eval_dataloader:
                model(**batch)
