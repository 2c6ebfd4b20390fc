from shared_types.comfort_reports import comfort_key, merge_reports


def _shot(start, end, cut, near=1.0, outside=0.0):
    return {"start_s": start, "end_s": end, "frames": round((end - start) * 24),
            "opens_at_cut": cut, "near_px": near, "far_px": 2.0, "near_deg": None,
            "far_deg": None, "outside_zone_s": outside, "edge_violation_s": 0.0,
            "window": False}


def test_a_segment_that_does_not_open_at_a_cut_continues_the_shot_before():
    first = {"version": 1, "shots": [_shot(0, 4, None), _shot(4, 10, True, outside=1.0)]}
    second = {"version": 1, "shots": [_shot(10, 12, None, near=5.0, outside=0.5),
                                      _shot(12, 20, True)]}
    merged = merge_reports([first, second])
    assert [(s["start_s"], s["end_s"]) for s in merged["shots"]] == [(0, 4), (4, 12), (12, 20)]
    joined = merged["shots"][1]
    assert (joined["near_px"], joined["outside_zone_s"], joined["frames"]) == (5.0, 1.5, 192)


def test_a_segment_opening_at_a_cut_starts_a_shot():
    first = {"version": 1, "shots": [_shot(0, 10, None)]}
    second = {"version": 1, "shots": [_shot(10, 20, True)]}
    assert len(merge_reports([first, second])["shots"]) == 2


def test_the_report_key_raises_no_video_event():
    key = comfort_key("jobs/j/segments/r1/3.mp4")
    assert key == "jobs/j/segments/r1/3.mp4.comfort.json" and not key.endswith(".mp4")
