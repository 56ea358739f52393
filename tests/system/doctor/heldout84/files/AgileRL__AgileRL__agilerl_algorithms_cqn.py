# Copyright 2026 AgileRL
# SPDX-License-Identifier: Apache-2.0

import random
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
import torch
from accelerate import Accelerator
from gymnasium import spaces
from tensordict import TensorDict
from torch import nn, optim
from torch.nn.utils import clip_grad_norm_

from agilerl.algorithms.core import OptimizerWrapper, RLAlgorithm
from agilerl.algorithms.core.registry import (
    HyperparameterConfig,
    NetworkGroup,
    make_default_hp_config,
)
from agilerl.modules.base import EvolvableModule
from agilerl.networks.q_networks import QNetwork
from agilerl.typing import (
    ActionMaskInput,
    ObservationType,
    ReplayBatch,
    numpy_action_mask,
)
from agilerl.utils.algo_utils import (
    adam_kwargs,
    eval_mode,
    is_train_eval_invariant,
    make_safe_deepcopies,
    polyak_update,
)


class CQN(RLAlgorithm[TensorDict]):
    """Conservative Q-Learning for Offline Reinforcement Learning.

    Paper: https://arxiv.org/abs/2006.04779

    :param observation_space: The observation space of the environment.
    :type observation_space: spaces.Space
    :param action_space: The action space of the environment.
    :type action_space: spaces.Space
    :param index: Index to keep track of object instance during tournament selection and mutation, defaults to 0
    :type index: int, optional
    :param hp_config: RL hyperparameter mutation configuration, defaults to None, whereby algorithm mutations are disabled.
    :type hp_config: HyperparameterConfig, optional
    :param net_config: Network configuration, defaults to None
    :type net_config: dict, optional
    :param batch_size: Size of batched sample from replay buffer for learning, defaults to 64
    :type batch_size: int, optional
    :param lr: Learning rate for optimizer, defaults to 1e-4
    :type lr: float, optional
    :param learn_step: Learning frequency, defaults to 5
    :type learn_step: int, optional
    :param gamma: Discount factor, defaults to 0.99
    :type gamma: float, optional
    :param tau: For soft update of target network parameters, defaults to 1e-3
    :type tau: float, optional
    :param double: Use double Q-learning, defaults to False
    :type double: bool, optional
    :param normalize_images: Normalize image observations, defaults to True
    :type normalize_images: bool, optional
    :param mut: Most recent mutation to agent, defaults to None
    :type mut: str, optional
    :param actor_network: Custom actor network, defaults to None
    :type actor_network: nn.Module, optional
    :param device: Device for accelerated computing, 'cpu' or 'cuda', defaults to 'cpu'
    :type device: str, optional
    :param accelerator: Accelerator for distributed computing, defaults to None
    :type accelerator: accelerate.Accelerator(), optional
    :param wrap: Wrap models for distributed training upon creation, defaults to True
    :type wrap: bool, optional
    """

    # Narrowed from RLAlgorithm.action_space; enforced at construction.
    action_space: spaces.Discrete | spaces.MultiDiscrete

    # Discrete action space, so the network output size is a plain int
    action_dim: int

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        index: int = 0,
        hp_config: HyperparameterConfig | None = None,
        net_config: dict[str, Any] | None = None,
        batch_size: int = 64,
        lr: float = 1e-4,
        learn_step: int = 5,
        gamma: float = 0.99,
        tau: float = 1e-3,
        double: bool = False,
        normalize_images: bool = True,
        mut: str | None = None,
        actor_network: EvolvableModule | None = None,
        device: str = "cpu",
        accelerator: Accelerator | None = None,
        wrap: bool = True,
    ) -> None:

        super().__init__(
            observation_space,
            action_space,
            index=index,
            hp_config=hp_config,
            device=device,
            accelerator=accelerator,
            normalize_images=normalize_images,
            name="CQN",
        )

        assert learn_step >= 1, "Learn step must be greater than or equal to one."
        assert isinstance(learn_step, int), "Learn step rate must be an integer."
        assert isinstance(batch_size, int), "Batch size must be an integer."
        assert batch_size >= 1, "Batch size must be greater than or equal to one."
        assert isinstance(lr, float), "Learning rate must be a float."
        assert lr > 0, "Learning rate must be greater than zero."
        assert isinstance(gamma, (float, int, torch.Tensor)), "Gamma must be a float."
        assert isinstance(tau, float), "Tau must be a float."
        assert tau > 0, "Tau must be greater than zero."
        assert isinstance(
            double,
            bool,
        ), "Double Q-learning flag must be boolean value True or False."
        assert isinstance(
            wrap,
            bool,
        ), "Wrap models flag must be boolean value True or False."

        self.batch_size = batch_size
        self.lr = lr
        self.gamma = gamma
        self.learn_step = learn_step
        self.tau = tau
        self.mut = mut
        self.double = double
        self.net_config = net_config

        # Default RL hyperparameters to mutate when doing Evo-HPO
        self.hp_config = self.hp_config or make_default_hp_config(
            lr=self.lr,
            batch_size=self.batch_size,
            learn_step=self.learn_step,
        )

        if actor_network is not None:
            if not isinstance(actor_network, EvolvableModule):
                msg = f"'actor_network' argument is of type {type(actor_network)}, but must be of type EvolvableModule."
                raise TypeError(
                    msg,
                )

            # Need to make deepcopies for target and detached networks.
            self.actor, self.actor_target = make_safe_deepcopies(
                actor_network,
                actor_network,
            )
        else:
            net_config = {} if net_config is None else net_config

            def create_actor() -> QNetwork:
                return QNetwork(
                    observation_space=self.observation_space,
                    action_space=self.action_space,
                    device=self.device,
                    **net_config,
                )

            self.actor = create_actor()
            self.actor_target = create_actor()

        self.actor_target.load_state_dict(self.actor.state_dict())

        self._actor_mode_invariant = is_train_eval_invariant(self.actor)

        # Initialize optimizer
        self.optimizer = OptimizerWrapper(
            optim.Adam,
            networks=self.actor,
            lr=self.lr,
            optimizer_kwargs=adam_kwargs(self.device, self.accelerator),
        )

        if self.accelerator is not None and wrap:
            self.wrap_models()

        self.criterion = nn.MSELoss()

        # Register policy for mutations
        self.register_network_group(
            NetworkGroup(
                eval_network=self.actor,
                shared_networks=self.actor_target,
                policy=True,
            ),
        )

        # Register metrics to keep track of during training
        self.metrics.register("loss")

    def get_action(
        self,
        obs: ObservationType,
        epsilon: float = 0,
        action_mask: ActionMaskInput = None,
        *args: Any,
        **kwargs: Any,
    ) -> npt.NDArray:
        """Return the next action to take in the environment. Epsilon is the
        probability of taking a random action, used for exploration.
        For greedy behaviour, set epsilon to 0.

        :param obs: State observation, or multiple observations in a batch
        :type obs: numpy.ndarray[float]
        :param epsilon: Probability of taking a random action for exploration, defaults to 0
        :type epsilon: float, optional
        :param action_mask: Mask of legal actions 1=legal 0=illegal, defaults to None
        :type action_mask: ActionMaskInput

        :return: Action to take in the environment
        :rtype: numpy.ndarray[int]
        """
        obs = self.preprocess_observation(obs)

        # epsilon-greedy
        if random.random() < epsilon:
            if action_mask is None:
                action = np.random.randint(0, self.action_dim, size=len(obs))
            else:
                mask = numpy_action_mask(action_mask)
                action = np.argmax(
                    (np.random.uniform(0, 1, (len(obs), self.action_dim)) * mask),
                    axis=1,
                )
        else:
            with eval_mode(self.actor, mode_invariant=self._actor_mode_invariant):
                with torch.no_grad():
                    action_values = self.actor(obs).cpu().data.numpy()

            if action_mask is None:
                action = np.argmax(action_values, axis=-1)
            else:
                inv_mask = 1 - numpy_action_mask(action_mask)
                masked_action_values = np.ma.array(action_values, mask=inv_mask)
                action = np.argmax(masked_action_values, axis=-1)

        return action

    def learn(self, experiences: TensorDict) -> float:
        """Update agent network parameters to learn from experiences.

        :param experiences: Batch of observations, actions, rewards, next
            observations and dones sampled from an off-policy replay buffer.
        :type experiences: TensorDict

        :return: Loss from learning
        :rtype: float
        """
        batch: ReplayBatch = ReplayBatch.from_tensordict(experiences)
        states = batch.obs
        actions = batch.action
        rewards = batch.reward
        next_states = batch.next_obs
        dones = batch.done

        if self.accelerator is not None:
            actions = actions.to(self.accelerator.device)
            rewards = rewards.to(self.accelerator.device)
            dones = dones.to(self.accelerator.device)

        states = self.preprocess_observation(states)
        next_states = self.preprocess_observation(next_states)

        if self.double:  # Double Q-learning
            q_idx = self.actor(next_states).argmax(dim=1).unsqueeze(1)
            q_target_next = (
                self.actor_target(next_states).gather(dim=1, index=q_idx).detach()
            )
        else:
            q_target_next = (
                self.actor_target(next_states).detach().max(dim=1)[0].unsqueeze(1)
            )

        # target, if terminal then y_j = rewards
        q_target = rewards + self.gamma * q_target_next * (1 - dones)
        q_a_s = self.actor(states)
        q_eval = q_a_s.gather(1, actions.long())

        # loss backprop
        cql1_loss = torch.logsumexp(q_a_s, dim=1).mean() - q_a_s.mean()
        loss = self.criterion(q_eval, q_target)
        q1_loss = cql1_loss + 0.5 * loss
        self.optimizer.zero_grad()
        if self.accelerator is not None:
            self.accelerator.backward(q1_loss)
        else:
            q1_loss.backward()

        clip_grad_norm_(self.actor.parameters(), 1)
        self.optimizer.step()

        # soft update target network
        self.soft_update()

        loss = q1_loss.item()
        self.metrics.log("loss", loss)
        return loss

    def soft_update(self) -> None:
        """Soft updates target network."""
        polyak_update(self.actor, self.actor_target, self.tau)

    def test(
        self,
        env: gym.vector.VectorEnv,
        max_steps: int | None = None,
        loop: int = 3,
    ) -> float:
        """Return mean test score of agent in environment with epsilon-greedy policy.

        :param env: The vectorized environment to be tested in
        :type env: gym.vector.VectorEnv
        :param max_steps: Maximum number of testing steps, defaults to None.
        :type max_steps: int, optional
        :param loop: Number of testing loops/episodes to complete. The returned score is the mean. Defaults to 3
        :type loop: int, optional
        """
        self.set_training_mode(False)

        with torch.no_grad():
            rewards = []
            num_envs = env.num_envs if hasattr(env, "num_envs") else 1
            for _i in range(loop):
                obs, info = env.reset()
                scores = np.zeros(num_envs)
                completed_episode_scores = np.zeros(num_envs)
                finished = np.zeros(num_envs)
                step = 0
                while not np.all(finished):
                    action_mask = info.get("action_mask", None)
                    action = self.get_action(obs, epsilon=0, action_mask=action_mask)
                    obs, reward, done, trunc, info = env.step(action)
                    step += 1
                    scores += np.array(reward)
                    for idx, (d, t) in enumerate(zip(done, trunc, strict=False)):
                        if (
                            d or t or (max_steps is not None and step == max_steps)
                        ) and not finished[idx]:
                            completed_episode_scores[idx] = scores[idx]
                            finished[idx] = 1
                rewards.append(np.mean(completed_episode_scores))
        mean_fit = float(np.mean(rewards))
        self.metrics.add_fitness(mean_fit)
        return mean_fit
