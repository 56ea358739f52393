#!/usr/bin/env python
"""This is a class called HFDecoderModel which is a wrapper around transformers model and
tokenizer classes. It has several methods such as __init__, tokenize, and train that are
used for training and fine-tuning the model. The __init__ method takes in several arguments
such as model_args which are used to load the pretrained
model and tokenizer, and initialize the training settings.

The tokenize method is used to tokenize the input text and return the input IDs and attention
masks that can be fed to the model for training or inference.

Overall, this class provides a convenient interface for loading and fine-tuning transformer
models and can be used for various NLP tasks such as language modeling, text classification,
and question answering.
"""

import hashlib
import logging
import os
from typing import Literal, Optional, Union

import numpy as np
import torch
from peft import PeftModel
from transformers import (
    AutoConfig,
    AutoModelForCausalLM,
)

from lmflow.datasets.dataset import Dataset
from lmflow.models.decoder_model import DecoderModel
from lmflow.models.hf_model_mixin import HFModelMixin
from lmflow.models.interfaces.tunable import Tunable
from lmflow.tokenization.hf_decoder_model import conversation_tokenize_function, tokenize_function
from lmflow.utils.constants import (
    CONVERSATION_DATASET_DESCRIPTION,
    TEXT2TEXT_DATASET_DESCRIPTION,
    TEXT_ONLY_DATASET_DESCRIPTION,
)
from lmflow.utils.conversation_template import PRESET_TEMPLATES
from lmflow.utils.data_utils import VLLMInferenceResultWithInput
from lmflow.utils.deprecated import deprecated_args
from lmflow.utils.envs import is_accelerate_env
from lmflow.utils.versioning import is_flash_attn_available, is_ray_available, is_vllm_available
from lmflow.utils.protocol import DataProto

logger = logging.getLogger(__name__)


if is_flash_attn_available():
    pass
else:
    logger.warning("Consider install flash_attn for better performance.")

if is_vllm_available():
    from vllm import SamplingParams

if is_ray_available():
    import ray
    import ray.data


class HFDecoderModel(DecoderModel, HFModelMixin, Tunable):
    r"""
    Initializes a HFDecoderModel instance.

    Parameters
    ------------

    model_args :
        Model arguments such as model name, path, revision, etc.

    do_train : bool, default True
        Determines whether to prepare the model for training, including distribtued env, model placement, quantization,
        lora, etc.

    args : Optional.
        Positional arguments.

    kwargs : Optional.
        Keyword arguments.
    """

    def __init__(self, model_args, do_train=True, device="gpu", **kwargs):
        HFModelMixin.__init__(self, model_args=model_args, do_train=do_train, device=device, **kwargs)

    def tokenize(self, dataset: Dataset, add_special_tokens=True, *args, **kwargs) -> Dataset:
        """
        Tokenize the full dataset.

        Parameters
        ------------
        dataset : lmflow.datasets.Dataset.

        args : Optional.
            Positional arguments.

        kwargs : Optional.
            Keyword arguments.

        Returns
        ------------
        tokenized_datasets :
            The tokenized dataset, without any leading or trailing special
            tokens (normally they are Begin-Of-Sentence or End-Of-Sentence
            tokens).
        """
        # Preprocessing the datasets.
        # First we tokenize all the texts.
        if dataset.get_backend() != "huggingface":
            raise NotImplementedError("tokenization of datasets with non-huggingface backend are not supported yet")

        dataset_type = dataset.get_type()
        model_args = self.model_args
        raw_datasets = dataset
        hf_raw_datasets = dataset.get_backend_dataset()
        column_names = list(hf_raw_datasets.features)
        data_args = raw_datasets.get_data_args()

        if data_args.block_size is None:
            data_args.block_size = self.tokenizer.model_max_length
            logger.warning(
                f"`block_size` is not provided. Using tokenizer.model_max_length={self.tokenizer.model_max_length}."
            )

        # Requires three types of information for tokenizing different datasets
        #   1) Which fields require tokenization, e.g.
        #        "text2float": "text", but not "float"
        #        "text2text": both "input" and "output"
        #   2) How will there tokenized sequence concatenated together, e.g.
        #        "text_only": "text" -> "text"
        #        "text2text": "input", "output" -> "input" + "output"
        #   3) Which fields require loss in final computation, e.g.
        #        "text_only": "text"
        #        "text2text": "output" only
        tokenized_column_order = None  # Handles 1) and 2)
        label_columns = None  # Handles 3)
        if dataset_type == "text_only":
            tokenized_column_order = ["text"]
            label_columns = ["text"]
        elif dataset_type == "text2text":
            tokenized_column_order = ["input", "output"]
            label_columns = ["output"]
            add_special_tokens = False
        elif dataset_type == "conversation":
            if data_args.conversation_template:
                if data_args.conversation_template == "tokenizer":
                    if getattr(self.tokenizer, "chat_template", None):
                        conversation_template = self.tokenizer.chat_template
                    else:
                        raise NotImplementedError(
                            "Requested tokenizer chat template, but tokenizer.chat_template is not available."
                        )
                elif data_args.conversation_template == "hf_auto":
                    if getattr(self.tokenizer, "chat_template", None):
                        conversation_template = self.tokenizer.chat_template
                    else:
                        logger.warning(
                            "Requested `hf_auto`, but tokenizer.chat_template is unavailable. "
                            "Falling back to LMFlow default template."
                        )
                        conversation_template = PRESET_TEMPLATES["empty"]
                elif data_args.conversation_template in PRESET_TEMPLATES.keys():
                    conversation_template = PRESET_TEMPLATES[data_args.conversation_template]
                else:
                    raise NotImplementedError(
                        f"Conversation template {data_args.conversation_template} is not supported yet."
                    )
            else:
                if getattr(self.tokenizer, "chat_template", None):
                    logger.warning("No conversation template provided. Using tokenizer.chat_template.")
                    conversation_template = self.tokenizer.chat_template
                else:
                    logger.warning("No conversation template provided. Using default template.")
                    conversation_template = PRESET_TEMPLATES["empty"]

            logger.warning(f"Conversation template: {conversation_template}")
        else:
            raise NotImplementedError(
                f'dataset type "{dataset_type}" is not supported, currently'
                " only support following data types:\n"
                f"    1) {TEXT_ONLY_DATASET_DESCRIPTION}\n"
                f"    2) {TEXT2TEXT_DATASET_DESCRIPTION}\n"
                f"    3) {CONVERSATION_DATASET_DESCRIPTION}\n"
            )

        # Whether to truncate long sequences to fit into max_length
        use_truncation = False
        if model_args.use_lora or data_args.disable_group_texts:
            use_truncation = True

        tokenize_fn = conversation_tokenize_function if "conversation" in dataset_type else tokenize_function
        tokenize_fn_kwargs = {
            "data_args": data_args,
            "tokenizer": self.tokenizer,
            "column_names": column_names,
        }
        if "conversation" in dataset_type:
            tokenize_fn_kwargs["conversation_template"] = conversation_template
        else:
            tokenize_fn_kwargs["label_columns"] = label_columns
            tokenize_fn_kwargs["tokenized_column_order"] = tokenized_column_order
            tokenize_fn_kwargs["add_special_tokens"] = add_special_tokens
            tokenize_fn_kwargs["use_truncation"] = use_truncation

        tokenize_kwargs = {}
        if not data_args.streaming:
            fingerprint = hashlib.md5(
                (
                    raw_datasets.get_fingerprint()
                    + str(self.tokenizer)
                    + f"###padding_side={self.tokenizer.padding_side}"
                    + (
                        "###conversation_template=" + str(conversation_template)
                        if "conversation" in dataset_type
                        else ""
                    )
                    + f"###disable_group_texts={data_args.disable_group_texts}"
                    + f"###block_size={data_args.block_size}"
                ).encode("utf-8")
            ).hexdigest()
            tokenize_kwargs = {
                "num_proc": data_args.preprocessing_num_workers,
                "load_from_cache_file": not data_args.overwrite_cache,
                "desc": "Running tokenizer on dataset",
                "new_fingerprint": fingerprint,
            }

        if data_args.block_size < self.tokenizer.model_max_length:
            logger.warning(
                f"block_size {data_args.block_size} < model_max_length {self.tokenizer.model_max_length}, "
                "use block_size for maximum tokenized sequence length."
            )
        tokenized_datasets = raw_datasets.map(
            tokenize_fn, batched=True, remove_columns=column_names, fn_kwargs=tokenize_fn_kwargs, **tokenize_kwargs
        )

        return tokenized_datasets

    def encode(self, input: Union[str, list[str]], *args, **kwargs) -> Union[list[int], list[list[int]]]:
        """
        Perform encoding process of the tokenizer.

        Parameters
        ------------
        inputs : str or list.
            The text sequence.

        args : Optional.
            Positional arguments.

        kwargs : Optional.
            Keyword arguments.

        Returns
        ------------
        outputs :
            if string input,return the tokenized inputs.
            "Hello,world!"-> [101, 7592, 1010, 2088, 102]
            if batch input,return {input_ids,attention_mask,token_type_ids}
            ["Hello,world!","Hello!"] ->
            {
                'input_ids': tensor([[  101,  7592,  1010,  2088,   102],...),
                'attention_mask': tensor([[1, 1, 1, 1, 1],[0,0,1,1,1]])
            }
        """
        if isinstance(input, list):
            return self.tokenizer(text=input, **kwargs)  # batch encode,will automatically do left padding
        elif isinstance(input, str):
            return self.tokenizer.encode(text=input, **kwargs)
        else:
            raise NotImplementedError(f'type "{type(input)}" cannot be encoded')

    def decode(self, input, **kwargs) -> Union[str, list[str]]:
        """
        Perform decoding process of the tokenizer.

        Parameters
        ------------
        inputs : list or tensor.
            The token sequence.

        args : Optional.
            Positional arguments.

        kwargs : Optional.
            Keyword arguments.

        Returns
        ------------
        outputs :
            The text decoded from the token inputs.
            if batch input,return the list of text
            [[101, 7592, 1010, 2088, 102],[101, 7592, 1010, 2088, 102]]-> ["Hello,world!","Hello,world!"
            if single input,return the text
            [101, 7592, 1010, 2088, 102]-> "Hello,world!"
        """
        if isinstance(input, list):
            input = torch.tensor(input)
        if input.dim() == 2:
            return self.tokenizer.batch_decode(input, **kwargs)  # batch_decode
        else:
            # Can be list of ints or a Tensor
            return self.tokenizer.decode(input, **kwargs)

    @deprecated_args(
        use_vllm={
            "replacement": "inference_engine",
            "mapper": lambda x: "vllm" if x is True else "huggingface",
            "message": (
                "use_vllm is deprecated and will be removed in a future version. "
                "Please use `inference_engine='vllm'` instead."
            ),
        }
    )
    def inference(
        self,
        inputs: Union[str, list[str], torch.Tensor, DataProto],
        sampling_params: Optional[Union[dict, "SamplingParams"]] = None,
        return_logprob: bool = False,
        release_gpu: bool = False,
        inference_engine: Literal["huggingface", "vllm", "sglang"] = "huggingface",
        gpu_memory_utilization: Optional[float] = None,
        tensor_parallel_size: Optional[int] = None,
        enable_deterministic_inference: bool = False,
        attention_backend: Optional[str] = None,
        **kwargs,
    ) -> Union[list[VLLMInferenceResultWithInput] | DataProto]:
        """
        Perform generation process of the model.

        Parameters
        ------------
        inputs : Union[str, list[str], torch.Tensor, DataProto]
            The sequence used as a prompt for the generation or as model inputs to the model.
            When the inference engine is "vllm", this should be a string or a list of strings.
            When the inference engine is "huggingface", this should be a tensor.
            When the inference engine is "sglang", this should be a DataProto.
        sampling_params : Optional[Union[dict, "SamplingParams"]], optional
            The sampling parameters to use, by default None.
        return_logprob : bool, optional
            Whether to return log probability during inference, by default False.
        release_gpu : bool, optional
            Whether to release the GPU resource after inference, by default False.
        inference_engine : Literal["huggingface", "vllm", "sglang"], optional
            The inference engine to use, by default "huggingface".
        gpu_memory_utilization : float, optional
            The GPU memory utilization to use, by default None.
        tensor_parallel_size : int, optional
            The tensor parallel size to use, by default None.
        enable_deterministic_inference : bool, optional
            Whether to enable deterministic inference, by default False.
        attention_backend : Optional[str], optional
            The attention backend to use, by default None.

        Returns
        ------------
        outputs :
            The generated sequence output
        """
        if isinstance(inputs, str):
            inputs = [inputs]

        if not self._activated:
            self.activate_model_for_inference(
                inference_engine=inference_engine,
                gpu_memory_utilization=gpu_memory_utilization,
                tensor_parallel_size=tensor_parallel_size,
                enable_deterministic_inference=enable_deterministic_inference,
                attention_backend=attention_backend,
            )

        if inference_engine == "vllm":
            res = self.__vllm_inference(inputs=inputs, sampling_params=sampling_params)
        elif inference_engine == "sglang":
            res = self.__sglang_inference(
                inputs=inputs,
                return_logprob=return_logprob,
            )
        else:
            res = self.__inference(inputs=inputs, **kwargs)

        if release_gpu:
            self.deactivate_model_for_inference(inference_engine=inference_engine)

        return res

    def __inference(self, inputs, *args, **kwargs):
        """
        Perform generation process of the model.

        Parameters
        ------------
        inputs :
            The **tokenized** sequence used as a prompt for the generation or as model inputs to the model.

        args : Optional.
            Positional arguments.

        kwargs : Optional.
            Keyword arguments.

        Returns
        ------------
        outputs :
            The generated sequence output
        """
        with torch.no_grad():
            if is_accelerate_env():
                outputs = self.backend_model.generate(
                    input_ids=inputs, pad_token_id=self.tokenizer.pad_token_id, **kwargs
                )
            else:
                if self.device == "gpu":
                    outputs = self.ds_engine.module.generate(
                        input_ids=inputs, synced_gpus=True, pad_token_id=self.tokenizer.pad_token_id, **kwargs
                    )
                elif self.device == "cpu":
                    outputs = self.backend_model.generate(
                        input_ids=inputs, synced_gpus=True, pad_token_id=self.tokenizer.pad_token_id, **kwargs
                    )
                else:
                    raise NotImplementedError(f'device "{self.device}" is not supported')
        return outputs

    def __vllm_inference(
        self,
        inputs: list[str],
        sampling_params: Optional["SamplingParams"] = None,
    ) -> list[VLLMInferenceResultWithInput]:
        """Perform VLLM inference process of the model.

        Parameters
        ----------
        inputs : list[str]
            Prompt(s), string or a list of strings.
        sampling_params : Optional[SamplingParams], optional
            vllm SamplingParams object, by default None.

        Returns
        -------
        list[VLLMInferenceResultWithInput]
            Return a list of VLLMInferenceResultWithInput, where each
            element contains the input prompt and the corresponding output.

            When `sampling_params.detokenize = True`, the output would be a list of strings,
            contains sampling_params.n samples for the corresponding prompt.

            When `sampling_params.detokenize = False`, return a list of list of ints
            (token ids, no decoding after generation).
        """
        vllm_outputs = self.backend_model_for_inference.generate(
            inputs,
            sampling_params=sampling_params,
            use_tqdm=True,
        )
        # TODO: unified lmflow sample format
        final_output = []
        for output in vllm_outputs:
            if sampling_params.detokenize:
                output_list = [sentence.text for sentence in output.outputs]
            else:
                output_list = [sentence.token_ids for sentence in output.outputs]

            final_output.append({"input": output.prompt, "output": output_list})

        return final_output

    def __sglang_inference(
        self,
        inputs: DataProto,
        return_logprob: bool = False,
    ) -> DataProto:
        """Perform SGLang inference process of the model."""
        sglang_outputs = self.backend_model_for_inference.generate(
            prompt=inputs.non_tensor_batch["inputs"].tolist(), # use tensor instead of str later
            sampling_params=inputs.meta_info["sampling_params"],
            return_logprob=return_logprob,
        )
        inputs.non_tensor_batch["outputs"] = [output["text"] for output in sglang_outputs]
        # TODO: padding for batching the output ids; generatin details
        return inputs

    @deprecated_args(
        use_vllm={
            "replacement": "inference_engine",
            "mapper": lambda x: "vllm" if x is True else "huggingface",
            "message": (
                "use_vllm is deprecated and will be removed in a future version. "
                "Please use `inference_engine='vllm'` instead."
            ),
        }
    )
    def prepare_inputs_for_inference(
        self,
        dataset: Dataset,
        apply_chat_template: bool = True,
        inference_engine: Literal["huggingface", "vllm", "sglang"] = "huggingface",
        enable_distributed_inference: bool = False,
        sampling_params: Optional[dict] = None,
    ) -> Union[list[str], "ray.data.Dataset", DataProto]:
        if dataset.get_type() == "text_only":
            if apply_chat_template:
                dataset = dataset.map(
                    lambda sample: {
                        "templated": self.tokenizer.apply_chat_template(
                            [{"role": "user", "content": sample["text"]}], tokenize=False, add_generation_prompt=True
                        )
                    },
                    num_proc=dataset.data_args.preprocessing_num_workers,
                )
                inference_inputs = dataset.get_backend_dataset()["templated"]
            else:
                inference_inputs = dataset.get_backend_dataset()["text"]

        elif dataset.get_type() == "text2text":
            logger.warning("For a text2text dataset, only `input` will be used as the model input.")
            if apply_chat_template:
                dataset = dataset.map(
                    lambda sample: {
                        "templated": self.tokenizer.apply_chat_template(
                            conversation=[{"role": "user", "content": sample["input"]}],
                            tokenize=False,
                            add_generation_prompt=True,
                        )
                    },
                    num_proc=dataset.data_args.preprocessing_num_workers,
                )
                inference_inputs = dataset.get_backend_dataset()["templated"]
            else:
                inference_inputs = dataset.get_backend_dataset()["input"]

        elif dataset.get_type() == "conversation":
            if apply_chat_template:

                def preprocess_conversation(sample):
                    conversation = sample["messages"][:-1] if len(sample["messages"]) % 2 == 0 else sample["messages"]

                    if sample["messages"][-1]["role"] != "user":
                        logger.warning(
                            "Not a valid conversation for generation, since the conversation "
                            "doesn't end up with an user message. Skip."
                        )
                        sample_out = {"templated": ""}
                    else:
                        sample_out = {
                            "templated": self.tokenizer.apply_chat_template(
                                conversation=conversation,
                                tokenize=False,
                                add_generation_prompt=True,
                            )
                        }

                    return sample_out

                # TODO: investigate performance issue
                dataset = dataset.map(
                    preprocess_conversation,
                    num_proc=dataset.data_args.preprocessing_num_workers,
                )
                inference_inputs = dataset.get_backend_dataset()["templated"]
            else:
                logger.warning(
                    "Your dataset is `conversation` type but `apply_chat_template` is set to False. "
                    "Will use the first user input in conversation as model input."
                )
                inference_inputs = [
                    conversation[0]["content"] for conversation in dataset.get_backend_dataset()["messages"]
                ]

        else:
            raise NotImplementedError(f"Currently `{dataset.get_type()}` data are not supported for vllm inference.")

        inference_inputs = [sentence for sentence in inference_inputs if len(sentence) > 0]

        if inference_engine == "vllm" and enable_distributed_inference:
            inference_inputs = ray.data.from_items(
                inference_inputs
            )  # -> dict[str, np.ndarray], {"item": array(['...', '...', '...'])}

        if inference_engine == "sglang":
            if self.tokenizer.bos_token:
                # in consistent with sglang bench_serving.py demo
                inference_inputs = [sentence.replace(self.tokenizer.bos_token, "") for sentence in inference_inputs]

            # currently only test dataproto on sglang inference
            inference_inputs = np.array(inference_inputs)
            inference_inputs = DataProto.from_single_dict(
                data={"inputs": inference_inputs},
                meta_info={"sampling_params": {**sampling_params, "n": 1}, "actual_n_rollouts": sampling_params["n"]}
            )
            
            # handling n>1 since we don't want one-to-many mapping. Later this will be applied to all inference engines.
            inference_inputs = inference_inputs.repeat(sampling_params["n"])

        return inference_inputs

    def merge_lora_weights(self):
        if self.model_args.use_lora and not self.model_args.use_qlora:
            self.get_backend_model().merge_and_unload()
        elif self.model_args.use_qlora:
            logger.warning(
                "Reloading base model in 16-bit precision to merge adapter weights. NOTE: Your device must have"
                "sufficient memory to reload the model in half-precision without quantization."
            )
            self.get_peft_without_qlora()
            self.get_backend_model().merge_and_unload()
        else:
            logger.warning("LoRA training is NOT enabled. Merging LoRA weights is not applicable.")

    def get_peft_without_qlora(self):
        import tempfile

        with tempfile.TemporaryDirectory() as tmpdirname:
            print("created temporary directory", tmpdirname)

            self.get_backend_model().save_pretrained(tmpdirname)

            torch_dtype = (
                self.model_args.torch_dtype
                if self.model_args.torch_dtype in ["auto", None]
                else getattr(torch, self.model_args.torch_dtype)
            )
            config_kwargs = {
                "cache_dir": self.model_args.cache_dir,
                "revision": self.model_args.model_revision,
                "token": self.model_args.token,
            }
            config = AutoConfig.from_pretrained(self.model_args.model_name_or_path, **config_kwargs)
            device_map = "auto"
            if os.environ.get("LOCAL_RANK") is not None:
                local_rank = int(os.environ.get("LOCAL_RANK", "0"))
                device_map = {"": local_rank}

            self.backend_model_full = AutoModelForCausalLM.from_pretrained(
                self.model_args.model_name_or_path,
                from_tf=bool(".ckpt" in self.model_args.model_name_or_path),
                config=config,
                cache_dir=self.model_args.cache_dir,
                revision=self.model_args.model_revision,
                token=self.model_args.token,
                torch_dtype=torch_dtype,
                device_map=device_map,
                trust_remote_code=self.model_args.trust_remote_code,
                attn_implementation="flash_attention_2" if self.model_args.use_flash_attention else None,
            )

            self.backend_model = PeftModel.from_pretrained(self.backend_model_full, tmpdirname)

    def save(self, dir, save_full_model=False, *args, **kwargs):
        """
        Perform generation process of the model.

        Parameters
        ------------
        dir :
            The directory to save model and tokenizer

        save_full_model : Optional.
            Whether to save full model.

        kwargs : Optional.
            Keyword arguments.

        Returns
        ------------
        outputs :
            The generated sequence output
        """
        self.get_tokenizer().save_pretrained(dir)
        if save_full_model and self.model_args.use_lora:
            save_dtype = (
                torch.float16
                if self.model_args.torch_dtype in ["auto", None]
                else getattr(torch, self.model_args.torch_dtype)
            )
            self.backend_model_full.to(dtype=save_dtype).save_pretrained(dir)
            logger.warning(f"Save full model with dtype: {save_dtype}")
        else:
            self.get_backend_model().save_pretrained(dir)
