import os
import joblib
import yaml
import torch
import torch.nn as nn


def dump(value, filename):
    joblib.dump(value=value, filename=filename)


def load(filename):
    return joblib.load(filename=filename)


def params():
    with open("./config.yml", "r") as file:
        return yaml.safe_load(file)


def weight_init(m):
    classname = m.__class__.__name__

    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0.0)


def device_init(device="mps"):
    if device == "mps":
        return torch.device("mps" if torch.backends.mps.is_available() else "cpu")

    elif device == "cuda":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")

    else:
        return torch.device("cpu")


def clean():
    config = params()

    for path in [
        "train_netG_XtoY",
        "train_netG_YtoX",
        "best_model",
        "train_results",
        "single_result",
        "train_metrics",
    ]:
        if os.path.exists(config["path"][path]):
            for file in os.listdir(config["path"][path]):
                os.remove(os.path.join(config["path"][path], file))

        else:
            raise Exception("Could not find path: {}".format(config["path"][path]))
