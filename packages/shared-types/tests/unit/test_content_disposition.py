from shared_types.content_disposition import content_disposition


def test_a_download_name_becomes_a_safe_attachment_header():
    header = content_disposition('évasion "3D";\r\nX: y_LRF_Full_SBS.mp4')
    assert header.startswith('attachment; filename="')
    assert "\r" not in header and "\n" not in header
    assert header.count('"') == 2
    assert "filename*=UTF-8''%C3%A9vasion" in header


def test_the_ascii_fallback_replaces_what_ascii_cannot_say():
    value = content_disposition('my "3D" vidéo.mp4')
    assert value.startswith('attachment; filename="my _3D_ vid_o.mp4"')
    assert "filename*=UTF-8''my%20_3D_%20vid%C3%A9o.mp4" in value


def test_control_characters_and_empty_names_never_reach_the_header():
    assert content_disposition("a\r\nb\x00.mp4").startswith('attachment; filename="a__b_.mp4"')
    assert all(ch.isprintable() for ch in content_disposition("\x1b[31m.mp4"))
    assert content_disposition("  ").startswith('attachment; filename="download"')
