import struct

from stereo_media.hdr import HdrInfo, content_light, master_display, x265_cli_args


def _mastering(primaries, white, lo, hi, flags=(1, 1)):
    values = []
    for x, y in (*primaries, white):
        values += [round(x * 50000), 50000, round(y * 50000), 50000]
    values += [round(lo * 10000), 10000, round(hi * 10000), 10000]
    return struct.pack("<20i", *values) + struct.pack("<ii", *flags)


def test_mastering_metadata_becomes_x265_syntax_in_g_b_r_order():
    raw = _mastering(((0.708, 0.292), (0.17, 0.797), (0.131, 0.046)), (0.3127, 0.329),
                     0.0001, 1000)
    assert master_display(raw) == \
        "G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(10000000,1)"


def test_incomplete_mastering_metadata_is_left_out():
    raw = _mastering(((0, 0), (0, 0), (0, 0)), (0, 0), 0, 0, flags=(0, 1))
    assert master_display(raw) is None
    assert master_display(b"short") is None


def test_content_light_and_x265_params():
    assert content_light(struct.pack("<II", 1000, 400)) == "1000,400"
    info = HdrInfo(bit_depth=10, master_display="G(1,2)", max_cll="1000,400")
    assert info.x265_params == "log-level=error:hdr10=1:master-display=G(1,2):max-cll=1000,400"
    assert HdrInfo(bit_depth=10).x265_params == "log-level=error"


def test_the_command_line_encoder_keeps_colour_in_the_vui_and_can_close_gops():
    info = HdrInfo(bit_depth=10, master_display="G(1,2)", max_cll="1000,400")
    args = x265_cli_args(info, (9, 16, 9, 1), closed_gop=True)
    assert args[:4] == ["-c:v", "libx265", "-pix_fmt", "yuv420p10le"]
    params = args[args.index("-x265-params") + 1].split(":")
    assert {"hdr10=1", "colorprim=9", "transfer=16", "colormatrix=9", "range=limited",
            "open-gop=0"} <= set(params)
    plain = x265_cli_args(HdrInfo(bit_depth=10), (2, 2, 2, 0))  # 10-bit, nothing said
    assert plain[plain.index("-x265-params") + 1] == "log-level=error"
