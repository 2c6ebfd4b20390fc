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
    backbone = Dinov2Config(
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
