"""Reading a picture's captions keeps no reference to the picture: a decoded
frame, megabytes at 1080p, is freed as soon as the decoder is done with it."""

import gc
import sys

import av
from stereo_media.testing.captions import make_captioned_video

from stereo_inference.picture_captions import PictureCaptions


def test_captions_are_read_by_pts_and_the_frame_is_not_held(tmp_path):
    video = make_captioned_video(tmp_path / "captioned.mp4", seconds=1.0)
    captions = PictureCaptions()
    gc.disable()  # a reference cycle would keep the frame until the collector ran
    try:
        with av.open(str(video)) as container:
            for frame in container.decode(video=0):
                before = sys.getrefcount(frame)
                captions.read(frame)
                assert sys.getrefcount(frame) == before
                cached = sys.getrefcount(frame.side_data)  # the property PyAV caches
                assert sys.getrefcount(frame) > before and cached  # (it does hold one)
                break
    finally:
        gc.enable()
    assert list(captions.take()) == [frame.pts]
    assert captions.take() == {}
