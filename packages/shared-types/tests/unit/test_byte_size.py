import pytest

from shared_types.byte_size import size_words


@pytest.mark.parametrize(("num_bytes", "words"), [
    (0, "0 bytes"), (1023, "1023 bytes"), (1024, "1.0 KB"), (12 * 1024, "12.0 KB"),
    (340 * 1024 ** 2, "340.0 MB"), (20 * 1024 ** 3, "20.0 GB"), (int(1.5 * 1024 ** 4), "1.5 TB"),
])
def test_byte_counts_read_in_binary_units_as_df_h_shows_them(num_bytes, words):
    assert size_words(num_bytes) == words
