from .SimpleNetwork import SimpleNetwork, hyperparameter_loop as simple_hyperparameter_loop
from .M1 import M1, hyperparameter_loop as m1_hyperparameter_loop
from .SDAE import SDAE, hyperparameter_loop as sdae_hyperparameter_loop
from .M2 import M2Runner, hyperparameter_loop as m2_hyperparameter_loop, tool_hyperparams as m2_tool_loop
from .Ladder import LadderNetwork, hyperparameter_loop as ladder_hyperparameter_loop, tool_hyperparams as ladder_tool_loop
