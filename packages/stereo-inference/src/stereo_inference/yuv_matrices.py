"""YUV matrices by FFmpeg's numbers, for the engine's own YUV <-> RGB arithmetic.

``KR_KB``: each matrix's luma weights of red and blue (green's is what is
left), keyed by FFmpeg's ``AVColorSpace`` number; ``FULL_RANGE``: FFmpeg's
``AVCOL_RANGE_JPEG`` (0..255 rather than 16..235). Used by the GPU's depth
input (``device_frames``) and the HDR tone mapper (``tonemap``).
"""

KR_KB = {1: (0.2126, 0.0722), 5: (0.299, 0.114), 6: (0.299, 0.114), 9: (0.2627, 0.0593),
         10: (0.2627, 0.0593)}  # BT.709, BT.601 (twice), BT.2020 (non-constant, constant)
FULL_RANGE = 2
