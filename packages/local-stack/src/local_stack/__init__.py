"""The stereo-spot CLI: convert one file end to end, or serve the whole stack locally."""
