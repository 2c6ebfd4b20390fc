"""Inference dispatch, segment completion tracking, reassembly trigger."""
