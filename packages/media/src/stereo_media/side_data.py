"""The side data of a decoded PyAV frame (stereo packing, HDR, captions...).

PyAV's type stub declares ``Frame.side_data`` as a dict of motion vectors; at
run time it is a ``SideDataContainer`` of ``SideData`` entries, each with a
``type``. This is the one place that reads it, typed as it really is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # av is imported by what decodes the frame, not here
    from av.sidedata.sidedata import SideData, SideDataContainer


def side_data(frame: Any) -> list[SideData]:
    """Every side-data entry of ``frame`` (a decoded av.VideoFrame), in order."""
    container: SideDataContainer = frame.side_data
    return list(container)


def side_data_names(frame: Any) -> set[str]:
    """The type names of ``frame``'s side data (``STEREO3D``, ``MASTERING_DISPLAY_METADATA``...)."""
    return {entry.type.name for entry in side_data(frame)}
