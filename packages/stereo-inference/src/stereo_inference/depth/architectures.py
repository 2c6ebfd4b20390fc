"""Depth-Anything-V2 architectures (sizes only, no weights).

Used to build randomly initialised models for tests and GPU benchmarks, where
real weights cannot be downloaded. Hub repositories: ``stereo_models.depth_models``.
"""

from __future__ import annotations

# hidden, layers, heads, backbone out indices, neck sizes, fusion size
_SIZES = {
    "depth-anything-v2-small": (384, 12, 6, [3, 6, 9, 12], [48, 96, 192, 384], 64),
    "depth-anything-v2-base": (768, 12, 12, [3, 6, 9, 12], [96, 192, 384, 768], 128),
    "depth-anything-v2-large": (1024, 24, 16, [5, 12, 18, 24], [256, 512, 1024, 1024], 256),
    # Video-Depth-Anything-Small: DA-V2-Small with temporal layers (video_depth_anything)
    "video-depth-anything-small": (384, 12, 6, [3, 6, 9, 12], [48, 96, 192, 384], 64),
    # Distill-Any-Depth: the same architecture, other weights
    "distill-any-depth-small": (384, 12, 6, [3, 6, 9, 12], [48, 96, 192, 384], 64),
    "distill-any-depth-large": (1024, 24, 16, [5, 12, 18, 24], [256, 512, 1024, 1024], 256),
    # A few kilobytes of parameters: exercises the real loading and inference code.
    "tiny": (32, 4, 2, [1, 2, 3, 4], [8, 16, 32, 32], 16),
}


def depth_anything_config(name: str):
    """A transformers DepthAnythingConfig for ``name`` (a DA2 size or ``tiny``).

    Raises KeyError for an unknown name.
    """
    from transformers import DepthAnythingConfig, Dinov2Config

    hidden, layers, heads, out_indices, neck, fusion = _SIZES[name]
    # transformers' signature names it _out_indices; out_indices is what it reads
    backbone = Dinov2Config(  # type: ignore[call-arg]
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        image_size=518,
        patch_size=14,
        out_indices=out_indices,
        apply_layernorm=True,
        reshape_hidden_states=False,
    )
    return DepthAnythingConfig(
        backbone_config=backbone,
        reassemble_hidden_size=hidden,
        neck_hidden_sizes=neck,
        fusion_hidden_size=fusion,
        head_hidden_size=32,
        depth_estimation_type="relative",
    )


def random_depth_anything(name: str, *, seed: int = 0):
    """A DepthAnythingForDepthEstimation with the architecture of ``name`` and
    random weights (for benchmarks and tests; its depth is meaningless)."""
    import torch
    from transformers import DepthAnythingForDepthEstimation

    torch.manual_seed(seed)
    return DepthAnythingForDepthEstimation(depth_anything_config(name)).eval()


def save_random_model(folder, name: str = "tiny", *, seed: int = 0,
                      input_size: int | None = None) -> None:
    """``random_depth_anything(name)`` saved in ``folder`` as a downloaded model is,
    with a ``preprocessor_config.json`` like the hub's (transformers' DPT image
    processor) whose ``size`` is ``input_size`` (None: none written, so 518)."""
    import json
    from pathlib import Path

    folder = Path(folder)
    random_depth_anything(name, seed=seed).save_pretrained(folder)
    if input_size is not None:
        (folder / "preprocessor_config.json").write_text(json.dumps({
            "image_processor_type": "DPTImageProcessor", "do_resize": True,
            "size": {"height": input_size, "width": input_size}, "keep_aspect_ratio": True,
            "ensure_multiple_of": 14, "resample": 3, "do_rescale": True,
            "rescale_factor": 1 / 255, "do_normalize": True,
            "image_mean": [0.485, 0.456, 0.406], "image_std": [0.229, 0.224, 0.225]}))


def random_video_depth_anything(name: str = "tiny", *, seed: int = 0):
    """A Video-Depth-Anything (``depth.video_depth_anything``) on ``name``'s
    Depth-Anything-V2 architecture, with random weights (tests and benchmarks)."""
    import torch

    from stereo_inference.depth.video_depth_anything import VideoDepthAnything

    torch.manual_seed(seed)
    heads = 8 if name != "tiny" else 2
    return VideoDepthAnything(depth_anything_config(name), {"heads": heads}).eval()
